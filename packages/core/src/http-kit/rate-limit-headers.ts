/**
 * Every common rate-limit header dialect read into one shape: the IETF `RateLimit` and
 * `RateLimit-Policy` structured fields (draft-ietf-httpapi-ratelimit-headers-10 to -12), the
 * older `RateLimit-Limit` / `-Remaining` / `-Reset`, and the `X-RateLimit-*` family (GitHub,
 * many gateways). Implements CONTRACT.md "Rate limit" (the keys of `_meta.rate_limit`).
 *
 * @packageDocumentation
 */
import { parseList, Token } from 'structured-headers';
import type { List, Parameters } from 'structured-headers';

import { headerValue, lowerCaseHeaders } from '../http-meta/headers.js';
import type { HeaderSource } from '../http-meta/headers.js';

/**
 * What an upstream said about its rate limit, in the keys of `_meta.rate_limit` (contract
 * version 2). Every key is optional: absent means the upstream did not say.
 */
export interface RateLimitReading {
  /** Requests allowed per `window_seconds` (or per an unstated window). */
  limit?: number;
  /** The window `limit` counts over, in seconds (> 0). */
  window_seconds?: number;
  /** Requests left in the current window (>= 0). */
  remaining?: number;
  /** Requests spent in the current window (`X-RateLimit-Used`). */
  used?: number;
  /** Which budget the answer counted against (`X-RateLimit-Resource`: `core`, `search`, ...). */
  resource?: string;
  /** When the window resets, as an ISO 8601 date-time computed from the header. */
  reset_at?: string;
  /** Seconds until the window resets (>= 0). */
  reset_after_seconds?: number;
  /** The IETF policy name the numbers belong to (`"default"`). */
  policy?: string;
}

/** Above this, an `X-RateLimit-Reset` value is epoch seconds; at or below it, a delay in seconds. */
export const EPOCH_RESET_THRESHOLD = 1e9;

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function positive(value: unknown): number | undefined {
  const number = nonNegative(value);
  return number === undefined || number === 0 ? undefined : number;
}

/** A plain decimal header value (`"60"`, `"0.5"`) as a number, else `undefined`. */
function decimal(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d+(?:\.\d+)?$/.test(raw)) return undefined;
  return nonNegative(Number(raw));
}

/** A structured-field List, or `undefined` when the text is not one (never throws). */
function structuredList(raw: string | undefined): List | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseList(raw);
  } catch {
    return undefined;
  }
}

/** The name of a policy item: a String or a Token (an integer for the older `RateLimit-Limit` lists). */
function itemName(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Token) return value.toString();
  return undefined;
}

/** The items of a List with their names and parameters (inner lists are not policies: skipped). */
function namedItems(list: List): { name: string | undefined; params: Parameters; value: unknown }[] {
  return list.flatMap(([value, params]): { name: string | undefined; params: Parameters; value: unknown }[] => {
    const bare: unknown = value;
    return Array.isArray(bare) ? [] : [{ name: itemName(bare), params, value: bare }];
  });
}

function resetFields(
  seconds: number | undefined,
  now: Date,
): Pick<RateLimitReading, 'reset_at' | 'reset_after_seconds'> {
  if (seconds === undefined) return {};
  return { reset_after_seconds: seconds, reset_at: new Date(now.getTime() + seconds * 1000).toISOString() };
}

/**
 * The IETF `RateLimit` field (`"default";r=50;t=30`) with its `RateLimit-Policy`
 * (`"default";q=100;w=60`). Of several policies, the one with the fewest requests left wins: it
 * is the one that will refuse first.
 */
function ietfReading(headers: ReadonlyMap<string, string>, now: Date): RateLimitReading {
  const current = namedItems(structuredList(headerValue(headers, 'ratelimit')) ?? [])
    .map((item) => ({ ...item, remaining: nonNegative(item.params.get('r')) }))
    .filter((item) => item.remaining !== undefined)
    .sort((a, b) => (a.remaining ?? 0) - (b.remaining ?? 0))[0];
  const policies = namedItems(structuredList(headerValue(headers, 'ratelimit-policy')) ?? []).filter(
    (item) => positive(item.params.get('q')) !== undefined,
  );
  const policy = current === undefined ? policies[0] : policies.find((item) => item.name === current.name);
  const name = current?.name ?? policy?.name;
  const limit = positive(policy?.params.get('q'));
  const window = positive(policy?.params.get('w'));
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(window === undefined ? {} : { window_seconds: window }),
    ...(current?.remaining === undefined ? {} : { remaining: current.remaining }),
    ...resetFields(nonNegative(current?.params.get('t')), now),
    ...(name === undefined || (current === undefined && policy === undefined) ? {} : { policy: name }),
  };
}

/**
 * The older separate fields: `RateLimit-Limit` (a number, or a list such as `100, 100;w=60`
 * whose first member is the limit and whose `w` parameter is the window), `RateLimit-Remaining`,
 * and `RateLimit-Reset` (seconds from now).
 */
function separateFieldsReading(headers: ReadonlyMap<string, string>, now: Date): RateLimitReading {
  const limits = namedItems(structuredList(headerValue(headers, 'ratelimit-limit')) ?? []);
  const limit = positive(limits[0]?.value);
  const window = positive(limits.find((item) => item.value === limit && item.params.has('w'))?.params.get('w'));
  const remaining = decimal(headerValue(headers, 'ratelimit-remaining'));
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(window === undefined ? {} : { window_seconds: window }),
    ...(remaining === undefined ? {} : { remaining }),
    ...resetFields(decimal(headerValue(headers, 'ratelimit-reset')), now),
  };
}

/**
 * `X-RateLimit-Limit / -Remaining / -Used / -Resource / -Reset`, where the reset is epoch seconds
 * when it is larger than {@link EPOCH_RESET_THRESHOLD} (GitHub) and a delay in seconds otherwise.
 */
function xRateLimitReading(headers: ReadonlyMap<string, string>, now: Date): RateLimitReading {
  const limit = positive(decimal(headerValue(headers, 'x-ratelimit-limit')));
  const remaining = decimal(headerValue(headers, 'x-ratelimit-remaining'));
  const used = decimal(headerValue(headers, 'x-ratelimit-used'));
  const resource = headerValue(headers, 'x-ratelimit-resource');
  const reset = decimal(headerValue(headers, 'x-ratelimit-reset'));
  const resetSeconds =
    reset === undefined ? undefined : reset > EPOCH_RESET_THRESHOLD ? Math.max(0, reset - now.getTime() / 1000) : reset;
  const resetAt =
    reset !== undefined && reset > EPOCH_RESET_THRESHOLD ? { reset_at: new Date(reset * 1000).toISOString() } : {};
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(used === undefined ? {} : { used }),
    ...(resource === undefined ? {} : { resource: resource.slice(0, 100) }),
    ...resetFields(resetSeconds, now),
    ...resetAt,
  };
}

/**
 * Reads the rate limit a response states, in whichever dialect it speaks. Where several dialects
 * are present, each key comes from the first that states it: IETF `RateLimit` /
 * `RateLimit-Policy`, then `RateLimit-Limit` / `-Remaining` / `-Reset`, then `X-RateLimit-*`.
 * Values that do not parse are ignored (never thrown).
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the response arrived (delays become `reset_at`, epochs `reset_after_seconds`).
 * @returns the reading, or `undefined` when no dialect stated anything usable.
 */
export function readRateLimit(headers: HeaderSource | undefined, now: Date): RateLimitReading | undefined {
  const lower = lowerCaseHeaders(headers);
  const reading: RateLimitReading = {
    ...xRateLimitReading(lower, now),
    ...separateFieldsReading(lower, now),
    ...ietfReading(lower, now),
  };
  return Object.keys(reading).length === 0 ? undefined : reading;
}
