/**
 * Failures an upstream reports in a 2xx body: the common forms (`{ "error": {...} }` alone,
 * `{ "errors": [...] }` without data) and the HTTP status their code words mean, so that an
 * adapter's `inBandFailure` is a line. Implements CONTRACT.md "In-band failures from the upstream".
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';

import type { InBandVerdict } from '../adapter.js';

/** Options of {@link inBandError}. */
export interface InBandErrorOptions {
  /**
   * The keys that hold the data of a success (default `["data"]`): an `errors` list beside one of
   * them that is present and not `null` is part of the data (a partial answer), not a failure.
   */
  readonly dataKeys?: readonly string[];
}

/**
 * The failure a 2xx body reports, in the common forms:
 * - an object with nothing but `error` (and `_meta`), `error` a non-null object or a non-empty string;
 * - an object whose `errors` is a non-empty array and whose data keys (`options.dataKeys`) are
 *   absent or `null`.
 * Anything else is data: `{ "errors": [] }`, `{ "error": null, "items": [] }`, an array, text.
 *
 * @param body - the parsed 2xx body.
 * @param options - see {@link InBandErrorOptions}.
 * @returns the `error` value or the `errors` array found, or `undefined` when the body is data.
 */
export function inBandError(body: unknown, options: InBandErrorOptions = {}): unknown {
  if (!isRecord(body)) return undefined;
  const error = body['error'];
  const alone = Object.keys(body).every((key) => key === 'error' || key === '_meta');
  if (alone && (isRecord(error) || (typeof error === 'string' && error.trim() !== ''))) return error;
  const errors = body['errors'];
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const dataKeys = options.dataKeys ?? ['data'];
  return dataKeys.some((key) => body[key] !== undefined && body[key] !== null) ? undefined : errors;
}

/** Code words (lower case, letters and digits only) and the status each means. */
const CODE_STATUSES: ReadonlyMap<string, number> = new Map([
  ...['badrequest', 'invalidinput', 'invalidargument', 'invalidparameter', 'invalidrequest', 'validationerror'].map(
    (word) => [word, 400] as const,
  ),
  ...['unauthorized', 'unauthenticated', 'invalidsignature', 'invalidtoken'].map((word) => [word, 401] as const),
  ...['forbidden', 'accessdenied', 'permissiondenied'].map((word) => [word, 403] as const),
  ...['notfound', 'resourcenotfound'].map((word) => [word, 404] as const),
  ...['conflict', 'alreadyexists'].map((word) => [word, 409] as const),
  ...['quotaexceeded', 'throttled', 'ratelimited', 'ratelimitexceeded', 'toomanyrequests', 'resourceexhausted'].map(
    (word) => [word, 429] as const,
  ),
  ...['internalfailure', 'internalerror', 'internal'].map((word) => [word, 500] as const),
  ...['serviceunavailable', 'unavailable'].map((word) => [word, 503] as const),
  ...['timeout', 'deadlineexceeded'].map((word) => [word, 504] as const),
]);

/** A code as the table holds it: lower case, letters and digits only (`NOT_FOUND` and `not-found` are `notfound`). */
function codeWord(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The keys of an error object that may hold its code. */
const CODE_KEYS = ['code', 'status', 'type', 'reason'] as const;

/** The status one error object's code means, or `undefined` when none of its codes is known. */
function statusOfObject(error: Record<string, unknown>, table: ReadonlyMap<string, number>): number | undefined {
  for (const key of CODE_KEYS) {
    const code = error[key];
    if (typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599) return code;
    if (typeof code !== 'string') continue;
    if (/^[45]\d\d$/.test(code.trim())) return Number(code.trim());
    const status = table.get(codeWord(code));
    if (status !== undefined) return status;
  }
  return undefined;
}

/**
 * The HTTP status an in-band failure means, read from the code of the error object (or of the
 * first item of an error list whose code is known): `code`, `status`, `type` or `reason`, compared
 * without case or separators (`NotFound`, `NOT_FOUND`, `not-found`), or an integer 400-599 there
 * (a number, or a string of its three digits).
 * Known words: 400 `BadRequest`, `InvalidInput`, `InvalidArgument`, `InvalidParameter`,
 * `InvalidRequest`, `ValidationError`; 401 `Unauthorized`, `Unauthenticated`, `InvalidSignature`,
 * `InvalidToken`; 403 `Forbidden`, `AccessDenied`, `PermissionDenied`; 404 `NotFound`,
 * `ResourceNotFound`; 409 `Conflict`, `AlreadyExists`; 429 `QuotaExceeded`, `Throttled`,
 * `RateLimited`, `RateLimitExceeded`, `TooManyRequests`, `ResourceExhausted`; 500
 * `InternalFailure`, `InternalError`, `Internal`; 503 `ServiceUnavailable`, `Unavailable`; 504
 * `Timeout`, `DeadlineExceeded`.
 *
 * @param found - what {@link inBandError} found (an error object, a list of them, or a string).
 * @param overrides - an upstream's own words (any case; separators ignored) and their statuses,
 *   read before the common ones.
 * @returns the status; 500 when no code is known, since the upstream said it failed without saying how.
 */
export function inBandStatus(found: unknown, overrides: Readonly<Record<string, number>> = {}): number {
  const table = new Map(CODE_STATUSES);
  for (const [word, status] of Object.entries(overrides)) table.set(codeWord(word), status);
  const items = Array.isArray(found) ? found : [found];
  for (const item of items) {
    const status = isRecord(item) ? statusOfObject(item, table) : undefined;
    if (status !== undefined) return status;
  }
  return 500;
}

/**
 * The kit's whole in-band rule: {@link inBandError}, then {@link inBandStatus} of what it found.
 * An adapter whose upstream uses the common forms sets `inBandFailure: (answer) => restInBandFailure(answer.body)`.
 *
 * @param body - the parsed 2xx body.
 * @param options - see {@link InBandErrorOptions}; `overrides` as for {@link inBandStatus}.
 * @returns the verdict (the status; `classify` then reads the whole body), or `undefined` when the body is data.
 */
export function restInBandFailure(
  body: unknown,
  options: InBandErrorOptions & { readonly overrides?: Readonly<Record<string, number>> } = {},
): InBandVerdict | undefined {
  const found = inBandError(body, options);
  return found === undefined ? undefined : { status: inBandStatus(found, options.overrides) };
}
