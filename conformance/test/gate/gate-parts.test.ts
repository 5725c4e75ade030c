import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { checkCases, readCase, readCases } from '../../src/gate/cases.js';
import { parseDescriptor } from '../../src/gate/descriptor.js';
import { fixturePlan } from '../../src/gate/fixture-plan.js';
import { compareFixtures, fixtureText, normalizeRunValues, payloadOf } from '../../src/gate/fixtures.js';
import type { GeneratedFixture } from '../../src/gate/fixtures.js';
import { judgeCase } from '../../src/gate/gate.js';
import { envelopeShape, parityLabel, parityRows } from '../../src/gate/parity.js';
import { twinProblems } from '../../src/gate/twins.js';
import { renderGateReport, totalsOf } from '../../src/gate/gate-report.js';
import type { GateReport } from '../../src/gate/gate-report.js';
import { splitCommandLine } from '../../src/command-line.js';
import { quoteWord, serverCommandLine, serverLaunch, variantEnv } from '../../src/gate/reference-servers.js';
import { GATED, setupOn } from '../helpers/gate-servers.js';

const FIXTURE_SCENARIOS = fixturePlan(GATED);

const ENVELOPE = {
  error_kind: 'rate_limited',
  tool: 'list_profiles',
  summary: 'Throttled.',
  details: [{ path: '', issue: 'slow down', received_type: 'object' }],
  hints: ['Wait 2 s.'],
  examples: [],
  error_code: 'RATE_LIMITED',
  retryable: true,
  _envelope_version: 1,
  legacy_error_kind: 'ads_api_http',
  _meta: { retry_after_seconds: 2 },
};

/** The same condition as {@link ENVELOPE} as a reader of version 2 gets it. */
const ENVELOPE_V2 = {
  ...ENVELOPE,
  _envelope_version: 2,
  upstream: 'ads-api',
  legacy_error_kind: undefined,
  _meta: { retry_after_seconds: 2 },
};

function errorResult(envelope: Record<string, unknown>): { type: 'result'; result: unknown } {
  return {
    type: 'result',
    result: { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope },
  };
}

describe('judgeCase', () => {
  const expected = {
    outcome: 'error',
    error_kind: 'rate_limited',
    error_code: 'RATE_LIMITED',
    retryable: true,
    legacy_error_kind: 'ads_api_http',
    _meta: { retry_after_seconds: 2 },
  } as const;

  it('passes an envelope that matches field by field, ignoring _meta.normalized', () => {
    const judged = judgeCase(
      expected,
      errorResult({
        ...ENVELOPE,
        _meta: {
          ...ENVELOPE._meta,
          normalized: [{ kind: 'renamed', from: 'A', to: 'a', reason: 'schema_canonical_key' }],
        },
      }),
      1,
    );
    expect(judged).toEqual({
      got: 'rate_limited/RATE_LIMITED retryable=true legacy=ads_api_http _meta{retry_after_seconds}',
      differences: [],
    });
  });

  it('names every field that differs', () => {
    const judged = judgeCase(
      expected,
      errorResult({
        ...ENVELOPE,
        error_kind: 'ads_api_http',
        retryable: false,
        legacy_error_kind: undefined,
        _meta: { retry_after_seconds: 3 },
      }),
      1,
    );
    expect(judged.differences).toEqual([
      'error_kind ads_api_http, expected rate_limited',
      'retryable false, expected true',
      'legacy_error_kind absent, expected ads_api_http',
      '_meta is {"retry_after_seconds":3}, expected {"retry_after_seconds":2}',
    ]);
  });

  it('judges a version 1 reader against expected_v1 and a version 2 reader against expected, upstream included', () => {
    const v2 = {
      outcome: 'error',
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      upstream: 'ads-api',
      retryable: true,
      _meta: { retry_after_seconds: 2 },
    } as const;
    expect(judgeCase(expected, errorResult(ENVELOPE), 1).differences).toEqual([]);
    expect(judgeCase(v2, errorResult(ENVELOPE_V2), 2)).toEqual({
      got: 'rate_limited/RATE_LIMITED upstream=ads-api retryable=true _meta{retry_after_seconds}',
      differences: [],
    });
    expect(judgeCase(v2, errorResult({ ...ENVELOPE_V2, upstream: 'sp-api' }), 2).differences).toEqual([
      'upstream sp-api, expected ads-api',
    ]);
  });

  it('requires the effect_unknown detail exactly when the case says effect_unknown', () => {
    const timedOut = {
      ...ENVELOPE_V2,
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_504',
      retryable: false,
      _meta: undefined,
    };
    const effectDetail = { path: '', issue: 'may have acted', received_type: 'null', reason: 'effect_unknown' };
    const unknown = {
      outcome: 'error',
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_504',
      upstream: 'ads-api',
      retryable: false,
      effect_unknown: true,
    } as const;
    const withDetail = errorResult({ ...timedOut, details: [effectDetail, ...timedOut.details] });
    expect(judgeCase(unknown, withDetail, 2).differences).toEqual([]);
    expect(judgeCase(unknown, errorResult(timedOut), 2).differences).toEqual([
      'no effect_unknown detail, expected one',
    ]);
    const plain = {
      outcome: 'error',
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_504',
      upstream: 'ads-api',
      retryable: false,
    } as const;
    expect(judgeCase(plain, withDetail, 2).differences).toEqual(['an effect_unknown detail, expected none']);
  });

  it('an envelope of the other version is read, then fails the strict check of the version the reader gets', () => {
    const judged = judgeCase(expected, errorResult(ENVELOPE_V2), 1);
    expect(judged.got).toBe('rate_limited/RATE_LIMITED upstream=ads-api retryable=true _meta{retry_after_seconds}');
    expect(judged.differences[0]).toMatch(/^not a valid version 1 envelope: /);
    expect(judged.differences.slice(1)).toEqual([
      'upstream ads-api, expected absent',
      'legacy_error_kind absent, expected ads_api_http',
    ]);
  });

  it('a success is told by isError alone, even when its body has an error key', () => {
    const result = {
      content: [],
      structuredContent: {
        success: [],
        error: [{ index: 0 }],
        _meta: { warnings: [{ kind: 'partial_results', summary: 's', details: [], hints: [] }] },
      },
    };
    expect(
      judgeCase(
        {
          outcome: 'success',
          _meta: { warnings: [{ kind: 'partial_results', summary: 's', details: [], hints: [] }] },
        },
        { type: 'result', result },
      ),
    ).toEqual({ got: 'success _meta{warnings}', differences: [] });
    expect(judgeCase(expected, { type: 'result', result }).differences).toEqual(['expected an error envelope']);
  });

  it('a success expected but an envelope arrived, or the call threw', () => {
    expect(judgeCase({ outcome: 'success' }, errorResult(ENVELOPE))).toEqual({
      got: 'rate_limited/RATE_LIMITED',
      differences: ['expected a success'],
    });
    expect(judgeCase({ outcome: 'success' }, { type: 'thrown', error: new Error('Connection closed') })).toEqual({
      got: 'call failed',
      differences: ['no result: Connection closed'],
    });
  });
});

describe('parity on version 2 kinds', () => {
  const upstream503 = FIXTURE_SCENARIOS.find((scenario) => scenario.parity === 'upstream 503')!;
  const fixture = (server: 'sp' | 'ads', payload: Record<string, unknown>): GeneratedFixture => ({
    server,
    scenario: upstream503,
    version: 2,
    document: {},
    payload,
    problems: [],
  });
  const sp = { ...ENVELOPE_V2, error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_503', upstream: 'sp-api' };
  const ads = { ...sp, upstream: 'ads-api' };

  it('the same kind and code with each server naming its own upstream is parity', () => {
    expect(parityLabel(sp)).toBe('upstream_http/UPSTREAM_HTTP_503 retryable=true upstream=named');
    const row = parityRows([fixture('sp', sp), fixture('ads', ads)]).find((entry) => entry.check === 'upstream 503');
    expect(row).toMatchObject({ check: 'upstream 503', result: 'PASS', note: '' });
  });

  it('a server-specific kind or code, or a missing upstream, breaks parity', () => {
    const vendor = { ...ads, error_kind: 'ads_api_http', error_code: 'ADS_API_HTTP_503' };
    const rowFor = (fixtures: GeneratedFixture[]) =>
      parityRows(fixtures).find((entry) => entry.check === 'upstream 503');
    expect(rowFor([fixture('sp', sp), fixture('ads', vendor)])).toMatchObject({
      result: 'FAIL',
      note: 'sp upstream_http/UPSTREAM_HTTP_503 retryable=true upstream=named but ads ads_api_http/ADS_API_HTTP_503 retryable=true upstream=named',
    });
    // each server's vendor kind and code, which the old prefix rewriting let through as one
    const spVendor = { ...sp, error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_503' };
    expect(rowFor([fixture('sp', spVendor), fixture('ads', vendor)])?.result).toBe('FAIL');
    const anonymous: Record<string, unknown> = { ...ads };
    delete anonymous['upstream'];
    expect(rowFor([fixture('sp', sp), fixture('ads', anonymous)])?.note).toContain('upstream=none');
    // a v1 fixture is not what parity compares, whatever it holds
    expect(rowFor([fixture('sp', sp), fixture('ads', ads), { ...fixture('ads', vendor), version: 1 }])?.result).toBe(
      'PASS',
    );
  });

  it('a _meta key the server decides must match; the upstream headers echoed in rate_limit and warnings need not', () => {
    const rowFor = (fixtures: GeneratedFixture[]) =>
      parityRows(fixtures).find((entry) => entry.check === 'upstream 503');
    const withHeaders = {
      ...ads,
      _meta: { retry_after_seconds: 2, rate_limit: { limit: 5000, remaining: 4999 }, warnings: [] },
    };
    expect(rowFor([fixture('sp', sp), fixture('ads', withHeaders)])).toMatchObject({ result: 'PASS', note: '' });
    const headersOnly = { ...ads, _meta: { rate_limit: { limit: 60 } } };
    const noMeta: Record<string, unknown> = { ...ads };
    delete noMeta['_meta'];
    const noMetaSp: Record<string, unknown> = { ...sp };
    delete noMetaSp['_meta'];
    expect(rowFor([fixture('sp', noMetaSp), fixture('ads', headersOnly)])?.result).toBe('PASS');
    const withoutWait = noMeta;
    expect(rowFor([fixture('sp', sp), fixture('ads', withoutWait)])).toMatchObject({
      result: 'FAIL',
      note: expect.stringContaining('envelope keys differ') as unknown,
    });
  });

  it('the shape leaves out legacy_error_kind and lists _meta and detail keys', () => {
    expect(envelopeShape(ENVELOPE)).toBe(
      'keys[_envelope_version,_meta,details,error_code,error_kind,examples,hints,retryable,summary,tool] _meta[retry_after_seconds] details[issue+path+received_type]',
    );
  });
});

describe('fixture normalization and comparison', () => {
  it('fixes correlation ids everywhere they appear and the replay host', () => {
    const value = {
      _meta: { correlation_id: '4a5b' },
      hints: ['report correlation_id 4a5b'],
      summary: 'Could not reach 127.0.0.1:41234 (GET /v2/profiles)',
    };
    expect(normalizeRunValues(value, '127.0.0.1:41234')).toEqual({
      _meta: { correlation_id: '00000000-0000-4000-8000-000000000000' },
      hints: ['report correlation_id 00000000-0000-4000-8000-000000000000'],
      summary: 'Could not reach 127.0.0.1:<replay-port> (GET /v2/profiles)',
    });
  });

  it('payloadOf wants an envelope or a success with _meta, as the scenario says', () => {
    expect(payloadOf(errorResult(ENVELOPE), 'response', '').problems).toEqual([
      'expected a success, got rate_limited/RATE_LIMITED',
    ]);
    expect(
      payloadOf({ type: 'result', result: { content: [], structuredContent: { a: 1 } } }, 'response', '').problems,
    ).toEqual(['the success result carries no structuredContent._meta']);
    expect(
      payloadOf({ type: 'result', result: { content: [], structuredContent: { a: 1 } } }, 'envelope', '').problems,
    ).toEqual(['expected an error envelope, got a success']);
    expect(payloadOf(errorResult(ENVELOPE), 'envelope', '', 1)).toEqual({ payload: ENVELOPE, problems: [] });
    // a reader of version 2 that gets a version 1 envelope has lost the negotiation
    expect(payloadOf(errorResult(ENVELOPE), 'envelope', '', 2).problems[0]).toMatch(
      /^not a valid version 2 envelope: /,
    );
  });

  it('compareFixtures reports same, different, missing and extra files', () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-fixtures-'));
    mkdirSync(join(folder, 'sp'));
    mkdirSync(join(folder, 'ads'));
    const scenario = FIXTURE_SCENARIOS[0]!;
    const make = (
      server: 'sp' | 'ads',
      id: string,
      document: Record<string, unknown>,
      version: 1 | 2 = 2,
    ): GeneratedFixture => ({
      server,
      scenario: { ...scenario, id },
      version,
      document,
      payload: null,
      problems: [],
    });
    writeFileSync(join(folder, 'sp', 'a.json'), fixtureText({ n: 1 }));
    writeFileSync(join(folder, 'sp', 'b.json'), fixtureText({ n: 1 }));
    writeFileSync(join(folder, 'ads', 'old.json'), '{}\n');
    mkdirSync(join(folder, 'v1', 'sp'), { recursive: true });
    writeFileSync(join(folder, 'v1', 'sp', 'a.json'), fixtureText({ n: 1 }));
    writeFileSync(join(folder, 'v1', 'sp', 'gone.json'), '{}\n');
    const comparisons = compareFixtures(folder, [
      make('sp', 'a', { n: 1 }),
      make('sp', 'b', { n: 2 }),
      make('ads', 'c', {}),
      make('sp', 'a', { n: 3 }, 1),
    ]);
    expect(comparisons).toEqual([
      { server: 'sp', version: 2, file: 'sp/a.json', status: 'same' },
      { server: 'sp', version: 2, file: 'sp/b.json', status: 'different' },
      { server: 'ads', version: 2, file: 'ads/c.json', status: 'missing' },
      { server: 'sp', version: 1, file: 'v1/sp/a.json', status: 'different' },
      { server: 'ads', version: 2, file: 'ads/old.json', status: 'extra' },
      { server: 'sp', version: 1, file: 'v1/sp/gone.json', status: 'extra' },
    ]);
  });
});

describe('v1 fixtures tied to their v2 twins', () => {
  const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
  const read = (file: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as Record<string, unknown>;
  const sp = { id: 'sp', primaryUpstream: 'sp-api', release: '0.1.0' };

  it('every checked-in v1 file is its v2 twin projected, with the v1 window legacy kind', () => {
    for (const name of [
      'api-http-404.json',
      'rate-limited-429.json',
      'tool-not-found.json',
      'success-rate-limit-warnings.json',
    ])
      expect([name, twinProblems(read(`v1/sp/${name}`), read(`sp/${name}`), sp)]).toEqual([name, []]);
  });

  it('a v1 file that drifts from its twin is named with the keys that differ', () => {
    const v1 = read('v1/sp/rate-limited-429.json');
    const envelope = v1['envelope'] as Record<string, unknown>;
    const withoutLegacy = { ...envelope };
    delete withoutLegacy['legacy_error_kind'];
    expect(twinProblems({ ...v1, envelope: withoutLegacy }, read('sp/rate-limited-429.json'), sp)).toEqual([
      'differs from toV1Envelope(v2 twin) + v1 legacy at legacy_error_kind',
    ]);
    const other = { ...v1, envelope: { ...envelope, error_code: 'ADS_API_HTTP_404', error_kind: 'ads_api_http' } };
    expect(twinProblems(other, read('sp/rate-limited-429.json'), sp)).toEqual([
      'differs from toV1Envelope(v2 twin) + v1 legacy at error_code, error_kind',
    ]);
    // the window is the v1 migration's: a release after it ends carries no legacy kind in v1
    expect(twinProblems(v1, read('sp/rate-limited-429.json'), { ...sp, release: '0.1.0', migrations: [] })).toEqual([
      'differs from toV1Envelope(v2 twin) + v1 legacy at legacy_error_kind',
    ]);
  });

  it('a twin that version 1 cannot express is a problem, not a pass', () => {
    const v2 = read('sp/api-http-404.json');
    const envelope = { ...(v2['envelope'] as Record<string, unknown>), upstream: 'github' };
    expect(twinProblems(read('v1/sp/api-http-404.json'), { ...v2, envelope }, sp)).toEqual([
      'the v2 twin names an upstream that version 1 cannot express',
    ]);
  });
});

describe('cases', () => {
  it('the package cases all read, one server each, with unique ids', () => {
    const cases = readCases(join(import.meta.dirname, '..', '..', 'cases'));
    expect(cases.length).toBe(71);
    expect(new Set(cases.map((entry) => entry.id)).size).toBe(71);
    expect(cases.filter((entry) => entry.server === 'sp')).toHaveLength(42);
    expect(cases.filter((entry) => entry.variant === 'identities').map((entry) => entry.id)).toEqual([
      'sp-identity-cache-down',
      'sp-identity-list',
      'sp-identity-service-401',
      'sp-identity-service-429',
      'sp-identity-service-503',
      'sp-identity-switch',
      'sp-identity-unknown-id',
    ]);
    const recorded = readCase(join(import.meta.dirname, '..', '..', 'cases', 'ads-429-retry-after-seconds.json'));
    expect(recorded.expected).toEqual({
      outcome: 'error',
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      upstream: 'ads-api',
      retryable: true,
      _meta: { retry_after_seconds: 2 },
    });
    expect(recorded.expected_v1).toEqual({
      outcome: 'error',
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      legacy_error_kind: 'ads_api_http',
      _meta: { retry_after_seconds: 2 },
    });
    // no case keeps a vendor kind or code in its v2 expectation
    for (const entry of cases)
      if (entry.expected.outcome === 'error')
        expect([entry.id, entry.expected.error_code]).not.toEqual([
          entry.id,
          expect.stringMatching(/^(SP|ADS)_API_|^OPENBRIDGE_/),
        ]);
  });

  it('a case file that breaks the format is named in the error', () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-cases-'));
    const base = {
      server: 'sp',
      about: '',
      call: { tool: 't', arguments: {} },
      upstream: [],
      expected: { outcome: 'success' },
      expected_v1: { outcome: 'success' },
    };
    const write = (name: string, value: unknown): string => {
      writeFileSync(join(folder, name), JSON.stringify(value));
      return join(folder, name);
    };
    expect(() => readCase(write('sp-a.json', { ...base, id: 'sp-b' }))).toThrow(
      'sp-a.json: id must equal the file name without .json',
    );
    expect(() => readCase(write('ads-c.json', { ...base, id: 'ads-c' }))).toThrow(
      'ads-c.json: the file name must start with "sp-"',
    );
    expect(() =>
      readCase(
        write('sp-d.json', {
          ...base,
          id: 'sp-d',
          expected: { outcome: 'error', error_kind: 'precondition_failed', error_code: 'X', retryable: false },
        }),
      ),
    ).toThrow('sp-d.json: expected.error_kind must be a kind of the version 2 taxonomy');
    const error = { outcome: 'error', error_code: 'SP_API_HTTP_404', retryable: false };
    expect(() =>
      readCase(write('sp-h.json', { ...base, id: 'sp-h', expected: { ...error, error_kind: 'sp_api_http' } })),
    ).toThrow('sp-h.json: expected.error_kind must be a kind of the version 2 taxonomy');
    expect(() =>
      readCase(write('sp-i.json', { ...base, id: 'sp-i', expected_v1: { ...error, error_kind: 'upstream_http' } })),
    ).toThrow('sp-i.json: expected_v1.error_kind must be a kind of the version 1 taxonomy');
    expect(() =>
      readCase(
        write('sp-j.json', {
          ...base,
          id: 'sp-j',
          expected_v1: { ...error, error_kind: 'sp_api_http', upstream: 'sp-api' },
        }),
      ),
    ).toThrow('sp-j.json: expected_v1 has no upstream (version 1 has none)');
    // a case may leave out expected_v1 (a server that speaks version 2 only), but not one of a server that speaks 1
    const withoutV1 = readCase(write('sp-k.json', { ...base, id: 'sp-k', expected_v1: undefined }));
    expect(withoutV1.expected_v1).toBeUndefined();
    expect(() => {
      checkCases([withoutV1], GATED);
    }).toThrow('sp-k.json: expected_v1 is required: the server speaks version 1');
    expect(() => {
      checkCases([{ ...withoutV1, id: 'weather-a', server: 'weather' }], GATED);
    }).toThrow('weather-a.json: server must be one of sp, ads, github');
    expect(() => {
      checkCases(
        [{ ...readCase(write('ads-l.json', { ...base, server: 'ads', id: 'ads-l' })), variant: 'identities' }],
        GATED,
      );
    }).toThrow('ads-l.json: server ads does not take part in variant identities');
    expect(() => readCase(write('sp-e.json', { ...base, id: 'sp-e', upstream: [{ path: '/x' }] }))).toThrow(
      'sp-e.json: upstream[0] needs a path and a response with a numeric status',
    );
    expect(() => readCase(write('sp-f.json', { ...base, id: 'sp-f', variant: 'sellers' }))).toThrow(
      'sp-f.json: variant must be one of main, no-credentials, lenient, probe, identities',
    );
    expect(readCase(write('sp-g.json', { ...base, id: 'sp-g' })).variant).toBe('main');
  });
});

describe('reference server command lines and the report', () => {
  it('a variant sets the switches, the descriptor its dummy credentials and arguments', () => {
    const setup = setupOn(
      { url: 'http://127.0.0.1:9', tokenUrl: 'http://127.0.0.1:9/oauth2/token' },
      {
        sp: '/m/sp',
        ads: '/m/a b',
      },
      { sp: 'node sp.js', ads: 'node ads.js' },
    );
    const env = (id: string, variant: Parameters<typeof variantEnv>[0]): Record<string, string> =>
      serverLaunch(setup, id, variant).env;
    expect(variantEnv('lenient')['MCP_STRICT_UNKNOWN_FIELDS']).toBe('false');
    expect(env('sp', 'no-credentials')).toMatchObject({
      LWA_CLIENT_ID: '',
      LWA_REFRESH_TOKEN: '',
      SP_API_REGION: 'na',
    });
    expect(env('sp', 'main')['LWA_TOKEN_URL']).toBe('http://127.0.0.1:9/oauth2/token');
    expect(variantEnv('probe')['MCP_SCHEMA_KEY_NORMALIZATION_META']).toBe('false');
    expect(env('sp', 'identities')['SP_IDENTITY_SERVICE_URL']).toBe('http://127.0.0.1:9/openbridge');
    expect(env('sp', 'main')['SP_IDENTITY_SERVICE_URL']).toBeUndefined();
    // only the limiter variant runs the limiter, without waiting
    expect(variantEnv('main')['MCP_RATE_LIMIT']).toBe('off');
    expect(variantEnv('limiter')).toMatchObject({ MCP_RATE_LIMIT: 'on', MCP_RATE_LIMIT_MAX_WAIT_MS: '0' });
    expect(serverLaunch(setup, 'ads', 'probe').args).toEqual([
      '--upstream',
      'http://127.0.0.1:9',
      '--models',
      '/m/a b',
    ]);
    const line = serverCommandLine(setup, 'ads', 'main');
    expect(line.endsWith("node ads.js --upstream http://127.0.0.1:9 --models '/m/a b' --conformance-fixtures")).toBe(
      true,
    );
    expect(line).toContain('ADS_API_PROFILE_ID=3300440055006600');
    expect(quoteWord("it's")).toBe(`"it's"`);
    expect(quoteWord('Atzr|a b$c')).toBe(`'Atzr|a b$c'`);
    expect(quoteWord('x:1,y@z')).toBe('x:1,y@z');
    const words = ["it's", 'a b', 'Atzr|x', '$HOME', 'say "hi"!', "it's!", '', 'tab\there'];
    expect(splitCommandLine(words.map(quoteWord).join(' '))).toEqual(words);
  });

  it('renders sections, totals and the closing line', () => {
    const rows = [
      {
        section: 'upstream',
        server: 'sp',
        check: 'sp-429',
        expected: 'e',
        got: 'g',
        result: 'PASS',
        note: '',
        duration_ms: 3,
      },
      {
        section: 'parity',
        server: 'sp|ads',
        check: 'upstream 401',
        expected: 'e',
        got: 'g',
        result: 'FAIL',
        note: 'shapes differ',
        duration_ms: 1,
      },
    ] as const;
    const zero = { passed: 0, failed: 0, skipped: 0 };
    const report: GateReport = {
      command: 'gate',
      servers: [
        {
          id: 'sp',
          name: 'mcp-envelope-sp',
          version: '0.1.0',
          command: 'node sp.js',
          contract_versions: [1, 2],
          default_version: 1,
        },
      ],
      rows,
      sections: {
        capability: zero,
        probe: zero,
        upstream: totalsOf([rows[0]]),
        fixtures: zero,
        parity: totalsOf([rows[1]]),
        'code-mode': zero,
        limiter: zero,
      },
      summary: totalsOf(rows),
      conformant: false,
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 1500,
    };
    const text = renderGateReport(report);
    expect(text).toContain(
      'sp   mcp-envelope-sp 0.1.0, speaks v1 and v2 (v1 to a client that states none)  (node sp.js)',
    );
    expect(text).toContain('parity: 0 passed, 1 failed, 0 skipped');
    expect(text).toContain('verdict: NONCONFORMANT (1 failing row)');
    expect(text.endsWith('conformance: 1 passed, 1 failed, 0 skipped\n')).toBe(true);
  });
});

describe('server descriptors', () => {
  it("the README's example is a valid descriptor and agrees with the SP server's own", () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const block = /^```json\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? 'null';
    const example = parseDescriptor(JSON.parse(block), 'README.md');
    const sp = GATED.find((server) => server.id === 'sp');
    expect(sp).toMatchObject({
      id: example.id,
      bin: example.bin,
      args: example.args,
      credentials: example.credentials,
      cases: example.cases,
      models: example.models,
      contract_versions: example.contract_versions,
      default_version: example.default_version,
      code_mode: example.code_mode,
      limiter: example.limiter,
      fixtures: { common: example.fixtures.common, calls: example.fixtures.calls },
      env: example.env,
    });
  });

  it('fills in the defaults and names the file and field of a mistake', () => {
    expect(parseDescriptor({ id: 'tiny', bin: 'tiny', cases: 'cases' }, 'x.json')).toEqual({
      id: 'tiny',
      bin: 'tiny',
      args: [],
      env: {},
      credentials: [],
      cases: 'cases',
      models: [],
      contract_versions: [2],
      default_version: 2,
      variants: {},
      fixtures: { common: [], calls: {} },
    });
    const base = { id: 'tiny', bin: 'tiny', cases: 'cases' };
    expect(() => parseDescriptor({ ...base, id: 'v1' }, 'x.json')).toThrow(
      'x.json: id must be a short lower-case name',
    );
    expect(() => parseDescriptor({ ...base, env: { A: 1 } }, 'x.json')).toThrow(
      'x.json: env must be an object of strings',
    );
    expect(() => parseDescriptor({ ...base, contract_versions: [1, 2], default_version: 3 }, 'x.json')).toThrow(
      'x.json: default_version must be one of contract_versions',
    );
    expect(() => parseDescriptor({ ...base, fixtures: { calls: { 'api-http-404': {} } } }, 'x.json')).toThrow(
      'x.json: fixtures.calls.api-http-404 needs a case id or a tool',
    );
    expect(() => fixturePlan([{ ...GATED[0]!, fixtures: { common: ['everything'], calls: {} } }])).toThrow(
      'sp: fixtures.common names the unknown group "everything"',
    );
  });
});
