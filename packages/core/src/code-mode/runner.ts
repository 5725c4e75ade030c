/**
 * The sandbox runner of one server: programs run in worker threads, each loading the QuickJS
 * sandbox once, so a program that spins until its wall-time limit blocks its worker and never
 * the server's own thread. Workers are started on the first `execute_code` call (a server that
 * never runs code starts none), reused while idle, and terminated when a run is cancelled.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

import { createFairSlots } from './fair-slots.js';
import type { FromWorker, ToWorker } from './runner-worker.js';
import { SANDBOX_BASE_MEMORY_BYTES } from './sandbox-size.js';
import type { InnerCall, InnerCallOutcome, Sandbox, SandboxLimits, SandboxOutcome } from './sandbox.js';
import { CODE_MODE_DEFAULTS } from './settings.js';

/**
 * Runs code in the server's sandbox (see `Sandbox.run`), queued with the other runs of `session`
 * (a session id, or an object standing for a client without one; default: one shared session).
 *
 * @throws SessionRunsExceededError (as a rejection) when `session` already has its most runs
 *   queued or running; the signal's reason when it aborts first.
 */
export type SandboxRunner = (
  code: string,
  callTool: InnerCall,
  limits: SandboxLimits,
  signal: AbortSignal,
  session?: unknown,
) => ReturnType<Sandbox['run']>;

/** Idle workers kept for the next runs. */
const MAX_IDLE_WORKERS = 2;

/**
 * The most WebAssembly memory a worker may hold and still be kept for the next run, in bytes: a
 * module's memory never shrinks, so a worker whose run grew it further is replaced, which gives
 * the memory back to the system.
 */
export const MAX_IDLE_WORKER_MEMORY_BYTES = SANDBOX_BASE_MEMORY_BYTES + 16 * 1024 * 1024;

/**
 * The most programs a runner runs at once unless told otherwise: enough for programs that mostly
 * await their inner calls to overlap, few enough that a burst of calls cannot exhaust memory.
 */
export const MAX_WORKERS = 4;

/**
 * How long past its wall-time limit a run may take before its worker is terminated, in
 * milliseconds, counted from when the worker starts the code.
 */
const WATCHDOG_SLACK_MS = 2_000;

/** How long a worker may take to start a program (a fresh one loads QuickJS first), in milliseconds. */
const STARTUP_LIMIT_MS = 30_000;

function startWorker(): Worker {
  const source = import.meta.url.endsWith('.ts');
  if (!source) return new Worker(new URL('./runner-worker.js', import.meta.url));
  // Under the test runner this module is TypeScript source, and so is its worker: the worker
  // registers tsx's loader before it imports its entry.
  const entry = new URL('./runner-worker.ts', import.meta.url).href;
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  return new Worker(
    `import(${JSON.stringify(loader)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}

interface RunRequest {
  readonly watchdogSlackMs: number;
  readonly code: string;
  readonly callTool: InnerCall;
  readonly limits: Parameters<SandboxRunner>[2];
  readonly signal: AbortSignal;
}

/**
 * An inner call's outcome as JSON, as a client over the wire would read the result (a `toJSON`
 * applied, a function dropped): a value that structured cloning cannot copy to the worker (a
 * function) must not fail the answer, and one that is not JSON at all (a `BigInt`, a cycle) is
 * a failure the code sees.
 */
function outcomeJson(outcome: InnerCallOutcome, name: string): string {
  if ('throw' in outcome) return JSON.stringify({ throw: outcome.throw });
  try {
    return JSON.stringify({ value: outcome.value ?? null });
  } catch {
    return JSON.stringify({ throw: `the result of ${name} is not JSON` });
  }
}

/** One timer, armed again for each stage of a run. */
function stageTimer(): { arm(ms: number, fire: () => void): void; clear(): void } {
  const state: { timer: ReturnType<typeof setTimeout> | undefined } = { timer: undefined };
  return {
    arm: (ms, fire) => {
      clearTimeout(state.timer);
      state.timer = setTimeout(fire, ms);
    },
    clear: () => {
      clearTimeout(state.timer);
    },
  };
}

/** Starts one inner call of a program; `answer` posts its outcome's JSON unless the call was cancelled. */
function startInnerCall(
  request: RunRequest,
  message: Extract<FromWorker, { type: 'call' }>,
  calls: Map<number, AbortController>,
  answer: (call: number, json: string) => void,
): void {
  const controller = new AbortController();
  calls.set(message.call, controller);
  // a rejection is thrown inside like a { throw } outcome, as the sandbox itself does it
  const rejected = (error: unknown): InnerCallOutcome => ({
    throw: error instanceof Error ? error.message : String(error),
  });
  void Promise.resolve()
    .then(() => request.callTool(message.name, JSON.parse(message.argsJson), controller.signal))
    .then(
      (outcome) => {
        answer(message.call, outcomeJson(outcome, message.name));
      },
      (error: unknown) => {
        answer(message.call, outcomeJson(rejected(error), message.name));
      },
    );
}

/** Runs one program on `worker`; `reusable` says afterwards whether the worker can run another. */
function runOn(worker: Worker, request: RunRequest): { done: Promise<SandboxOutcome>; reusable: () => boolean } {
  const calls = new Map<number, AbortController>();
  const state = { reusable: true };
  const watchdog = stageTimer();
  const done = new Promise<SandboxOutcome>((resolve, reject) => {
    const settle = (end: { outcome: SandboxOutcome } | { error: Error }, reusable: boolean): void => {
      state.reusable &&= reusable;
      watchdog.clear();
      request.signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('messageerror', onError).off('error', onError).off('exit', onExit);
      for (const controller of calls.values()) controller.abort();
      if (!reusable) void worker.terminate();
      if ('outcome' in end) resolve(end.outcome);
      else reject(end.error);
    };
    const answer = (call: number, json: string): void => {
      if (calls.delete(call)) worker.postMessage({ type: 'answer', call, json } satisfies ToWorker);
    };
    // the sandbox stops itself at its wall time; this only catches a worker that stopped answering
    const stopped = (): void => {
      const detail = `the code ran longer than the ${request.limits.wallTimeMs} ms wall-time limit and its worker was stopped`;
      settle({ outcome: { ok: false, limit: 'wall_time', detail, logs: [] } }, false);
    };
    const onMessage = (message: FromWorker): void => {
      if (message.type === 'started') watchdog.arm(request.limits.wallTimeMs + request.watchdogSlackMs, stopped);
      else if (message.type === 'call') startInnerCall(request, message, calls, answer);
      else if (message.type === 'cancel') {
        calls.get(message.call)?.abort();
        calls.delete(message.call);
      } else if (message.type === 'end')
        settle({ outcome: message.outcome as SandboxOutcome }, message.memoryBytes <= MAX_IDLE_WORKER_MEMORY_BYTES);
      else settle({ error: new Error(message.message) }, false);
    };
    const onError = (error: Error): void => {
      settle({ error }, false);
    };
    const onExit = (): void => {
      settle({ error: new Error('the sandbox worker exited') }, false);
    };
    const onAbort = (): void => {
      const reason: unknown = request.signal.reason;
      settle({ error: reason instanceof Error ? reason : new Error(String(reason)) }, false);
    };
    // a fresh worker loads QuickJS first, which on a busy machine can take longer than the wall time
    watchdog.arm(STARTUP_LIMIT_MS, () => {
      settle({ error: new Error(`the sandbox worker did not start the code within ${STARTUP_LIMIT_MS} ms`) }, false);
    });
    // a message this thread cannot read would otherwise be dropped silently, and the run wait for it
    worker.on('message', onMessage).on('messageerror', onError).on('error', onError).on('exit', onExit);
    request.signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ type: 'run', code: request.code, limits: request.limits } satisfies ToWorker);
  });
  return { done, reusable: () => state.reusable };
}

/** The runner of one server and its workers. */
export interface SandboxWorkers {
  readonly run: SandboxRunner;
  /** Terminates the idle workers (a later run starts a new one). */
  close(): void;
}

/** Options of {@link createSandboxRunner}. */
export interface SandboxRunnerOptions {
  /** The most programs running at once, each in its own worker (default {@link MAX_WORKERS}). */
  readonly maxWorkers?: number;
  /** How long past its wall time a program may run before its worker is stopped (default 2000 ms). */
  readonly watchdogSlackMs?: number;
  /**
   * The most runs one session may have queued or running at once; the next is refused at once
   * (default `CODE_MODE_MAX_SESSION_RUNS` of {@link CODE_MODE_DEFAULTS}).
   */
  readonly maxSessionRuns?: number;
}

/**
 * A runner whose programs run in worker threads, one program per worker at a time and at most
 * `options.maxWorkers` at once: each worker holds a QuickJS heap of up to the memory limit, so
 * a burst of `execute_code` calls waits for a worker instead of starting one per call. The
 * sessions waiting for a worker take turns, and a session past `options.maxSessionRuns` runs
 * queued or running is refused at once (see `createFairSlots`). A program's wall time starts
 * when a worker takes it.
 *
 * @returns the runner; an idle worker does not keep the process alive.
 */
export function createSandboxRunner(options: SandboxRunnerOptions = {}): SandboxWorkers {
  const idle: Worker[] = [];
  const slots = createFairSlots(
    options.maxWorkers ?? MAX_WORKERS,
    options.maxSessionRuns ?? CODE_MODE_DEFAULTS.CODE_MODE_MAX_SESSION_RUNS,
  );
  const watchdogSlackMs = options.watchdogSlackMs ?? WATCHDOG_SLACK_MS;
  return {
    run: async (code, callTool, limits, signal, session = '') => {
      const release = await slots.acquire(session, signal);
      try {
        // the call may have been cancelled between its turn coming and this line
        signal.throwIfAborted();
        const worker = idle.pop() ?? startWorker();
        worker.ref();
        const run = runOn(worker, { watchdogSlackMs, code, callTool, limits, signal });
        try {
          return await run.done;
        } finally {
          if (run.reusable() && idle.length < MAX_IDLE_WORKERS) {
            worker.unref();
            idle.push(worker);
          } else if (run.reusable()) void worker.terminate();
        }
      } finally {
        release();
      }
    },
    close: () => {
      for (const worker of idle.splice(0)) void worker.terminate();
    },
  };
}
