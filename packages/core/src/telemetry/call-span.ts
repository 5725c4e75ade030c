/**
 * The OpenTelemetry span and counters of one `tools/call`, through `@opentelemetry/api` alone:
 * with no SDK registered its global providers are no-ops, so a server that nobody traces pays
 * for a few no-op calls. The tracer and meter are taken from the global providers on every call,
 * so an SDK registered after the server started is seen, and nothing is kept between calls.
 * Implements CONTRACT.md "OpenTelemetry".
 *
 * @packageDocumentation
 */
import {
  context,
  createNoopMeter,
  defaultTextMapGetter,
  isSpanContextValid,
  metrics,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Attributes, Meter, Span } from '@opentelemetry/api';
import { isRecord } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { PROTOCOL_VERSION_META_KEY, ProtocolError } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';

import { PACKAGE_VERSION } from '../envelope-builder.js';
import { DURATION_BUCKETS, ENVELOPE_ATTRIBUTES, METRIC_NAMES, SEMCONV, TELEMETRY_SCOPE } from './names.js';

/** How a call ended, as its span and counters record it. */
interface CallOutcome {
  /** `ok`, `tool_error` (an `isError` result), `protocol_error` (a JSON-RPC error) or `error` (anything else thrown). */
  readonly outcome: 'ok' | 'tool_error' | 'protocol_error' | 'error';
  /** The `error.type` attribute; absent on success. */
  readonly errorType?: string;
  /** The JSON-RPC error code of a protocol error, as a string. */
  readonly rpcCode?: string;
  /** The span status description: the JSON-RPC message, or the envelope's `error_code`. */
  readonly message?: string;
  /** The envelope the call answered with, when it failed with one. */
  readonly envelope?: ErrorEnvelope;
}

/** `structuredContent` or JSON-RPC `data` when it is an envelope. */
function envelopeIn(value: unknown): ErrorEnvelope | undefined {
  return isRecord(value) && typeof value['error_kind'] === 'string' && typeof value['error_code'] === 'string'
    ? (value as ErrorEnvelope)
    : undefined;
}

function resultOutcome(result: CallToolResult | InputRequiredResult): CallOutcome {
  if ((result as CallToolResult).isError !== true) return { outcome: 'ok' };
  const envelope = envelopeIn((result as CallToolResult).structuredContent);
  return {
    outcome: 'tool_error',
    errorType: 'tool_error',
    ...(envelope === undefined ? {} : { envelope, message: envelope.error_code }),
  };
}

/** A thrown value's outcome; nothing of an unknown error's message is kept, it may hold a secret. */
function thrownOutcome(error: unknown): CallOutcome {
  if (!ProtocolError.isInstance(error)) return { outcome: 'error', errorType: '_OTHER' };
  const code = String(error.code);
  const envelope = envelopeIn(error.data);
  // an unknown tool answered as a JSON-RPC error carries its envelope as the message: the code says enough
  const message = envelope === undefined ? error.message : envelope.error_code;
  return {
    outcome: 'protocol_error',
    errorType: code,
    rpcCode: code,
    message,
    ...(envelope === undefined ? {} : { envelope }),
  };
}

/** The MCP protocol revision of the request: the 2026-07-28 per-request `_meta`, else the HTTP header. */
function protocolVersion(request: ServerContext): string | undefined {
  const lifted: Record<string, unknown> = request.mcpReq.envelope ?? {};
  const version = lifted[PROTOCOL_VERSION_META_KEY] ?? request.http?.req?.headers.get('mcp-protocol-version');
  return typeof version === 'string' ? version : undefined;
}

/**
 * The attributes the call span starts with. `tool` is the registered tool's name; an unknown
 * name is never in the span name or a metric, where a client could make their cardinality grow
 * without bound, and reaches the span only as its envelope's (redacted) `tool`, when it ends.
 */
function callAttributes(tool: string | undefined, request: ServerContext): Attributes {
  const attributes: Attributes = {
    [SEMCONV.mcpMethodName]: 'tools/call',
    [SEMCONV.genAiOperationName]: 'execute_tool',
    [SEMCONV.jsonRpcRequestId]: String(request.mcpReq.id),
  };
  if (tool !== undefined) attributes[SEMCONV.genAiToolName] = tool;
  if (request.sessionId !== undefined) attributes[SEMCONV.mcpSessionId] = request.sessionId;
  return { ...attributes, ...transportAttributes(request) };
}

/** The protocol revision and, over Streamable HTTP, the network transport (stdio cannot be told from in-process). */
function transportAttributes(request: ServerContext): Attributes {
  const attributes: Attributes = {};
  const version = protocolVersion(request);
  if (version !== undefined) attributes[SEMCONV.mcpProtocolVersion] = version;
  if (request.http?.req !== undefined) {
    attributes[SEMCONV.networkTransport] = 'tcp';
    attributes[SEMCONV.networkProtocolName] = 'http';
  }
  return attributes;
}

/** The outcome's own attributes: `error.type`, the JSON-RPC code and what the envelope said. */
function outcomeAttributes(outcome: CallOutcome): Attributes {
  const attributes: Attributes = {};
  if (outcome.errorType !== undefined) attributes[SEMCONV.errorType] = outcome.errorType;
  if (outcome.rpcCode !== undefined) attributes[SEMCONV.rpcResponseStatusCode] = outcome.rpcCode;
  const envelope = outcome.envelope;
  if (envelope === undefined) return attributes;
  attributes[ENVELOPE_ATTRIBUTES.errorKind] = envelope.error_kind;
  attributes[ENVELOPE_ATTRIBUTES.errorCode] = envelope.error_code;
  attributes[ENVELOPE_ATTRIBUTES.retryable] = envelope.retryable;
  if (typeof envelope.upstream === 'string') attributes[ENVELOPE_ATTRIBUTES.upstream] = envelope.upstream;
  const correlationId = envelope._meta?.correlation_id;
  if (typeof correlationId === 'string') attributes[ENVELOPE_ATTRIBUTES.correlationId] = correlationId;
  return attributes;
}

/** The call's points: its duration, the call and, for an envelope, the failure (none when no SDK is registered). */
function recordMetrics(
  meter: Meter,
  tool: string | undefined,
  request: ServerContext,
  outcome: CallOutcome,
  seconds: number,
): void {
  // the API's own no-op meter: building the points' attributes would be all the work left
  if (meter === createNoopMeter()) return;
  const toolAttribute = tool === undefined ? {} : { [SEMCONV.genAiToolName]: tool };
  const durationAttributes: Attributes = {
    ...toolAttribute,
    [SEMCONV.mcpMethodName]: 'tools/call',
    [SEMCONV.genAiOperationName]: 'execute_tool',
    ...transportAttributes(request),
  };
  if (outcome.errorType !== undefined) durationAttributes[SEMCONV.errorType] = outcome.errorType;
  if (outcome.rpcCode !== undefined) durationAttributes[SEMCONV.rpcResponseStatusCode] = outcome.rpcCode;
  meter
    .createHistogram(METRIC_NAMES.operationDuration, {
      unit: 's',
      description: 'The duration of the MCP request as observed by the server.',
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    })
    .record(seconds, durationAttributes);
  meter
    .createCounter(METRIC_NAMES.calls, { description: 'tools/call requests answered.' })
    .add(1, { ...toolAttribute, [ENVELOPE_ATTRIBUTES.outcome]: outcome.outcome });
  const envelope = outcome.envelope;
  if (envelope === undefined) return;
  meter
    .createCounter(METRIC_NAMES.failures, { description: 'Error envelopes sent, by error_kind.' })
    .add(1, { ...toolAttribute, [ENVELOPE_ATTRIBUTES.errorKind]: envelope.error_kind });
}

/**
 * Counts a call the server refused before its handler ran, where the refusal is decided: an
 * upstream 429 gives the same `RATE_LIMITED` envelope, so the envelope alone cannot tell them apart.
 *
 * @param tool - the registered tool refused.
 * @param code - `RATE_LIMITED` (the pre-flight limiter) or `SERVER_BUSY` (the concurrency guard).
 */
export function countRefusal(tool: string, code: 'RATE_LIMITED' | 'SERVER_BUSY'): void {
  metrics
    .getMeter(TELEMETRY_SCOPE, PACKAGE_VERSION)
    .createCounter(METRIC_NAMES.refusals, { description: 'Calls refused before their handler ran.' })
    .add(1, { [SEMCONV.genAiToolName]: tool, [ENVELOPE_ATTRIBUTES.errorCode]: code });
}

function endSpan(span: Span, outcome: CallOutcome, registered: string | undefined): void {
  if (span.isRecording()) {
    span.setAttributes(outcomeAttributes(outcome));
    // an unknown name reaches the span as its envelope's `tool`, which the redactor saw
    if (registered === undefined && outcome.envelope !== undefined)
      span.setAttribute(SEMCONV.genAiToolName, outcome.envelope.tool);
    if (outcome.errorType !== undefined)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(outcome.message === undefined ? {} : { message: outcome.message }),
      });
  }
  span.end();
}

/**
 * Runs one `tools/call` answer inside its SERVER span `tools/call <tool>`, whose parent is the
 * trace context the request carries in `params._meta` (`traceparent`, `tracestate`), and records
 * its duration and counters. The span is the active one while `answer` runs, so upstream
 * exchanges become its children. What `answer` returns or throws is passed on unchanged.
 *
 * With no SDK registered (a span that does not record and has no trace, the API's no-op meter)
 * `answer` runs as it is: no attribute, point or extra promise is made. The attributes are set
 * after the span starts, and only on a span that records (a sampler sees the name and kind only).
 *
 * @param request - the SDK's request context (request id, session, `_meta`, HTTP request).
 * @param registered - the tool's name when a registered tool has it, else `undefined`.
 * @param answer - the call's answer.
 * @returns what `answer` returns.
 * @throws what `answer` throws.
 */
export function observeCall(
  request: ServerContext,
  registered: string | undefined,
  answer: () => Promise<CallToolResult | InputRequiredResult>,
): Promise<CallToolResult | InputRequiredResult> {
  const started = performance.now();
  const parent = propagation.extract(context.active(), request.mcpReq._meta ?? {}, defaultTextMapGetter);
  const name = registered === undefined ? 'tools/call' : `tools/call ${registered}`;
  const span = trace.getTracer(TELEMETRY_SCOPE, PACKAGE_VERSION).startSpan(name, { kind: SpanKind.SERVER }, parent);
  const traced = isSpanContextValid(span.spanContext());
  const meter = metrics.getMeter(TELEMETRY_SCOPE, PACKAGE_VERSION);
  if (!traced && !span.isRecording() && meter === createNoopMeter()) {
    span.end();
    return answer();
  }
  if (span.isRecording()) span.setAttributes(callAttributes(registered, request));
  // a span with no trace has nothing to hand to the upstream exchanges
  const run = traced
    ? (): Promise<CallToolResult | InputRequiredResult> => context.with(trace.setSpan(parent, span), answer)
    : answer;
  return observed(run, (outcome) => {
    endSpan(span, outcome, registered);
    recordMetrics(meter, registered, request, outcome, (performance.now() - started) / 1000);
  });
}

/** Runs `answer` and hands its outcome to `end`, whatever it returned or threw. */
async function observed(
  answer: () => Promise<CallToolResult | InputRequiredResult>,
  end: (outcome: CallOutcome) => void,
): Promise<CallToolResult | InputRequiredResult> {
  let outcome: CallOutcome = { outcome: 'error', errorType: '_OTHER' };
  try {
    const result = await answer();
    outcome = resultOutcome(result);
    return result;
  } catch (error) {
    outcome = thrownOutcome(error);
    throw error;
  } finally {
    end(outcome);
  }
}
