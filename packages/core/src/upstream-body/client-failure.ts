/**
 * Classification of the failures that happen on our side of the wire (no HTTP status to go by):
 * network failures, timeouts, request bodies that are broken JSON text, and Login with Amazon
 * token failures. The shape is the same for every server; only the kind, the upstream's name and
 * the hint wording differ, and those come from the server's {@link ClientFailureFamily}.
 * Implements CONTRACT.md "error_kind" (`*_api_client`, `auth_error`) and the canonical codes
 * `TOOL_EXECUTION_FAILED`, `BODY_COERCION_INVALID_JSON`, `AUTHENTICATION_ERROR`.
 *
 * @packageDocumentation
 */
import type { ClassifiableFailure, ClassifiedError, FailedRequest, UpstreamHttpFailure } from '../adapter.js';
import { jsonTypeOf } from '../arguments/json-type.js';
import { classifyLwaFailure } from '../lwa/lwa-client.js';
import { capText } from './parse.js';
import { networkErrorCode, requestHost, requestPath } from './request.js';

/** A failure without an HTTP status: network, timeout, body coercion or LWA. */
export type NonHttpFailure = Exclude<ClassifiableFailure, UpstreamHttpFailure>;

/** What one server family says about its client-side failures. */
export interface ClientFailureFamily {
  /** The server's client kind. */
  readonly clientKind: 'sp_api_client' | 'ads_api_client';
  /** How summaries name the upstream when the request's host is unknown, e.g. `SP-API`. */
  readonly upstreamLabel: string;
  /** One hint per failure type. */
  readonly hints: {
    readonly network: string;
    readonly timeout: string;
    readonly bodyCoercion: string;
  };
  /** Extra hints for LWA failures, by OAuth error code (`invalid_grant`, ...), after core's own. */
  readonly lwaHints?: Readonly<Record<string, string>>;
}

function requestLabel(request: FailedRequest | undefined): string {
  return request === undefined ? '' : ` (${request.method.toUpperCase()} ${requestPath(request.url)})`;
}

/**
 * Classifies a failure that has no HTTP status.
 *
 * - `network` -> `<clientKind>` / `TOOL_EXECUTION_FAILED`, retryable; the detail names the system
 *   error code (`network_code`) when the cause chain has one, never the error message;
 * - `timeout` -> the same, with `timeout_ms` on the detail;
 * - `body_coercion` -> `<clientKind>` / `BODY_COERCION_INVALID_JSON`, not retryable, at the
 *   argument's path;
 * - `lwa` -> `auth_error` / `AUTHENTICATION_ERROR` (see `classifyLwaFailure`), plus the family's
 *   extra hint for the OAuth error code.
 *
 * @param failure - the failure.
 * @param family - the server family's kind, label and hints.
 * @returns the classified envelope fields. Never throws.
 */
export function classifyClientFailure(failure: NonHttpFailure, family: ClientFailureFamily): ClassifiedError {
  switch (failure.type) {
    case 'network': {
      const code = networkErrorCode(failure.cause);
      const host = requestHost(failure.request?.url, family.upstreamLabel);
      return {
        error_kind: family.clientKind,
        error_code: 'TOOL_EXECUTION_FAILED',
        retryable: true,
        summary: `Could not reach ${host}${requestLabel(failure.request)}${code === undefined ? '' : ` (${code})`}; no HTTP answer arrived.`,
        details: [
          {
            path: '',
            issue: code === undefined ? 'the request failed before any HTTP answer' : `network error ${code}`,
            received_type: 'null',
            ...(code === undefined ? {} : { network_code: code }),
          },
        ],
        hints: [family.hints.network],
      };
    }
    case 'timeout': {
      const host = requestHost(failure.request?.url, family.upstreamLabel);
      return {
        error_kind: family.clientKind,
        error_code: 'TOOL_EXECUTION_FAILED',
        retryable: true,
        summary: `No answer from ${host}${requestLabel(failure.request)} within ${failure.timeoutMs} ms.`,
        details: [{ path: '', issue: `timed out after ${failure.timeoutMs} ms`, received_type: 'null', timeout_ms: failure.timeoutMs }],
        hints: [family.hints.timeout],
      };
    }
    case 'body_coercion':
      return {
        error_kind: family.clientKind,
        error_code: 'BODY_COERCION_INVALID_JSON',
        retryable: false,
        summary: `The argument ${failure.path === '' ? '(body)' : failure.path} is text that looks like JSON but does not parse; nothing was sent to ${family.upstreamLabel}.`,
        details: [{ path: failure.path, issue: 'the value looks like JSON text but does not parse as JSON', received_type: jsonTypeOf(failure.received) }],
        hints: [family.hints.bodyCoercion],
      };
    case 'lwa': {
      const base = classifyLwaFailure(failure.error);
      const extra = failure.error.oauthError === undefined ? undefined : family.lwaHints?.[failure.error.oauthError];
      return {
        ...base,
        details: base.details.map((detail) => ({ ...detail, issue: capText(detail.issue, 300) })),
        hints: extra === undefined ? base.hints : [...base.hints, extra],
      };
    }
  }
}
