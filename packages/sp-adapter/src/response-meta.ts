/**
 * SP-API response headers -> `_meta` telemetry and the request id. Only the SP header names live
 * here; the value rules (numbers vs raw strings, Retry-After forms, Warning grammar) are core's.
 * Implements CONTRACT.md "_meta.rate_limit", "_meta.retry_after_seconds", "_meta.warnings" and the
 * SP appendix (header names).
 *
 * @packageDocumentation
 */
import { headerValue, lowerCaseHeaders } from '@mcp-envelope/core/adapter';
import type { ResponseMeta } from '@mcp-envelope/core';
import type { HeaderSource, RateLimitHeaderNames } from '@mcp-envelope/core/adapter';
import { AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS, amazonResponseMeta } from '@mcp-envelope/amazon';

/**
 * SP-API's rate-limit headers. SP-API sends only `x-amzn-RateLimit-Limit` (requests per second of
 * the usage plan applied); `-Remaining` and `-Reset` are read when present.
 */
export const SP_RATE_LIMIT_HEADERS = {
  limit: ['x-amzn-RateLimit-Limit'],
  remaining: ['x-amzn-RateLimit-Remaining'],
  reset: ['x-amzn-RateLimit-Reset'],
  retryAfterMilliseconds: AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS,
} as const satisfies RateLimitHeaderNames;

/** Where the request id is, in order of preference. */
export const SP_REQUEST_ID_HEADERS = ['x-amzn-RequestId', 'x-amz-rid', 'x-amz-apigw-id'] as const;

/**
 * The request id of a response: `x-amzn-RequestId`, else `x-amz-rid`, else `x-amz-apigw-id`, in
 * any casing. A header repeated (folded as `a, b`) gives its first value.
 *
 * @param headers - response headers: `Headers`, a `Map`, Node's headers or a plain record, any casing.
 * @returns the id, or `undefined` when none of the headers is present and non-empty.
 */
export function spRequestId(headers: HeaderSource | undefined): string | undefined {
  const value = headerValue(lowerCaseHeaders(headers), ...SP_REQUEST_ID_HEADERS);
  if (value === undefined) return undefined;
  const first = value.split(',')[0]?.trim() ?? '';
  return first === '' ? undefined : first.slice(0, 200);
}

/**
 * The `_meta` telemetry of an SP-API response (success or failure): `rate_limit` from the
 * `x-amzn-RateLimit-*` headers (the limit, requests per second, as `limit_per_second` and as
 * `limit` with `window_seconds: 1`), `retry_after_seconds` from `Retry-After` (delta-seconds or an
 * HTTP-date measured against the response's `Date`) or `x-amz-retry-after` (milliseconds), and
 * one `upstream_warning` per `Warning` value. Absent headers give absent keys. Never throws.
 *
 * @param headers - response headers: `Headers`, a `Map`, Node's headers or a plain record, any casing.
 * @param now - when the response arrived (for HTTP-date values without a `Date` header).
 * @returns `{ rate_limit?, retry_after_seconds?, warnings? }`.
 */
export function parseSpResponseMeta(headers: HeaderSource | undefined, now: Date): ResponseMeta {
  return amazonResponseMeta(headers, now, SP_RATE_LIMIT_HEADERS);
}
