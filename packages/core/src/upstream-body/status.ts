/**
 * The status-based part of upstream HTTP classification that every server shares, as data:
 * 401/403 are credential problems, 429 is a rate limit, anything else is `upstream_http`; 408,
 * 429 and 5xx may succeed on retry. Every verdict names the upstream API that answered.
 * Implements CONTRACT.md "error_kind" (429 -> `rate_limited`/`RATE_LIMITED`; 401/403 ->
 * `auth_error` keeping the `UPSTREAM_HTTP_<status>` code).
 *
 * @packageDocumentation
 */
import { UPSTREAM_HTTP_CODE_PREFIX } from '@mcp-envelope/contract';
import type { ErrorKind } from '@mcp-envelope/contract';

/** Which upstream API answered: the envelope's `upstream` value. */
export interface UpstreamFamily {
  /** The upstream's name, e.g. `example-api` (one of the adapter's `upstreams`). */
  readonly upstream: string;
}

/** The status-derived verdict an adapter starts from. */
export interface StatusClassification {
  readonly error_kind: ErrorKind;
  /** `UPSTREAM_HTTP_<status>` or `RATE_LIMITED`. */
  readonly error_code: string;
  readonly retryable: boolean;
  /** The family's upstream name. */
  readonly upstream: string;
}

/** Statuses that classify as credential problems (`auth_error`). */
export const AUTH_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/** Statuses that classify as `rate_limited`. */
export const RATE_LIMIT_STATUSES: ReadonlySet<number> = new Set([429]);

/**
 * Whether the same request may succeed later: 408 (timeout), 429 (rate limit) and every 5xx.
 *
 * @param status - HTTP status code.
 * @returns true for 408, 429 and 500-599.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Classifies an upstream HTTP failure by status alone (never by an error-type header or body
 * code, which upstreams set inconsistently).
 *
 * @param status - the HTTP status (4xx or 5xx; any other number is classified the same way).
 * @param family - the upstream that answered.
 * @returns `rate_limited`/`RATE_LIMITED`/retryable for 429; `auth_error`/`UPSTREAM_HTTP_<status>`/not
 *   retryable for 401 and 403; else `upstream_http`/`UPSTREAM_HTTP_<status>` with
 *   `isRetryableStatus`; each with `upstream: family.upstream`.
 */
export function classifyUpstreamStatus(status: number, family: UpstreamFamily): StatusClassification {
  const upstream = family.upstream;
  if (RATE_LIMIT_STATUSES.has(status))
    return { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true, upstream };
  // a status outside 100..599 cannot reach here from fetch; 0 keeps the code well formed if it does
  const error_code = `${UPSTREAM_HTTP_CODE_PREFIX}${Number.isInteger(status) ? status : 0}`;
  if (AUTH_STATUSES.has(status)) return { error_kind: 'auth_error', error_code, retryable: false, upstream };
  return { error_kind: 'upstream_http', error_code, retryable: isRetryableStatus(status), upstream };
}
