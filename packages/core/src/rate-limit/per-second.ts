/**
 * A `_meta.rate_limit` read as a rate per second, whatever window it states it in.
 *
 * @packageDocumentation
 */
import type { RateLimitMeta } from '@mcp-envelope/contract';

function positive(value: unknown): number | undefined {
  const parsed = typeof value === 'string' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/**
 * The rate a `rate_limit` states, in requests per second: `limit_per_second` when it holds a
 * positive number, else `limit / window_seconds` (5000 per 3600 s is about 1.39 per second).
 *
 * @param rateLimit - a version 2 `_meta.rate_limit` (or `undefined`).
 * @returns the rate, or `undefined` when neither form holds positive numbers.
 */
export function ratePerSecond(rateLimit: RateLimitMeta | undefined): number | undefined {
  if (rateLimit === undefined) return undefined;
  const stated = positive(rateLimit.limit_per_second);
  if (stated !== undefined) return stated;
  const limit = positive(rateLimit.limit);
  const window = positive(rateLimit.window_seconds);
  return limit === undefined || window === undefined ? undefined : limit / window;
}
