/**
 * PENDING CORE: generic, not Ads-specific. `_meta` telemetry of one response from a server's
 * rate-limit header names: core's `http-meta` has each rule (`rateLimitMeta`,
 * `retryAfterSeconds`, `upstreamWarnings`) but not their combination, so each adapter wrote the
 * same assembly (SP's `parseSpResponseMeta` is this function with other names). It belongs in
 * core's `http-meta`; it lives here until the lead moves it.
 *
 * @packageDocumentation
 */
import { headerValue, lowerCaseHeaders, rateLimitMeta, retryAfterSeconds, upstreamWarnings } from '@mcp-envelope/core';
import type { HeaderSource, RateLimitHeaderNames, ResponseMeta } from '@mcp-envelope/core';

/**
 * `rate_limit` from the server's header names, `retry_after_seconds` from `Retry-After` (or
 * `x-amz-retry-after`), one `upstream_warning` per `Warning` value; absent keys stay absent.
 *
 * @param headers - the response headers in any container and casing.
 * @param now - when the response arrived (for HTTP-date `Retry-After` without a `Date` header).
 * @param names - the server's rate-limit header names.
 * @returns the meta; `{}` when the response carried none of these headers.
 */
export function responseMetaFromHeaders(headers: HeaderSource | undefined, now: Date, names: RateLimitHeaderNames): ResponseMeta {
  const lower = lowerCaseHeaders(headers);
  const rateLimit = rateLimitMeta(lower, names);
  const retryAfter = retryAfterSeconds(lower, now);
  const warnings = upstreamWarnings(headerValue(lower, 'warning'));
  return {
    ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
    ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
