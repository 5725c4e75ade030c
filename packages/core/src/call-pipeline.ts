/**
 * The `tools/call` path of an envelope server, as an ordered list of steps that
 * {@link createCallPipeline} runs top to bottom: admission (find the tool), arguments
 * (normalization, then validation), the limiter, the concurrency guard, the handler, then
 * shaping. A step that fails
 * throws a `CallFailed`, and every failure leaves through the one exit, `callExit` (call-exit.ts).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ContractVersion, ErrorEnvelope } from '@mcp-envelope/contract';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';

import { closestMatch, concealSecretValues, staleCallEnvelope } from './arguments/index.js';
import type { ArgumentCheck, StaleProperties } from './arguments/index.js';
import { CallFailed, callExit, invalidParams } from './call-exit.js';
import { recordResponseMetaInto } from './context.js';
import { busyEnvelope } from './concurrency.js';
import type { ConcurrencyGuard, ConcurrencySlot } from './concurrency.js';
import { composeMeta, internalErrorEnvelope } from './envelope-builder.js';
import { EnvelopeError, knownThrown } from './errors.js';
import { effectUnknownForm, isIdempotentTool } from './effect-unknown.js';
import { isPromiseLike, shutdownEnvelope } from './in-flight.js';
import type { InFlightCalls } from './in-flight.js';
import type { EnvelopeLogger } from './logger.js';
import { rateLimitStep } from './rate-limit/step.js';
import type { RateLimitDecision, RateLimitStepInput } from './rate-limit/step.js';
import { isPartialSuccess } from './partial-success.js';
import type { ResultShaper } from './result-shaping.js';
import type { ToolRequestState } from './request-state.js';
import { isRecord } from '@mcp-envelope/contract';
import type { ToolEntry, ToolRegistry } from './tool-registry.js';
import type { AnswerTool, CallRecord, CallTool, ProtocolEra, ServerEnvironment, ToolHandlerContext } from './types.js';
import { countRefusal, observeCall } from './telemetry/call-span.js';
import { fetchInCallRecord } from './upstream.js';
import type { FailedRequest } from './adapter.js';
import { readCallBody } from './in-band.js';

/** What {@link createCallPipeline} needs of its server. */
export interface CallPipelineInput {
  readonly registry: ToolRegistry;
  readonly shaper: ResultShaper;
  readonly calls: InFlightCalls;
  /** What every envelope of the server is built with (its adapter, logger, redactor, ...). */
  readonly server: ServerEnvironment;
  readonly maxUpstreamBodyBytes: number;
  readonly unknownToolAs: 'result' | 'jsonrpc';
  /** The server's `requestState` signer. */
  readonly requestState: ToolRequestState;
  /** The hint of an unknown-tool answer on how to find the tools (default: call `tools/list`). */
  readonly findToolHint?: string;
  /** The pre-flight limiter; absent when `MCP_RATE_LIMIT` is off. */
  readonly rateLimit?: RateLimitStepInput | undefined;
  /** The concurrency guard; absent on a server that cannot emit `rate_limited`. */
  readonly concurrency?: ConcurrencyStepInput | undefined;
  /** The tools' renamed and removed properties (the `toolHistory` option); absent without one. */
  readonly staleProperties?: StaleProperties | undefined;
}

/** What the guard step needs: the server's guard, and the tools it leaves alone. */
export interface ConcurrencyStepInput {
  readonly guard: ConcurrencyGuard;
  /**
   * The server's own tools that never go upstream themselves (`get_envelope_contract`, Code
   * Mode's meta tools): `execute_code` takes no slot, its inner calls each take one.
   */
  readonly unlimited: ReadonlySet<string>;
}

/** One call as the steps see it: the request as sent, and what the client reads. */
interface CallRequest {
  readonly params: unknown;
  readonly request: ServerContext;
  readonly era: ProtocolEra;
  readonly version: ContractVersion;
}

/** A call past validation: its tool, its normalized and validated arguments, its record and handler context. */
interface AdmittedCall {
  readonly entry: ToolEntry;
  readonly args: Record<string, unknown>;
  readonly call: CallRecord;
  readonly context: ToolHandlerContext;
}

/** The name `params` asks for when a registered tool has it (span names and metrics take no other). */
function registeredName(registry: ToolRegistry, params: unknown): string | undefined {
  const name = isRecord(params) ? params['name'] : undefined;
  return typeof name === 'string' && registry.get(name) !== undefined ? name : undefined;
}

function displayName(name: string): string {
  return name.length > 120 ? `${name.slice(0, 117)}...` : name;
}

function newCall(
  name: string,
  server: ServerEnvironment,
  check: ArgumentCheck | undefined,
  signal: AbortSignal,
  maxUpstreamBodyBytes: number,
  annotations?: ToolAnnotations,
): CallRecord {
  return {
    tool: name,
    adapter: server.adapter,
    annotations,
    normalized: check?.ok === true ? check.events : [],
    signal,
    maxUpstreamBodyBytes,
    rateLimit: undefined,
    retryAfterSeconds: undefined,
    warnings: undefined,
    traced: server.telemetry !== false,
    redactText: server.redactor.string,
  };
}

function handlerContext(
  call: CallRecord,
  request: ServerContext,
  requestState: ToolRequestState,
  contractVersion: ContractVersion,
): ToolHandlerContext {
  // which request got each response, for `readBody`'s in-band failures; one map per call
  const requests = new WeakMap<Response, FailedRequest>();
  return {
    contractVersion,
    mintRequestState: (value) => requestState.mint(call.tool, value),
    requestState: () => requestState.read(call.tool, request),
    tool: call.tool,
    signal: call.signal,
    normalized: call.normalized,
    fetch: async (url, init) => {
      const response = await fetchInCallRecord(call, url, init);
      requests.set(response, { method: (init?.method ?? 'GET').toUpperCase(), url: String(url) });
      return response;
    },
    readBody: (response) => readCallBody(call, response, requests.get(response)),
    recordResponseMeta: (meta) => {
      recordResponseMetaInto(call, meta);
    },
    request,
  };
}

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

/**
 * Step 1, admission: the registered tool the call names.
 *
 * @throws a -32602 `ProtocolError` when `params.name` is no string (nothing to put in an
 *   envelope's `tool`, so a protocol error, as the SDK's own dispatcher answers it);
 *   `CallFailed` (`unknown_tool`) for a name no tool has.
 */
function admission(input: CallPipelineInput, params: unknown): ToolEntry {
  if (!isRecord(params) || typeof params['name'] !== 'string')
    throw invalidParams('Invalid tools/call request: params.name must be a string');
  const name = params['name'];
  const entry = input.registry.get(name);
  if (entry !== undefined) return entry;
  const { summary, hints } = toolNotFound(
    name,
    input.registry.names,
    input.findToolHint ?? 'Call tools/list to see the tools this server offers.',
  );
  const envelope: ErrorEnvelope = {
    error_kind: 'tool_not_found',
    tool: name === '' ? 'unknown_tool' : name,
    summary,
    details: [],
    hints,
    examples: [],
    error_code: 'TOOL_NOT_FOUND',
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
  };
  throw new CallFailed({ type: 'unknown_tool', envelope, as: input.unknownToolAs });
}

/** The `mcp_input_validation` envelope of arguments that failed their checks. */
function validationEnvelope(
  input: CallPipelineInput,
  name: string,
  check: Extract<ArgumentCheck, { ok: false }>,
): ErrorEnvelope {
  // the fallback code names the failing keyword in `_meta.validator` too, as the contract says
  const validationMeta = composeMeta({
    normalized: input.server.includeNormalized ? check.events : undefined,
    validator: check.validator,
  });
  // a value sent in the wrong field may be a token: it is never echoed back
  const { details, hints } = concealSecretValues(check, input.server.redactor);
  return {
    error_kind: 'mcp_input_validation',
    tool: name,
    summary: check.summary,
    details,
    hints,
    examples: [],
    error_code: check.error_code,
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
    ...(validationMeta === undefined ? {} : { _meta: validationMeta }),
  };
}

/**
 * Before normalization could fold an old name into a near one, or lenient mode pass it through
 * unread: a property the tool renamed or removed gets the envelope that names the change.
 *
 * @throws `CallFailed` (`core`) with that envelope.
 */
function rejectStaleCall(stale: StaleProperties | undefined, entry: ToolEntry, sent: unknown): void {
  const old = stale?.get(entry.tool.name);
  if (old === undefined) return;
  const properties = entry.tool.inputSchema['properties'];
  const declared = new Set(isRecord(properties) ? Object.keys(properties) : []);
  const envelope = staleCallEnvelope(entry.tool.name, sent, old, declared);
  if (envelope !== undefined) throw new CallFailed({ type: 'core', envelope });
}

/**
 * Step 2, arguments: normalization, then validation (one pass of the tool's compiled checks);
 * the call's record and handler context are made from what passed.
 *
 * @throws `CallFailed`: `core` for arguments that fail, `internal` for a schema that cannot compile.
 */
function admitArguments(input: CallPipelineInput, entry: ToolEntry, request: CallRequest): AdmittedCall {
  const { server } = input;
  const name = entry.tool.name;
  const signal = request.request.mcpReq.signal;
  // `null` is how several clients write "no arguments"
  const sent = (request.params as { arguments?: unknown }).arguments ?? {};
  rejectStaleCall(input.staleProperties, entry, sent);
  let check: ArgumentCheck;
  try {
    check = entry.compiled.check(sent);
  } catch (error) {
    // Only a schema that cannot be compiled gets here: the server's fault, with the reason in the log.
    const call = newCall(name, server, undefined, signal, input.maxUpstreamBodyBytes, entry.tool.annotations);
    throw new CallFailed({ type: 'internal', error, reason: 'input_schema', call });
  }
  if (!check.ok)
    throw new CallFailed({
      type: 'core',
      envelope: validationEnvelope(input, name, check),
      omittedDetails: check.omittedDetails,
    });
  const call = newCall(name, server, check, signal, input.maxUpstreamBodyBytes, entry.tool.annotations);
  const context = handlerContext(call, request.request, input.requestState, request.version);
  return { entry, args: check.args, call, context };
}

/**
 * Step 3, the limiter: a token for this server, tool and identity, or a refusal.
 *
 * @returns what to do once the handler ended, or `undefined` when the call is not limited.
 * @throws `CallFailed` (`core`) with the `rate_limited` envelope of a refusal.
 */
async function limiter(input: CallPipelineInput, admitted: AdmittedCall): Promise<RateLimitDecision | undefined> {
  const limit = await rateLimitStep(input.rateLimit, admitted.entry.tool, admitted.args, admitted.context);
  if (limit?.go === false) {
    if (input.server.telemetry !== false) countRefusal(admitted.entry.tool.name, 'RATE_LIMITED');
    throw new CallFailed({ type: 'core', envelope: limit.envelope });
  }
  return limit;
}

/**
 * Step 4, the concurrency guard: a place in flight for the call, or a `SERVER_BUSY` refusal at
 * once. A refused call gives its limiter token back: nothing went upstream, and a token kept
 * would refuse a later call for budget that was never spent.
 *
 * @returns the slot to release once the handler has ended, or `undefined` when the call is not guarded.
 * @throws `CallFailed` (`core`) with the `SERVER_BUSY` envelope of a refusal.
 */
async function concurrencyGuard(
  input: CallPipelineInput,
  admitted: AdmittedCall,
  limit: RateLimitDecision | undefined,
): Promise<ConcurrencySlot | undefined> {
  const step = input.concurrency;
  const tool = admitted.entry.tool.name;
  if (step === undefined || step.unlimited.has(tool)) return undefined;
  const entered = step.guard.enter(tool);
  if (!entered.busy) return entered;
  if (limit?.go === true) await limit.refund().catch(() => undefined);
  if (input.server.telemetry !== false) countRefusal(tool, 'SERVER_BUSY');
  throw new CallFailed({ type: 'core', envelope: busyEnvelope(tool, entered) });
}

/**
 * What the handler's value is to the call: a returned error (an `EnvelopeError`, an
 * `UpstreamHttpError` or `UpstreamClientError`) ends it exactly as if thrown; a partial success
 * adds its warning to the call's telemetry and leaves its data.
 *
 * @throws `CallFailed` (`thrown`) with a returned error.
 */
function handlerValue(value: unknown, call: CallRecord): unknown {
  if (knownThrown(value) !== undefined) throw new CallFailed({ type: 'thrown', error: value, call });
  if (!isPartialSuccess(value)) return value;
  // not recordResponseMetaInto: that marks an upstream request as started, which this says nothing of
  if (value.warning !== undefined) call.warnings = [...(call.warnings ?? []), value.warning];
  return value.data;
}

/**
 * The answer to a call a shutdown cut short: its handler was running, so a tool that is not
 * idempotent may have done its work, and a plain retryable answer would invite doing it twice.
 */
function cutShortEnvelope(call: CallRecord, logger: EnvelopeLogger): ErrorEnvelope {
  const envelope = shutdownEnvelope(call.tool, logger);
  return isIdempotentTool(call.annotations) ? envelope : effectUnknownForm(envelope);
}

/**
 * Step 5, the handler: its value. The limiter learns from the call however it ended; that never
 * changes the answer.
 *
 * @throws `CallFailed`: `thrown` with what the handler threw, `ready` with the bare
 *   `internal_error` of a cancelled call or the envelope of a call a shutdown cut short.
 */
async function runHandler(
  input: CallPipelineInput,
  admitted: AdmittedCall,
  limit: RateLimitDecision | undefined,
): Promise<unknown> {
  const { call } = admitted;
  try {
    const returned = admitted.entry.tool.handler(admitted.args, admitted.context);
    // tracked, so that a shutdown whose grace period ends first can still answer the call
    const outcome = isPromiseLike(returned)
      ? await input.calls.track(returned)
      : { forced: false as const, value: returned };
    if (outcome.forced) throw new CallFailed({ type: 'ready', envelope: cutShortEnvelope(call, input.server.logger) });
    return handlerValue(outcome.value, call);
  } catch (error) {
    if (error instanceof CallFailed) throw error;
    // A cancelled call gets no response (the SDK drops it); its abort is not a server failure.
    if (call.signal.aborted && !EnvelopeError.isInstance(error))
      throw new CallFailed({ type: 'ready', envelope: internalErrorEnvelope(call.tool, randomUUID()) });
    throw new CallFailed({ type: 'thrown', error, call });
  } finally {
    if (limit?.go === true) await limit.after(call).catch(() => undefined);
  }
}

/**
 * Step 6, shaping: the wire result of the handler's value (see result-shaping.ts).
 *
 * @throws `CallFailed` from the shaper, or `internal` for anything else it throws (a `toJSON`).
 */
function shaping(
  input: CallPipelineInput,
  admitted: AdmittedCall,
  value: unknown,
  era: ProtocolEra,
): CallToolResult | InputRequiredResult {
  try {
    return input.shaper.shape(value, admitted.entry, admitted.call, era);
  } catch (error) {
    if (error instanceof CallFailed) throw error;
    throw new CallFailed({ type: 'internal', error, reason: 'result', call: admitted.call });
  }
}

/** The steps of one call, in order; each one's failure is thrown to the caller's one exit. */
async function runSteps(input: CallPipelineInput, request: CallRequest): Promise<CallToolResult | InputRequiredResult> {
  const entry = admission(input, request.params);
  const admitted = admitArguments(input, entry, request);
  const limit = await limiter(input, admitted);
  const slot = await concurrencyGuard(input, admitted, limit);
  let value: unknown;
  try {
    value = await runHandler(input, admitted, limit);
  } finally {
    // the slot is held until the handler has ended: a cancelled call frees it as soon as its
    // handler stops (core's fetch aborts with the call), a handler that ignores the abort holds it
    slot?.release();
  }
  return shaping(input, admitted, value, request.era);
}

/**
 * Creates the `tools/call` answer of one server: the steps of {@link runSteps}, and every failure
 * through `callExit`; unless the server's telemetry is off, each call runs in its OpenTelemetry
 * span (telemetry/call-span.ts), which sees the answer the client gets.
 *
 * @returns the function the SDK's `tools/call` handler calls.
 */
export function createCallPipeline(input: CallPipelineInput): AnswerTool {
  const answer = async (request: CallRequest): Promise<CallToolResult | InputRequiredResult> => {
    try {
      return await runSteps(input, request);
    } catch (thrown) {
      return callExit(thrown, input.server);
    }
  };
  return (params, request, era, version = CONTRACT_VERSION) =>
    input.server.telemetry === false
      ? answer({ params, request, era, version })
      : observeCall(request, registeredName(input.registry, params), () => answer({ params, request, era, version }));
}

/**
 * `answer` for callers that cannot give a tool the input it asks for (Code Mode's inner calls):
 * an input-required answer becomes an `internal_error` envelope naming the tool.
 *
 * @param answer - the server's `tools/call` answer.
 * @param server - what the server's envelopes are built with.
 * @returns a {@link CallTool}.
 */
export function completeOnly(answer: AnswerTool, server: ServerEnvironment): CallTool {
  return async (params, request, era, version) => {
    const result = await answer(params, request, era, version);
    if (!isInputRequiredResult(result)) return result;
    const tool = isRecord(params) && typeof params['name'] === 'string' ? params['name'] : 'unknown_tool';
    const error = new Error(`tool "${tool}" asked the client for input, which this caller cannot give`);
    const call = newCall(tool, server, undefined, request.mcpReq.signal, 0);
    return callExit(new CallFailed({ type: 'internal', error, reason: 'result', call }), server);
  };
}
