/**
 * Classification of the failures that happen on our side of the wire (no HTTP status to go by):
 * network failures, timeouts, request bodies that are broken JSON text, oversized answers and
 * refused redirects (credential failures are the adapter's own). The shape is the same for every
 * server (kind `upstream_client`); only the upstream's name and the hint wording differ, and those
 * come from the server's {@link ClientFailureFamily}.
 * Implements CONTRACT.md "error_kind" (`upstream_client`) and the canonical codes
 * `TOOL_EXECUTION_FAILED`, `BODY_COERCION_INVALID_JSON`.
 *
 * @packageDocumentation
 */
import type {
  ClassifiableFailure,
  ClassifiedError,
  CredentialFailure,
  FailedRequest,
  RedirectFailure,
  ResponseTooLargeFailure,
  UpstreamHttpFailure,
} from '../adapter.js';
import { jsonTypeOf } from '../arguments/json-type.js';
import { networkErrorCode, requestHost, requestPath } from './request.js';

/** A failure without an HTTP status that core classifies: network, timeout, body coercion, size, redirect. */
export type NonHttpFailure = Exclude<ClassifiableFailure, UpstreamHttpFailure | CredentialFailure>;

/** What one server family says about its client-side failures. */
export interface ClientFailureFamily {
  /**
   * The envelope's `upstream` for these failures, e.g. `example-api`; absent: core fills the
   * adapter's primary upstream (the first of its `upstreams`).
   */
  readonly upstream?: string;
  /** How summaries name the upstream when the request's host is unknown, e.g. `the Example API`. */
  readonly upstreamLabel: string;
  /** One hint per failure type. */
  readonly hints: {
    readonly network: string;
    readonly timeout: string;
    readonly bodyCoercion: string;
    /** For a body or result over the size limit; defaults to `DEFAULT_TOO_LARGE_HINT`. */
    readonly tooLarge?: string;
  };
}

/** The hint for a body or result over the size limit when the family has none of its own. */
export const DEFAULT_TOO_LARGE_HINT =
  'Ask for less in one call: use the pagination parameters (a smaller page size, then the next page token), request fewer fields or items, or narrow the filters (date range, ids).';

/** The kind and, when the family names one, the upstream of every verdict here. */
function upstreamClient(family: ClientFailureFamily): Pick<ClassifiedError, 'error_kind' | 'upstream'> {
  return family.upstream === undefined
    ? { error_kind: 'upstream_client' }
    : { error_kind: 'upstream_client', upstream: family.upstream };
}

function requestLabel(request: FailedRequest | undefined): string {
  return request === undefined ? '' : ` (${request.method.toUpperCase()} ${requestPath(request.url)})`;
}

/**
 * Classifies a failure that has no HTTP status.
 *
 * - `network` -> `upstream_client` / `TOOL_EXECUTION_FAILED`, retryable; the detail names the system
 *   error code (`network_code`) when the cause chain has one, never the error message;
 * - `timeout` -> the same, with `timeout_ms` on the detail;
 * - `body_coercion` -> `upstream_client` / `BODY_COERCION_INVALID_JSON`, not retryable, at the
 *   argument's path;
 * - `response_too_large` -> `upstream_client` / `TOOL_EXECUTION_FAILED`, not retryable as is; the
 *   detail names the limit (`limit_bytes`, `setting`) and the hint says how to ask for less;
 * - `redirect` -> `upstream_client` / `TOOL_EXECUTION_FAILED`, not retryable; the detail says where
 *   it pointed (`location`, origin and path only) and why it was not followed.
 *
 * @param failure - the failure.
 * @param family - the server family's upstream, label and hints.
 * @returns the classified envelope fields. Never throws.
 */
export function classifyClientFailure(failure: NonHttpFailure, family: ClientFailureFamily): ClassifiedError {
  switch (failure.type) {
    case 'network': {
      const code = networkErrorCode(failure.cause);
      const host = requestHost(failure.request?.url, family.upstreamLabel);
      const body = failure.phase === 'body';
      return {
        ...upstreamClient(family),
        error_code: 'TOOL_EXECUTION_FAILED',
        retryable: true,
        summary: body
          ? `The answer of ${host}${requestLabel(failure.request)} broke off before its body was complete${code === undefined ? '' : ` (${code})`}.`
          : `Could not reach ${host}${requestLabel(failure.request)}${code === undefined ? '' : ` (${code})`}; no HTTP answer arrived.`,
        details: [
          {
            path: '',
            issue: body
              ? `the response body broke off${code === undefined ? '' : ` (network error ${code})`}`
              : code === undefined
                ? 'the request failed before any HTTP answer'
                : `network error ${code}`,
            received_type: 'null',
            ...(code === undefined ? {} : { network_code: code }),
          },
        ],
        hints: [family.hints.network],
      };
    }
    case 'timeout': {
      const host = requestHost(failure.request?.url, family.upstreamLabel);
      const body = failure.phase === 'body';
      return {
        ...upstreamClient(family),
        error_code: 'TOOL_EXECUTION_FAILED',
        retryable: true,
        summary: body
          ? `The answer of ${host}${requestLabel(failure.request)} did not finish within ${failure.timeoutMs} ms.`
          : `No answer from ${host}${requestLabel(failure.request)} within ${failure.timeoutMs} ms.`,
        details: [
          {
            path: '',
            issue: `timed out after ${failure.timeoutMs} ms${body ? ' while reading the response body' : ''}`,
            received_type: 'null',
            timeout_ms: failure.timeoutMs,
          },
        ],
        hints: [family.hints.timeout],
      };
    }
    case 'response_too_large':
      return tooLarge(failure, family);
    case 'redirect':
      return redirected(failure, family);
    case 'body_coercion':
      return {
        ...upstreamClient(family),
        error_code: 'BODY_COERCION_INVALID_JSON',
        retryable: false,
        summary: `The argument ${failure.path === '' ? '(body)' : failure.path} is text that looks like JSON but does not parse; nothing was sent to ${family.upstreamLabel}.`,
        details: [
          {
            path: failure.path,
            issue: 'the value looks like JSON text but does not parse as JSON',
            received_type: jsonTypeOf(failure.received),
          },
        ],
        hints: [family.hints.bodyCoercion],
      };
  }
}

function tooLarge(failure: ResponseTooLargeFailure, family: ClientFailureFamily): ClassifiedError {
  const host = requestHost(failure.request?.url, family.upstreamLabel);
  const what =
    failure.subject === 'result' ? `The result of this call` : `The answer of ${host}${requestLabel(failure.request)}`;
  return {
    ...upstreamClient(family),
    error_code: 'TOOL_EXECUTION_FAILED',
    retryable: false,
    summary: `${what} is larger than this server's limit of ${failure.limitBytes} bytes (${failure.setting}); nothing of it was sent.`,
    details: [
      {
        path: '',
        issue: `${failure.subject === 'result' ? 'the tool result' : 'the upstream body'} exceeds ${failure.limitBytes} bytes`,
        received_type: 'object',
        limit_bytes: failure.limitBytes,
        setting: failure.setting,
      },
    ],
    hints: [family.hints.tooLarge ?? DEFAULT_TOO_LARGE_HINT],
  };
}

/** Why a redirect was not followed, as a summary says it. */
const REDIRECT_REFUSALS: Readonly<Record<RedirectFailure['reason'], string>> = {
  cross_origin: "another origin, where the request's credentials must not follow",
  user_info: 'its target carries user info (credentials in the URL)',
  too_many: 'one hop too many',
};

function redirected(failure: RedirectFailure, family: ClientFailureFamily): ClassifiedError {
  const host = requestHost(failure.request?.url, family.upstreamLabel);
  const why = REDIRECT_REFUSALS[failure.reason];
  return {
    ...upstreamClient(family),
    error_code: 'TOOL_EXECUTION_FAILED',
    retryable: false,
    summary: `${host}${requestLabel(failure.request)} redirected (HTTP ${failure.status}) to ${failure.location}; not followed: ${why}.`,
    details: [
      {
        path: '',
        issue: `redirect to ${failure.location} not followed (${failure.reason})`,
        received_type: 'null',
        http_status: failure.status,
        location: failure.location,
      },
    ],
    hints: [
      `Point the server at the endpoint the redirect names only if you trust it (the --upstream URL or the region setting); the server does not send credentials to another origin.`,
    ],
  };
}
