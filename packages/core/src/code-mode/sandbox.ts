/**
 * The Code Mode sandbox: runs an agent's JavaScript in a QuickJS interpreter compiled to
 * WebAssembly (never in the server's own V8 context), with `await callTool(name, args)` as its
 * only way out, and limits on wall time, memory, output and inner calls.
 *
 * @packageDocumentation
 */
import { STACK_EXHAUSTED } from './sandbox-errors.js';
import { loadBoundedModule } from './sandbox-memory.js';
import type { BoundedModule } from './sandbox-memory.js';
import { runInSandbox, SandboxModuleFailure } from './sandbox-run.js';
import type { InnerCall, SandboxLimits, SandboxOutcome } from './sandbox-types.js';

export { SANDBOX_BASE_MEMORY_BYTES } from './sandbox-memory.js';
export type {
  InnerCall,
  InnerCallOutcome,
  SandboxEnd,
  SandboxLimitName,
  SandboxLimits,
  SandboxOutcome,
} from './sandbox-types.js';

/** The default limits: 5 s of wall time, 64 MiB of memory, 1 MiB of output, 50 inner calls. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  wallTimeMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  outputBytes: 1024 * 1024,
  innerCalls: 50,
});

/** A loaded QuickJS module, ready to run code; load one per server with {@link createSandbox}. */
export interface Sandbox {
  /**
   * Runs `code` (the body of an async function) in a fresh QuickJS runtime, disposed afterwards.
   * Inside it, `await callTool(name, args)` calls `callTool` on the host; arguments and results
   * cross as JSON strings only. There is no `require`, `import()`, network, file system,
   * `process` or timer.
   *
   * The interpreter runs on the calling thread: while the code computes without awaiting, the
   * event loop waits (at most `limits.wallTimeMs`, after which QuickJS's interrupt handler stops
   * it), and an abort takes effect at the code's next await.
   *
   * @param code - the body of an async function; `return` gives the value.
   * @param callTool - the host side of the code's `callTool`.
   * @param limits - the run's limits ({@link DEFAULT_SANDBOX_LIMITS} unless configured).
   * @param signal - aborting it stops the run (and aborts its pending inner calls).
   * @returns how the run ended; limits and the code's own errors are outcomes, not rejections.
   * @throws the signal's reason when `signal` aborts before the run ends.
   */
  run(code: string, callTool: InnerCall, limits: SandboxLimits, signal: AbortSignal): Promise<SandboxOutcome>;
  /**
   * The size of the WebAssembly memory the runs share, in bytes: it grows to the largest
   * concurrent demand, at most {@link SANDBOX_BASE_MEMORY_BYTES} plus the memory limit, and never
   * shrinks (so the owner of a sandbox whose memory grew may discard it after a run).
   */
  memoryBytes(): number;
}

/**
 * Loads the QuickJS WebAssembly module (a few milliseconds) and answers a {@link Sandbox} that
 * runs code in it. Runs are independent: each gets its own runtime, so several can be in flight
 * at once; they share the module's memory, whose maximum is set by the memory limit (a run with
 * another limit than the module's loads a module of its own, used by the runs after it).
 *
 * @returns the sandbox.
 * @throws when the WebAssembly module cannot be loaded.
 */
export async function createSandbox(): Promise<Sandbox> {
  const loaded: { current: BoundedModule } = {
    current: await loadBoundedModule(DEFAULT_SANDBOX_LIMITS.memoryBytes),
  };
  // the memory's maximum is set by the limit: a run with another limit needs a module of its own
  const moduleFor = async (memoryBytes: number): Promise<BoundedModule> => {
    if (loaded.current.memoryBytes !== memoryBytes) loaded.current = await loadBoundedModule(memoryBytes);
    return loaded.current;
  };
  return {
    run: async (code, callTool, limits, signal) => {
      try {
        return await runInSandbox(await moduleFor(limits.memoryBytes), { code, callTool, limits, signal });
      } catch (error) {
        if (!(error instanceof SandboxModuleFailure)) throw error;
        // a failed module's memory is not trusted again: runs after this one get a fresh module
        loaded.current = await loadBoundedModule(limits.memoryBytes);
        // the run had ended before freeing it failed the module: its end stands
        if (error.settled === undefined) return { ok: false, limit: 'memory', detail: STACK_EXHAUSTED, logs: [] };
        if ('thrown' in error.settled) throw error.settled.thrown;
        return error.settled.outcome;
      }
    },
    memoryBytes: () => loaded.current.sizeBytes(),
  };
}
