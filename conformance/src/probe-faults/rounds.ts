/**
 * The rounds of the upstream fault battery: what the loopback fault upstream answers in each, and
 * what a conforming server makes of it (CONTRACT.md "Upstream HTTP codes", "error_kind",
 * "Retry after").
 *
 * @packageDocumentation
 */
import type { RecordedResponse } from '@mcp-envelope/testing';

/** The names of the fault rounds, in the order the battery runs them (the rate-limit rounds last). */
export const FAULT_PROBE_NAMES = Object.freeze([
  'upstream-success',
  'upstream-404',
  'upstream-5xx',
  'upstream-html-500',
  'upstream-403',
  'upstream-broken-json',
  'upstream-cut-body',
  'upstream-timeout',
  'upstream-429',
  'upstream-403-retry-after',
  'upstream-403-remaining-zero',
] as const);

/** One of {@link FAULT_PROBE_NAMES}. */
export type FaultProbeName = (typeof FAULT_PROBE_NAMES)[number];

/** The `Retry-After` (and time to reset) the rate-limit rounds announce, in seconds. */
export const FAULT_RETRY_AFTER_SECONDS = 7;

/**
 * How far below {@link FAULT_RETRY_AFTER_SECONDS} a wait read from a reset time may be, in
 * seconds: the server reads the reset a moment after the fault upstream wrote it.
 */
export const RESET_SLACK_SECONDS = 3;

/** What a round expects of the call's outcome. */
export type FaultExpectation =
  /** A result without `isError`. */
  | { readonly type: 'success' }
  /** A success, or an envelope of this kind (any code): a body the server may pass on as text or refuse. */
  | { readonly type: 'success-or-kind'; readonly kind: string }
  /** An envelope with this kind, code and `retryable`, and `_meta.retry_after_seconds` in a range when given. */
  | {
      readonly type: 'envelope';
      readonly kind: string;
      readonly code: string;
      readonly retryable: boolean;
      /** Inclusive bounds in seconds. */
      readonly retryAfter?: { readonly min: number; readonly max: number };
      /** Whether a detail with `reason: "effect_unknown"` must say the request may have taken effect. */
      readonly effectUnknown?: boolean;
    };

/** What a round's answer is built from. */
export interface FaultAnswerContext {
  /** When the answer is built (reset times count from it). */
  readonly now: Date;
  /** How long the timeout round holds its answer, in milliseconds: longer than the server waits. */
  readonly holdMs: number;
}

/** One round of the battery. */
export interface FaultRound {
  readonly probe: FaultProbeName;
  /** What the fault upstream answers, in words, for the report's note. */
  readonly answers: string;
  readonly answer: (context: FaultAnswerContext) => RecordedResponse;
  readonly expected: FaultExpectation;
  /** Whether the call may last as long as the server's upstream timeout. */
  readonly waitsForServerTimeout?: boolean;
  /**
   * Whether the round runs on a server process of its own: a server that learns from a rate
   * limit (as core's pre-flight limiter does) would otherwise refuse the next round itself.
   */
  readonly ownServer?: boolean;
  /**
   * Whether the request may have reached the upstream and acted there (a 500, a body cut off, a
   * timeout): a tool that is not idempotent then answers not retryable (CONTRACT.md "Safe retries").
   */
  readonly effectUnknown?: boolean;
}

const JSON_TYPE = { 'content-type': 'application/json' } as const;

const RETRY_AFTER = { min: FAULT_RETRY_AFTER_SECONDS, max: FAULT_RETRY_AFTER_SECONDS } as const;

const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>The server encountered an internal error.</p></body></html>';

function httpError(status: number, kind: string, retryable: boolean): FaultExpectation {
  return { type: 'envelope', kind, code: `UPSTREAM_HTTP_${status}`, retryable };
}

function rateLimited(retryAfter: { readonly min: number; readonly max: number }): FaultExpectation {
  return { type: 'envelope', kind: 'rate_limited', code: 'RATE_LIMITED', retryable: true, retryAfter };
}

/** The first round: a success, with which the battery also finds a tool that reaches the upstream. */
export const SUCCESS_ROUND: FaultRound = {
  probe: 'upstream-success',
  answers: 'HTTP 200 with a JSON object',
  answer: () => ({ status: 200, headers: JSON_TYPE, body: { id: 'conformance', source: 'fault upstream' } }),
  expected: { type: 'success' },
};

/** The failures before the rate limits: answers no limiter learns from. */
const PLAIN_ROUNDS: readonly FaultRound[] = [
  {
    probe: 'upstream-404',
    answers: 'HTTP 404 with a JSON message',
    answer: () => ({ status: 404, headers: JSON_TYPE, body: { message: 'Not Found' } }),
    expected: httpError(404, 'upstream_http', false),
  },
  {
    probe: 'upstream-5xx',
    answers: 'HTTP 503 with a JSON message',
    answer: () => ({ status: 503, headers: JSON_TYPE, body: { message: 'Service Unavailable' } }),
    expected: httpError(503, 'upstream_http', true),
  },
  {
    probe: 'upstream-html-500',
    effectUnknown: true,
    answers: 'HTTP 500 with an HTML page',
    answer: () => ({ status: 500, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HTML_PAGE }),
    expected: httpError(500, 'upstream_http', true),
  },
  {
    probe: 'upstream-403',
    answers: 'HTTP 403 without any rate-limit signal',
    answer: () => ({ status: 403, headers: JSON_TYPE, body: { message: 'Forbidden' } }),
    expected: httpError(403, 'auth_error', false),
  },
  {
    probe: 'upstream-broken-json',
    answers: 'HTTP 200 whose JSON body does not parse',
    answer: () => ({ status: 200, headers: JSON_TYPE, body: '{"id": "conformance", "items": [1, 2,' }),
    expected: { type: 'success-or-kind', kind: 'upstream_client' },
  },
  {
    probe: 'upstream-cut-body',
    effectUnknown: true,
    answers: 'HTTP 200 whose body breaks off after 8 bytes',
    answer: () => ({
      status: 200,
      headers: JSON_TYPE,
      body: JSON.stringify({ id: 'conformance', padding: 'x'.repeat(4096) }),
      resetAfterBytes: 8,
    }),
    expected: { type: 'envelope', kind: 'upstream_client', code: 'TOOL_EXECUTION_FAILED', retryable: true },
  },
  {
    probe: 'upstream-timeout',
    effectUnknown: true,
    answers: 'nothing until the server gives up',
    answer: ({ holdMs }) => ({ status: 200, headers: JSON_TYPE, body: { late: true }, delayMs: holdMs }),
    expected: { type: 'envelope', kind: 'upstream_client', code: 'TOOL_EXECUTION_FAILED', retryable: true },
    waitsForServerTimeout: true,
  },
];

/** The rate-limit rounds: a 429, and a 403 that is a rate limit by its headers. */
const RATE_LIMIT_ROUNDS: readonly FaultRound[] = [
  {
    probe: 'upstream-429',
    answers: `HTTP 429 with Retry-After: ${FAULT_RETRY_AFTER_SECONDS}`,
    answer: () => ({
      status: 429,
      headers: { ...JSON_TYPE, 'retry-after': String(FAULT_RETRY_AFTER_SECONDS) },
      body: { message: 'Too Many Requests' },
    }),
    expected: rateLimited(RETRY_AFTER),
    ownServer: true,
  },
  {
    probe: 'upstream-403-retry-after',
    answers: `HTTP 403 with Retry-After: ${FAULT_RETRY_AFTER_SECONDS}`,
    answer: () => ({
      status: 403,
      headers: { ...JSON_TYPE, 'retry-after': String(FAULT_RETRY_AFTER_SECONDS) },
      body: { message: 'Forbidden' },
    }),
    expected: rateLimited(RETRY_AFTER),
    ownServer: true,
  },
  {
    probe: 'upstream-403-remaining-zero',
    answers: `HTTP 403 with x-ratelimit-remaining: 0 and x-ratelimit-reset ${FAULT_RETRY_AFTER_SECONDS} s ahead (epoch seconds)`,
    answer: ({ now }) => ({
      status: 403,
      headers: {
        ...JSON_TYPE,
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '60',
        'x-ratelimit-reset': String(Math.ceil(now.getTime() / 1000) + FAULT_RETRY_AFTER_SECONDS),
      },
      body: { message: 'Forbidden' },
    }),
    expected: rateLimited({ min: FAULT_RETRY_AFTER_SECONDS - RESET_SLACK_SECONDS, max: FAULT_RETRY_AFTER_SECONDS + 1 }),
    ownServer: true,
  },
];

/**
 * The rounds in battery order: success, 404, 503, an HTML 500, a plain 403, a 200 with broken
 * JSON, a body cut off, a timeout, then the rate limits (429 and 403 with `Retry-After`, 403 with
 * `x-ratelimit-remaining: 0` and a reset), last, each on a server process of its own, so that a
 * server which learns from them cannot refuse a later round before it reaches the upstream.
 */
export const FAULT_ROUNDS: readonly FaultRound[] = Object.freeze([
  SUCCESS_ROUND,
  ...PLAIN_ROUNDS,
  ...RATE_LIMIT_ROUNDS,
]);

/**
 * What a round expects of a call of a tool: a round whose request may have acted upstream
 * (`effectUnknown`) expects, of a tool `tools/list` does not annotate as idempotent, the same
 * kind and code, not retryable, with the effect-unknown detail (CONTRACT.md "Safe retries").
 *
 * @param round - the round.
 * @param idempotent - whether the tool's annotations say `readOnlyHint` or `idempotentHint`.
 * @returns the round's expectation for that tool.
 */
export function faultExpectationFor(round: FaultRound, idempotent: boolean): FaultExpectation {
  if (round.effectUnknown !== true || idempotent || round.expected.type !== 'envelope') return round.expected;
  return { ...round.expected, retryable: false, effectUnknown: true };
}
