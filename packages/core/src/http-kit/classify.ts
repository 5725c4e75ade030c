/**
 * A default classification for any REST upstream: the status table, rate limits whatever status
 * carries them, and details from problem+json and common JSON error bodies. An adapter calls it
 * and overrides only what its upstream does differently. Implements CONTRACT.md "error_kind" and
 * "Upstream HTTP codes".
 *
 * @packageDocumentation
 */
import type { ClassifiableFailure, ClassifiedError, ClassifyContext, UpstreamHttpFailure } from '../adapter.js';
import { lowerCaseHeaders } from '../http-meta/headers.js';
import { classifyClientFailure } from '../upstream-body/client-failure.js';
import type { ClientFailureFamily } from '../upstream-body/client-failure.js';
import { requestPath } from '../upstream-body/request.js';
import { classifyUpstreamStatus } from '../upstream-body/status.js';
import type { StatusClassification, UpstreamFamily } from '../upstream-body/status.js';
import { restErrorDetails } from './error-details.js';
import { rateLimitSignal } from './rate-limit-signal.js';
import type { RateLimitSignal } from './rate-limit-signal.js';

/** Hints a REST adapter may word for its own upstream; each has a default. */
export interface RestClassificationHints {
  /** For a rate limit (any status); `{wait}` is replaced by the seconds to wait, when known. */
  readonly rateLimited?: string;
  /** For a 401 or a 403 that is not a rate limit. */
  readonly auth?: string;
  readonly notFound?: string;
  /** For any other 4xx. */
  readonly badRequest?: string;
  /** For a 5xx. */
  readonly server?: string;
  readonly network?: string;
  readonly timeout?: string;
  readonly bodyCoercion?: string;
  readonly tooLarge?: string;
}

/** What {@link classifyRestFailure} needs to know of the upstream. */
export interface RestClassificationOptions {
  /** The envelope's `upstream`, e.g. `github` (one of the adapter's `upstreams`). */
  readonly upstream: string;
  /** How summaries name it, e.g. `GitHub API`. */
  readonly apiName: string;
  readonly hints?: RestClassificationHints;
}

/** The hints used where the adapter words none. */
export const DEFAULT_REST_HINTS: Readonly<Required<RestClassificationHints>> = Object.freeze({
  rateLimited:
    'The upstream rate limit is spent: wait {wait} (_meta.retry_after_seconds), then send the call again; calls sent sooner are refused the same way.',
  auth: 'The upstream refused the credentials or their permissions: check the token and its scopes rather than retrying.',
  notFound:
    'Check the identifiers in the path (owner, name, id); a resource the token may not see can also answer 404.',
  badRequest: 'Check the arguments against the details: each names the field the upstream refused.',
  server: 'The upstream failed on its side: retry with exponential backoff (for example 1 s, 2 s, 4 s).',
  network: 'Retry after a short wait; if it keeps failing, check the network path to the upstream and its URL.',
  timeout: 'Retry after a short wait; for large results, ask for fewer items per page.',
  bodyCoercion:
    'Send the body as a JSON object rather than a string, or fix the JSON text (double quotes around keys and strings, no trailing commas).',
  tooLarge:
    'Ask for less in one call: a smaller page size, fewer fields, or narrower filters, then follow the next page.',
});

function statusHint(status: number, kind: string, hints: Required<RestClassificationHints>): string {
  if (kind === 'auth_error') return hints.auth;
  if (status === 404) return hints.notFound;
  if (status >= 500) return hints.server;
  return hints.badRequest;
}

/** A status verdict, and the rate-limit signal behind it (`limited: false` when there was none). */
export interface RestStatusClassification extends StatusClassification {
  readonly signal: RateLimitSignal;
}

/**
 * Core's status table with rate limits of any status: {@link rateLimitSignal} first (a 429; a
 * 403 with `Retry-After`, with `remaining: 0` and a reset, or whose message says so), then
 * `classifyUpstreamStatus`. The part of {@link classifyRestFailure} an adapter with its own
 * summaries, details and hints still shares.
 *
 * @param failure - the HTTP failure (status, headers, body).
 * @param now - when it arrived.
 * @param family - the upstream that answered.
 * @returns `rate_limited` / `RATE_LIMITED` / retryable for a rate limit, else the status table's
 *   verdict; with the signal. Never throws.
 */
export function classifyRestStatus(
  failure: Pick<UpstreamHttpFailure, 'status' | 'headers' | 'body'>,
  now: Date,
  family: UpstreamFamily,
): RestStatusClassification {
  const signal = rateLimitSignal(failure.status, failure.headers, failure.body, now);
  if (signal.limited)
    return {
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      upstream: family.upstream,
      signal,
    };
  return { ...classifyUpstreamStatus(failure.status, family), signal };
}

function classifyHttp(
  failure: UpstreamHttpFailure,
  context: ClassifyContext,
  options: RestClassificationOptions,
): ClassifiedError {
  const hints = { ...DEFAULT_REST_HINTS, ...options.hints };
  const contentType = lowerCaseHeaders(failure.headers).get('content-type');
  const body = restErrorDetails(failure.body, failure.status, contentType);
  const where = `${failure.request.method} ${requestPath(failure.request.url)}`;
  const said = body.message === undefined ? '' : `: ${body.message}`;
  const status = classifyRestStatus(failure, context.now, { upstream: options.upstream });
  const signal = status.signal;
  if (signal.limited) {
    const wait = signal.retryAfterSeconds;
    return {
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      upstream: options.upstream,
      summary: `${options.apiName} rate limit exceeded on ${where} (HTTP ${failure.status})${wait === undefined ? '' : `; retry after ${wait} s`}${said}`,
      details: body.details.map((detail, index) =>
        index === 0 ? { ...detail, rate_limit_reason: signal.reason } : detail,
      ),
      hints: [hints.rateLimited.replace('{wait}', wait === undefined ? 'a while' : `${wait} s`)],
      ...(wait === undefined ? {} : { meta: { retry_after_seconds: wait } }),
    };
  }
  return {
    error_kind: status.error_kind,
    error_code: status.error_code,
    retryable: status.retryable,
    upstream: status.upstream,
    summary: `${options.apiName} answered HTTP ${failure.status} to ${where}${said}`,
    details: body.details,
    hints: [statusHint(failure.status, status.error_kind, hints)],
  };
}

/** The family core's client-failure classification words its failures with. */
function clientFamily(options: RestClassificationOptions): ClientFailureFamily {
  const hints = { ...DEFAULT_REST_HINTS, ...options.hints };
  return {
    upstream: options.upstream,
    upstreamLabel: `the ${options.apiName}`,
    hints: {
      network: hints.network,
      timeout: hints.timeout,
      bodyCoercion: hints.bodyCoercion,
      tooLarge: hints.tooLarge,
    },
  };
}

/**
 * Classifies any failure of a REST upstream:
 *
 * - a rate limit of any status ({@link rateLimitSignal}: a 429; a 403 with `Retry-After`, with
 *   `remaining: 0` and a reset, or whose message says so) -> `rate_limited` / `RATE_LIMITED`,
 *   retryable, the status in `details[0].http_status` and the reason in
 *   `details[0].rate_limit_reason`, `_meta.retry_after_seconds` from `Retry-After` or the reset;
 * - other statuses through core's table: 401/403 -> `auth_error` / `UPSTREAM_HTTP_40x`, not
 *   retryable; anything else -> `upstream_http` / `UPSTREAM_HTTP_<status>`, retryable for 408
 *   and 5xx;
 * - details from the body: problem+json (`problem_type`, `title`, `instance`), `message`/`error`,
 *   and one detail per `errors[]` entry at its `field` or `pointer`;
 * - failures without a status (network, timeout, body coercion, too large, redirect) through
 *   core's `classifyClientFailure`; a credential failure as `auth_error` /
 *   `AUTHENTICATION_ERROR`.
 *
 * @param failure - what went wrong.
 * @param context - the tool and the time.
 * @param options - the upstream's name, how summaries call it, and hint wording.
 * @returns the classified fields, each naming `options.upstream`. Never throws on any body or header.
 */
export function classifyRestFailure(
  failure: ClassifiableFailure,
  context: ClassifyContext,
  options: RestClassificationOptions,
): ClassifiedError {
  switch (failure.type) {
    case 'upstream_http':
      return classifyHttp(failure, context, options);
    case 'credential':
      return {
        error_kind: 'auth_error',
        error_code: 'AUTHENTICATION_ERROR',
        retryable: false,
        upstream: options.upstream,
        summary: `The credentials for the ${options.apiName} could not be obtained.`,
        details: [{ path: '', issue: 'the credential client failed', received_type: 'null' }],
        hints: [options.hints?.auth ?? DEFAULT_REST_HINTS.auth],
      };
    default:
      return classifyClientFailure(failure, clientFamily(options));
  }
}
