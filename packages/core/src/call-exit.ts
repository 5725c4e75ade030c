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

import { envelopeForThrown, envelopeInResult, finalizeHandlerEnvelope, internalError } from './classify.js';
import { finalizeEnvelope } from './envelope-builder.js';
import type { CallRecord, ServerEnvironment } from './types.js';

/**
 * What went wrong in a call, by who is at fault and so how its envelope is made:
 * - `thrown`: the tool handler threw, or core met an upstream or client failure: classified
 *   (an `EnvelopeError` or a carried envelope as it is, an upstream failure by the adapter);
 * - `internal`: the server's own fault (`reason` says where): logged, `internal_error`;
 * - `core`: an envelope core built (validation, the limiter): finalized;
 * - `unknown_tool`: a `tool_not_found` envelope, as a result or, `as: 'jsonrpc'`, a -32602 error;
 * - `error_result`: a handler returned an `isError` result: its envelope, else `internal_error`;
 * - `ready`: an envelope already fit to send (a shutdown's, a cancelled call's).
 */
export type CallFailure =
  | { readonly type: 'thrown'; readonly error: unknown; readonly call: CallRecord }
  | { readonly type: 'internal'; readonly error: unknown; readonly reason: string; readonly call: CallRecord }
  | { readonly type: 'core'; readonly envelope: ErrorEnvelope; readonly omittedDetails?: number | undefined }
  | { readonly type: 'unknown_tool'; readonly envelope: ErrorEnvelope; readonly as: 'result' | 'jsonrpc' }
  | { readonly type: 'error_result'; readonly result: CallToolResult; readonly call: CallRecord }
  | { readonly type: 'ready'; readonly envelope: ErrorEnvelope };

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

/** The envelope of a handler's own `isError` result: the one it carries, else `internal_error`. */
function errorResultEnvelope(result: CallToolResult, call: CallRecord, server: ServerEnvironment): ErrorEnvelope {
  const carried = envelopeInResult(result);
  if (carried !== undefined) return finalizeHandlerEnvelope(carried, call, server);
  const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
  const failure = new Error(`tool returned isError without an envelope: ${text.slice(0, 2000)}`);
  return internalError(failure, 'result', call, server);
}

/** The envelope of `failure`; throws the JSON-RPC error of an unknown tool answered that way. */
function failureEnvelope(failure: CallFailure, server: ServerEnvironment): ErrorEnvelope {
  switch (failure.type) {
    case 'thrown':
      return envelopeForThrown(failure.error, failure.call, server);
    case 'internal':
      return internalError(failure.error, failure.reason, failure.call, server);
    case 'core':
      return finalizeEnvelope(failure.envelope, server, failure.omittedDetails);
    case 'unknown_tool': {
      const envelope = finalizeEnvelope(failure.envelope, server);
      if (failure.as === 'jsonrpc') throw invalidParams(JSON.stringify(envelope), envelope);
      return envelope;
    }
    case 'error_result':
      return errorResultEnvelope(failure.result, failure.call, server);
    case 'ready':
      return failure.envelope;
  }
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
  return errorResult(failureEnvelope(thrown.failure, server));
}
