/**
 * What one upstream answer tells the pre-flight limiter, whatever the adapter: whether it was a
 * rate limit (a 429, a 403 the HTTP kit recognizes as one, or any status the adapter classifies
 * as `rate_limited`), whether no request is left until a stated reset, and how long to wait.
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import type { EnvelopeAdapter, FailedRequest, HeaderRecord, ResponseMeta } from '../adapter.js';
import { readRateLimit } from '../http-kit/rate-limit-headers.js';
import { rateLimitSignal } from '../http-kit/rate-limit-signal.js';

/** The limiter's reading of the last upstream answer of a call. */
export interface UpstreamLimitState {
  /** The answer refused the request for a spent rate limit, whatever its status. */
  readonly limited: boolean;
  /** The answer said no request is left until a stated reset (`remaining: 0` with a reset). */
  readonly exhausted: boolean;
  /**
   * Seconds until the upstream accepts requests again: for a limit, `Retry-After` (or the
   * adapter's own wait header), else the time to the reset; for an exhausted budget, the time to
   * the reset. Absent when the answer did not say.
   */
  readonly waitSeconds?: number;
}

/** One upstream answer as the limiter reads it. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: HeaderRecord;
  /** The parsed body of a failed answer (`undefined` for a 2xx, whose body is the handler's). */
  readonly body: unknown;
  readonly request: FailedRequest;
  /** What the adapter's `parseResponseMeta` read from the same headers. */
  readonly meta: ResponseMeta;
}

/** Whether the adapter classifies a failed answer as a rate limit; a classifier that throws says no. */
function adapterSaysLimited(adapter: EnvelopeAdapter, answer: UpstreamAnswer, tool: string, now: Date): boolean {
  try {
    const failure = { type: 'upstream_http', ...answer } as const;
    return adapter.classify(failure, { tool, now }).error_kind === 'rate_limited';
  } catch {
    return false;
  }
}

/**
 * Reads one upstream answer for the limiter. The HTTP kit's `rateLimitSignal` decides first; an
 * error status it does not call a limit is handed to the adapter's classifier, so an upstream's own
 * rule (a throttling header on a 400, say) also drains the bucket.
 *
 * @param adapter - the server's adapter.
 * @param answer - the answer's status, headers, parsed body, request and `_meta` reading.
 * @param tool - the tool whose call it is (the classifier's context).
 * @param now - when the answer arrived.
 * @returns the state. Never throws.
 */
export function upstreamLimitState(
  adapter: EnvelopeAdapter,
  answer: UpstreamAnswer,
  tool: string,
  now: Date,
): UpstreamLimitState {
  const signal = rateLimitSignal(answer.status, answer.headers, answer.body, now);
  const limited = signal.limited || (answer.status >= 400 && adapterSaysLimited(adapter, answer, tool, now));
  const reading = readRateLimit(answer.headers, now);
  const resetSeconds = reading?.reset_after_seconds;
  const exhausted = reading?.remaining === 0 && resetSeconds !== undefined;
  const wait = limited
    ? (answer.meta.retry_after_seconds ?? signal.retryAfterSeconds ?? resetSeconds)
    : exhausted
      ? resetSeconds
      : undefined;
  return { limited, exhausted, ...(wait === undefined ? {} : { waitSeconds: wait }) };
}
