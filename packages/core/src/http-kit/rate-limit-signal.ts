/**
 * Telling a rate limit from other refusals whatever status carries it: upstreams answer a spent
 * budget with 429, but also with 403 (GitHub's primary and secondary limits, several gateways).
 * Implements CONTRACT.md "Upstream HTTP codes" (a status the upstream marks as a rate limit).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';

import { headerValue, lowerCaseHeaders } from '../http-meta/headers.js';
import type { HeaderSource } from '../http-meta/headers.js';
import { capRetryAfter, retryAfterSeconds } from '../http-meta/rate-limit.js';
import { readRateLimit } from './rate-limit-headers.js';

/** Whether an answer was a rate limit, why, and how long to wait. */
export interface RateLimitSignal {
  /** True when the upstream refused the request because a rate limit is spent. */
  readonly limited: boolean;
  /** Seconds to wait: `Retry-After`, else the time until the limit's window resets. */
  readonly retryAfterSeconds?: number;
  /**
   * What showed it: the status 429, a `Retry-After` on a 403, `remaining: 0` with a reset on a
   * 403, or a 403 body whose message says a rate limit was exceeded.
   */
  readonly reason?: 'status-429' | 'retry-after' | 'remaining-zero' | 'body-text';
}

/**
 * Messages that say a rate limit was hit ("API rate limit exceeded", "You have exceeded a secondary
 * rate limit", "rate limited", "Too Many Requests"). A message that only mentions rate limits
 * ("admin rights to change the rate limit settings") is a refusal that a retry would not fix.
 */
const RATE_LIMIT_TEXT =
  /\brate[ -]?limited\b|\brate[ -]?limits?\s+(?:was\s+|has\s+been\s+)?(?:exceeded|reached|hit)\b|\bexceed(?:ed|s|ing)?\s+(?:\w+\s+){0,3}rate[ -]?limits?\b|\btoo many requests\b|\bthrottl(?:ed|ing)\b/i;

/** The statuses besides 429 that a rate limit may arrive with. */
const LIMIT_STATUSES: ReadonlySet<number> = new Set([403, 429]);

/** The message texts of a JSON error body (`message`, `error`, `detail`, `title`), or the text body itself. */
function bodyMessages(body: unknown): string[] {
  if (typeof body === 'string') return [body.slice(0, 2000)];
  if (!isRecord(body)) return [];
  const error = body['error'];
  const candidates = [
    body['message'],
    body['detail'],
    body['title'],
    error,
    isRecord(error) ? error['message'] : undefined,
  ];
  return candidates.filter((value): value is string => typeof value === 'string').map((text) => text.slice(0, 2000));
}

/**
 * Whether an upstream answer was a rate limit: a 429; or a 403 that carries `Retry-After`, or
 * states `remaining: 0` with a reset (any dialect {@link readRateLimit} reads), or whose body's
 * message says so (`API rate limit exceeded`, `You have exceeded a secondary rate limit`). A 503
 * with `Retry-After` is an outage, not a limit, and other statuses are never limits here.
 *
 * @param status - the HTTP status.
 * @param headers - the response headers, any container and casing.
 * @param body - the body as parsed JSON or text (only its message members are read).
 * @param now - when the answer arrived (HTTP-date `Retry-After`, epoch resets).
 * @returns the signal; `retryAfterSeconds` is `Retry-After` when present, else the seconds to
 *   the reset when one was stated, else absent; at most `MAX_RETRY_AFTER_SECONDS`. Never throws.
 */
export function rateLimitSignal(
  status: number,
  headers: HeaderSource | undefined,
  body: unknown,
  now: Date,
): RateLimitSignal {
  if (!LIMIT_STATUSES.has(status)) return { limited: false };
  const lower = lowerCaseHeaders(headers);
  const retryAfter = retryAfterSeconds(lower, now);
  const reading = readRateLimit(headers, now);
  const wait = retryAfter ?? reading?.reset_after_seconds;
  const withWait = wait === undefined ? {} : { retryAfterSeconds: capRetryAfter(wait) };
  if (status === 429) return { limited: true, reason: 'status-429', ...withWait };
  if (headerValue(lower, 'retry-after') !== undefined && retryAfter !== undefined)
    return { limited: true, reason: 'retry-after', ...withWait };
  if (reading?.remaining === 0 && reading.reset_after_seconds !== undefined)
    return { limited: true, reason: 'remaining-zero', ...withWait };
  if (bodyMessages(body).some((text) => RATE_LIMIT_TEXT.test(text)))
    return { limited: true, reason: 'body-text', ...withWait };
  return { limited: false };
}
