/**
 * The Code Mode sandbox's own costs, in process: loading the QuickJS module (once per server),
 * a run that does nothing (a fresh runtime and context, the prelude, disposal), and runs making
 * one and ten inner calls to an in-process `callTool` that answers at once. The ratio against a
 * direct call over the wire belongs to the execute_code bench, which adds the server around it.
 */
import { createSandbox, DEFAULT_SANDBOX_LIMITS } from '../dist/code-mode/sandbox.js';
import type { InnerCall, Sandbox } from '../dist/code-mode/sandbox.js';
import { median } from './stats.js';

/** What {@link measureSandbox} measured, in milliseconds (medians). */
export interface SandboxFigures {
  /** `createSandbox()`: loading and instantiating the WebAssembly module. */
  readonly load: number;
  /** A run of `return null`. */
  readonly emptyRun: number;
  /** A run making one inner call. */
  readonly oneCall: number;
  /** A run making ten inner calls in sequence. */
  readonly tenCalls: number;
  readonly runs: number;
}

/** The in-process inner call: answers a small value, as a tool's structuredContent would be. */
const echo: InnerCall = (name, args) => Promise.resolve({ value: { name, args, ok: true } });

const ONE_CALL = 'const r = await callTool("bench", { id: 1 });\nreturn r.ok;';
const TEN_CALLS =
  'let n = 0;\nfor (let i = 0; i < 10; i++) if ((await callTool("bench", { id: i })).ok) n++;\nreturn n;';

/**
 * The median wall time of `runs` runs of `code`, after a few unmeasured ones.
 *
 * @throws when a run does not succeed (a bench of a failing run would measure the wrong thing).
 */
export async function timeRuns(sandbox: Sandbox, code: string, callTool: InnerCall, runs: number): Promise<number> {
  const once = async (): Promise<number> => {
    const started = performance.now();
    const outcome = await sandbox.run(code, callTool, DEFAULT_SANDBOX_LIMITS, new AbortController().signal);
    if (!outcome.ok) throw new Error(`the bench script failed: ${JSON.stringify(outcome)}`);
    return performance.now() - started;
  };
  for (let warm = 0; warm < 5; warm += 1) await once();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) times.push(await once());
  return median(times);
}

/**
 * Measures the module load (median of a few) and the three runs.
 *
 * @param runs - measured runs per script.
 * @returns the figures.
 */
export async function measureSandbox(runs: number): Promise<SandboxFigures> {
  const loads: number[] = [];
  let sandbox: Sandbox | undefined;
  for (let load = 0; load < 3; load += 1) {
    const started = performance.now();
    sandbox = await createSandbox();
    loads.push(performance.now() - started);
  }
  if (sandbox === undefined) throw new Error('no sandbox was created');
  // V8 compiles the WebAssembly module's hot functions in the background: warm them all first
  for (const code of ['return null', ONE_CALL, TEN_CALLS]) await timeRuns(sandbox, code, echo, 30);
  return {
    load: median(loads),
    emptyRun: await timeRuns(sandbox, 'return null', echo, runs),
    oneCall: await timeRuns(sandbox, ONE_CALL, echo, runs),
    tenCalls: await timeRuns(sandbox, TEN_CALLS, echo, runs),
    runs,
  };
}
