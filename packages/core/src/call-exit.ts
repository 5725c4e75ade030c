/**
 * The one way out of `tools/call` for a failure. Every step of the call path (call-pipeline.ts)
 * and result shaping throw a {@link CallFailed} that says what went wrong; {@link callExit} is the
 * only place that turns one into its envelope result, so a reader follows every failure to the
 * same function, the way a web framework lands every throw in one error handler.
 * Implements CONTRACT.md "The envelope" (both channels of an error result).
 *
 * @packageDocumentation
 */
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';

import { classifyFailure } from './classify.js';
import { buildEnvelope } from './envelope-builder.js';
import { identifiedFailure } from './tool-failure-meta.js';
import type { CallFailure, ServerEnvironment } from './types.js';

/** Thrown by a step of the call path to end the call with {@link CallFailed.failure}. */
export class CallFailed extends Error {
  /** What went wrong. */
  readonly failure: CallFailure;

  /** @param failure - what went wrong. */
  constructor(failure: CallFailure) {
    super(`tools/call failed: ${failure.type}`);
    this.name = 'CallFailed';
    this.failure = failure;
  }
}

/**
 * A JSON-RPC -32602 error whose wire `message` is exactly `message`.
 *
 * @param message - the wire message.
 * @param data - the error's `data`.
 */
export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message, data);
}

/** The wire form of an error: `isError`, the envelope as JSON text and as `structuredContent`. */
function errorResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
}

/**
 * The answer of a call that failed: a {@link CallFailed} becomes its envelope result (or the
 * JSON-RPC error of an unknown tool, when the server answers those so); anything else, such as
 * the protocol error of a request without a tool name, leaves as it was thrown.
 *
 * @param thrown - what the call path threw.
 * @param server - see {@link ServerEnvironment}.
 * @returns the `isError` result carrying the envelope.
 * @throws `thrown` itself when it is no {@link CallFailed}; a -32602 `ProtocolError` for an
 *   unknown tool answered as a JSON-RPC error.
 */
export function callExit(thrown: unknown, server: ServerEnvironment): CallToolResult {
  if (!(thrown instanceof CallFailed)) throw thrown;
  const failure = thrown.failure;
  // One entry into each: classify decides what the envelope is made of, the builder makes it.
  const built = buildEnvelope(classifyFailure(failure, server), server);
  // the ToolFailure mirror needs a correlation id on every envelope; off, the exit is as before
  const envelope = server.toolFailureMeta === true ? identifiedFailure(built, server) : built;
  if (failure.type === 'unknown_tool' && failure.as === 'jsonrpc')
    throw invalidParams(JSON.stringify(envelope), envelope);
  return errorResult(envelope);
}
