/**
 * The host functions a sandbox run hands its prelude: `hostCall` (behind `callTool`), `hostLog`
 * (behind `console`) and `hostBlocked` (behind the blocked globals). Only strings cross: the
 * code's arguments arrive as JSON and are parsed here; outcomes leave as JSON.
 *
 * @packageDocumentation
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, Scope } from 'quickjs-emscripten';

import { blocked } from './sandbox-errors.js';
import { PRELUDE_FILENAME, PRELUDE_SOURCE } from './sandbox-prelude.js';
import type { InnerCall, InnerCallOutcome, RunInput, SandboxEnd } from './sandbox-types.js';

/** The mutable state of one run, shared by the host functions and the run loop. */
export interface RunState {
  /** `performance.now()` at which the wall time runs out. */
  readonly deadline: number;
  /** The limit a host function hit; the interrupt handler then stops the code. */
  stop: SandboxEnd | undefined;
  /** `callTool` calls made so far, the refused one included. */
  calls: number;
  /** Inner calls whose outcome has not reached the sandbox yet. */
  pendingCalls: number;
  /** UTF-8 bytes logged so far, plus one per line. */
  outputBytes: number;
  readonly logs: string[];
  /** Deferred promises of unsettled inner calls, disposed with the run. */
  readonly open: Set<QuickJSDeferredPromise>;
  /** Aborts the inner calls when the run ends. */
  readonly controller: AbortController;
  /** Set once the run ended: a late inner call outcome is dropped. */
  finished: boolean;
  /** Wakes the run loop (an inner call settled). */
  wake: () => void;
}

/** The prelude's two functions, owned by the run's scope. */
export interface Installed {
  readonly runner: QuickJSHandle;
  readonly describe: QuickJSHandle;
}

/**
 * Creates the host functions and runs the prelude with them.
 *
 * @returns the prelude's `runner` and `describe`, or `undefined` when the prelude could not run
 *   (a limit too small for it).
 */
export function installHostFunctions(
  context: QuickJSContext,
  state: RunState,
  input: RunInput,
  scope: Scope,
): Installed | undefined {
  const hostCall = scope.manage(
    context.newFunction('hostCall', (name, json) => startCall(context, state, input, name, json)),
  );
  const hostLog = scope.manage(
    context.newFunction('hostLog', (text) => {
      log(context, state, input, text);
    }),
  );
  const hostBlocked = scope.manage(
    context.newFunction('hostBlocked', (name) => {
      state.stop ??= blocked(`\`${context.getString(name)}\``);
    }),
  );
  const factory = context.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME);
  if (factory.error !== undefined) {
    factory.error.dispose();
    return undefined;
  }
  scope.manage(factory.value);
  const made = context.callFunction(factory.value, context.undefined, hostCall, hostLog, hostBlocked);
  if (made.error !== undefined) {
    made.error.dispose();
    return undefined;
  }
  const exported = scope.manage(made.value);
  return {
    runner: scope.manage(context.getProp(exported, 'runner')),
    describe: scope.manage(context.getProp(exported, 'describe')),
  };
}

/** `hostCall(name, argsJson)`: counts the call, starts it on the host, answers a promise of its outcome's JSON. */
function startCall(
  context: QuickJSContext,
  state: RunState,
  input: RunInput,
  nameHandle: QuickJSHandle | undefined,
  jsonHandle: QuickJSHandle | undefined,
): QuickJSHandle {
  state.calls += 1;
  if (state.calls > input.limits.innerCalls) {
    state.stop ??= {
      ok: false,
      limit: 'inner_calls',
      detail: `the code made more than the ${input.limits.innerCalls} callTool calls the inner-call limit allows`,
    };
    throw new Error('the inner-call limit is reached');
  }
  if (nameHandle === undefined || jsonHandle === undefined || context.typeof(nameHandle) !== 'string')
    throw new TypeError('hostCall(name, argsJson)');
  const name = context.getString(nameHandle);
  const json = argumentsJson(context, jsonHandle);
  const deferred = context.newPromise();
  state.open.add(deferred);
  state.pendingCalls += 1;
  void invoke(input.callTool, name, json, state.controller.signal).then((reply) => {
    deliver(context, state, deferred, reply);
  });
  return deferred.handle;
}

/**
 * The most UTF-8 bytes of JSON one inner call's arguments may have: a wire call's arguments are
 * bounded by its transport, and without a bound here a program could hand the server's thread
 * gigabytes of arguments (fifty calls with a string just under the memory limit each).
 */
export const MAX_INNER_ARGS_BYTES = 1024 * 1024;

/** The arguments' JSON, copied out of the sandbox unless it is over {@link MAX_INNER_ARGS_BYTES}. */
function argumentsJson(context: QuickJSContext, jsonHandle: QuickJSHandle): string {
  // anything but a string would be read through the code's own toString, measured and copied apart
  if (context.typeof(jsonHandle) !== 'string')
    throw new TypeError('hostCall(name, argsJson): argsJson must be a string');
  // UTF-8 takes at least one byte per UTF-16 code unit: a longer string is over the bound unread
  const length = stringLength(context, jsonHandle);
  const json = length > MAX_INNER_ARGS_BYTES ? undefined : context.getString(jsonHandle);
  const bytes = json === undefined ? length : Buffer.byteLength(json);
  if (json === undefined || bytes > MAX_INNER_ARGS_BYTES)
    throw new RangeError(
      `callTool(name, args): args is ${json === undefined ? 'at least ' : ''}${bytes} bytes of JSON, more than the ${MAX_INNER_ARGS_BYTES} one call may send`,
    );
  return json;
}

/** Calls the host's `callTool` and serialises its outcome; never rejects. */
async function invoke(callTool: InnerCall, name: string, json: string, signal: AbortSignal): Promise<string> {
  let outcome: InnerCallOutcome;
  try {
    outcome = await callTool(name, JSON.parse(json), signal);
  } catch (error) {
    outcome = { throw: error instanceof Error ? error.message : String(error) };
  }
  try {
    return 'throw' in outcome
      ? JSON.stringify({ throw: outcome.throw })
      : JSON.stringify({ value: outcome.value === undefined ? null : outcome.value });
  } catch {
    return JSON.stringify({ throw: `the result of ${name} is not JSON` });
  }
}

/** Resolves an inner call's promise inside the sandbox, unless the run already ended. */
function deliver(context: QuickJSContext, state: RunState, deferred: QuickJSDeferredPromise, reply: string): void {
  state.pendingCalls -= 1;
  state.open.delete(deferred);
  if (state.finished) return;
  try {
    const value = context.newString(reply);
    deferred.resolve(value);
    value.dispose();
  } catch {
    state.stop ??= { ok: false, limit: 'memory', detail: 'an inner call result did not fit in the memory limit' };
  } finally {
    deferred.dispose();
    state.wake();
  }
}

/**
 * `hostLog(text)`: keeps the line unless the output limit is exceeded, which ends the run. Only a
 * string is accepted, and it is read once: reading anything else would run the code's own
 * `toString`, which could answer one string when measured and another when kept.
 */
function log(context: QuickJSContext, state: RunState, input: RunInput, text: QuickJSHandle | undefined): void {
  if (text === undefined || context.typeof(text) !== 'string')
    throw new TypeError('hostLog(text): text must be a string');
  // UTF-8 takes at least one byte per UTF-16 code unit: a longer string is over the limit unread
  const length = stringLength(context, text);
  const line = length > input.limits.outputBytes ? undefined : context.getString(text);
  // one more for the line itself, so that endless empty lines run into the limit too
  state.outputBytes += (line === undefined ? length : Buffer.byteLength(line)) + 1;
  if (line === undefined || state.outputBytes > input.limits.outputBytes) {
    state.stop ??= {
      ok: false,
      limit: 'output',
      detail: `the code logged more than the ${input.limits.outputBytes}-byte output limit`,
    };
    throw new Error('the output limit is reached');
  }
  state.logs.push(line);
}

/**
 * The UTF-16 length of a string inside the sandbox, read without copying the string out.
 *
 * @param context - the string's context.
 * @param text - a handle to a string.
 * @returns its `length`.
 */
export function stringLength(context: QuickJSContext, text: QuickJSHandle): number {
  const length = context.getProp(text, 'length');
  try {
    return context.getNumber(length);
  } finally {
    length.dispose();
  }
}
