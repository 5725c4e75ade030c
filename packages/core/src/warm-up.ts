/**
 * Compiling in the background what a server's first calls would otherwise compile while a caller
 * waits.
 */
import { CONTRACT_VERSION, validateEnvelope } from '@mcp-envelope/contract';

import type { CompiledTool, PipelineCaches } from './arguments/index.js';
import type { InFlightCalls } from './in-flight.js';
import type { ToolRegistry } from './tool-registry.js';

/** Starts the warm-up once, holds it back while requests arrive, and cancels what it has not run yet. */
export interface WarmUp {
  /** Starts the warm-up (once; it reads its steps then), and holds it back as {@link WarmUp.postpone} does. */
  readonly start: () => void;
  /** A request arrived or was answered: no step runs until the server has been quiet for the quiet time. */
  readonly postpone: () => void;
  /** Runs no further step, not even after a later `start`, and aborts the signal the server's own preparation was given. */
  readonly cancel: () => void;
}

/** The CPU time, in milliseconds, a warm-up may spend before it stops (it is idle time, but not free). */
export const WARM_UP_BUDGET_MS = 500;

/** How long a warm-up waits before it looks again whether the running calls have finished, in milliseconds. */
const BUSY_RETRY_MS = 20;

/**
 * How long a server must have been quiet (no request arrived, none answered) before a warm-up
 * step runs, in milliseconds. A
 * client working through calls sends the next one within a few milliseconds of an answer, and a
 * step (an Ajv compile, loading `fetch`) holds such a call back for its whole length; a client
 * that waits for a model's turn leaves far more than this.
 */
export const WARM_UP_QUIET_MS = 50;

function cpuMilliseconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * A warm-up that runs `steps()` one step per timer after `start`, until the steps run out or they
 * have spent `budgetMs` of CPU time. One step per timer lets a call that arrives meanwhile run
 * between two steps; no step runs until `quietMs` have passed since `start` or the last `postpone`
 * (a client in the middle of its calls), nor while `busy()` says calls are waiting on I/O (each of
 * their I/O turns would otherwise wait for a step). The timers are unref'd, so waiting steps never
 * keep a process alive (work a step started, such as a request, runs until it ends or `cancel`
 * aborts it). A step that throws is skipped: what it compiles is compiled again, and its failure
 * reported, by the call that needs it.
 *
 * @param steps - the steps, read at `start` (e.g. the tools listed by then), most useful first.
 * @param options - `budgetMs`: the CPU time after which no further step starts, in milliseconds
 *   (default {@link WARM_UP_BUDGET_MS}); `busy`: whether calls are running (default never);
 *   `quietMs`: how long after the last `start` or `postpone` the next step may run, in
 *   milliseconds (default 0: on the next timer turn).
 * @returns `start` (idempotent), `postpone` and `cancel` (final: a `start` after it runs nothing).
 */
export function createWarmUp(
  steps: () => Iterable<() => unknown>,
  {
    budgetMs = WARM_UP_BUDGET_MS,
    busy = () => false,
    quietMs = 0,
  }: { budgetMs?: number; busy?: () => boolean; quietMs?: number } = {},
): WarmUp {
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  // a cancelled warm-up stays cancelled: a tools/list can still reach a server that has closed
  let cancelled = false;
  let lastRequest = Date.now();
  const runFrom = (pending: Iterator<() => unknown>, spent: number, delay: number): void => {
    timer = setTimeout(() => {
      timer = undefined;
      const quietLeft = lastRequest + quietMs - Date.now();
      if (quietLeft > 0 || busy()) {
        runFrom(pending, spent, quietLeft > 0 ? quietLeft : BUSY_RETRY_MS);
        return;
      }
      const next = pending.next();
      if (next.done === true) return;
      const before = cpuMilliseconds();
      try {
        next.value();
      } catch {
        // the call that needs it compiles it again and reports the failure
      }
      const total = spent + cpuMilliseconds() - before;
      if (total < budgetMs && !cancelled) runFrom(pending, total, 0);
    }, delay);
    timer.unref();
  };
  const postpone = (): void => {
    lastRequest = Date.now();
  };
  return {
    start: () => {
      postpone();
      if (started || cancelled) return;
      started = true;
      runFrom(steps()[Symbol.iterator](), 0, quietMs);
    },
    postpone,
    cancel: () => {
      cancelled = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * What a server's first calls would otherwise do while a caller waits, most useful first: the
 * server's own preparation (`prepare`, such as fetching the access token the first call needs;
 * started first, so its network wait overlaps the compiling that follows), Node's fetch
 * implementation (loaded on the first upstream request; a `data:` URL loads it without a
 * connection), the contract's envelope validators (the first error result), the draft 2020-12
 * meta-schema (a tool whose schema is checked on its first call compiles it), then each tool's
 * validator in `tools` order, through a check of no arguments (which also runs the check path once).
 *
 * @param caches - the server's compiler caches.
 * @param tools - the server's compiled tools, listed ones first.
 * @param prepare - the server's own preparation (called without arguments here; see
 *   {@link createServerWarmUp} for its signal); a rejection is ignored, since the call that needs
 *   it does it again and reports its failure.
 */
export function* serverWarmUpSteps(
  caches: PipelineCaches,
  tools: Iterable<Pick<CompiledTool, 'check'>>,
  prepare?: () => unknown,
): Generator<() => unknown> {
  if (prepare !== undefined) yield () => Promise.resolve(prepare()).catch(() => undefined);
  yield () =>
    fetch('data:,')
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  // a value that claims a version: one that claims none is refused before any validator is compiled
  yield () => validateEnvelope({ _envelope_version: CONTRACT_VERSION });
  yield () => caches.compiler.metaSchemaProblem({});
  for (const tool of tools) yield () => tool.check({});
}

/**
 * The warm-up of one server: {@link serverWarmUpSteps} over its tools in registration order,
 * within {@link WARM_UP_BUDGET_MS}, paused while asynchronous calls run and until the server has
 * been quiet for {@link WARM_UP_QUIET_MS}. The server starts it on the first `tools/list`,
 * postpones it on every `tools/list` and when each `tools/call` arrives and is answered, and
 * cancels it when it closes.
 *
 * @param caches - the server's compiler caches.
 * @param registry - the server's tools.
 * @param calls - the server's unfinished asynchronous calls.
 * @param prepare - the server's own preparation (`EnvelopeServerOptions.warmUp`), given a signal
 *   that `cancel` aborts (the server closes), so that a request it made ends with the server.
 */
export function createServerWarmUp(
  caches: PipelineCaches,
  registry: Pick<ToolRegistry, 'names' | 'get'>,
  calls: Pick<InFlightCalls, 'size'>,
  prepare?: (signal: AbortSignal) => unknown,
): WarmUp {
  const closing = new AbortController();
  const warmUp = createWarmUp(
    () =>
      serverWarmUpSteps(
        caches,
        registry.names.flatMap((name) => registry.get(name)?.compiled ?? []),
        prepare === undefined ? undefined : () => prepare(closing.signal),
      ),
    { busy: () => calls.size > 0, quietMs: WARM_UP_QUIET_MS },
  );
  return {
    start: warmUp.start,
    postpone: warmUp.postpone,
    cancel: () => {
      warmUp.cancel();
      closing.abort();
    },
  };
}
