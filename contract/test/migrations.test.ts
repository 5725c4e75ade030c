import { describe, expect, it } from 'vitest';

import {
  MIGRATIONS,
  activeMigrations,
  compareVersions,
  coveringMigration,
  legacyErrorKindFor,
  toV1EnvelopeOfServer,
} from '../src/index.js';
import { expiredMigrations } from '../src/migrations.js';
import type { MigrationEntry } from '../src/index.js';

const SP_THROTTLE: MigrationEntry = {
  id: 'sp-429-to-rate-limited',
  error_codes: ['RATE_LIMITED'],
  servers: ['sp'],
  from_kind: 'sp_api_http',
  to_kind: 'rate_limited',
  introduced_in: '0.3.0',
  removed_in: '0.4.0',
};

const UNKNOWN_TOOL: MigrationEntry = {
  id: 'unknown-tool-to-tool-not-found',
  error_codes: ['TOOL_NOT_FOUND'],
  servers: ['sp', 'ads'],
  from_kind: 'mcp_input_validation',
  to_kind: 'tool_not_found',
  introduced_in: '0.3.0',
  removed_in: '0.4.0',
};

const ADS_THROTTLE: MigrationEntry = {
  id: 'ads-429-to-rate-limited',
  error_codes: ['RATE_LIMITED'],
  servers: ['ads'],
  from_kind: 'ads_api_http',
  to_kind: 'rate_limited',
  introduced_in: '0.5.0',
  removed_in: '0.6.0',
};

const SP_AUTH: MigrationEntry = {
  id: 'sp-401-403-to-auth-error',
  error_codes: ['SP_API_HTTP_401', 'SP_API_HTTP_403'],
  servers: ['sp'],
  from_kind: 'sp_api_http',
  to_kind: 'auth_error',
  introduced_in: '1.2.0',
  removed_in: '1.10.0',
};

/** A v2 entry: every code of upstream_http on sp, shown in v2 envelopes only. */
const SP_HTTP_V2: MigrationEntry = {
  id: 'sp-api-http-to-upstream-http',
  servers: ['sp'],
  contract_version: 2,
  from_kind: 'sp_api_http',
  to_kind: 'upstream_http',
  introduced_in: '2.0.0',
  removed_in: '2.1.0',
};

const TABLE: readonly MigrationEntry[] = [SP_THROTTLE, UNKNOWN_TOOL, ADS_THROTTLE, SP_AUTH];
const TABLE_V2: readonly MigrationEntry[] = [...TABLE, SP_HTTP_V2];

describe('compareVersions', () => {
  it.each([
    ['1.2.3', '1.2.3', 0],
    ['1.2.3', '1.2.4', -1],
    ['1.2.4', '1.2.3', 1],
    ['1.3.0', '1.2.9', 1],
    ['2.0.0', '1.99.99', 1],
    ['1.10.0', '1.9.0', 1],
    ['2.0.0', '10.0.0', -1],
    ['0.0.9', '0.0.10', -1],
    ['1.2.3-rc.1', '1.2.3', 0],
    ['1.2.3+build.7', '1.2.3', 0],
    [' 1.2.3 ', '1.2.3', 0],
  ])('compareVersions(%s, %s) has sign %i', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });

  it.each(['1.2', 'v1.2.3', '=1.2.3', '', '1.2.x', '1.2.3.4', 'latest', '1..3', '1.2.3-!!', '01.2.3'])(
    'throws RangeError for "%s"',
    (version) => {
      expect(() => compareVersions(version, '1.0.0')).toThrow(
        new RangeError(`"${version}" is not a MAJOR.MINOR.PATCH version`),
      );
      expect(() => compareVersions('1.0.0', version)).toThrow(RangeError);
    },
  );
});

describe('activeMigrations', () => {
  it.each([
    ['0.2.9', []],
    ['0.3.0', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found']],
    ['0.3.9', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found']],
    ['0.4.0-rc.1', []],
    ['0.4.0', []],
    ['0.5.0', ['ads-429-to-rate-limited']],
    ['0.6.0', []],
    ['1.2.0', ['sp-401-403-to-auth-error']],
    ['1.9.5', ['sp-401-403-to-auth-error']],
    ['1.10.0', []],
  ])('at %s: %j', (version, ids) => {
    expect(activeMigrations(version, TABLE).map((entry) => entry.id)).toEqual(ids);
  });

  it('returns the entries themselves, in table order', () => {
    expect(activeMigrations('0.3.1', TABLE)).toEqual([SP_THROTTLE, UNKNOWN_TOOL]);
  });

  it('throws RangeError for a malformed version', () => {
    expect(() => activeMigrations('next', TABLE)).toThrow(new RangeError('"next" is not a MAJOR.MINOR.PATCH version'));
  });

  it('throws RangeError for a malformed entry', () => {
    expect(() => activeMigrations('1.0.0', [{ ...UNKNOWN_TOOL, introduced_in: '0.3' }])).toThrow(
      new RangeError('"0.3" is not a MAJOR.MINOR.PATCH version'),
    );
  });
});

describe('expiredMigrations', () => {
  it.each([
    ['0.3.5', []],
    ['0.4.0', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found']],
    ['0.5.2', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found']],
    ['0.6.0', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found', 'ads-429-to-rate-limited']],
    ['1.9.0', ['sp-429-to-rate-limited', 'unknown-tool-to-tool-not-found', 'ads-429-to-rate-limited']],
    [
      '2.0.0',
      [
        'sp-429-to-rate-limited',
        'unknown-tool-to-tool-not-found',
        'ads-429-to-rate-limited',
        'sp-401-403-to-auth-error',
      ],
    ],
  ])('at %s: %j', (version, ids) => {
    expect(expiredMigrations(version, TABLE).map((entry) => entry.id)).toEqual(ids);
  });

  it('throws RangeError for a malformed version', () => {
    expect(() => expiredMigrations('1.0', TABLE)).toThrow(RangeError);
  });
});

describe('coveringMigration', () => {
  const throttled = { error_code: 'RATE_LIMITED', error_kind: 'rate_limited', version: 1 } as const;

  it('finds the entry for the code, kind and server whatever its versions', () => {
    expect(coveringMigration(throttled, 'sp', TABLE)?.id).toBe('sp-429-to-rate-limited');
    expect(coveringMigration(throttled, 'ads', TABLE)?.id).toBe('ads-429-to-rate-limited');
    expect(coveringMigration(throttled, 'other', TABLE)).toBeUndefined();
  });

  it('searches only the entries it is given (a server passes its open ones)', () => {
    expect(coveringMigration(throttled, 'sp', activeMigrations('0.4.0', TABLE))).toBeUndefined();
    expect(coveringMigration(throttled, 'sp', activeMigrations('0.3.0', TABLE))?.from_kind).toBe('sp_api_http');
  });

  it('matches the envelope version: a v1 entry covers v1 envelopes only, a v2 entry v2 ones (the default)', () => {
    expect(coveringMigration({ ...throttled, version: 2 }, 'sp', TABLE)).toBeUndefined();
    const notFound = { error_code: 'UPSTREAM_HTTP_404', error_kind: 'upstream_http' } as const;
    expect(coveringMigration(notFound, 'sp', TABLE_V2)?.id).toBe('sp-api-http-to-upstream-http');
    expect(coveringMigration({ ...notFound, version: 2 }, 'sp', TABLE_V2)?.id).toBe('sp-api-http-to-upstream-http');
    expect(coveringMigration({ ...notFound, version: 1 }, 'sp', TABLE_V2)).toBeUndefined();
  });

  it('an entry without error_codes covers every code of its to_kind, on its servers only', () => {
    for (const code of ['UPSTREAM_HTTP_404', 'UPSTREAM_HTTP_500', 'UPSTREAM_HTTP_409']) {
      expect(coveringMigration({ error_code: code, error_kind: 'upstream_http' }, 'sp', TABLE_V2)?.from_kind).toBe(
        'sp_api_http',
      );
    }
    expect(
      coveringMigration({ error_code: 'UPSTREAM_HTTP_404', error_kind: 'upstream_http' }, 'github', TABLE_V2),
    ).toBe(undefined);
    expect(coveringMigration({ error_code: 'UPSTREAM_HTTP_404', error_kind: 'auth_error' }, 'sp', TABLE_V2)).toBe(
      undefined,
    );
  });
});

describe('legacyErrorKindFor', () => {
  const throttled = { error_code: 'RATE_LIMITED', error_kind: 'rate_limited', version: 1 } as const;

  it.each([
    ['sp', '0.3.0', 'sp_api_http'],
    ['sp', '0.3.4', 'sp_api_http'],
    ['sp', '0.4.0', undefined],
    ['sp', '0.2.0', undefined],
    ['ads', '0.3.0', undefined],
    ['ads', '0.5.0', 'ads_api_http'],
    ['ads', '0.6.0', undefined],
    ['sp', '0.5.0', undefined],
  ])('a throttled envelope from %s at %s -> %s', (server, version, legacy) => {
    expect(legacyErrorKindFor(throttled, server, version, TABLE)).toBe(legacy);
  });

  it('an entry applies to the servers it names only: a server that joins later inherits no window', () => {
    const notFound = { error_code: 'TOOL_NOT_FOUND', error_kind: 'tool_not_found', version: 1 } as const;
    expect(legacyErrorKindFor(notFound, 'sp', '0.3.0', TABLE)).toBe('mcp_input_validation');
    expect(legacyErrorKindFor(notFound, 'ads', '0.3.2', TABLE)).toBe('mcp_input_validation');
    expect(legacyErrorKindFor(notFound, 'github', '0.3.0', TABLE)).toBe(undefined);
  });

  it('an entry without servers (a table written before they were required, or in plain JS) covers no server instead of throwing', () => {
    const named = TABLE.find((entry) => entry.error_codes?.includes('TOOL_NOT_FOUND'))!;
    const table = [Object.fromEntries(Object.entries(named).filter(([key]) => key !== 'servers')) as MigrationEntry];
    const notFound = { error_code: 'TOOL_NOT_FOUND', error_kind: 'tool_not_found', version: 1 } as const;
    expect(legacyErrorKindFor(notFound, 'sp', '0.3.0', table)).toBe(undefined);
    const envelope = {
      error_kind: 'tool_not_found',
      tool: 'nope',
      summary: 'Unknown tool "nope".',
      details: [],
      hints: [],
      examples: [],
      error_code: 'TOOL_NOT_FOUND',
      retryable: false,
      _envelope_version: 2,
    } as const;
    expect(
      toV1EnvelopeOfServer(envelope, { serverId: 'sp', primaryUpstream: 'sp-api', openMigrations: table }),
    ).toEqual({ ...envelope, _envelope_version: 1 });
  });

  it('matches on every listed code', () => {
    expect(
      legacyErrorKindFor({ error_code: 'SP_API_HTTP_401', error_kind: 'auth_error', version: 1 }, 'sp', '1.3.0', TABLE),
    ).toBe('sp_api_http');
    expect(
      legacyErrorKindFor({ error_code: 'SP_API_HTTP_403', error_kind: 'auth_error', version: 1 }, 'sp', '1.3.0', TABLE),
    ).toBe('sp_api_http');
    expect(
      legacyErrorKindFor({ error_code: 'SP_API_HTTP_404', error_kind: 'auth_error', version: 1 }, 'sp', '1.3.0', TABLE),
    ).toBe(undefined);
  });

  it('needs the envelope to carry the new kind', () => {
    expect(
      legacyErrorKindFor({ error_code: 'RATE_LIMITED', error_kind: 'sp_api_http', version: 1 }, 'sp', '0.3.0', TABLE),
    ).toBe(undefined);
    expect(
      legacyErrorKindFor(
        { error_code: 'AUTHENTICATION_ERROR', error_kind: 'auth_error', version: 1 },
        'sp',
        '1.3.0',
        TABLE,
      ),
    ).toBe(undefined);
  });

  it('returns undefined with an empty table', () => {
    expect(legacyErrorKindFor(throttled, 'sp', '0.3.0', [])).toBe(undefined);
  });
});

describe('MIGRATIONS', () => {
  it('pins the v1 reclassifications (open since 0.1.0) and the four v2 entries, open from the development version 0.1.0 so that the first release (0.2.0) ships them', () => {
    expect(
      MIGRATIONS.map((entry) => [
        entry.id,
        entry.error_codes ?? 'any',
        entry.servers,
        entry.contract_version ?? 1,
        entry.from_kind,
        entry.to_kind,
        entry.introduced_in,
        entry.cutover_date,
        entry.removed_in,
      ]),
    ).toEqual([
      [
        'sp-upstream-429-to-rate-limited',
        ['RATE_LIMITED'],
        ['sp'],
        1,
        'sp_api_http',
        'rate_limited',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'ads-upstream-429-to-rate-limited',
        ['RATE_LIMITED'],
        ['ads'],
        1,
        'ads_api_http',
        'rate_limited',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'unknown-tool-to-tool-not-found',
        ['TOOL_NOT_FOUND'],
        ['sp', 'ads'],
        1,
        'mcp_input_validation',
        'tool_not_found',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'sp-401-403-to-auth-error',
        ['SP_API_HTTP_401', 'SP_API_HTTP_403'],
        ['sp'],
        1,
        'sp_api_http',
        'auth_error',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'sp-api-http-to-upstream-http',
        'any',
        ['sp'],
        2,
        'sp_api_http',
        'upstream_http',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'sp-api-client-to-upstream-client',
        'any',
        ['sp'],
        2,
        'sp_api_client',
        'upstream_client',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'ads-api-http-to-upstream-http',
        'any',
        ['ads'],
        2,
        'ads_api_http',
        'upstream_http',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
      [
        'ads-api-client-to-upstream-client',
        'any',
        ['ads'],
        2,
        'ads_api_client',
        'upstream_client',
        '0.1.0',
        '2027-03-01',
        undefined,
      ],
    ]);
  });

  it('every entry names its servers', () => {
    expect(MIGRATIONS.filter((entry) => !Array.isArray(entry.servers) || entry.servers.length === 0)).toEqual([]);
  });

  it('is the default table of every helper; without removed_in a window stays open while the entry is present', () => {
    expect(activeMigrations('0.1.0')).toHaveLength(8);
    expect(activeMigrations('0.2.0')).toHaveLength(8);
    expect(activeMigrations('0.0.9')).toEqual([]);
    expect(expiredMigrations('0.1.5')).toEqual([]);
    expect(expiredMigrations('9.0.0')).toEqual([]);
    const upstream429 = {
      error_code: 'RATE_LIMITED',
      error_kind: 'rate_limited',
      condition: 'upstream_http',
      version: 1,
    } as const;
    expect(legacyErrorKindFor(upstream429, 'sp', '0.1.0')).toBe('sp_api_http');
    expect(legacyErrorKindFor(upstream429, 'ads', '0.1.0')).toBe('ads_api_http');
    // the v1 entries show in v1 envelopes only: the v2 form of the same 429 carries none
    expect(legacyErrorKindFor({ ...upstream429, version: 2 }, 'sp', '0.2.0')).toBe(undefined);
    // the same code from the server's own limiter, or without a condition, never had the old kind
    expect(legacyErrorKindFor({ ...upstream429, condition: 'rate_limiter' }, 'sp', '0.1.0')).toBe(undefined);
    expect(legacyErrorKindFor({ ...upstream429, condition: undefined }, 'ads', '0.1.0')).toBe(undefined);
    expect(
      legacyErrorKindFor({ error_code: 'TOOL_NOT_FOUND', error_kind: 'tool_not_found', version: 1 }, 'ads', '0.1.0'),
    ).toBe('mcp_input_validation');
    expect(
      legacyErrorKindFor(
        { error_code: 'SP_API_HTTP_403', error_kind: 'auth_error', condition: 'upstream_http', version: 1 },
        'sp',
        '0.1.0',
      ),
    ).toBe('sp_api_http');
    expect(
      legacyErrorKindFor({ error_code: 'ADS_API_HTTP_403', error_kind: 'auth_error', version: 1 }, 'ads', '0.1.0'),
    ).toBe(undefined);
  });

  it('the window release 0.2.0: a v2 upstream envelope of SP and Ads carries the v1 kind, a new server none', () => {
    const notFound = { error_code: 'UPSTREAM_HTTP_404', error_kind: 'upstream_http' } as const;
    const timeout = { error_code: 'TOOL_EXECUTION_FAILED', error_kind: 'upstream_client' } as const;
    expect(legacyErrorKindFor(notFound, 'sp', '0.2.0')).toBe('sp_api_http');
    expect(legacyErrorKindFor(timeout, 'sp', '0.2.0')).toBe('sp_api_client');
    expect(legacyErrorKindFor(notFound, 'ads', '0.2.0')).toBe('ads_api_http');
    expect(legacyErrorKindFor(timeout, 'ads', '0.2.0')).toBe('ads_api_client');
    expect(legacyErrorKindFor(notFound, 'github', '0.2.0')).toBe(undefined);
    expect(
      legacyErrorKindFor({ error_code: 'SCHEMA_REQUIRED', error_kind: 'mcp_input_validation' }, 'github', '0.2.0'),
    ).toBe(undefined);
    expect(legacyErrorKindFor(notFound, 'sp', '0.0.9')).toBe(undefined);
  });
});

describe('toV1EnvelopeOfServer', () => {
  const sp = { serverId: 'sp', primaryUpstream: 'sp-api', openMigrations: activeMigrations('0.1.0') };
  const throttled = {
    error_kind: 'rate_limited',
    tool: 'getOrders',
    summary: 'throttled',
    details: [],
    hints: [],
    examples: [],
    error_code: 'RATE_LIMITED',
    retryable: true,
    _envelope_version: 2,
  } as const;

  it("gives a verdict on the fronted API's answer the v1 window's legacy kind, and nothing else", () => {
    expect(toV1EnvelopeOfServer({ ...throttled, upstream: 'sp-api' }, sp)).toEqual({
      ...throttled,
      _envelope_version: 1,
      legacy_error_kind: 'sp_api_http',
    });
    // the identity service and the server's own limiter never had the fronted API's old kind
    expect(toV1EnvelopeOfServer({ ...throttled, upstream: 'openbridge' }, sp)).toEqual({
      ...throttled,
      _envelope_version: 1,
    });
    expect(toV1EnvelopeOfServer(throttled, sp)).toEqual({ ...throttled, _envelope_version: 1 });
    expect(toV1EnvelopeOfServer({ ...throttled, upstream: 'github' }, sp)).toBe(undefined);
  });
});
