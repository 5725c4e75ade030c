/**
 * Reading Amazon Ads API response headers: `X-RateLimit-*`, `Retry-After`, `Warning`, the
 * throttling flag and the request id. Only the header names are Ads-specific; the value rules
 * come from core's `http-meta`. Implements CONTRACT.md "_meta.rate_limit",
 * "_meta.retry_after_seconds", "_meta.warnings".
 *
 * @packageDocumentation
 */
import { headerValue } from '@mcp-envelope/core/adapter';
import type { ResponseMeta } from '@mcp-envelope/core';
import type { HeaderSource, RateLimitHeaderNames } from '@mcp-envelope/core/adapter';
import { AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS, amazonResponseMeta } from '@mcp-envelope/amazon';

import { ADS_RESPONSE_HEADERS } from './hint-tables.js';

const RATE_LIMIT_NAMES: RateLimitHeaderNames = {
  limit: ADS_RESPONSE_HEADERS.rateLimitLimit,
  remaining: ADS_RESPONSE_HEADERS.rateLimitRemaining,
  reset: ADS_RESPONSE_HEADERS.rateLimitReset,
  retryAfterMilliseconds: AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS,
};

/**
 * `_meta` telemetry from an Ads API response (success or failure): `rate_limit` from
 * `X-RateLimit-Limit` / `-Remaining` / `-Reset` in any casing (the limit, requests per second, as
 * `limit_per_second` and as `limit` with `window_seconds: 1`), `retry_after_seconds` from
 * `Retry-After` (seconds with decimals, or an HTTP-date measured against the response `Date`) or
 * `x-amz-retry-after` (milliseconds),
 * and one `upstream_warning` per `Warning` value. Keys whose headers are absent are absent.
 *
 * @param headers - the response headers in any container and casing.
 * @param now - when the response arrived (for HTTP-date `Retry-After` without a `Date` header).
 * @returns the meta; `{}` when the response carried none of these headers.
 */
export function parseAdsResponseMeta(headers: HeaderSource | undefined, now: Date): ResponseMeta {
  return amazonResponseMeta(headers, now, RATE_LIMIT_NAMES);
}

/**
 * Whether the Ads gateway flagged the response as throttled (`amazon-advertising-api-throttled:
 * true`, any casing of name and value). This flag, with the status, decides throttling; the
 * `x-amzn-ErrorType` header is not consulted because it can name an unrelated error.
 *
 * @param headers - lower-cased headers from `lowerCaseHeaders`.
 * @returns true when the flag is `true`.
 */
export function isThrottledResponse(headers: ReadonlyMap<string, string>): boolean {
  return headerValue(headers, ADS_RESPONSE_HEADERS.throttled)?.toLowerCase() === 'true';
}

function bodyRequestId(body: unknown, depth: number): string | undefined {
  if (depth > 3 || typeof body !== 'object' || body === null) return undefined;
  if (Array.isArray(body)) {
    for (const item of body.slice(0, 20)) {
      const found = bodyRequestId(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, value] of Object.entries(body)) {
    if (/^request_?id$/i.test(key) && (typeof value === 'string' || typeof value === 'number')) {
      const text = String(value).trim();
      if (text !== '') return text;
    }
  }
  return undefined;
}

/**
 * The request id of an Ads API response: the body's `requestId` first (the id Ads support asks
 * for), then the `x-amzn-RequestId`, `x-amz-rid` and `x-amz-request-id` headers.
 *
 * @param headers - lower-cased headers.
 * @param body - the parsed body (any JSON value), if any.
 * @returns the id, or `undefined` when the response carried none.
 */
export function adsRequestId(headers: ReadonlyMap<string, string>, body?: unknown): string | undefined {
  return bodyRequestId(body, 0) ?? headerValue(headers, ...ADS_RESPONSE_HEADERS.requestId);
}
