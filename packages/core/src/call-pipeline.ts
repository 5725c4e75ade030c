/**
 * The `tools/call` pipeline of an envelope server: find the tool, check its arguments, run its
 * handler with a per-call context, shape the result; every failure becomes an envelope
 * (the request path).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ContractVersion, ErrorEnvelope } from '@mcp-envelope/contract';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';

import type { EnvelopeAdapter } from './adapter.js';
import { closestMatch } from './arguments/index.js';
import type { ArgumentCheck } from './arguments/index.js';
import { envelopeForThrown, internalError } from './classify.js';
import type { ClassifyEnvironment } from './classify.js';
import { recordResponseMetaInto } from './context.js';
import type { CallContext } from './context.js';
import { composeMeta, finalizeEnvelope, internalErrorEnvelope } from './envelope-builder.js';
import type { FinalizeEnvironment } from './envelope-builder.js';
import { EnvelopeError } from './errors.js';
import { isPromiseLike, shutdownEnvelope } from './in-flight.js';
import type { InFlightCalls } from './in-flight.js';
import type { EnvelopeLogger } from './logger.js';
import { rateLimitStep } from './rate-limit/step.js';
import type { RateLimitStepInput } from './rate-limit/step.js';
import { errorResult } from './result-shaping.js';
import type { ProtocolEra, ResultShaper } from './result-shaping.js';
import type { ToolHandlerContext } from './server.js';
import type { ToolEntry, ToolRegistry } from './tool-registry.js';
import type { ToolRequestState } from './request-state.js';
import { fetchInCallContext } from './upstream.js';

/** What {@link createCallPipeline} needs of its server. */
export interface CallPipelineInput {
  readonly adapter: EnvelopeAdapter;
  readonly registry: ToolRegistry;
  readonly shaper: ResultShaper;
  readonly calls: InFlightCalls;
  readonly logger: EnvelopeLogger;
  readonly finalizeEnvironment: FinalizeEnvironment;
  readonly classifyEnvironment: (call: CallContext) => ClassifyEnvironment;
  readonly includeNormalized: boolean;
  readonly maxUpstreamBodyBytes: number;
  readonly unknownToolAs: 'result' | 'jsonrpc';
  /** The server's `requestState` signer. */
  readonly requestState: ToolRequestState;
  /** The hint of an unknown-tool answer on how to find the tools (default: call `tools/list`). */
  readonly findToolHint?: string;
  /** The pre-flight limiter; absent when `MCP_RATE_LIMIT` is off. */
  readonly rateLimit?: RateLimitStepInput | undefined;
}

/**
 * Answers one `tools/call`: `params` as sent, the SDK's request context, the era served, and the
 * contract version the client reads (default 2), which handlers see as `context.contractVersion`.
 */
export type CallTool = (
  params: unknown,
  request: ServerContext,
  era: ProtocolEra,
  version?: ContractVersion,
) => Promise<CallToolResult>;

/**
 * {@link CallTool} that may also answer with an input-required result (a tool asking the client
 * for input). `version` is the contract version the client reads (the answer is built in version
 * 2 and projected where it leaves the server); handlers see it as `context.contractVersion`.
 */
export type AnswerTool = (
  params: unknown,
  request: ServerContext,
  era: ProtocolEra,
  version?: ContractVersion,
) => Promise<CallToolResult | InputRequiredResult>;

/**
 * `answer` for callers that cannot give a tool the input it asks for (Code Mode's inner calls):
 * an input-required answer becomes an `internal_error` envelope naming the tool.
 *
 * @param answer - the server's `tools/call` answer.
 * @param classifyEnvironment - the server's classification environment.
 * @param adapter - the server's adapter.
 * @returns a {@link CallTool}.
 */
export function completeOnly(
  answer: AnswerTool,
  classifyEnvironment: (call: CallContext) => ClassifyEnvironment,
  adapter: EnvelopeAdapter,
): CallTool {
  return async (params, request, era, version) => {
    const result = await answer(params, request, era, version);
    if (!isInputRequiredResult(result)) return result;
    const tool = isPlainObject(params) && typeof params['name'] === 'string' ? params['name'] : 'unknown_tool';
    const failure = new Error(`tool "${tool}" asked the client for input, which this caller cannot give`);
    return errorResult(
      internalError(
        failure,
        'result',
        classifyEnvironment(newCall(tool, adapter, undefined, request.mcpReq.signal, 0)),
      ),
    );
  };
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function displayName(name: string): string {
  return name.length > 120 ? `${name.slice(0, 117)}...` : name;
}

function newCall(
  name: string,
  adapter: EnvelopeAdapter,
  check: ArgumentCheck | undefined,
  signal: AbortSignal,
  maxUpstreamBodyBytes: number,
): CallContext {
  return {
    tool: name,
    adapter,
    normalized: check?.ok === true ? check.events : [],
    signal,
    maxUpstreamBodyBytes,
    rateLimit: undefined,
    retryAfterSeconds: undefined,
    warnings: undefined,
  };
}

function handlerContext(
  call: CallContext,
  request: ServerContext,
  requestState: ToolRequestState,
  contractVersion: ContractVersion,
): ToolHandlerContext {
  return {
    contractVersion,
    mintRequestState: (value) => requestState.mint(call.tool, value),
    requestState: () => requestState.read(call.tool, request),
    tool: call.tool,
    signal: call.signal,
    normalized: call.normalized,
    fetch: (url, init) => fetchInCallContext(call, url, init),
    recordResponseMeta: (meta) => {
      recordResponseMetaInto(call, meta);
    },
    request,
  };
}

/** The answer to an unknown tool name: a `tool_not_found` result, or a JSON-RPC error carrying it. */
/**
 * The summary and hints of a `tool_not_found` answer for `name`: the name (cut to 120
 * characters), a did-you-mean hint when a registered name is close, then `findHint`. Shared by
 * `tools/call` and Code Mode's `get_tool_schema`.
 *
 * @param name - the name asked for.
 * @param names - the registered names.
 * @param findHint - how the caller finds the tools.
 */
export function toolNotFound(
  name: string,
  names: readonly string[],
  findHint: string,
): { readonly summary: string; readonly hints: string[] } {
  const suggestion = closestMatch(name, names);
  return {
    summary: `No tool named "${displayName(name)}" is registered on this server.`,
    hints: [...(suggestion === undefined ? [] : [`Did you mean "${suggestion}"?`]), findHint],
  };
}

function unknownTool(input: CallPipelineInput, name: string): CallToolResult {
  const { summary, hints } = toolNotFound(
    name,
    input.registry.names,
    input.findToolHint ?? 'Call tools/list to see the tools this server offers.',
  );
  const envelope = finalizeEnvelope(
    {
      error_kind: 'tool_not_found',
      tool: name === '' ? 'unknown_tool' : name,
      summary,
      details: [],
      hints,
      examples: [],
      error_code: 'TOOL_NOT_FOUND',
      retryable: false,
      _envelope_version: CONTRACT_VERSION,
    },
    input.finalizeEnvironment,
  );
  if (input.unknownToolAs === 'jsonrpc') throw invalidParams(JSON.stringify(envelope), envelope);
  return errorResult(envelope);
}

function validationFailure(
  input: CallPipelineInput,
  name: string,
  check: Extract<ArgumentCheck, { ok: false }>,
): CallToolResult {
  // the fallback code names the failing keyword in `_meta.validator` too, as the contract says
  const validationMeta = composeMeta({
    normalized: input.includeNormalized ? check.events : undefined,
    validator: check.validator,
  });
  const envelope: ErrorEnvelope = {
    error_kind: 'mcp_input_validation',
    tool: name,
    summary: check.summary,
    details: check.details,
    hints: check.hints,
    examples: [],
    error_code: check.error_code,
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
    ...(validationMeta === undefined ? {} : { _meta: validationMeta }),
  };
  return errorResult(finalizeEnvelope(envelope, input.finalizeEnvironment, check.omittedDetails));
}

/**
 * Creates the `tools/call` answer of one server.
 *
 * @returns the function the SDK's `tools/call` handler calls.
 */
export function createCallPipeline(input: CallPipelineInput): AnswerTool {
  const { adapter, registry, shaper, calls, logger, classifyEnvironment } = input;

  /** Runs the handler: its value, or the `answer` when the call ended another way (a throw, a forced shutdown). */
  const runHandler = async (
    entry: ToolEntry,
    args: Record<string, unknown>,
    call: CallContext,
    context: ToolHandlerContext,
  ): Promise<{ answer: CallToolResult } | { value: unknown }> => {
    try {
      const returned = entry.tool.handler(args, context);
      // tracked, so that a shutdown whose grace period ends first can still answer the call
      const outcome = isPromiseLike(returned)
        ? await calls.track(returned)
        : { forced: false as const, value: returned };
      return outcome.forced ? { answer: errorResult(shutdownEnvelope(call.tool, logger)) } : { value: outcome.value };
    } catch (error) {
      // A cancelled call gets no response (the SDK drops it); its abort is not a server failure.
      if (call.signal.aborted && !EnvelopeError.isInstance(error))
        return { answer: errorResult(internalErrorEnvelope(call.tool, randomUUID())) };
      return { answer: errorResult(envelopeForThrown(error, classifyEnvironment(call))) };
    }
  };

  return async (params, request, era, version = CONTRACT_VERSION) => {
    // No tool name, no tool and nothing to put in an envelope's `tool`: a protocol error, as the
    // SDK's own dispatcher answers it.
    if (!isPlainObject(params) || typeof params['name'] !== 'string')
      throw invalidParams('Invalid tools/call request: params.name must be a string');
    const name = params['name'];
    const entry = registry.get(name);
    if (entry === undefined) return unknownTool(input, name);
    let check: ArgumentCheck;
    try {
      // `null` is how several clients write "no arguments"
      check = entry.compiled.check(params['arguments'] ?? {});
    } catch (error) {
      // Only a schema that cannot be compiled gets here: the server's fault, with the reason in the log.
      return errorResult(
        internalError(
          error,
          'input_schema',
          classifyEnvironment(newCall(name, adapter, undefined, request.mcpReq.signal, input.maxUpstreamBodyBytes)),
        ),
      );
    }
    if (!check.ok) return validationFailure(input, name, check);
    const call = newCall(name, adapter, check, request.mcpReq.signal, input.maxUpstreamBodyBytes);
    const context = handlerContext(call, request, input.requestState, version);
    const limit = await rateLimitStep(input.rateLimit, entry.tool, check.args, context);
    if (limit?.go === false) return errorResult(finalizeEnvelope(limit.envelope, input.finalizeEnvironment));
    const ran = await runHandler(entry, check.args, call, context);
    // learning and refunds never change the answer
    await limit?.after(call).catch(() => undefined);
    if ('answer' in ran) return ran.answer;
    try {
      return shaper.shape(ran.value, entry, call, era);
    } catch (error) {
      return errorResult(internalError(error, 'result', classifyEnvironment(call)));
    }
  };
}
