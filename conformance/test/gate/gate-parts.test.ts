import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { readCase, readCases } from '../../src/gate/cases.js';
import { FIXTURE_SCENARIOS } from '../../src/gate/fixture-plan.js';
import { compareFixtures, fixtureText, normalizeRunValues, payloadOf } from '../../src/gate/fixtures.js';
import type { GeneratedFixture } from '../../src/gate/fixtures.js';
import { envelopeShape, judgeCase, parityCode, parityKind } from '../../src/gate/gate.js';
import { renderGateReport, totalsOf } from '../../src/gate/gate-report.js';
import type { GateReport } from '../../src/gate/gate-report.js';
import { splitCommandLine } from '../../src/command-line.js';
import { quoteWord, serverCommandLine, variantEnv } from '../../src/gate/reference-servers.js';

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
    );
    expect(judged.differences).toEqual([
      'error_kind ads_api_http, expected rate_limited',
      'retryable false, expected true',
      'legacy_error_kind absent, expected ads_api_http',
      '_meta is {"retry_after_seconds":3}, expected {"retry_after_seconds":2}',
    ]);
  });

  it('an envelope of another version is read, then fails the strict v1 check', () => {
    const judged = judgeCase(expected, errorResult({ ...ENVELOPE, _envelope_version: 2 }));
    expect(judged.got).toBe('rate_limited/RATE_LIMITED retryable=true legacy=ads_api_http _meta{retry_after_seconds}');
    expect(judged.differences).toEqual(['invalid envelope: /_envelope_version must be 1']);
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

describe('parity helpers', () => {
  it('server prefixes of codes and kinds compare equal', () => {
    expect([parityCode('SP_API_HTTP_401'), parityCode('ADS_API_HTTP_401'), parityCode('RATE_LIMITED')]).toEqual([
      '<SERVER>_API_HTTP_401',
      '<SERVER>_API_HTTP_401',
      'RATE_LIMITED',
    ]);
    expect([parityKind('sp_api_client'), parityKind('ads_api_client'), parityKind('auth_error')]).toEqual([
      '<server>_api_client',
      '<server>_api_client',
      'auth_error',
    ]);
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
    expect(payloadOf(errorResult(ENVELOPE), 'envelope', '')).toEqual({ payload: ENVELOPE, problems: [] });
  });

  it('compareFixtures reports same, different, missing and extra files', () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-fixtures-'));
    mkdirSync(join(folder, 'sp'));
    mkdirSync(join(folder, 'ads'));
    const scenario = FIXTURE_SCENARIOS[0]!;
    const make = (server: 'sp' | 'ads', id: string, document: Record<string, unknown>): GeneratedFixture => ({
      server,
      scenario: { ...scenario, id },
      document,
      payload: null,
      problems: [],
    });
    writeFileSync(join(folder, 'sp', 'a.json'), fixtureText({ n: 1 }));
    writeFileSync(join(folder, 'sp', 'b.json'), fixtureText({ n: 1 }));
    writeFileSync(join(folder, 'ads', 'old.json'), '{}\n');
    const comparisons = compareFixtures(folder, [
      make('sp', 'a', { n: 1 }),
      make('sp', 'b', { n: 2 }),
      make('ads', 'c', {}),
    ]);
    expect(comparisons).toEqual([
      { server: 'sp', file: 'sp/a.json', status: 'same' },
      { server: 'sp', file: 'sp/b.json', status: 'different' },
      { server: 'ads', file: 'ads/c.json', status: 'missing' },
      { server: 'ads', file: 'ads/old.json', status: 'extra' },
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
    expect(
      readCase(join(import.meta.dirname, '..', '..', 'cases', 'ads-429-retry-after-seconds.json')).expected,
    ).toEqual({
      outcome: 'error',
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      legacy_error_kind: 'ads_api_http',
      _meta: { retry_after_seconds: 2 },
    });
  });

  it('a case file that breaks the format is named in the error', () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-cases-'));
    const base = {
      server: 'sp',
      about: '',
      call: { tool: 't', arguments: {} },
      upstream: [],
      expected: { outcome: 'success' },
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
    ).toThrow('sp-d.json: expected.error_kind must be a kind of the taxonomy');
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
  it('a variant sets the switches, dummy credentials and the gate flags', () => {
    expect(variantEnv('lenient', 'http://t/token')['MCP_STRICT_UNKNOWN_FIELDS']).toBe('false');
    expect(variantEnv('no-credentials', 'http://t/token')['LWA_CLIENT_ID']).toBe('');
    expect(variantEnv('probe', 'http://t/token')['MCP_SCHEMA_KEY_NORMALIZATION_META']).toBe('false');
    expect(variantEnv('identities', 'http://t/token', 'http://127.0.0.1:9')['SP_IDENTITY_SERVICE_URL']).toBe(
      'http://127.0.0.1:9/openbridge',
    );
    expect(variantEnv('main', 'http://t/token', 'http://127.0.0.1:9')['SP_IDENTITY_SERVICE_URL']).toBeUndefined();
    // only the limiter variant runs the limiter, without waiting
    expect(variantEnv('main', 'http://t/token')['MCP_RATE_LIMIT']).toBe('off');
    expect(variantEnv('limiter', 'http://t/token')).toMatchObject({
      MCP_RATE_LIMIT: 'on',
      MCP_RATE_LIMIT_MAX_WAIT_MS: '0',
    });
    const line = serverCommandLine(
      {
        upstreamUrl: 'http://127.0.0.1:9',
        tokenUrl: 'http://127.0.0.1:9/auth/o2/token',
        modelFolders: { sp: '/m/sp', ads: '/m/a b' },
        commands: { sp: 'node sp.js', ads: 'node ads.js' },
      },
      'ads',
      'main',
    );
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
      servers: [{ id: 'sp', name: 'mcp-envelope-sp', version: '0.1.0', command: 'node sp.js' }],
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
    expect(text).toContain('parity: 0 passed, 1 failed, 0 skipped');
    expect(text).toContain('verdict: NONCONFORMANT (1 failing row)');
    expect(text.endsWith('conformance: 1 passed, 1 failed, 0 skipped\n')).toBe(true);
  });
});
