/**
 * The contract's value rules for `_meta.rate_limit` and `_meta.retry_after_seconds`, shared by
 * every adapter; only the header names differ per server. Implements CONTRACT.md "_meta.rate_limit"
 * (`Retry-After` and the rate-limit header values).
 *
 * @packageDocumentation
 */
import type { RateLimitMeta } from '@mcp-envelope/contract';

import { headerValue } from './headers.js';

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A rate-limit header value as the contract wants it: a finite number when the (trimmed) value
 * is a plain decimal number, else the raw trimmed string (`"2.0, 2.0"` from a folded repeated
 * header stays a string). Empty means absent.
 *
 * @param raw - the header value, or `undefined`.
 * @returns a number, the raw string, or `undefined` when absent or empty.
 */
export function rateLimitValue(raw: string | undefined): number | string | undefined {
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  if (DECIMAL.test(trimmed)) {
    const parsed = Number(trimmed);
    if (Number.isFinite(parsed)) return parsed;
  }
  return trimmed;
}

/** Which response headers carry a server's rate-limit values (any casing). */
export interface RateLimitHeaderNames {
  /** E.g. `X-RateLimit-Limit`, or a vendor-prefixed spelling of it. */
  readonly limit: readonly string[];
  readonly remaining: readonly string[];
  readonly reset: readonly string[];
  /**
   * The server's own headers that carry a wait in milliseconds, read when `Retry-After` is absent
   * (default none).
   */
  readonly retryAfterMilliseconds?: readonly string[];
}

/**
 * Builds `_meta.rate_limit` from headers: only keys whose header is present and non-empty;
 * `reset_at` always the raw string.
 *
 * @param headers - lower-cased headers from `lowerCaseHeaders`.
 * @param names - the server's header names.
 * @returns the object, or `undefined` when no key could be read (never an empty object).
 */
export function rateLimitMeta(
  headers: ReadonlyMap<string, string>,
  names: RateLimitHeaderNames,
): RateLimitMeta | undefined {
  const limit = rateLimitValue(headerValue(headers, ...names.limit));
  const remaining = rateLimitValue(headerValue(headers, ...names.remaining));
  const reset = headerValue(headers, ...names.reset);
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  return {
    ...(limit === undefined ? {} : { limit_per_second: limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(reset === undefined ? {} : { reset_at: reset }),
  };
}

/**
 * The longest wait `_meta.retry_after_seconds` states: 86,400 s (24 h, a daily quota's reset).
 * The wait comes from headers the upstream controls, and a `Retry-After` of a thousand years
 * tells an agent nothing a day does not. The limiter drains a bucket for at most this long too.
 * Implements CONTRACT.md "Retry after".
 */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * A stated wait as `_meta.retry_after_seconds` may say it: at most {@link MAX_RETRY_AFTER_SECONDS}.
 *
 * @param seconds - a wait in seconds (>= 0).
 * @returns `seconds`, or {@link MAX_RETRY_AFTER_SECONDS} when longer.
 */
export function capRetryAfter(seconds: number): number {
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

/**
 * `_meta.rate_limit` with `reset_after_seconds` at most {@link MAX_RETRY_AFTER_SECONDS}, a wait an
 * agent acts on like `retry_after_seconds`; `reset_at` stays the upstream's text.
 *
 * @param rateLimit - the rate limit as read or recorded.
 * @returns `rateLimit` itself when its delay is within the bound, else a copy with the bound.
 */
export function capRateLimitReset(rateLimit: RateLimitMeta): RateLimitMeta {
  const delay = rateLimit.reset_after_seconds;
  if (typeof delay !== 'number' || delay <= MAX_RETRY_AFTER_SECONDS) return rateLimit;
  return { ...rateLimit, reset_after_seconds: MAX_RETRY_AFTER_SECONDS };
}

const DELTA_SECONDS = /^(?:\d+(?:\.\d+)?|\.\d+)$/;
// IMF-fixdate, and the two obsolete forms HTTP still asks recipients to accept.
const HTTP_DATE =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * Parses a `Retry-After` value into seconds.
 *
 * Accepts delta-seconds (non-negative, decimals allowed: `"1.2"`) and an HTTP-date, which is
 * measured against `reference` (the response's own `Date` header when it parses, else `now`);
 * a date in the past gives 0. Anything else (negative numbers, units, garbage) is dropped. A
 * longer wait than {@link MAX_RETRY_AFTER_SECONDS} gives that maximum.
 *
 * @param raw - the header value.
 * @param now - the current time.
 * @param responseDate - the response's `Date` header value, if any.
 * @returns seconds (0 to {@link MAX_RETRY_AFTER_SECONDS}), or `undefined`.
 */
export function parseRetryAfter(raw: string | undefined, now: Date, responseDate?: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '') return undefined;
  if (DELTA_SECONDS.test(value)) {
    const seconds = Number(value);
    return Number.isFinite(seconds) ? capRetryAfter(seconds) : undefined;
  }
  if (!HTTP_DATE.test(value)) return undefined;
  const target = Date.parse(value);
  if (Number.isNaN(target)) return undefined;
  const parsedReference =
    responseDate !== undefined && HTTP_DATE.test(responseDate.trim()) ? Date.parse(responseDate.trim()) : Number.NaN;
  const reference = Number.isNaN(parsedReference) ? now.getTime() : parsedReference;
  return capRetryAfter(Math.max(0, (target - reference) / 1000));
}

/**
 * Parses a wait in milliseconds (a non-negative integer or decimal) into seconds, at most
 * {@link MAX_RETRY_AFTER_SECONDS}.
 *
 * @param raw - the header value.
 * @returns seconds (0 to {@link MAX_RETRY_AFTER_SECONDS}), or `undefined` when absent or not a number.
 */
export function parseRetryAfterMilliseconds(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (!DELTA_SECONDS.test(value)) return undefined;
  const milliseconds = Number(value);
  return Number.isFinite(milliseconds) ? capRetryAfter(milliseconds / 1000) : undefined;
}

/**
 * `_meta.retry_after_seconds` from a response: `Retry-After` first, then the first of
 * `millisecondsHeaders` present (a server's own spelling of a wait in milliseconds).
 *
 * @param headers - lower-cased headers.
 * @param now - the current time, for HTTP-dates.
 * @param millisecondsHeaders - header names whose value is a wait in milliseconds (default none).
 * @returns seconds (0 to {@link MAX_RETRY_AFTER_SECONDS}), or `undefined`.
 */
export function retryAfterSeconds(
  headers: ReadonlyMap<string, string>,
  now: Date,
  millisecondsHeaders: readonly string[] = [],
): number | undefined {
  return (
    parseRetryAfter(headerValue(headers, 'retry-after'), now, headerValue(headers, 'date')) ??
    parseRetryAfterMilliseconds(headerValue(headers, ...millisecondsHeaders))
  );
}
