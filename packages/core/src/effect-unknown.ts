/**
 * Safe retries: a failure after which the upstream may have acted on the request, of a tool that
 * is not idempotent, is not retryable as classified. Repeating such a call could create or change
 * something twice, so the envelope says the effect is unknown and asks the agent to check it
 * first. Implements CONTRACT.md "Safe retries".
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail, ErrorEnvelope } from '@mcp-envelope/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/server';

import type { ClassifiableFailure } from './adapter.js';
import { networkErrorCode } from './upstream-body/request.js';

/** The `reason` of the detail an effect-unknown envelope carries. */
export const EFFECT_UNKNOWN_REASON = 'effect_unknown';

/**
 * Statuses after which the upstream may have done the work: it failed while processing (500),
 * or a gateway lost the answer of a server that may have processed it (502, 504). A 503, 408 or
 * 429 says the request was turned away before processing, and a 4xx that it was refused.
 */
const EFFECT_UNKNOWN_STATUSES: ReadonlySet<number> = new Set([500, 502, 504]);

/** Codes of connections that were never made (refused, no route, DNS), so no request was sent. */
const NEVER_CONNECTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Certificate and TLS handshake failures: the handshake comes before the request is written. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Whether a network failure before an answer happened before the request could be sent. */
function neverSent(cause: unknown): boolean {
  const code = networkErrorCode(cause);
  return code !== undefined && (NEVER_CONNECTED_CODES.has(code) || TLS_CODE.test(code));
}

/**
 * Whether the request behind `failure` may have reached the upstream, so that its effect is
 * unknown: every `timeout`; a `network` failure after the answer began (`phase: 'body'`), or before
 * it unless the cause's code says the connection was never made (`ECONNREFUSED`, DNS codes,
 * certificate and TLS handshake errors); an `upstream_http` 500, 502 or 504 (also an in-band
 * failure an adapter maps to one of them); a `response_too_large` answer or result, which the
 * upstream (or the tool) produced after doing the work. Every other failure (4xx, 408, 429, 503,
 * credential, body coercion, redirect) is one the upstream did not act on, or was never sent; so
 * is the failure of a lookup the call sent first, before its other requests (`request.lookupFirst`).
 *
 * @param failure - the failure the adapter classified.
 * @param changeStarted - whether a request without the lookup mark had been started in the call
 *   by the time the failure reached core: a lookup that started first but failed (or was rethrown)
 *   after such a request went out no longer vouches that nothing acted.
 * @returns `true` when a repeat of the call could repeat its effect.
 */
export function effectUnknown(failure: ClassifiableFailure, changeStarted = false): boolean {
  // a lookup that failed before anything else was sent: the call's own request never went out
  if (!changeStarted && 'request' in failure && failure.request?.lookupFirst === true) return false;
  switch (failure.type) {
    case 'timeout':
      return true;
    case 'network':
      return failure.phase === 'body' || !neverSent(failure.cause);
    case 'upstream_http':
      return EFFECT_UNKNOWN_STATUSES.has(failure.status);
    // a body or result too large comes after a 2xx answer: asking for less repeats the work
    case 'response_too_large':
      return true;
    default:
      return false;
  }
}

/**
 * Whether repeating a call of a tool with these annotations has no further effect:
 * `readOnlyHint` or `idempotentHint` is `true`. A tool without annotations is not idempotent
 * (the MCP specification's default for `idempotentHint` is `false`).
 *
 * @param annotations - the tool's MCP annotations, when it has them.
 */
export function isIdempotentTool(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

/**
 * The envelope of an effect-unknown failure of a non-idempotent tool: the same kind and code,
 * `retryable: false`, a detail `{ path: "", reason: "effect_unknown" }` that says the request may
 * have reached `upstream`, and first among the hints how to check the effect before calling again.
 * Any other envelope is returned as it is.
 *
 * @param envelope - the adapter's envelope of `failure`.
 * @param failure - the failure it was classified from.
 * @param annotations - the annotations of the tool the call ran.
 * @param changeStarted - see {@link effectUnknown}.
 * @returns the envelope an agent may act on safely.
 */
export function withEffectUnknown(
  envelope: ErrorEnvelope,
  failure: ClassifiableFailure,
  annotations: ToolAnnotations | undefined,
  changeStarted = false,
): ErrorEnvelope {
  if (isIdempotentTool(annotations) || !effectUnknown(failure, changeStarted)) return envelope;
  return effectUnknownForm(envelope);
}

/**
 * The effect-unknown form of an envelope, whatever made it: `retryable: false`, first the detail
 * `{ path: "", reason: "effect_unknown" }` that says the request may have reached the envelope's
 * `upstream`, first the hint to check the effect before calling again. For a call of a tool that
 * is not idempotent, ended after its work may have begun (a failure {@link effectUnknown} names,
 * or a handler a shutdown cut short).
 *
 * @param envelope - the envelope of the call as it would otherwise be answered.
 * @returns the same kind, code, summary and `upstream`, in that form.
 */
export function effectUnknownForm(envelope: ErrorEnvelope): ErrorEnvelope {
  const upstream = envelope.upstream ?? 'the upstream';
  const detail: EnvelopeDetail = {
    path: '',
    issue: `The request may have reached ${upstream} before the call failed: whether it took effect is unknown, and ${envelope.tool} is not idempotent.`,
    received_type: 'null',
    reason: EFFECT_UNKNOWN_REASON,
  };
  const hint =
    'Check whether the call took effect (read the resource back, or list what the tool creates or changes) before calling it again: a repeat may do it twice.';
  return { ...envelope, retryable: false, details: [detail, ...envelope.details], hints: [hint, ...envelope.hints] };
}
