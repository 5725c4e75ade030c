/**
 * Turns what the sandboxed code threw (as the prelude's `describe` reported it) into a sandbox
 * outcome: a limit QuickJS enforces by throwing (memory, stack), or a syntax or runtime error
 * located in the user's code.
 *
 * @packageDocumentation
 */
import { CODE_FILENAME, CODE_LINE_OFFSET } from './sandbox-prelude.js';
import type { SandboxEnd, SandboxLimits } from './sandbox-types.js';

/** What the prelude's `describe` reports about a thrown value. */
export interface DescribedError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

/** The detail of a run that ran out of interpreter stack. */
export const STACK_EXHAUSTED =
  'the code nested too deeply for the interpreter stack (deep recursion or deeply nested data)';

/** A message longer than this is cut, so that a thrown giant string cannot flood the answer. */
const MAX_MESSAGE_CHARS = 2_000;

/** The fallback when the thrown value could not be read at all (a run out of memory, say). */
export const UNREADABLE_ERROR: DescribedError = {
  name: '',
  message: 'the code threw a value that cannot be read',
  stack: '',
};

/**
 * Parses the prelude's JSON description, trusting nothing of it.
 *
 * @param json - the string `describe` returned.
 * @returns the description, or {@link UNREADABLE_ERROR} when it is not the expected shape.
 */
export function parseDescribedError(json: string): DescribedError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return UNREADABLE_ERROR;
  }
  if (typeof parsed !== 'object' || parsed === null) return UNREADABLE_ERROR;
  const { name, message, stack } = parsed as Record<string, unknown>;
  if (typeof name !== 'string' || typeof message !== 'string' || typeof stack !== 'string') return UNREADABLE_ERROR;
  return { name, message, stack };
}

/**
 * The line and column of the innermost frame in the user's code, relative to that code.
 *
 * @param stack - a QuickJS stack (`    at f (code.js:3:7)` per frame).
 * @param code - the user's code, to keep the line within it (an error at the wrapper's closing
 *   brace, such as an unexpected end of input, is reported at the end of the last line).
 * @returns the 1-based line and column, or `undefined` when no frame is in the user's code.
 */
export function locateInCode(stack: string, code: string): { line: number; column: number } | undefined {
  const match = new RegExp(`${CODE_FILENAME.replace('.', '\\.')}:(\\d+):(\\d+)`).exec(stack);
  if (match === null) return undefined;
  const lines = code.split('\n');
  const line = Number(match[1]) - CODE_LINE_OFFSET;
  if (line < 1) return { line: 1, column: 1 };
  if (line > lines.length) return { line: lines.length, column: (lines.at(-1) ?? '').length + 1 };
  return { line, column: Number(match[2]) };
}

/**
 * The outcome for a thrown value: QuickJS's own `out of memory` and `stack overflow` errors are
 * the memory limit; anything else is a syntax error (when compiling) or a runtime error.
 *
 * @param described - what was thrown.
 * @param phase - `compile` while evaluating the wrapped code, `run` afterwards.
 * @param code - the user's code, for the location.
 * @param limits - the run's limits, named in the detail.
 * @returns the failed outcome.
 */
export function thrownOutcome(
  described: DescribedError,
  phase: 'compile' | 'run',
  code: string,
  limits: SandboxLimits,
): SandboxEnd {
  if (described.name === 'InternalError' && described.message === 'out of memory') return memoryLimitEnd(limits);
  if (described.name === 'InternalError' && described.message === 'stack overflow')
    return { ok: false, limit: 'memory', detail: STACK_EXHAUSTED };
  const error = phase === 'compile' && described.name === 'SyntaxError' ? 'syntax' : 'runtime';
  const text = described.name === '' ? described.message : `${described.name}: ${described.message}`;
  const message = text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
  const location = locateInCode(described.stack, code);
  return location === undefined ? { ok: false, error, message } : { ok: false, error, message, ...location };
}

/**
 * The end of a run that used more memory than its limit.
 *
 * @param limits - the run's limits, named in the detail.
 * @returns the `memory` limit end.
 */
export function memoryLimitEnd(limits: SandboxLimits): SandboxEnd {
  return { ok: false, limit: 'memory', detail: `the code used more than the ${limits.memoryBytes}-byte memory limit` };
}

/**
 * The limit outcome for `name`, a capability the sandbox does not offer.
 *
 * @param name - how the code reached for it (`require`, `import()`, ...).
 * @returns the `blocked_capability` end.
 */
export function blocked(name: string): SandboxEnd {
  return {
    ok: false,
    limit: 'blocked_capability',
    detail: `the code used ${name}, which the sandbox does not offer (no modules, network, file system, process or timers; call tools with callTool)`,
  };
}
