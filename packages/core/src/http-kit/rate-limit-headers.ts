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
import { parseRetryAfter } from '../http-meta/rate-limit.js';

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

/** The most characters kept of a name the upstream gives (a policy, a resource): each goes into every `_meta`. */
const MAX_NAME_LENGTH = 100;

/** The largest time a `Date` holds, in epoch milliseconds (ECMAScript's limit, about 275,000 years). */
const MAX_DATE_MS = 8.64e15;

/** A reset `seconds` from now as both keys; one too far to be a date keeps only the delay. */
function resetFields(
  seconds: number | undefined,
  now: Date,
): Pick<RateLimitReading, 'reset_at' | 'reset_after_seconds'> {
  return seconds === undefined ? {} : resetAt(seconds, now.getTime() + seconds * 1000);
}

function resetAt(afterSeconds: number, atMs: number): Pick<RateLimitReading, 'reset_at' | 'reset_after_seconds'> {
  return Math.abs(atMs) <= MAX_DATE_MS
    ? { reset_after_seconds: afterSeconds, reset_at: new Date(atMs).toISOString() }
    : { reset_after_seconds: afterSeconds };
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
    ...(name === undefined || (current === undefined && policy === undefined)
      ? {}
      : { policy: name.slice(0, MAX_NAME_LENGTH) }),
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

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An `X-RateLimit-Reset` value as a moment: epoch seconds above {@link EPOCH_RESET_THRESHOLD}, a
 * delay in seconds at or below it, or an HTTP date or ISO 8601 date-time (some gateways send
 * those). A moment in the past is a reset 0 s away.
 */
function absoluteReset(raw: string | undefined, now: Date): { afterSeconds: number; atMs: number } | undefined {
  const number = decimal(raw);
  const nowMs = now.getTime();
  let atMs: number | undefined;
  if (number !== undefined) atMs = number > EPOCH_RESET_THRESHOLD ? number * 1000 : nowMs + number * 1000;
  else if (raw !== undefined && ISO_DATE_TIME.test(raw)) atMs = Date.parse(raw);
  else {
    const seconds = parseRetryAfter(raw, now);
    if (seconds !== undefined) atMs = nowMs + seconds * 1000;
  }
  if (atMs === undefined || !Number.isFinite(atMs)) return undefined;
  return { afterSeconds: Math.max(0, (atMs - nowMs) / 1000), atMs };
}

/**
 * `X-RateLimit-Limit / -Remaining / -Used / -Resource / -Reset`, where the reset is epoch seconds
 * when it is larger than {@link EPOCH_RESET_THRESHOLD} (GitHub), a delay in seconds otherwise, or a
 * date (see `absoluteReset`).
 */
function xRateLimitReading(headers: ReadonlyMap<string, string>, now: Date): RateLimitReading {
  const limit = positive(decimal(headerValue(headers, 'x-ratelimit-limit')));
  const remaining = decimal(headerValue(headers, 'x-ratelimit-remaining'));
  const used = decimal(headerValue(headers, 'x-ratelimit-used'));
  const resource = headerValue(headers, 'x-ratelimit-resource');
  const reset = absoluteReset(headerValue(headers, 'x-ratelimit-reset'), now);
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(used === undefined ? {} : { used }),
    ...(resource === undefined ? {} : { resource: resource.slice(0, MAX_NAME_LENGTH) }),
    ...(reset === undefined ? {} : resetAt(reset.afterSeconds, reset.atMs)),
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
