/**
 * The whole `_meta` telemetry of one upstream response, from a server's rate-limit header names.
 *
 * @packageDocumentation
 */
import type { ResponseMeta } from '../adapter.js';
import { headerValue, lowerCaseHeaders } from './headers.js';
import type { HeaderSource } from './headers.js';
import { rateLimitMeta, retryAfterSeconds } from './rate-limit.js';
import type { RateLimitHeaderNames } from './rate-limit.js';
import { upstreamWarnings } from './warning.js';

/**
 * `rate_limit` from the server's header names, `retry_after_seconds` from `Retry-After` (else the
 * server's `retryAfterMilliseconds` headers), one `upstream_warning` per `Warning` value. Absent
 * keys stay absent.
 * Implements CONTRACT.md "_meta" (rate_limit, retry_after_seconds, warnings).
 *
 * @param headers - the response headers in any container and casing.
 * @param now - when the response arrived (HTTP-date `Retry-After` without a `Date` header).
 * @param names - the server's rate-limit header names.
 * @returns the meta; `{}` when the response carried none of these headers.
 */
export function responseMetaFromHeaders(
  headers: HeaderSource | undefined,
  now: Date,
  names: RateLimitHeaderNames,
): ResponseMeta {
  const lower = lowerCaseHeaders(headers);
  const rateLimit = rateLimitMeta(lower, names);
  const retryAfter = retryAfterSeconds(lower, now, names.retryAfterMilliseconds);
  const warnings = upstreamWarnings(headerValue(lower, 'warning'));
  return {
    ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
    ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
