/**
 * Turning anything a tool handler throws into an envelope: the adapter's classifier first, then
 * an envelope, outermost and idempotent; anything unclassified is an internal error.
 *
 * Order: an `EnvelopeError` -> an error that already is or carries an envelope, or whose message
 * is one (relayed from another server) -> `UpstreamHttpError` / `UpstreamClientError` /
 * an error the adapter calls a credential failure (the adapter) -> anything else (`internal_error`, logged once with a correlation id).
 * Whatever the path, the telemetry the call recorded (`normalized`, `rate_limit`,
 * `retry_after_seconds`, `warnings`) reaches the envelope's `_meta`.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { CONTRACT_VERSION, isEnvelope, isRecord, upgradeEnvelope, validateEnvelope } from '@mcp-envelope/contract';
import type { AnyErrorEnvelope, EnvelopeMeta, ErrorEnvelope } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';

import type { ClassifiableFailure, ClassifiedError, EnvelopeAdapter, ResponseMeta } from './adapter.js';
import { checkAdapterUpstream, composeMeta, finalizeEnvelope, internalErrorEnvelope } from './envelope-builder.js';
import { EnvelopeError, UpstreamClientError, UpstreamHttpError } from './errors.js';
import type { CallRecord, ServerEnvironment } from './types.js';

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

/** The `_meta` keys a call's telemetry fills, each `undefined` when nothing was recorded. */
export type CallTelemetry = {
  readonly [Key in 'normalized' | 'rate_limit' | 'retry_after_seconds' | 'warnings']: EnvelopeMeta[Key] | undefined;
};

/**
 * The telemetry a call recorded, as `_meta` keys (`undefined` where nothing was recorded):
 * `normalized` only when `MCP_SCHEMA_KEY_NORMALIZATION_META` is on and an event happened.
 *
 * @param call - the call's context.
 * @param includeNormalized - `MCP_SCHEMA_KEY_NORMALIZATION_META`.
 * @returns the keys, for {@link composeMeta}.
 */
export function callTelemetry(call: CallRecord, includeNormalized: boolean): CallTelemetry {
  return {
    normalized: includeNormalized && call.normalized.length > 0 ? call.normalized : undefined,
    rate_limit: call.rateLimit,
    retry_after_seconds: call.retryAfterSeconds,
    warnings: call.warnings,
  };
}

/** `envelope` with the call's telemetry added to `_meta`; keys the envelope sets itself win. */
function withCallTelemetry(envelope: ErrorEnvelope, call: CallRecord, server: ServerEnvironment): ErrorEnvelope {
  const telemetry = composeMeta(callTelemetry(call, server.includeNormalized));
  if (telemetry === undefined) return envelope;
  return { ...envelope, _meta: { ...telemetry, ...envelope._meta } };
}

/**
 * Finalizes an envelope a handler made itself (thrown as an `EnvelopeError`, carried by an error,
 * relayed in a message, or returned in an `isError` result): the call's telemetry is added where
 * the envelope sets none, then it is redacted, bounded and checked like every envelope core emits.
 *
 * @param envelope - the handler's envelope.
 * @param call - the call's record (its telemetry).
 * @param server - see {@link ServerEnvironment}.
 * @returns a schema-valid envelope of an advertised kind.
 */
export function finalizeHandlerEnvelope(
  envelope: ErrorEnvelope,
  call: CallRecord,
  server: ServerEnvironment,
): ErrorEnvelope {
  return finalizeEnvelope(withCallTelemetry(envelope, call, server), server);
}

function failureOf(error: unknown, adapter: EnvelopeAdapter): ClassifiableFailure | undefined {
  if (UpstreamHttpError.isInstance(error)) return error.toFailure();
  if (UpstreamClientError.isInstance(error)) return error.failure;
  if (adapter.isCredentialError?.(error) === true) return { type: 'credential', error };
  return undefined;
}

function describeThrown(error: unknown, server: ServerEnvironment): Record<string, unknown> {
  const redact = server.redactor.string;
  if (error instanceof Error) {
    return {
      type: error.name,
      message: redact(error.message),
      ...(error.stack === undefined ? {} : { stack: redact(error.stack) }),
    };
  }
  let text: string;
  try {
    text = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    text = Object.prototype.toString.call(error);
  }
  return { type: typeof error, message: redact(text.slice(0, 4000)) };
}

/**
 * Logs the full detail of an unclassified failure once and returns the `internal_error` envelope
 * that points at the log line through `_meta.correlation_id`.
 *
 * @param error - what was thrown.
 * @param reason - a short label of where it happened (`handler`, `classify`, `result`).
 * @param call - the call's record (its tool and telemetry).
 * @param server - see {@link ServerEnvironment}.
 * @returns the envelope.
 */
export function internalError(
  error: unknown,
  reason: string,
  call: CallRecord,
  server: ServerEnvironment,
): ErrorEnvelope {
  const correlationId = randomUUID();
  server.logger.error(
    { correlation_id: correlationId, tool: call.tool, reason, error: describeThrown(error, server) },
    'tool call failed with an unclassified error',
  );
  const envelope = internalErrorEnvelope(call.tool, correlationId);
  const withTelemetry = withCallTelemetry(envelope, call, server);
  // The bare envelope is valid by construction; one with telemetry goes through the checks.
  return withTelemetry === envelope ? envelope : finalizeEnvelope(withTelemetry, server);
}

/** `_meta` of an envelope the adapter classified: the adapter's keys, then the failure's headers, then the call's telemetry. */
function classifiedMeta(
  classifiedMetaValue: Partial<EnvelopeMeta> | undefined,
  failureMeta: ResponseMeta | undefined,
  telemetry: CallTelemetry,
): EnvelopeMeta | undefined {
  const call = telemetry;
  return composeMeta({
    normalized: call.normalized,
    ...classifiedMetaValue,
    rate_limit: classifiedMetaValue?.rate_limit ?? failureMeta?.rate_limit ?? call.rate_limit,
    retry_after_seconds:
      classifiedMetaValue?.retry_after_seconds ?? failureMeta?.retry_after_seconds ?? call.retry_after_seconds,
    warnings: classifiedMetaValue?.warnings ?? failureMeta?.warnings ?? call.warnings,
  });
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

/** The envelope of the adapter's verdict on `failure`; a classifier that throws gives `internal_error`. */
function classifiedEnvelope(failure: ClassifiableFailure, call: CallRecord, server: ServerEnvironment): ErrorEnvelope {
  const now = server.now();
  let classified;
  try {
    classified = server.adapter.classify(failure, { tool: call.tool, now });
  } catch (classifyError) {
    return internalError(classifyError, 'classify', call, server);
  }
  const failureMeta =
    failure.type === 'upstream_http' ? server.adapter.parseResponseMeta(failure.headers, now) : undefined;
  const meta = classifiedMeta(classified.meta, failureMeta, callTelemetry(call, server.includeNormalized));
  const condition = classified.condition ?? failure.type;
  const envelope: ErrorEnvelope = {
    error_kind: classified.error_kind,
    tool: call.tool,
    summary: classified.summary,
    details: classified.details,
    hints: classified.hints,
    examples: classified.examples ?? [],
    error_code: classified.error_code,
    retryable: classified.retryable,
    _envelope_version: CONTRACT_VERSION,
    ...upstreamOf(classified, condition, server.upstreams),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
  const checked = checkAdapterUpstream(envelope, server);
  if (checked !== envelope) return checked;
  return finalizeEnvelope(envelope, server, 0, condition);
}

/**
 * The envelope for anything a tool handler threw. Never throws.
 *
 * @param error - what was thrown.
 * @param call - the call's record (its tool and telemetry).
 * @param server - see {@link ServerEnvironment}.
 * @returns a schema-valid envelope of an advertised kind.
 */
export function envelopeForThrown(error: unknown, call: CallRecord, server: ServerEnvironment): ErrorEnvelope {
  try {
    if (EnvelopeError.isInstance(error)) {
      const envelope = error.toEnvelope();
      return finalizeHandlerEnvelope(error.hasTool ? envelope : { ...envelope, tool: call.tool }, call, server);
    }
    const carried = carriedEnvelope(error) ?? envelopeInMessage(error);
    if (carried !== undefined) return finalizeHandlerEnvelope(carried, call, server);
    const failure = failureOf(error, server.adapter);
    return failure === undefined
      ? internalError(error, 'handler', call, server)
      : classifiedEnvelope(failure, call, server);
  } catch (unexpected) {
    return internalError(unexpected, 'classify', call, server);
  }
}
