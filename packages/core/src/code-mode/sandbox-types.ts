/**
 * The shapes of a Code Mode sandbox run, apart from the modules that run it (sandbox.ts,
 * sandbox-run.ts, sandbox-host.ts, sandbox-errors.ts), so that those import one another only for
 * what they do.
 *
 * @packageDocumentation
 */

/** The limits of one run; every one is enforced, none is optional. */
export interface SandboxLimits {
  /** Milliseconds from the start of the run to its end, time awaiting inner calls included. */
  readonly wallTimeMs: number;
  /**
   * Bytes the interpreter may allocate (heap and stack together): the module's WebAssembly
   * memory never grows past its `SANDBOX_BASE_MEMORY_BYTES` start plus this.
   */
  readonly memoryBytes: number;
  /** UTF-8 bytes of the return value's JSON plus everything the code logs with `console` (one more per line). */
  readonly outputBytes: number;
  /** How many `callTool` calls the code may make; the next one ends the run. */
  readonly innerCalls: number;
}

/**
 * What one inner `callTool` produced, as the host decided: a JSON value returned to the code (a
 * success's `structuredContent`, or a valid envelope), or a failure without an envelope, thrown
 * inside the sandbox as an `Error` with this message.
 */
export type InnerCallOutcome = { readonly value: unknown } | { readonly throw: string };

/**
 * The host side of `callTool(name, args)`. `args` is the JSON the code passed, parsed on the host
 * (a fresh host object, never a sandbox value); `signal` aborts when the run ends first (its wall
 * time ran out, it hit a limit, or the host's own signal aborted). A rejection is thrown inside
 * the sandbox like `{ throw: message }`.
 */
export type InnerCall = (name: string, args: unknown, signal: AbortSignal) => Promise<InnerCallOutcome>;

/** Which limit ended a run. `blocked_capability`: the code touched `require`, `process`, `import()`, ... */
export type SandboxLimitName = 'wall_time' | 'memory' | 'output' | 'inner_calls' | 'blocked_capability';

/**
 * How a run ended, without the logs: the code's return value as JSON (`undefined` becomes
 * `null`), a limit with a detail naming it, or a syntax or runtime error with a message and,
 * when the error is in the user's code, its 1-based line and column in that code.
 */
export type SandboxEnd =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly limit: SandboxLimitName; readonly detail: string }
  | {
      readonly ok: false;
      readonly error: 'syntax' | 'runtime';
      readonly message: string;
      readonly line?: number;
      readonly column?: number;
    };

/**
 * How a run ended, with what the code logged through `console.log` (and `info`, `warn`, `error`,
 * `debug`), one string per call, its arguments joined by spaces (non-strings as JSON).
 */
export type SandboxOutcome = SandboxEnd & { readonly logs: readonly string[] };

/** What one run is given. */
export interface RunInput {
  readonly code: string;
  readonly callTool: InnerCall;
  readonly limits: SandboxLimits;
  readonly signal: AbortSignal;
}
