/**
 * A ready `parseResponseMeta` for any REST adapter: every rate-limit dialect, `Retry-After` and
 * `Warning`. Implements CONTRACT.md "_meta" (rate_limit, retry_after_seconds, warnings).
 *
 * @packageDocumentation
 */
import type { RateLimitMeta } from '@mcp-envelope/contract';

import type { ResponseMeta } from '../adapter.js';
import { headerValue, lowerCaseHeaders } from '../http-meta/headers.js';
import type { HeaderSource } from '../http-meta/headers.js';
import { capRateLimitReset, retryAfterSeconds } from '../http-meta/rate-limit.js';
import { upstreamWarnings } from '../http-meta/warning.js';
import { readRateLimit } from './rate-limit-headers.js';
import type { RateLimitReading } from './rate-limit-headers.js';

/** Where the raw reset text is, for `reset_at` (the contract keeps the upstream's own text). */
const RESET_HEADERS = ['x-ratelimit-reset', 'ratelimit-reset'] as const;

/**
 * `_meta.rate_limit` from a reading: its keys as they are (`used`, `resource` and `policy` are
 * extra keys the contract allows), except `reset_at`, which the contract keeps as the upstream's
 * raw text; a reset stated only as a delay (IETF `t`) is `reset_after_seconds` alone.
 *
 * @param reading - from {@link readRateLimit} (`{}` when it read nothing: a reset text it could not
 *   read is still the upstream's `reset_at`).
 * @param headers - lower-cased headers, for the raw reset text.
 * @returns the object, or `undefined` for an empty reading.
 */
function rateLimitMetaOf(reading: RateLimitReading, headers: ReadonlyMap<string, string>): RateLimitMeta | undefined {
  // the reading's reset_at is computed; the contract's is the upstream's own text
  const rest: RateLimitMeta = Object.fromEntries(Object.entries(reading).filter(([key]) => key !== 'reset_at'));
  const raw = headerValue(headers, ...RESET_HEADERS);
  const meta: RateLimitMeta = { ...rest, ...(raw === undefined ? {} : { reset_at: raw }) };
  return Object.keys(meta).length === 0 ? undefined : capRateLimitReset(meta);
}

/**
 * The `_meta` telemetry of a REST response: `rate_limit` from any dialect {@link readRateLimit}
 * reads (`limit`, `window_seconds`, `remaining`, `reset_after_seconds` at most
 * `MAX_RETRY_AFTER_SECONDS`, `reset_at` as the raw reset header, and the extra keys `used`,
 * `resource`, `policy`), `retry_after_seconds` from
 * `Retry-After` (seconds or an HTTP date), one `upstream_warning` per `Warning` value. Absent
 * headers give absent keys.
 *
 * @param headers - the response headers in any container and casing.
 * @param now - when the response arrived.
 * @returns the meta; `{}` when the response carried none of these headers. Never throws.
 */
export function restResponseMeta(headers: HeaderSource | undefined, now: Date): ResponseMeta {
  const lower = lowerCaseHeaders(headers);
  const reading = readRateLimit(headers, now);
  const rateLimit = rateLimitMetaOf(reading ?? {}, lower);
  const retryAfter = retryAfterSeconds(lower, now);
  const warnings = upstreamWarnings(headerValue(lower, 'warning'));
  return {
    ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
    ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
