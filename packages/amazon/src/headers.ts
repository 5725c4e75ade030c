/**
 * Response headers every Amazon API of this family may send, read the same way by each server.
 *
 * @packageDocumentation
 */
import { responseMetaFromHeaders } from '@mcp-envelope/core/adapter';
import type { ResponseMeta } from '@mcp-envelope/core';
import type { HeaderSource, RateLimitHeaderNames } from '@mcp-envelope/core/adapter';
import type { RateLimitMeta } from '@mcp-envelope/contract';

/**
 * The headers in which Amazon's endpoints (SP-API, the Ads API, Login with Amazon) may state a
 * wait in milliseconds instead of `Retry-After`; core reads them after `Retry-After` when they are
 * named in a server's `RateLimitHeaderNames.retryAfterMilliseconds`.
 */
export const AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS: readonly string[] = Object.freeze(['x-amz-retry-after']);

/**
 * A rate limit read from an Amazon limit header, which states requests per second: the value
 * stays in `limit_per_second` (where readers of contract version 1 find it) and is also written
 * as `limit` over `window_seconds: 1`, the form of contract version 2 for a limit of any window.
 * Implements CONTRACT.md "_meta.rate_limit".
 *
 * @param rateLimit - the object core read from the headers.
 * @returns the same keys plus `limit` and `window_seconds` when `limit_per_second` is present;
 *   else `rateLimit` itself.
 */
export function perSecondRateLimit(rateLimit: RateLimitMeta): RateLimitMeta {
  const perSecond = rateLimit.limit_per_second;
  if (perSecond === undefined) return rateLimit;
  return { limit: perSecond, window_seconds: 1, ...rateLimit };
}

/**
 * The `_meta` telemetry of an Amazon API response: core's reading of the server's rate-limit
 * header names, `Retry-After` and `Warning`, with the per-second limit stated in both forms (see
 * {@link perSecondRateLimit}). Never throws.
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the response arrived (for HTTP-date `Retry-After` without a `Date` header).
 * @param names - the server's rate-limit header names (the limit header states requests per second).
 * @returns `{ rate_limit?, retry_after_seconds?, warnings? }`; `{}` when none of these headers came.
 */
export function amazonResponseMeta(
  headers: HeaderSource | undefined,
  now: Date,
  names: RateLimitHeaderNames,
): ResponseMeta {
  const meta = responseMetaFromHeaders(headers, now, names);
  return meta.rate_limit === undefined ? meta : { ...meta, rate_limit: perSecondRateLimit(meta.rate_limit) };
}
