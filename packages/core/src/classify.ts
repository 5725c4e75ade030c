/**
 * Turning anything a tool handler throws into an envelope. Implements DESIGN 3 ("failure:
 * adapter classifier -> envelope, outermost, idempotent") and DESIGN 4.7 (internal errors).
 *
 * Order: an `EnvelopeError` (finalized) -> an error that already is or carries an envelope
 * (passes through unchanged) -> `UpstreamHttpError` / `UpstreamClientError` / `LwaError` (the adapter) ->
 * anything else (`internal_error`, logged once with a correlation id).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { CONTRACT_VERSION, isEnvelope } from '@mcp-envelope/contract';
import type { EnvelopeMeta, ErrorEnvelope } from '@mcp-envelope/contract';

import type { ClassifiableFailure, EnvelopeAdapter, ResponseMeta } from './adapter.js';
import type { CallContext } from './context.js';
import { checkEnvelope, composeMeta, finalizeEnvelope, internalErrorEnvelope } from './envelope-builder.js';
import type { FinalizeEnvironment } from './envelope-builder.js';
import { EnvelopeError, UpstreamClientError, UpstreamHttpError } from './errors.js';
import { LwaError } from './lwa/lwa-client.js';

/** Everything {@link envelopeForThrown} reads besides the thrown value. */
export interface ClassifyEnvironment extends FinalizeEnvironment {
  readonly adapter: EnvelopeAdapter;
  /** The call's context (normalization events, recorded telemetry). */
  readonly call: CallContext;
  /** Whether `_meta.normalized` is emitted (`MCP_SCHEMA_KEY_NORMALIZATION_META`). */
  readonly includeNormalized: boolean;
  /** The clock. */
  readonly now: () => Date;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The envelope an error already carries, if any: the error itself, its `envelope` property, or
 * the `data` of a JSON-RPC error (`McpError`), directly or under `data.envelope`.
 *
 * @param error - anything thrown.
 * @returns the carried envelope, or `undefined`.
 */
export function carriedEnvelope(error: unknown): ErrorEnvelope | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  if (isEnvelope(error)) return error;
  const record = error as Record<string, unknown>;
  if (isEnvelope(record['envelope'])) return record['envelope'];
  const data = record['data'];
  if (isEnvelope(data)) return data;
  if (isRecord(data) && isEnvelope(data['envelope'])) return data['envelope'];
  return undefined;
}

function failureOf(error: unknown): ClassifiableFailure | undefined {
  if (UpstreamHttpError.isInstance(error)) return error.toFailure();
  if (UpstreamClientError.isInstance(error)) return error.failure;
  if (LwaError.isInstance(error)) return { type: 'lwa', error };
  return undefined;
}

function describeThrown(error: unknown, environment: ClassifyEnvironment): Record<string, unknown> {
  const redact = environment.redactor.string;
  if (error instanceof Error) {
    return { type: error.name, message: redact(error.message), ...(error.stack === undefined ? {} : { stack: redact(error.stack) }) };
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
 * @returns the envelope.
 */
export function internalError(error: unknown, reason: string, environment: ClassifyEnvironment): ErrorEnvelope {
  const correlationId = randomUUID();
  environment.logger.error(
    { correlation_id: correlationId, tool: environment.call.tool, reason, error: describeThrown(error, environment) },
    'tool call failed with an unclassified error',
  );
  return internalErrorEnvelope(environment.call.tool, correlationId);
}

/** `_meta` of an envelope the adapter classified: the adapter's keys, then the failure's headers, then the call's telemetry. */
function classifiedMeta(classifiedMetaValue: Partial<EnvelopeMeta> | undefined, failureMeta: ResponseMeta | undefined, environment: ClassifyEnvironment): EnvelopeMeta | undefined {
  const call = environment.call;
  return composeMeta({
    ...(environment.includeNormalized && call.normalized.length > 0 ? { normalized: call.normalized } : {}),
    ...classifiedMetaValue,
    rate_limit: classifiedMetaValue?.rate_limit ?? failureMeta?.rate_limit ?? call.rateLimit,
    retry_after_seconds: classifiedMetaValue?.retry_after_seconds ?? failureMeta?.retry_after_seconds ?? call.retryAfterSeconds,
    warnings: classifiedMetaValue?.warnings ?? failureMeta?.warnings ?? call.warnings,
  });
}

/**
 * The envelope for anything a tool handler threw. Never throws.
 *
 * @param error - what was thrown.
 * @param environment - see {@link ClassifyEnvironment}.
 * @returns a schema-valid envelope of an advertised kind.
 */
export function envelopeForThrown(error: unknown, environment: ClassifyEnvironment): ErrorEnvelope {
  try {
    if (EnvelopeError.isInstance(error)) {
      const envelope = error.toEnvelope();
      return finalizeEnvelope(error.hasTool ? envelope : { ...envelope, tool: environment.call.tool }, environment);
    }
    const carried = carriedEnvelope(error);
    if (carried !== undefined) return checkEnvelope(carried, environment);

    const failure = failureOf(error);
    if (failure === undefined) return internalError(error, 'handler', environment);

    const now = environment.now();
    let classified;
    try {
      classified = environment.adapter.classify(failure, { tool: environment.call.tool, now });
    } catch (classifyError) {
      return internalError(classifyError, 'classify', environment);
    }
    const failureMeta = failure.type === 'upstream_http' ? environment.adapter.parseResponseMeta(failure.headers, now) : undefined;
    const meta = classifiedMeta(classified.meta, failureMeta, environment);
    const envelope: ErrorEnvelope = {
      error_kind: classified.error_kind,
      tool: environment.call.tool,
      summary: classified.summary,
      details: classified.details,
      hints: classified.hints,
      examples: classified.examples ?? [],
      error_code: classified.error_code,
      retryable: classified.retryable,
      _envelope_version: CONTRACT_VERSION,
      ...(meta === undefined ? {} : { _meta: meta }),
    };
    return finalizeEnvelope(envelope, environment);
  } catch (unexpected) {
    return internalError(unexpected, 'classify', environment);
  }
}
