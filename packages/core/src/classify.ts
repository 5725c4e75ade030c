/**
 * Deciding what a failed call's envelope is made of: {@link classifyFailure} turns a
 * `CallFailure` into an `EnvelopeDraft` that envelope-builder.ts builds in one go, so the exit
 * enters this module once and the builder once. Anything unclassified is an internal error.
 *
 * Order: an `EnvelopeError` -> an error that already is or carries an envelope, or whose message
 * is one (relayed from another server) -> `UpstreamHttpError` / `UpstreamClientError` /
 * an error the adapter calls a credential failure (the adapter) -> anything else (`internal_error`, logged once with a correlation id).
 * Whatever the path, the telemetry the call recorded (`normalized`, `rate_limit`,
 * `retry_after_seconds`, `warnings`) reaches the envelope's `_meta`.
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION, isEnvelope, isRecord, upgradeEnvelope, validateEnvelope } from '@mcp-envelope/contract';
import type { AnyErrorEnvelope, EnvelopeMeta, ErrorEnvelope } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';

import type { ClassifiableFailure, ClassifiedError, EnvelopeAdapter, ResponseMeta } from './adapter.js';
import { jsonTypeOf } from './arguments/json-type.js';
import { withEffectUnknown } from './effect-unknown.js';
import { knownThrown } from './errors.js';
import type { KnownThrown } from './errors.js';
import type { CallFailure, CallRecord, CallTelemetry, EnvelopeDraft, ServerEnvironment } from './types.js';

/**
 * A relayed envelope as core builds them: a version 1 one upgraded to version 2 (it keeps its own
 * `upstream`); `undefined` for one with no valid version 2 form, which is then no envelope to relay.
 */
function asV2(envelope: AnyErrorEnvelope): ErrorEnvelope | undefined {
  return envelope._envelope_version === 1 ? upgradeEnvelope(envelope) : envelope;
}

/** The envelope a thrown value is or carries, of either contract version. */
function carriedAnyVersion(error: unknown): AnyErrorEnvelope | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  if (isEnvelope(error)) return error;
  const record = error as Record<string, unknown>;
  if (isEnvelope(record['envelope'])) return record['envelope'];
  const data = record['data'];
  if (isEnvelope(data)) return data;
  if (isRecord(data) && isEnvelope(data['envelope'])) return data['envelope'];
  return undefined;
}

/**
 * The envelope an error already carries, if any: the error itself, its `envelope` property, or
 * the `data` of a JSON-RPC error (`McpError`), directly or under `data.envelope`. A version 1
 * envelope is upgraded to version 2 (CONTRACT.md "Upgrading an agent from v1").
 *
 * @param error - anything thrown.
 * @returns the carried envelope as version 2, or `undefined`.
 */
export function carriedEnvelope(error: unknown): ErrorEnvelope | undefined {
  const carried = carriedAnyVersion(error);
  return carried === undefined ? undefined : asV2(carried);
}

/**
 * The envelope a handler-built `isError` result carries: its `structuredContent`, else the first
 * text block whose JSON is (or carries) one; a version 1 envelope is upgraded to version 2.
 *
 * @param result - the handler's error result.
 * @returns the envelope as version 2, or `undefined`.
 */
export function envelopeInResult(result: CallToolResult): ErrorEnvelope | undefined {
  const structured = carriedEnvelope({ data: result.structuredContent });
  if (structured !== undefined) return structured;
  for (const block of result.content) {
    if (block.type !== 'text') continue;
    const trimmed = block.text.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const carried = carriedEnvelope({ data: JSON.parse(trimmed) as unknown });
      if (carried !== undefined) return carried;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The prefixes an error message may carry in front of a relayed envelope's JSON. */
const RELAY_PREFIXES = ['ToolError: ', 'Error: '] as const;

/**
 * The envelope an `Error`'s message holds, alone or behind `ToolError: ` or `Error: `: how a
 * tool that called another conforming server usually rethrows that server's failure. Only a
 * message that parses to a schema-valid v1 or v2 envelope counts; a v1 one is upgraded to v2.
 *
 * @param error - anything thrown.
 * @returns the envelope as version 2, or `undefined`.
 */
export function envelopeInMessage(error: unknown): ErrorEnvelope | undefined {
  if (!(error instanceof Error) || typeof error.message !== 'string') return undefined;
  let text = error.message.trim();
  const prefix = RELAY_PREFIXES.find((candidate) => text.startsWith(candidate));
  if (prefix !== undefined) text = text.slice(prefix.length).trimStart();
  if (!text.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return validateEnvelope(parsed).valid ? asV2(parsed as AnyErrorEnvelope) : undefined;
}

/**
 * The telemetry a call recorded, as `_meta` keys (`undefined` where nothing was recorded):
 * `normalized` only when `MCP_SCHEMA_KEY_NORMALIZATION_META` is on and an event happened.
 *
 * @param call - the call's context.
 * @param includeNormalized - `MCP_SCHEMA_KEY_NORMALIZATION_META`.
 * @returns the keys, for envelope-builder.ts's `composeMeta`.
 */
export function callTelemetry(call: CallRecord, includeNormalized: boolean): CallTelemetry {
  return {
    normalized: includeNormalized && call.normalized.length > 0 ? call.normalized : undefined,
    rate_limit: call.rateLimit,
    retry_after_seconds: call.retryAfterSeconds,
    warnings: call.warnings,
  };
}

/** The draft of an envelope a handler made itself: the call's telemetry goes with it. */
function handlerDraft(envelope: ErrorEnvelope, call: CallRecord, server: ServerEnvironment): EnvelopeDraft {
  return { type: 'handler', envelope, telemetry: callTelemetry(call, server.includeNormalized) };
}

/** The draft of an unclassified failure: `internal_error`, its detail logged by the builder. */
function internalDraft(error: unknown, reason: string, call: CallRecord, server: ServerEnvironment): EnvelopeDraft {
  return { type: 'internal', error, reason, tool: call.tool, telemetry: callTelemetry(call, server.includeNormalized) };
}

/** The failure the adapter classifies: one core's error classes record, or a credential failure. */
function failureOf(
  error: unknown,
  known: KnownThrown | undefined,
  adapter: EnvelopeAdapter,
): ClassifiableFailure | undefined {
  if (known?.type === 'failure') return known.failure;
  if (adapter.isCredentialError?.(error) === true) return { type: 'credential', error };
  return undefined;
}

/** `_meta` keys of an envelope the adapter classified: the adapter's keys, then the failure's headers, then the call's telemetry. */
function classifiedMeta(
  classifiedMetaValue: Partial<EnvelopeMeta> | undefined,
  failureMeta: ResponseMeta | undefined,
  telemetry: CallTelemetry,
): Readonly<Record<string, unknown>> {
  const call = telemetry;
  return {
    normalized: call.normalized,
    ...classifiedMetaValue,
    rate_limit: classifiedMetaValue?.rate_limit ?? failureMeta?.rate_limit ?? call.rate_limit,
    retry_after_seconds:
      classifiedMetaValue?.retry_after_seconds ?? failureMeta?.retry_after_seconds ?? call.retry_after_seconds,
    warnings: classifiedMetaValue?.warnings ?? failureMeta?.warnings ?? call.warnings,
  };
}

/**
 * The `upstream` of an adapter's verdict: its own, else the primary upstream when the verdict is
 * about the fronted API's HTTP answer (an upstream 429 or 401 names the API that answered).
 */
function upstreamOf(
  classified: ClassifiedError,
  condition: string,
  upstreams: readonly string[],
): { readonly upstream?: string } {
  const upstream = classified.upstream ?? (condition === 'upstream_http' ? upstreams[0] : undefined);
  return upstream === undefined ? {} : { upstream };
}

/**
 * The details of an adapter's verdict, and, for a failure found in a 2xx body, first a detail that
 * says so with the status that really arrived: the agent otherwise reads an HTTP status no upstream sent.
 */
function verdictDetails(failure: ClassifiableFailure, classified: ClassifiedError): ClassifiedError['details'] {
  if (failure.type !== 'upstream_http' || failure.inBand === undefined) return classified.details;
  const arrived = failure.inBand.status;
  const inBand = {
    path: '',
    issue: `The upstream answered HTTP ${arrived} with a failure in its body, classified as HTTP ${failure.status}.`,
    received_type: jsonTypeOf(failure.body),
    http_status: arrived,
    in_band: true,
  };
  return [inBand, ...classified.details];
}

/** The adapter's summary, and for a failure found in a 2xx body, the status that really arrived. */
function verdictSummary(failure: ClassifiableFailure, classified: ClassifiedError): string {
  if (failure.type !== 'upstream_http' || failure.inBand === undefined) return classified.summary;
  return `${classified.summary} (The upstream's answer was HTTP ${failure.inBand.status} with this failure in its body.)`;
}

/**
 * The draft of the adapter's verdict on `failure`; a classifier that throws gives `internal_error`.
 * A failure whose effect is unknown, of a tool that is not idempotent, is then made not retryable
 * (effect-unknown.ts): the adapter knows the upstream, core knows the tool.
 */
function adapterDraft(failure: ClassifiableFailure, call: CallRecord, server: ServerEnvironment): EnvelopeDraft {
  const now = server.now();
  let classified;
  try {
    classified = server.adapter.classify(failure, { tool: call.tool, now });
  } catch (classifyError) {
    return internalDraft(classifyError, 'classify', call, server);
  }
  const failureMeta =
    failure.type === 'upstream_http' ? server.adapter.parseResponseMeta(failure.headers, now) : undefined;
  const meta = classifiedMeta(classified.meta, failureMeta, callTelemetry(call, server.includeNormalized));
  const condition = classified.condition ?? failure.type;
  const verdict: ErrorEnvelope = {
    error_kind: classified.error_kind,
    tool: call.tool,
    summary: verdictSummary(failure, classified),
    details: verdictDetails(failure, classified),
    hints: classified.hints,
    examples: classified.examples ?? [],
    error_code: classified.error_code,
    retryable: classified.retryable,
    _envelope_version: CONTRACT_VERSION,
    ...upstreamOf(classified, condition, server.upstreams),
  };
  const envelope = withEffectUnknown(verdict, failure, call.annotations, call.changeStarted === true);
  return { type: 'adapter', envelope, meta, condition };
}

/** The draft for anything a tool handler threw. Never throws. */
function thrownDraft(error: unknown, call: CallRecord, server: ServerEnvironment): EnvelopeDraft {
  try {
    const known = knownThrown(error);
    if (known?.type === 'envelope') {
      const envelope = known.envelope;
      return handlerDraft(known.hasTool ? envelope : { ...envelope, tool: call.tool }, call, server);
    }
    const carried = carriedEnvelope(error) ?? envelopeInMessage(error);
    if (carried !== undefined) return handlerDraft(carried, call, server);
    const failure = failureOf(error, known, server.adapter);
    return failure === undefined ? internalDraft(error, 'handler', call, server) : adapterDraft(failure, call, server);
  } catch (unexpected) {
    return internalDraft(unexpected, 'classify', call, server);
  }
}

/** The draft of a handler's own `isError` result: the envelope it carries, else `internal_error`. */
function errorResultDraft(result: CallToolResult, call: CallRecord, server: ServerEnvironment): EnvelopeDraft {
  const carried = envelopeInResult(result);
  if (carried !== undefined) return handlerDraft(carried, call, server);
  const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
  const failure = new Error(`tool returned isError without an envelope: ${text.slice(0, 2000)}`);
  return internalDraft(failure, 'result', call, server);
}

/**
 * What the envelope of a failed call is made of (see `EnvelopeDraft`), in the order: an
 * `EnvelopeError` -> an error that already is or carries an envelope, or whose message is one
 * (relayed from another server) -> `UpstreamHttpError` / `UpstreamClientError` / an error the
 * adapter calls a credential failure (the adapter's verdict) -> anything else (`internal_error`).
 * Whatever the path, the telemetry the call recorded (`normalized`, `rate_limit`,
 * `retry_after_seconds`, `warnings`) goes with the draft. Implements CONTRACT.md "The envelope".
 *
 * @param failure - what went wrong (a `CallFailure`).
 * @param server - see `ServerEnvironment`; its adapter classifies upstream and credential failures.
 * @returns the draft, for envelope-builder.ts's `buildEnvelope`. Never throws.
 */
export function classifyFailure(failure: CallFailure, server: ServerEnvironment): EnvelopeDraft {
  switch (failure.type) {
    case 'thrown':
      return thrownDraft(failure.error, failure.call, server);
    case 'internal':
      return internalDraft(failure.error, failure.reason, failure.call, server);
    case 'core':
      return { type: 'core', envelope: failure.envelope, omittedDetails: failure.omittedDetails };
    case 'unknown_tool':
      return { type: 'core', envelope: failure.envelope };
    case 'error_result':
      return errorResultDraft(failure.result, failure.call, server);
    case 'ready':
      return { type: 'ready', envelope: failure.envelope };
  }
}
