/**
 * The per-call context: which tool is running and the upstream telemetry its HTTP calls have
 * recorded. Lives in AsyncLocalStorage so that concurrent calls never see each other's meta.
 * Implements DESIGN 3 (success `_meta`) and CONTRACT.md "_meta".
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { EnvelopeWarning, NormalizedEvent, RateLimitMeta } from '@mcp-envelope/contract';

import type { EnvelopeAdapter, ResponseMeta } from './adapter.js';

/** The mutable record of one `tools/call`. */
export interface CallContext {
  /** The tool being run. */
  readonly tool: string;
  /** The adapter whose `parseResponseMeta` reads upstream headers. */
  readonly adapter: EnvelopeAdapter;
  /** Normalization events of this call's arguments. */
  readonly normalized: readonly NormalizedEvent[];
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** The limit on a successful upstream body in this call (`MCP_MAX_UPSTREAM_BODY_BYTES`); absent: the default. */
  readonly maxUpstreamBodyBytes?: number;
  /** Most recent upstream `rate_limit` seen in this call. */
  rateLimit: RateLimitMeta | undefined;
  /** Most recent upstream `retry_after_seconds` seen in this call. */
  retryAfterSeconds: number | undefined;
  /** Every upstream warning seen in this call, in arrival order. */
  warnings: EnvelopeWarning[] | undefined;
}

const storage = new AsyncLocalStorage<CallContext>();

let callsInFlight = 0;

/**
 * How a tool's handler is run in the implicit context, learned per tool (see
 * {@link runInCallContext}):
 * - `probe`: not known yet; the next call runs inside the AsyncLocalStorage;
 * - `sync`: the handler has returned plain values; calls set a synchronous slot instead of
 *   entering the storage;
 * - `async`: the handler is an `async` function or has returned a promise; every call runs
 *   inside the storage.
 */
export type ImplicitContextMode = 'probe' | 'sync' | 'async';

/** The per-tool state of {@link runInCallContext}; the function updates `mode`. */
export interface ImplicitContextState {
  mode: ImplicitContextMode;
}

/**
 * The starting state for a tool: `async` when its handler is an `async` function (it always
 * returns a promise; checked by constructor name, so a function from another realm counts too),
 * else `probe`.
 *
 * @param tool - the tool; only its `handler` is read, never called.
 * @returns a new state object to pass to every {@link runInCallContext} of that tool.
 */
export function implicitContextState(tool: { readonly handler: unknown }): ImplicitContextState {
  const { handler } = tool;
  const isAsync =
    typeof handler === 'function' && (handler.constructor as { name?: unknown } | undefined)?.name === 'AsyncFunction';
  return { mode: isAsync ? 'async' : 'probe' };
}

/** The context of the handler running synchronously right now in `sync` mode. */
let synchronousCall: CallContext | undefined;

/**
 * Runs `body` (one call of a tool's handler) with `context` as the current call context, so that
 * {@link currentCallContext} finds it from anywhere in the handler's flow.
 *
 * On Node 20 an enabled AsyncLocalStorage makes every promise of the process pay async hooks,
 * and switching it on and off costs about as much again: a few microseconds per call, more than
 * the rest of the envelope runtime. So the storage is used only where a promise can carry the
 * call on:
 * - `async` handlers (and, until a tool's first plain return, every handler: mode `probe`) run
 *   inside the storage. It is enabled while any such call is in flight and disabled when the
 *   last one settles, so the SDK's transport work between calls runs without hooks.
 * - A handler that has returned a plain value (mode `sync`) runs with a synchronous slot
 *   instead: nothing outlives its call that needs the context.
 * - Should a `sync` handler return a promise after all (a handler that returns a value on some
 *   calls and a promise on others), its state becomes `async` for every later call; in that one
 *   call, code that runs after the handler's first `await` and uses the free functions
 *   (`upstreamFetch`, `recordResponseMeta`, `currentCallContext`) does not find the call. The
 *   caller sees the change in `state.mode` and logs it. The `context` object handed to handlers
 *   never depends on any of this.
 * Work a handler leaves running after its call has finished (fire and forget) does not see the
 * call's context.
 *
 * @param context - the call's context.
 * @param state - the tool's state from {@link implicitContextState}; `mode` is updated.
 * @param body - runs the handler.
 * @returns what `body` returns: the value itself when it is not a promise (or other thenable),
 *   else a promise of its settled value.
 * @throws whatever `body` throws synchronously.
 */
export function runInCallContext<Result>(
  context: CallContext,
  state: ImplicitContextState,
  body: () => Result,
): Result | Promise<Awaited<Result>> {
  if (state.mode === 'sync') {
    const outer = synchronousCall;
    synchronousCall = context;
    let value: Result;
    try {
      value = body();
    } finally {
      synchronousCall = outer;
    }
    if (isThenable(value)) state.mode = 'async';
    return value;
  }
  callsInFlight += 1;
  let result: Result;
  try {
    result = storage.run(context, body);
  } catch (error) {
    leaveCall();
    throw error;
  }
  if (!isThenable(result)) {
    leaveCall();
    if (state.mode === 'probe') state.mode = 'sync';
    return result;
  }
  state.mode = 'async';
  return settleInCallContext(result);
}

async function settleInCallContext<Result>(pending: Result): Promise<Awaited<Result>> {
  try {
    return await pending;
  } finally {
    leaveCall();
  }
}

function leaveCall(): void {
  callsInFlight -= 1;
  if (callsInFlight === 0) storage.disable();
}

function isThenable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    // A `then` getter that throws: the caller's `await` meets the same throw and reports it.
    return false;
  }
}

/**
 * The context of the `tools/call` being served, when code runs inside a tool handler.
 *
 * @returns the context, or `undefined` outside a call.
 */
export function currentCallContext(): CallContext | undefined {
  return synchronousCall ?? storage.getStore();
}

/**
 * Records upstream telemetry in the current call's context: `rate_limit` and
 * `retry_after_seconds` keep the most recent value, `warnings` accumulate. Outside a call this
 * does nothing. Tool handlers that do their own HTTP can call it with their adapter's parse.
 *
 * @param meta - the parsed response meta.
 */
export function recordResponseMeta(meta: ResponseMeta): void {
  recordResponseMetaInto(currentCallContext(), meta);
}

/**
 * Records upstream telemetry in a given call context (the explicit form of
 * {@link recordResponseMeta}, used by the context object handed to tool handlers).
 *
 * @param context - the call's context; `undefined` does nothing.
 * @param meta - the parsed response meta.
 */
export function recordResponseMetaInto(context: CallContext | undefined, meta: ResponseMeta): void {
  if (context === undefined) return;
  if (meta.rate_limit !== undefined) context.rateLimit = meta.rate_limit;
  if (meta.retry_after_seconds !== undefined) context.retryAfterSeconds = meta.retry_after_seconds;
  if (meta.warnings !== undefined && meta.warnings.length > 0) {
    context.warnings = [...(context.warnings ?? []), ...meta.warnings];
  }
}
