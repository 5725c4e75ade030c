// The parts of the upstream fault battery that need no server: the command line it starts, and
// how a round's outcome is judged.
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import type { CallOutcome } from '../src/call-outcome.js';
import { CommandLineError } from '../src/command-line.js';
import { faultCommandLine, faultExpectationFor, FAULT_ROUNDS, judgeFaultRound } from '../src/probe-faults/index.js';
import type { FaultExpectation } from '../src/probe-faults/index.js';
import type { CapabilityStatus } from '../src/report-types.js';

const UPSTREAM = { url: 'http://127.0.0.1:4000', tokenUrl: 'http://127.0.0.1:4000/oauth2/token' };

const KINDS = [
  'mcp_input_validation',
  'tool_not_found',
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
];

const CAPABILITY: CapabilityStatus = {
  advertised: true,
  location: 'capabilities.experimental.openbridge_envelope',
  value: {},
  contract_version: 2,
  error_kinds: KINDS,
  contract_versions: [2],
  error_kinds_by_version: { '2': KINDS },
  issues: [],
};

function envelopeOf(fields: Partial<ErrorEnvelope>): ErrorEnvelope {
  return {
    error_kind: 'rate_limited',
    tool: 'get_item',
    summary: 'Too many requests.',
    details: [],
    hints: [],
    examples: [],
    error_code: 'RATE_LIMITED',
    retryable: true,
    upstream: 'example-api',
    _envelope_version: 2,
    ...fields,
  };
}

function envelopeOutcome(fields: Partial<ErrorEnvelope>): CallOutcome {
  return { type: 'envelope', envelope: envelopeOf(fields), channel: 'is_error' };
}

function expectationOf(probe: string): FaultExpectation {
  const round = FAULT_ROUNDS.find((entry) => entry.probe === probe);
  if (round === undefined) throw new Error(`no round ${probe}`);
  return round.expected;
}

describe('faultCommandLine', () => {
  it('fills {upstream} and {token_url} in arguments and assignments, the limiter off in front', () => {
    expect(faultCommandLine('TOKEN_URL={token_url} node server.js --upstream {upstream}', UPSTREAM)).toBe(
      'MCP_RATE_LIMIT=off TOKEN_URL=http://127.0.0.1:4000/oauth2/token node server.js --upstream http://127.0.0.1:4000',
    );
  });

  it('sets a named variable, and then needs no placeholder', () => {
    expect(faultCommandLine('node server.js', UPSTREAM, 'API_URL')).toBe(
      'MCP_RATE_LIMIT=off API_URL=http://127.0.0.1:4000 node server.js',
    );
  });

  it('refuses a line without {upstream}, and a variable name that is none', () => {
    expect(() => faultCommandLine('node server.js', UPSTREAM)).toThrow(CommandLineError);
    expect(() => faultCommandLine('node server.js', UPSTREAM, 'API URL')).toThrow(
      '--upstream-env needs a variable name, got "API URL"',
    );
  });
});

describe('judgeFaultRound', () => {
  it('passes a 429 with the announced wait, and says what is missing otherwise', () => {
    const expected = expectationOf('upstream-429');
    expect(judgeFaultRound(envelopeOutcome({ _meta: { retry_after_seconds: 7 } }), expected, CAPABILITY)).toEqual({
      got: 'rate_limited/RATE_LIMITED, retryable, retry after 7 s',
      result: 'PASS',
      notes: [],
    });
    const { upstream, ...withoutUpstream } = envelopeOf({});
    expect(upstream).toBe('example-api');
    const bare: CallOutcome = { type: 'envelope', envelope: withoutUpstream, channel: 'is_error' };
    expect(judgeFaultRound(bare, expected, CAPABILITY)).toEqual({
      got: 'rate_limited/RATE_LIMITED, retryable',
      result: 'FAIL',
      notes: ['no _meta.retry_after_seconds', 'names no upstream'],
    });
  });

  it('holds a wait read from a reset time to its bounds', () => {
    const expected = expectationOf('upstream-403-remaining-zero');
    const judged = (seconds: number): string =>
      judgeFaultRound(envelopeOutcome({ _meta: { retry_after_seconds: seconds } }), expected, CAPABILITY).result;
    expect([judged(3.9), judged(4), judged(8), judged(8.1)]).toEqual(['FAIL', 'PASS', 'PASS', 'FAIL']);
  });

  it('fails a retryable 404 and a success where an error belongs, and passes text for broken JSON', () => {
    const notFound = envelopeOutcome({ error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_404', retryable: true });
    expect(judgeFaultRound(notFound, expectationOf('upstream-404'), CAPABILITY)).toMatchObject({
      result: 'FAIL',
      notes: ['expected retryable: false'],
    });
    const success: CallOutcome = { type: 'success', value: '{"id": "conformance", "items": [1, 2,' };
    expect(judgeFaultRound(success, expectationOf('upstream-timeout'), CAPABILITY)).toMatchObject({
      got: 'success',
      result: 'FAIL',
    });
    expect(judgeFaultRound(success, expectationOf('upstream-broken-json'), CAPABILITY).result).toBe('PASS');
  });
});

describe('faultExpectationFor: safe retries', () => {
  const roundOf = (probe: string) => {
    const round = FAULT_ROUNDS.find((entry) => entry.probe === probe);
    if (round === undefined) throw new Error(`no round ${probe}`);
    return round;
  };
  const effectDetail = {
    path: '',
    issue: 'The request may have reached example-api before the call failed: whether it took effect is unknown.',
    received_type: 'null',
    reason: 'effect_unknown',
  };

  it('expects the effect-unknown form of a tool that is not idempotent, only in the rounds that may have acted', () => {
    const labels = (idempotent: boolean): [string, boolean, boolean][] =>
      FAULT_ROUNDS.flatMap((round) => {
        const expected = faultExpectationFor(round, idempotent);
        return expected.type === 'envelope' && expected.effectUnknown === true
          ? [[round.probe, expected.retryable, expected.effectUnknown]]
          : [];
      });
    expect(labels(false)).toEqual([
      ['upstream-html-500', false, true],
      ['upstream-cut-body', false, true],
      ['upstream-timeout', false, true],
    ]);
    expect(labels(true)).toEqual([]);
    expect(faultExpectationFor(roundOf('upstream-5xx'), false)).toBe(roundOf('upstream-5xx').expected);
  });

  it('fails a retryable 500 of a tool that is not idempotent, and one without the detail; passes the full form', () => {
    const expected = faultExpectationFor(roundOf('upstream-html-500'), false);
    const http500 = { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_500' } as const;
    expect(judgeFaultRound(envelopeOutcome({ ...http500, retryable: true }), expected, CAPABILITY)).toEqual({
      got: 'upstream_http/UPSTREAM_HTTP_500, retryable',
      result: 'FAIL',
      notes: ['expected retryable: false', 'no detail with reason "effect_unknown" for a tool that is not idempotent'],
    });
    expect(judgeFaultRound(envelopeOutcome({ ...http500, retryable: false }), expected, CAPABILITY).result).toBe(
      'FAIL',
    );
    const full = envelopeOutcome({ ...http500, retryable: false, details: [effectDetail] });
    expect(judgeFaultRound(full, expected, CAPABILITY)).toEqual({
      got: 'upstream_http/UPSTREAM_HTTP_500, not retryable, effect unknown',
      result: 'PASS',
      notes: [],
    });
    // the same envelope for an idempotent tool: it should have stayed retryable
    expect(judgeFaultRound(full, faultExpectationFor(roundOf('upstream-html-500'), true), CAPABILITY)).toMatchObject({
      result: 'FAIL',
      notes: ['expected retryable: true'],
    });
  });
});
