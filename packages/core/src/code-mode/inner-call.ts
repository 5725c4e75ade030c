/**
 * The bridge from `callTool(name, args)` inside the sandbox to the server's own `tools/call`
 * pipeline: the same normalization, validation, handler or upstream call, envelopes and rate
 * limits as a call over the wire, with the result turned into what the code sees (a value, an
 * envelope as a value, or a throw). Implements CONTRACT.md "Code Mode".
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION, isEnvelope, isEnvelopeV2, parseEnvelopeText } from '@mcp-envelope/contract';
import type { ContractVersion, ErrorEnvelope } from '@mcp-envelope/contract';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';

import type { CallTool } from '../types.js';
import type { InnerCall, InnerCallOutcome } from './sandbox.js';
import type { TelemetryAggregate } from './telemetry.js';

/** The name of the tool that runs code; code cannot call it. */
export const EXECUTE_CODE_TOOL_NAME = 'execute_code';

/** The text blocks of a result, joined; parsed as JSON when they hold JSON. */
function textValue(result: CallToolResult): unknown {
  const texts = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  if (texts.length === 0) return result.content.length === 0 ? null : result.content;
  const text = texts.join('\n');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * What the code sees of one inner call's result: a success's `structuredContent` (or its text,
 * parsed as JSON when it is JSON); an error's envelope as a value when it carries a valid one;
 * otherwise a throw with the error's text.
 *
 * @param result - the pipeline's answer.
 * @returns the outcome for the sandbox.
 */
export function innerCallOutcome(result: CallToolResult): InnerCallOutcome {
  if (result.isError !== true)
    return { value: result.structuredContent === undefined ? textValue(result) : result.structuredContent };
  if (isEnvelope(result.structuredContent)) return { value: result.structuredContent };
  const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
  const carried = parseEnvelopeText(text);
  if (carried !== undefined && isEnvelope(carried)) return { value: carried };
  return { throw: text === '' ? 'the tool failed without an error envelope' : text.slice(0, 2000) };
}

/** The envelope an inner call to `execute_code` gets: code cannot start more code. */
export function recursionEnvelope(): ErrorEnvelope {
  return {
    error_kind: 'sandbox_runtime',
    tool: EXECUTE_CODE_TOOL_NAME,
    summary: 'execute_code cannot be called from inside execute_code.',
    details: [
      {
        path: 'name',
        issue: 'callTool("execute_code") is refused: code cannot start more code.',
        received_type: 'string',
        reason: 'blocked_capability',
      },
    ],
    hints: ['Call the tools you need directly with callTool(name, args) in the same code.'],
    examples: [],
    error_code: 'CODE_MODE_SANDBOX_LIMITATION',
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
  };
}

/** The request context of the outer call, with the inner call's abort signal. */
function innerRequest(request: ServerContext, signal: AbortSignal): ServerContext {
  return { ...request, mcpReq: { ...request.mcpReq, signal } };
}

/** An envelope the bridge answers with itself, as the error result the pipeline gives, so it is projected like one. */
function envelopeResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, structuredContent: envelope, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}

/**
 * A thrown pipeline answer (an unknown tool under `unknownToolAs: 'jsonrpc'`, a bad name) as an
 * outcome: its envelope in the outer client's version, like a returned one.
 */
function thrownOutcome(error: unknown, inVersion: InnerCallInput['inVersion']): InnerCallOutcome {
  if (error instanceof ProtocolError && isEnvelopeV2(error.data))
    return innerCallOutcome(inVersion(envelopeResult(error.data)));
  if (error instanceof ProtocolError && isEnvelope(error.data)) return { value: error.data };
  return { throw: error instanceof Error ? error.message : String(error) };
}

/** What {@link createInnerCall} needs: the pipeline, the outer call's request, where telemetry goes. */
export interface InnerCallInput {
  readonly callTool: CallTool;
  readonly request: ServerContext;
  readonly telemetry: TelemetryAggregate;
  /** The outer client's contract version: inner handlers see it, as a direct call's do. */
  readonly version: ContractVersion;
  /** The result as the outer client's contract version shows it (telemetry is read before). */
  readonly inVersion: (result: CallToolResult) => CallToolResult;
}

/**
 * The `callTool` handed to the sandbox for one `execute_code` call. Each call goes through
 * `input.callTool` as a 2026-07-28 call (so a scalar success still has `structuredContent`) with
 * the outer request's session and the sandbox's signal; its telemetry is collected in
 * `input.telemetry`. A call to `execute_code` is answered with {@link recursionEnvelope}. Every
 * envelope the code gets, returned, thrown or the bridge's own, is in the outer client's version.
 *
 * @returns the bridge; it never rejects.
 */
export function createInnerCall(input: InnerCallInput): InnerCall {
  return async (name, args, signal) => {
    if (name === EXECUTE_CODE_TOOL_NAME) return innerCallOutcome(input.inVersion(envelopeResult(recursionEnvelope())));
    try {
      const result = await input.callTool(
        { name, arguments: args },
        innerRequest(input.request, signal),
        'modern',
        input.version,
      );
      input.telemetry.add(result);
      return innerCallOutcome(input.inVersion(result));
    } catch (error) {
      return thrownOutcome(error, input.inVersion);
    }
  };
}
