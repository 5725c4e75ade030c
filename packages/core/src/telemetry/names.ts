/**
 * The names of core's OpenTelemetry signals: the instrumentation scope, the attributes of the
 * OpenTelemetry semantic conventions it follows (the MCP and GenAI conventions of
 * semantic-conventions-genai v0.1.0, the HTTP client conventions of semantic-conventions 1.41), and
 * its own attributes and counters under the `mcp_envelope.` namespace. Implements CONTRACT.md
 * "OpenTelemetry".
 *
 * @packageDocumentation
 */

/** The instrumentation scope (tracer and meter name) of core's spans and counters. */
export const TELEMETRY_SCOPE = '@mcp-envelope/core';

/**
 * The semantic-convention attributes core sets, by their convention names.
 * `error.type` is `tool_error` on an `isError` result and the JSON-RPC code on a protocol error.
 */
export const SEMCONV = {
  mcpMethodName: 'mcp.method.name',
  mcpSessionId: 'mcp.session.id',
  mcpProtocolVersion: 'mcp.protocol.version',
  genAiToolName: 'gen_ai.tool.name',
  genAiOperationName: 'gen_ai.operation.name',
  jsonRpcRequestId: 'jsonrpc.request.id',
  rpcResponseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  errorType: 'error.type',
  httpRequestMethod: 'http.request.method',
  httpResponseStatusCode: 'http.response.status_code',
  urlFull: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** Core's own attributes: what the envelope of a failed call said. */
export const ENVELOPE_ATTRIBUTES = {
  errorKind: 'mcp_envelope.error_kind',
  errorCode: 'mcp_envelope.error_code',
  retryable: 'mcp_envelope.retryable',
  correlationId: 'mcp_envelope.correlation_id',
  upstream: 'mcp_envelope.upstream',
  outcome: 'mcp_envelope.outcome',
} as const;

/** The instruments core records: the convention's duration histogram and core's own counters. */
export const METRIC_NAMES = {
  /** Seconds per `tools/call`, as the MCP conventions name it. */
  operationDuration: 'mcp.server.operation.duration',
  /** `tools/call` requests answered, by tool and outcome (`ok`, `tool_error`, `protocol_error`, `error`). */
  calls: 'mcp_envelope.calls',
  /** Envelopes sent, by tool and `error_kind`. */
  failures: 'mcp_envelope.failures',
  /** Calls the server refused before the handler: the limiter (`RATE_LIMITED`) and the concurrency guard (`SERVER_BUSY`). */
  refusals: 'mcp_envelope.limiter.refusals',
} as const;

/** The bucket bounds (seconds) the MCP conventions advise for `mcp.server.operation.duration`. */
export const DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
