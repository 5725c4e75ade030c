/**
 * Version 1 beside version 2: the projection a reader of v1 gets, the upgrade a reader of v2
 * applies, and the choice of version per client.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ERROR_KINDS_V1,
  V1_UPSTREAMS,
  contractVersionsFor,
  negotiateContractVersion,
  speaksV1,
  statedContractVersions,
  toV1Envelope,
  toV1Meta,
  upgradeEnvelope,
  validateEnvelope,
} from '../src/index.js';
import type { ContractVersion, ErrorEnvelope, ErrorEnvelopeV1 } from '../src/index.js';
import { MINIMAL_ENVELOPE, SP_NOT_FOUND_ENVELOPE, asV1, without } from './envelope-fixtures.js';

const RUNS = 300;

describe('V1_UPSTREAMS and speaksV1', () => {
  it('pins how version 1 spelled each upstream', () => {
    expect(V1_UPSTREAMS).toEqual({
      'sp-api': { http_kind: 'sp_api_http', client_kind: 'sp_api_client', http_code_prefix: 'SP_API_HTTP_' },
      openbridge: { http_kind: 'sp_api_http', client_kind: 'sp_api_client', http_code_prefix: 'OPENBRIDGE_HTTP_' },
      'ads-api': { http_kind: 'ads_api_http', client_kind: 'ads_api_client', http_code_prefix: 'ADS_API_HTTP_' },
    });
    expect(Object.isFrozen(V1_UPSTREAMS) && Object.isFrozen(V1_UPSTREAMS['sp-api'])).toBe(true);
  });

  it.each([
    [['sp-api', 'openbridge'], true, [1, 2]],
    [['ads-api'], true, [1, 2]],
    [['github'], false, [2]],
    [['sp-api', 'github'], false, [2]],
    [[], false, [2]],
    [['constructor'], false, [2]],
    [['__proto__'], false, [2]],
    [['hasOwnProperty'], false, [2]],
  ])('%j: speaksV1 %s, versions %j', (upstreams, speaks, versions) => {
    expect(speaksV1(upstreams)).toBe(speaks);
    expect(contractVersionsFor(new Set(upstreams))).toEqual(versions);
  });
});

describe('toV1Envelope', () => {
  it('an SP-API 404 during the window: the v1 kind and code, no upstream, no legacy value, v1 rate_limit keys', () => {
    expect(toV1Envelope(SP_NOT_FOUND_ENVELOPE)).toEqual({
      error_kind: 'sp_api_http',
      tool: 'get_order',
      summary: 'SP-API answered HTTP 404: the order does not exist for this seller.',
      details: [{ path: 'orderId', issue: 'not found upstream', received_type: 'string', http_status: 404 }],
      hints: ['Check the order id; list_orders returns the ids this seller can read.'],
      examples: [],
      error_code: 'SP_API_HTTP_404',
      retryable: false,
      _envelope_version: 1,
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 3 } },
    });
  });

  it.each([
    ['openbridge', 'upstream_http', 'UPSTREAM_HTTP_502', 'sp_api_http', 'OPENBRIDGE_HTTP_502'],
    ['ads-api', 'upstream_http', 'UPSTREAM_HTTP_503', 'ads_api_http', 'ADS_API_HTTP_503'],
    ['ads-api', 'upstream_client', 'TOOL_EXECUTION_FAILED', 'ads_api_client', 'TOOL_EXECUTION_FAILED'],
    ['sp-api', 'upstream_client', 'BODY_COERCION_INVALID_JSON', 'sp_api_client', 'BODY_COERCION_INVALID_JSON'],
    ['sp-api', 'auth_error', 'UPSTREAM_HTTP_403', 'auth_error', 'SP_API_HTTP_403'],
    ['ads-api', 'rate_limited', 'RATE_LIMITED', 'rate_limited', 'RATE_LIMITED'],
  ] as const)('%s %s %s -> %s %s', (upstream, kind, code, kindV1, codeV1) => {
    const projected = toV1Envelope({ ...MINIMAL_ENVELOPE, error_kind: kind, error_code: code, upstream });
    expect([
      projected?.error_kind,
      projected?.error_code,
      projected?._envelope_version,
      projected?.['upstream'],
    ]).toEqual([kindV1, codeV1, 1, undefined]);
  });

  it('SERVER_BUSY reaches a reader of v1 unchanged but for the version: v1 knew rate_limited, and its codes are open', () => {
    const busy: ErrorEnvelope = {
      error_kind: 'rate_limited',
      tool: 'list_orders',
      summary: 'This server is busy: 8 calls to list_orders are already running (its limit).',
      details: [
        { path: '', issue: 'refused before any upstream call', received_type: 'object', scope: 'tool', limit: 8 },
      ],
      hints: ['Wait 0.4 s (_meta.retry_after_seconds), then call list_orders again.'],
      examples: [],
      error_code: 'SERVER_BUSY',
      retryable: true,
      _envelope_version: 2,
      _meta: { retry_after_seconds: 0.4 },
    };
    const projected = toV1Envelope(busy);
    expect(projected).toEqual({ ...busy, _envelope_version: 1 });
    expect(validateEnvelope(projected)).toEqual({ valid: true, version: 1 });
  });

  it('a failure of the server itself projects unchanged but for the version', () => {
    expect(toV1Envelope(MINIMAL_ENVELOPE)).toEqual({ ...MINIMAL_ENVELOPE, _envelope_version: 1 });
  });

  it.each(['github', 'example-api', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'undefined for an envelope naming upstream "%s", which v1 never knew',
    (upstream) => {
      for (const [kind, code] of [
        ['upstream_http', 'UPSTREAM_HTTP_404'],
        ['upstream_client', 'TOOL_EXECUTION_FAILED'],
        ['auth_error', 'UPSTREAM_HTTP_401'],
        ['rate_limited', 'RATE_LIMITED'],
      ] as const) {
        expect(toV1Envelope({ ...MINIMAL_ENVELOPE, error_kind: kind, error_code: code, upstream })).toBeUndefined();
      }
    },
  );

  it('undefined for an upstream kind or code without any upstream', () => {
    expect(toV1Envelope({ ...MINIMAL_ENVELOPE, error_kind: 'upstream_http' })).toBeUndefined();
    expect(toV1Envelope({ ...MINIMAL_ENVELOPE, error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_401' })).toBe(
      undefined,
    );
  });

  it('undefined, never a TypeError, for input that is not an envelope it can read', () => {
    for (const malformed of [
      { ...SP_NOT_FOUND_ENVELOPE, error_code: undefined },
      without(SP_NOT_FOUND_ENVELOPE, 'error_code'),
      { ...SP_NOT_FOUND_ENVELOPE, error_code: 404 },
      without(MINIMAL_ENVELOPE, 'error_kind'),
      { ...MINIMAL_ENVELOPE, _meta: null },
      null,
      'not an envelope',
      [MINIMAL_ENVELOPE],
    ]) {
      expect(toV1Envelope(malformed as unknown as ErrorEnvelope)).toBeUndefined();
    }
  });

  it('leaves out a _meta that only v2 keys filled, as v1 servers never sent an empty one', () => {
    const onlyWindow = { ...MINIMAL_ENVELOPE, _meta: { rate_limit: { limit: 5000, window_seconds: 3600 } } };
    expect(toV1Envelope(onlyWindow)).toEqual({ ...MINIMAL_ENVELOPE, _envelope_version: 1 });
    expect(toV1Envelope({ ...MINIMAL_ENVELOPE, _meta: {} })).toEqual({ ...MINIMAL_ENVELOPE, _envelope_version: 1 });
    const withId = { ...MINIMAL_ENVELOPE, _meta: { rate_limit: { limit: 5000 }, correlation_id: 'corr-7' } };
    expect(toV1Envelope(withId)).toEqual({
      ...MINIMAL_ENVELOPE,
      _envelope_version: 1,
      _meta: { correlation_id: 'corr-7' },
    });
  });

  it('toV1Meta keeps limit_per_second, remaining and reset_at, and drops a rate_limit left empty', () => {
    expect(
      toV1Meta({ rate_limit: { limit: 5000, window_seconds: 3600, reset_after_seconds: 12 }, correlation_id: 'c' }),
    ).toEqual({ correlation_id: 'c' });
    expect(
      toV1Meta({ rate_limit: { limit: 2, window_seconds: 1, limit_per_second: 2, reset_at: '1741079700' } }),
    ).toEqual({ rate_limit: { limit_per_second: 2, reset_at: '1741079700' } });
    const plain = { retry_after_seconds: 3 };
    expect(toV1Meta(plain)).toBe(plain);
  });
});

/** The v2 form of an envelope that has one; throws (failing the test) when the upgrade gave none. */
function upgradeOf(envelope: ErrorEnvelopeV1): ErrorEnvelope {
  const upgraded = upgradeEnvelope(envelope);
  if (upgraded === undefined) throw new Error(`expected a v2 form of ${JSON.stringify(envelope)}`);
  return upgraded;
}

describe('upgradeEnvelope', () => {
  const v1 = (fields: Partial<ErrorEnvelopeV1>): ErrorEnvelopeV1 => ({
    ...MINIMAL_ENVELOPE,
    _envelope_version: 1,
    ...fields,
  });

  it.each([
    ['sp_api_http', 'SP_API_HTTP_404', 'upstream_http', 'UPSTREAM_HTTP_404', 'sp-api'],
    ['sp_api_http', 'OPENBRIDGE_HTTP_502', 'upstream_http', 'UPSTREAM_HTTP_502', 'openbridge'],
    ['sp_api_client', 'TOOL_EXECUTION_FAILED', 'upstream_client', 'TOOL_EXECUTION_FAILED', 'sp-api'],
    ['ads_api_http', 'ADS_API_HTTP_500', 'upstream_http', 'UPSTREAM_HTTP_500', 'ads-api'],
    ['ads_api_client', 'BODY_COERCION_INVALID_JSON', 'upstream_client', 'BODY_COERCION_INVALID_JSON', 'ads-api'],
    ['auth_error', 'SP_API_HTTP_401', 'auth_error', 'UPSTREAM_HTTP_401', 'sp-api'],
    ['auth_error', 'ADS_API_HTTP_403', 'auth_error', 'UPSTREAM_HTTP_403', 'ads-api'],
    ['auth_error', 'AUTHENTICATION_ERROR', 'auth_error', 'AUTHENTICATION_ERROR', undefined],
    ['rate_limited', 'RATE_LIMITED', 'rate_limited', 'RATE_LIMITED', undefined],
    ['tool_not_found', 'TOOL_NOT_FOUND', 'tool_not_found', 'TOOL_NOT_FOUND', undefined],
  ] as const)('%s %s -> %s %s, upstream %s', (kind, code, kindV2, codeV2, upstream) => {
    const upgraded = upgradeOf(v1({ error_kind: kind, error_code: code }));
    expect([upgraded.error_kind, upgraded.error_code, upgraded._envelope_version, upgraded.upstream]).toEqual([
      kindV2,
      codeV2,
      2,
      upstream,
    ]);
    expect(validateEnvelope(upgraded)).toEqual({ valid: true, version: 2 });
    expect(Object.hasOwn(upgraded, 'upstream')).toBe(upstream !== undefined);
  });

  it('a v1 kind and a code of different upstreams still give a v2 kind (the code names the upstream)', () => {
    const upgraded = upgradeOf(v1({ error_kind: 'sp_api_http', error_code: 'ADS_API_HTTP_500' }));
    expect([upgraded.error_kind, upgraded.error_code, upgraded.upstream]).toEqual([
      'upstream_http',
      'UPSTREAM_HTTP_500',
      'ads-api',
    ]);
    expect(validateEnvelope(upgraded)).toEqual({ valid: true, version: 2 });
  });

  it('keeps a v1 legacy_error_kind and a v1 _meta', () => {
    const upgraded = upgradeOf(
      v1({
        error_kind: 'rate_limited',
        error_code: 'RATE_LIMITED',
        legacy_error_kind: 'sp_api_http',
        _meta: { rate_limit: { limit_per_second: 1, remaining: 0 }, retry_after_seconds: 2 },
      }),
    );
    expect([upgraded.legacy_error_kind, upgraded._meta]).toEqual([
      'sp_api_http',
      { rate_limit: { limit_per_second: 1, remaining: 0 }, retry_after_seconds: 2 },
    ]);
    expect(validateEnvelope(upgraded)).toEqual({ valid: true, version: 2 });
  });

  it('undefined, never a TypeError, for input that is not a v1 envelope it can read', () => {
    for (const malformed of [
      { ...asV1(MINIMAL_ENVELOPE), error_code: undefined },
      without(asV1(MINIMAL_ENVELOPE), 'error_code'),
      { ...asV1(MINIMAL_ENVELOPE), error_kind: 7 },
      null,
      42,
    ]) {
      expect(upgradeEnvelope(malformed as unknown as ErrorEnvelopeV1)).toBeUndefined();
    }
  });

  it('undefined when v2 would need an upstream v1 never named: an UPSTREAM_HTTP_ code outside the vendor kinds', () => {
    const orphan = v1({ error_kind: 'internal_error', error_code: 'UPSTREAM_HTTP_500' });
    expect(validateEnvelope(orphan)).toEqual({ valid: true, version: 1 });
    expect(upgradeEnvelope(orphan)).toBeUndefined();
    // an extra key v1 ignored but v2 reads: kept when it is a valid upstream name, else the upgrade cannot be made
    const named = upgradeEnvelope({ ...orphan, upstream: 'github' });
    expect(named).toEqual({
      ...MINIMAL_ENVELOPE,
      error_kind: 'internal_error',
      error_code: 'UPSTREAM_HTTP_500',
      upstream: 'github',
    });
    expect(validateEnvelope(named)).toEqual({ valid: true, version: 2 });
    const invalidName = { ...v1({}), upstream: 'Not An Upstream' } as ErrorEnvelopeV1;
    expect(validateEnvelope(invalidName)).toEqual({ valid: true, version: 1 });
    expect(upgradeEnvelope(invalidName)).toBeUndefined();
    // a vendor kind names its upstream, whatever the extra key says
    const vendor = upgradeEnvelope({
      ...v1({ error_kind: 'ads_api_http', error_code: 'UPSTREAM_HTTP_500' }),
      upstream: 7,
    });
    expect([vendor?.error_kind, vendor?.error_code, vendor?.upstream]).toEqual([
      'upstream_http',
      'UPSTREAM_HTTP_500',
      'ads-api',
    ]);
  });

  it('what v1 could not say stays unsaid: a 429 loses its upstream, the identity service outside HTTP reads as sp-api', () => {
    const throttled = { ...SP_NOT_FOUND_ENVELOPE, error_kind: 'rate_limited', error_code: 'RATE_LIMITED' } as const;
    expect(upgradeOf(toV1Envelope(throttled) as ErrorEnvelopeV1).upstream).toBeUndefined();
    const identity = { ...MINIMAL_ENVELOPE, error_kind: 'upstream_client', upstream: 'openbridge' } as const;
    expect(upgradeOf(toV1Envelope(identity) as ErrorEnvelopeV1).upstream).toBe('sp-api');
  });
});

/** A valid v2 envelope naming a v1 upstream in a way its v1 form keeps (an UPSTREAM_HTTP_ code or an upstream kind). */
function recoverableEnvelopeArbitrary(): fc.Arbitrary<ErrorEnvelope> {
  const status = fc.integer({ min: 100, max: 599 });
  const otherCode = fc.constantFrom('TOOL_EXECUTION_FAILED', 'BODY_COERCION_INVALID_JSON', 'X9_UPSTREAM_TIMEOUT');
  const head = fc.oneof(
    fc.record({
      upstream: fc.constantFrom('sp-api', 'openbridge', 'ads-api'),
      error_kind: fc.constantFrom('upstream_http', 'auth_error'),
      error_code: status.map((value) => `UPSTREAM_HTTP_${value}`),
    }),
    fc.record({
      // the identity service's kinds are SP's, so only its prefixed codes name it in v1
      upstream: fc.constantFrom('sp-api', 'ads-api'),
      error_kind: fc.constantFrom('upstream_http', 'upstream_client'),
      error_code: otherCode,
    }),
  );
  const rateLimit = fc.record(
    {
      limit: fc.oneof(fc.nat(), fc.constant('n/a')),
      window_seconds: fc.constantFrom(1, 60, 3600, 86400, 0.5),
      limit_per_second: fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.constant('2')),
      remaining: fc.oneof(fc.nat(), fc.constant('0 ')),
      reset_at: fc.string(),
      reset_after_seconds: fc.double({ min: 0, max: 1e6, noNaN: true }),
    },
    { requiredKeys: [] },
  );
  const meta = fc.record(
    {
      rate_limit: rateLimit.filter((value) => Object.keys(value).length > 0),
      retry_after_seconds: fc.double({ min: 0, max: 3600, noNaN: true }),
      correlation_id: fc.constant('corr-1'),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      head,
      retryable: fc.boolean(),
      legacy: fc.option(fc.constantFrom('sp_api_http', 'ads_api_client', 'upstream_http'), { nil: undefined }),
      meta: fc.option(meta, { nil: undefined }),
      tool: fc.constantFrom('get_order', 'list_campaigns', 'unknown_tool'),
    })
    .map(({ head: { upstream, error_kind, error_code }, retryable, legacy, meta: _meta, tool }) => ({
      ...MINIMAL_ENVELOPE,
      tool,
      upstream,
      error_kind,
      error_code,
      retryable,
      ...(legacy === undefined ? {} : { legacy_error_kind: legacy }),
      ...(_meta === undefined ? {} : { _meta }),
    }));
}

/** `envelope` as its upgraded v1 form must read: no legacy value, the rate_limit keys v1 has, no empty `_meta`. */
function withoutV2Only(envelope: ErrorEnvelope): ErrorEnvelope {
  const expected: Record<string, unknown> = { ...envelope };
  delete expected['legacy_error_kind'];
  const meta = envelope._meta;
  if (meta === undefined) return expected as ErrorEnvelope;
  const expectedMeta: Record<string, unknown> = { ...meta };
  delete expectedMeta['rate_limit'];
  const kept = Object.fromEntries(
    Object.entries(meta.rate_limit ?? {}).filter(([key]) =>
      ['limit_per_second', 'remaining', 'reset_at'].includes(key),
    ),
  );
  if (Object.keys(kept).length > 0) expectedMeta['rate_limit'] = kept;
  // the v1 form leaves out a `_meta` it left empty
  if (Object.keys(expectedMeta).length === 0) delete expected['_meta'];
  else expected['_meta'] = expectedMeta;
  return expected as ErrorEnvelope;
}

describe('the round trip (property)', () => {
  it('every generated envelope is a valid v2 envelope', () => {
    fc.assert(
      fc.property(recoverableEnvelopeArbitrary(), (envelope) => {
        expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
      }),
      { numRuns: RUNS },
    );
  });

  it('upgradeEnvelope(toV1Envelope(e)) is e without legacy_error_kind and the v2-only rate_limit keys; every projection is valid v1', () => {
    fc.assert(
      fc.property(recoverableEnvelopeArbitrary(), (envelope) => {
        const projected = toV1Envelope(envelope);
        expect(projected).toBeDefined();
        expect(validateEnvelope(projected)).toEqual({ valid: true, version: 1 });
        expect(upgradeEnvelope(projected as ErrorEnvelopeV1)).toEqual(withoutV2Only(envelope));
      }),
      { numRuns: RUNS },
    );
  });
});

/**
 * Any envelope the v1 schema accepts: every v1 kind, codes of every prefix (the v2 one too, which v1
 * did not reserve), v1 legacy kinds and `_meta`, and an extra `upstream` key, which v1 ignored.
 */
function v1EnvelopeArbitrary(): fc.Arbitrary<ErrorEnvelopeV1> {
  const status = fc.integer({ min: 100, max: 599 });
  const prefix = fc.constantFrom('SP_API_HTTP_', 'OPENBRIDGE_HTTP_', 'ADS_API_HTTP_', 'UPSTREAM_HTTP_');
  const code = fc.oneof(
    fc.tuple(prefix, status).map(([head, value]) => `${head}${value}`),
    fc.constantFrom('RATE_LIMITED', 'TOOL_EXECUTION_FAILED', 'UPSTREAM_HTTP_', 'SP_API_HTTP_X'),
    fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/),
  );
  const extraUpstream = fc.oneof(
    fc.constantFrom('github', 'sp-api', 'ads-api', 'Not Valid', ''),
    fc.string(),
    fc.integer(),
  );
  const meta = fc.record(
    {
      rate_limit: fc.record(
        { limit_per_second: fc.nat(), remaining: fc.oneof(fc.nat(), fc.constant('0 ')), reset_at: fc.string() },
        { requiredKeys: [] },
      ),
      retry_after_seconds: fc.nat(),
      correlation_id: fc.constant('corr-1'),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      error_kind: fc.constantFrom(...ERROR_KINDS_V1),
      error_code: code,
      retryable: fc.boolean(),
      legacy: fc.option(fc.constantFrom(...ERROR_KINDS_V1), { nil: undefined }),
      meta: fc.option(meta, { nil: undefined }),
      upstream: fc.option(extraUpstream, { nil: undefined }),
    })
    .map(({ error_kind, error_code, retryable, legacy, meta: _meta, upstream }) => ({
      ...asV1(MINIMAL_ENVELOPE),
      error_kind,
      error_code,
      retryable,
      ...(legacy === undefined ? {} : { legacy_error_kind: legacy }),
      ...(_meta === undefined ? {} : { _meta }),
      ...(upstream === undefined ? {} : { upstream }),
    }))
    .filter((envelope) => validateEnvelope(envelope).valid);
}

describe('upgradeEnvelope on every valid v1 envelope (property)', () => {
  it('gives a schema-valid v2 envelope, or undefined only for an UPSTREAM_HTTP_ code or an extra upstream key', () => {
    fc.assert(
      fc.property(v1EnvelopeArbitrary(), (envelope) => {
        const upgraded = upgradeEnvelope(envelope);
        if (upgraded === undefined) {
          const extra = Object.hasOwn(envelope, 'upstream');
          expect(envelope.error_code.startsWith('UPSTREAM_HTTP_') || extra).toBe(true);
        } else {
          expect(validateEnvelope(upgraded)).toEqual({ valid: true, version: 2 });
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('toV1Envelope and upgradeEnvelope never throw, whatever a caller leaves out or puts in the fields they read', () => {
    const fields = ['error_kind', 'error_code', 'upstream', '_meta', 'legacy_error_kind', '_envelope_version'];
    const mangled = fc.record({
      drop: fc.subarray(fields),
      set: fc.dictionary(fc.constantFrom(...fields), fc.anything()),
    });
    fc.assert(
      fc.property(mangled, fc.anything(), ({ drop, set }, other) => {
        const kept = Object.entries(SP_NOT_FOUND_ENVELOPE).filter(([name]) => !drop.includes(name));
        const input = { ...Object.fromEntries(kept), ...set };
        expect(() => toV1Envelope(input as unknown as ErrorEnvelope)).not.toThrow();
        expect(() => upgradeEnvelope({ ...asV1(input), ...set } as unknown as ErrorEnvelopeV1)).not.toThrow();
        expect(() => toV1Envelope(other as ErrorEnvelope)).not.toThrow();
        expect(() => upgradeEnvelope(other as ErrorEnvelopeV1)).not.toThrow();
      }),
      { numRuns: RUNS },
    );
  });
});

describe('statedContractVersions and negotiateContractVersion', () => {
  it.each([
    [{ contract_versions: [1, 2] }, [1, 2]],
    [{ contract_versions: [2] }, [2]],
    [{ contract_versions: [2, 1, 2] }, [1, 2]],
    [{ contract_versions: [3, '2', 1.5, null] }, []],
    [{ contract_versions: [] }, []],
    [{ contract_versions: '1,2' }, undefined],
    [{ contract_version: 2 }, undefined],
    [{}, undefined],
    [null, undefined],
    ['[1,2]', undefined],
    [[1, 2], undefined],
  ])('statedContractVersions(%j) -> %j', (stated, versions) => {
    expect(statedContractVersions(stated)).toEqual(versions);
  });

  it.each<[readonly ContractVersion[] | undefined, readonly ContractVersion[], ContractVersion]>([
    [undefined, [1, 2], 1],
    [[], [1, 2], 1],
    [[1], [1, 2], 1],
    [[2], [1, 2], 2],
    [[1, 2], [1, 2], 2],
    [undefined, [2], 2],
    [[1], [2], 2],
    [[1, 2], [2], 2],
    [[2], [1], 1],
  ])('stated %j, spoken %j -> %i', (stated, spoken, version) => {
    expect(negotiateContractVersion(stated, spoken)).toBe(version);
  });

  it('a client stating a later version only gets the default', () => {
    expect(negotiateContractVersion(statedContractVersions({ contract_versions: [3] }), [1, 2])).toBe(1);
  });
});
