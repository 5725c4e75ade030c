/**
 * The status-based part of upstream HTTP classification that every server shares, as data:
 * 401/403 are credential problems, 429 is a rate limit, anything else is the server's own
 * `*_api_http` kind; 408, 429 and 5xx may succeed on retry. Implements CONTRACT.md "error_kind"
 * (429 -> `rate_limited`/`RATE_LIMITED`; 401/403 -> `auth_error` keeping the
 * per-server HTTP code).
 *
 * @packageDocumentation
 */
import type { ErrorKind } from '@mcp-envelope/contract';

/** What one server family calls its upstream kinds and codes. */
export interface UpstreamFamily {
  /** The contract's kind this server emits for an upstream HTTP failure, e.g. `example_api_http`. */
  readonly httpKind: ErrorKind;
  /** Code prefix, e.g. `EXAMPLE_HTTP_`. */
  readonly codePrefix: string;
}

/** The status-derived triple an adapter starts from. */
export interface StatusClassification {
  readonly error_kind: ErrorKind;
  readonly error_code: string;
  readonly retryable: boolean;
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
 * @param family - the server family's kind and code prefix.
 * @returns `rate_limited`/`RATE_LIMITED`/retryable for 429; `auth_error`/`<prefix><status>`/not
 *   retryable for 401 and 403; else `<httpKind>`/`<prefix><status>` with `isRetryableStatus`.
 */
export function classifyUpstreamStatus(status: number, family: UpstreamFamily): StatusClassification {
  if (RATE_LIMIT_STATUSES.has(status))
    return { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true };
  const error_code = `${family.codePrefix}${Number.isInteger(status) ? status : 0}`;
  if (AUTH_STATUSES.has(status)) return { error_kind: 'auth_error', error_code, retryable: false };
  return { error_kind: family.httpKind, error_code, retryable: isRetryableStatus(status) };
}
