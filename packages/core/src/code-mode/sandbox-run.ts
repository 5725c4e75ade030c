/**
 * One run of the Code Mode sandbox: a fresh QuickJS runtime and context, the host functions
 * behind `callTool` and `console`, the loop that runs QuickJS's jobs while inner calls are
 * awaited, and the disposal of every handle however the run ends.
 *
 * @packageDocumentation
 */
import { setMaxListeners } from 'node:events';

import { Scope } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';

import { blocked, memoryLimitEnd, parseDescribedError, thrownOutcome, UNREADABLE_ERROR } from './sandbox-errors.js';
import { installHostFunctions, stringLength } from './sandbox-host.js';
import type { RunState } from './sandbox-host.js';
import { CODE_FILENAME, wrapUserCode } from './sandbox-prelude.js';
import type { BoundedModule } from './sandbox-memory.js';
import type { RunInput, SandboxEnd, SandboxOutcome } from './sandbox-types.js';

/**
 * The interpreter's own stack limit (about 1,300 frames of plain recursion). QuickJS's frames
 * live on V8's native stack too, which a larger limit would exhaust before QuickJS notices; some
 * built-ins (JSON.stringify of deep nesting) can exhaust it anyway, which the sandbox survives
 * by replacing its module.
 */
const MAX_STACK_BYTES = 256 * 1024;

/**
 * Memory kept aside to read a thrown error, so that an exhausted run can still say why: QuickJS's
 * counter is raised by this much, and a block this large, allocated before the code runs and
 * held by the host alone, is freed for it (the module's memory cannot grow past its maximum).
 */
const DESCRIBE_HEADROOM_BYTES = 1024 * 1024;

/**
 * The deepest nesting of arrays and objects a return value may have: the server and its clients
 * copy and walk the value with recursive code (JSON, validation, redaction) whose stack a few
 * thousand levels exhaust.
 */
export const MAX_OUTPUT_DEPTH = 100;

/** The handles a run works with, owned by its scope. */
interface Session {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly state: RunState;
  readonly input: RunInput;
  readonly scope: Scope;
  readonly describe: QuickJSHandle;
  /** The block of {@link DESCRIBE_HEADROOM_BYTES} freed before a thrown error is read. */
  readonly reserve: QuickJSHandle;
  /** Whether the module's memory could not grow since the run started. */
  readonly memoryExhausted: () => boolean;
}

/**
 * Thrown by {@link runInSandbox} when the WebAssembly module itself failed (the host's own stack
 * ran out inside QuickJS, or the module aborted, while the code ran or while its runtime was
 * freed): the module's state can no longer be trusted, so the caller replaces it. A runtime that
 * failed while the code ran is abandoned with its module, not disposed.
 */
export class SandboxModuleFailure extends Error {
  override readonly name = 'SandboxModuleFailure';

  /**
   * How the run had ended when freeing it failed the module, if it had: its outcome, or what it
   * threw. `undefined` when the module failed while the code ran.
   */
  readonly settled: { readonly outcome: SandboxOutcome } | { readonly thrown: unknown } | undefined;

  constructor(message: string, cause: unknown, settled?: SandboxModuleFailure['settled']) {
    super(message, { cause });
    this.settled = settled;
  }
}

/**
 * Whether `error` came from the WebAssembly machinery rather than from QuickJS answering: V8's
 * own stack overflow (a RangeError) or an aborted module (a WebAssembly.RuntimeError).
 */
function isModuleFailure(error: unknown): boolean {
  return error instanceof RangeError || (error instanceof Error && error.name === 'RuntimeError');
}

/** A fresh run state for `input`. */
function newRunState(input: RunInput): RunState {
  const controller = new AbortController();
  // every pending inner call of the run may listen to its signal
  setMaxListeners(input.limits.innerCalls + 1, controller.signal);
  return {
    deadline: performance.now() + input.limits.wallTimeMs,
    stop: undefined,
    calls: 0,
    pendingCalls: 0,
    outputBytes: 0,
    logs: [],
    open: new Set(),
    controller,
    finished: false,
    wake: () => undefined,
  };
}

/** A runtime with the run's interrupt handler, blocked module loader and stack limit. */
function newRuntime(module: QuickJSWASMModule, state: RunState, input: RunInput): QuickJSRuntime {
  const runtime = module.newRuntime();
  runtime.setInterruptHandler(
    () => state.stop !== undefined || performance.now() >= state.deadline || input.signal.aborted,
  );
  runtime.setModuleLoader(() => {
    state.stop ??= blocked('import()');
    return { error: new Error('import() is not available in the sandbox') };
  });
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  return runtime;
}

/**
 * Runs `input.code` in a fresh runtime of `module` and disposes the runtime afterwards.
 *
 * @param bounded - the loaded QuickJS module.
 * @param input - the code, the host side of `callTool`, the limits and the host's abort signal.
 * @returns how the run ended, with what it logged.
 * @throws the signal's reason when `input.signal` aborts first.
 * @throws {@link SandboxModuleFailure} when the module failed; it must not be used again.
 */
export async function runInSandbox(bounded: BoundedModule, input: RunInput): Promise<SandboxOutcome> {
  input.signal.throwIfAborted();
  const state = newRunState(input);
  const runtime = newRuntime(bounded.module, state, input);
  const context = runtime.newContext();
  const scope = new Scope();
  const wakeUp = (): void => {
    state.wake();
  };
  const timer = setTimeout(wakeUp, input.limits.wallTimeMs + 1);
  input.signal.addEventListener('abort', wakeUp, { once: true });
  const release = (dispose: boolean): unknown => {
    clearTimeout(timer);
    input.signal.removeEventListener('abort', wakeUp);
    state.finished = true;
    state.controller.abort();
    return dispose ? disposeRun(state, scope, context, runtime) : undefined;
  };
  let outcome: SandboxOutcome;
  try {
    runtime.setMemoryLimit(input.limits.memoryBytes);
    outcome = { ...(await execute(bounded, runtime, context, state, input, scope)), logs: state.logs };
  } catch (error) {
    // a failed module is abandoned with its runtime, not disposed
    if (isModuleFailure(error)) {
      release(false);
      throw new SandboxModuleFailure('the QuickJS module failed', error);
    }
    const freeing = release(true);
    if (freeing !== undefined)
      throw new SandboxModuleFailure('freeing the run failed the module', freeing, { thrown: error });
    throw error;
  }
  const freeing = release(true);
  if (freeing !== undefined) throw new SandboxModuleFailure('freeing the run failed the module', freeing, { outcome });
  return outcome;
}

/**
 * Disposes a run's handles, context and runtime. QuickJS asserts on disposal that the runtime
 * holds no object, and some runs leave objects behind that no handle owns (a promise chain
 * interrupted at its wall time), which aborts the module.
 *
 * @returns `undefined`, or the module failure that disposing raised.
 * @throws anything else disposing threw.
 */
function disposeRun(state: RunState, scope: Scope, context: QuickJSContext, runtime: QuickJSRuntime): unknown {
  try {
    for (const deferred of state.open) deferred.dispose();
    scope.dispose();
    context.dispose();
    runtime.dispose();
    return undefined;
  } catch (error) {
    if (isModuleFailure(error)) return error;
    throw error;
  }
}

/** Installs the prelude, compiles the code, starts it and follows it to its end. */
async function execute(
  bounded: BoundedModule,
  runtime: QuickJSRuntime,
  context: QuickJSContext,
  state: RunState,
  input: RunInput,
  scope: Scope,
): Promise<SandboxEnd> {
  const reserve = scope.manage(context.newArrayBuffer(new ArrayBuffer(DESCRIBE_HEADROOM_BYTES)));
  const installed = installHostFunctions(context, state, input, scope);
  if (installed === undefined)
    return (
      limitEnd(state, input) ?? {
        ok: false,
        limit: 'memory',
        detail: `the ${input.limits.memoryBytes}-byte memory limit is too small for the sandbox to start`,
      }
    );
  const failedBefore = bounded.failedGrows();
  const memoryExhausted = (): boolean => bounded.failedGrows() > failedBefore;
  const session: Session = {
    runtime,
    context,
    state,
    input,
    scope,
    describe: installed.describe,
    reserve,
    memoryExhausted,
  };
  const compiled = context.evalCode(wrapUserCode(input.code), CODE_FILENAME);
  if (compiled.error !== undefined) return thrownEnd(session, scope.manage(compiled.error), 'compile');
  const fn = scope.manage(compiled.value);
  const started = context.callFunction(installed.runner, context.undefined, fn);
  if (started.error !== undefined) return thrownEnd(session, scope.manage(started.error), 'run');
  return follow(session, scope.manage(started.value));
}

/**
 * Runs QuickJS's pending jobs, and between them awaits the inner calls, until the code's promise
 * settles, a limit ends the run, or nothing is left that could settle it.
 */
async function follow(session: Session, promise: QuickJSHandle): Promise<SandboxEnd> {
  const { runtime, context, state, input } = session;
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error !== undefined) jobs.error.dispose();
    const ended = limitEnd(state, input);
    if (ended !== undefined) return ended;
    const settled = context.getPromiseState(promise);
    if (settled.type === 'fulfilled') {
      try {
        return readValue(session, settled.value);
      } finally {
        if (settled.notAPromise !== true) settled.value.dispose();
      }
    }
    if (settled.type === 'rejected') return thrownEnd(session, session.scope.manage(settled.error), 'run');
    if (state.pendingCalls === 0)
      return {
        ok: false,
        error: 'runtime',
        message: 'the code awaits a promise that never settles (only callTool promises settle in the sandbox)',
      };
    await nextWake(state);
  }
}

/**
 * Resolves at the next `state.wake()`: an inner call settled, or the run-wide deadline timer or
 * abort listener fired (one of each per run: a listener per wait would cost more than the wait).
 */
function nextWake(state: RunState): Promise<void> {
  return new Promise((resolve) => {
    state.wake = () => {
      state.wake = () => undefined;
      resolve();
    };
  });
}

/**
 * The end a limit imposes now, if any: a limit a host function recorded, the wall time, or the
 * host's abort (thrown).
 *
 * @throws the signal's reason when the host's signal aborted.
 */
function limitEnd(state: RunState, input: RunInput): SandboxEnd | undefined {
  input.signal.throwIfAborted();
  if (state.stop !== undefined) return state.stop;
  if (performance.now() >= state.deadline)
    return {
      ok: false,
      limit: 'wall_time',
      detail: `the code ran longer than the ${input.limits.wallTimeMs} ms wall-time limit (time awaiting callTool included)`,
    };
  return undefined;
}

/** The end for a value thrown while compiling or running the code, read by the prelude's `describe`. */
function thrownEnd(session: Session, error: QuickJSHandle, phase: 'compile' | 'run'): SandboxEnd {
  const { runtime, context, state, input } = session;
  const ended = limitEnd(state, input);
  if (ended !== undefined) return ended;
  runtime.setMemoryLimit(input.limits.memoryBytes + DESCRIBE_HEADROOM_BYTES);
  if (session.reserve.alive) session.reserve.dispose();
  const described = context.callFunction(session.describe, context.undefined, error);
  let outcome: SandboxEnd;
  if (described.error !== undefined) {
    described.error.dispose();
    // reading the value may itself have run into a limit (a Proxy whose traps loop, say)
    outcome = limitEnd(state, input) ?? thrownOutcome(UNREADABLE_ERROR, phase, input.code, input.limits);
  } else {
    const json = context.typeof(described.value) === 'string' ? context.getString(described.value) : '';
    described.value.dispose();
    outcome = thrownOutcome(parseDescribedError(json), phase, input.code, input.limits);
  }
  // QuickJS throws null when it cannot even allocate its out-of-memory error: a growth the memory
  // refused during the run tells that apart from the code's own throw (code that caught running
  // out of memory and then threw something else is reported as the memory limit too)
  return 'error' in outcome && outcome.error === 'runtime' && session.memoryExhausted()
    ? memoryLimitEnd(input.limits)
    : outcome;
}

/** The end for the runner's result (the JSON of the code's value), within the output limit. */
function readValue(session: Session, value: QuickJSHandle): SandboxEnd {
  const { context, state, input } = session;
  const budget = input.limits.outputBytes - state.outputBytes;
  const over = (size: string): SandboxEnd => ({
    ok: false,
    limit: 'output',
    detail: `the return value's JSON (${size} bytes) and the logs (${state.outputBytes} bytes) exceed the ${input.limits.outputBytes}-byte output limit`,
  });
  if (context.typeof(value) !== 'string') return { ok: false, error: 'runtime', message: 'the code returned no value' };
  // UTF-8 takes at least one byte per UTF-16 code unit: a string longer than the budget is over it
  const length = stringLength(context, value);
  if (length > budget) return over(`at least ${length}`);
  const json = context.getString(value);
  const bytes = Buffer.byteLength(json);
  if (bytes > budget) return over(String(bytes));
  if (nestsDeeperThan(json, MAX_OUTPUT_DEPTH))
    return {
      ok: false,
      error: 'runtime',
      message: `the return value nests arrays and objects more than ${MAX_OUTPUT_DEPTH} levels deep, more than the output allows`,
    };
  return { ok: true, value: JSON.parse(json) as unknown };
}

/**
 * Whether the arrays and objects of a JSON text nest deeper than `limit`, read in one pass
 * without recursion (brackets inside strings do not count).
 */
function nestsDeeperThan(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < json.length; index += 1) {
    const char = json.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
}
