import { describe, expect, it } from 'vitest';

import { createSandbox, DEFAULT_SANDBOX_LIMITS } from '../src/code-mode/sandbox.js';
import type { InnerCall, SandboxOutcome } from '../src/code-mode/sandbox.js';

/** Scripts that end every way a run can end, each leaving different handles behind if not freed. */
const SCRIPTS: readonly string[] = [
  'return { n: 1, list: [1, 2, 3] }',
  'return await Promise.all([callTool("a", {}), callTool("b", {})])',
  'try { await callTool("fail", {}) } catch (e) { return e.message }',
  'const x = ;',
  'null.x',
  'throw { thrown: true }',
  'return require("fs")',
  'return import("x")',
  'for (;;) {}',
  'callTool("never", {}); callTool("never", {}); for (;;) {}',
  'const a = []; while (true) a.push({ a })',
  'for (let i = 0; i < 60; i++) await callTool("a", {})',
  'return "x".repeat(2 * 1024 * 1024)',
  'console.log("line"); return 1',
  'await new Promise(() => {})',
  'function f() { return f() + 1 } return f()',
];

const callTool: InnerCall = (name, _args, signal) => {
  if (name === 'fail') return Promise.resolve({ throw: 'failed' });
  if (name === 'never')
    return new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        resolve({ value: 'late' });
      });
    });
  return Promise.resolve({ value: name });
};

describe('sandbox lifecycle', () => {
  it('200 runs in a row free every handle and keep the WebAssembly memory flat', async () => {
    // QuickJS asserts, when a runtime is disposed, that no object is left: a leaked handle would
    // abort the module and fail the run
    const sandbox = await createSandbox();
    const limits = { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 8 * 1024 * 1024 };
    const runAll = async (count: number): Promise<SandboxOutcome[]> => {
      const outcomes: SandboxOutcome[] = [];
      for (let index = 0; index < count; index += 1) {
        const code = SCRIPTS[index % SCRIPTS.length] ?? '';
        // only the scripts that loop wait for the wall time; the others get the default, so
        // that a busy machine cannot turn their outcome into a wall-time one
        const wallTimeMs = code.includes('for (;;)') ? 150 : DEFAULT_SANDBOX_LIMITS.wallTimeMs;
        outcomes.push(await sandbox.run(code, callTool, { ...limits, wallTimeMs }, new AbortController().signal));
      }
      return outcomes;
    };
    await runAll(SCRIPTS.length);
    const afterWarmUp = sandbox.memoryBytes();
    const outcomes = await runAll(200);
    const first = outcomes.slice(0, SCRIPTS.length);
    expect(outcomes).toEqual(Array.from({ length: 200 }, (_, index) => first[index % SCRIPTS.length]));
    expect(first.map((outcome) => (outcome.ok ? 'ok' : 'limit' in outcome ? outcome.limit : outcome.error))).toEqual([
      'ok',
      'ok',
      'ok',
      'syntax',
      'runtime',
      'runtime',
      'blocked_capability',
      'blocked_capability',
      'wall_time',
      'wall_time',
      'memory',
      'inner_calls',
      'output',
      'ok',
      'runtime',
      'memory',
    ]);
    expect(sandbox.memoryBytes()).toBe(afterWarmUp);
  });

  it('concurrent runs on one sandbox keep their own state', async () => {
    const sandbox = await createSandbox();
    const slowEcho: InnerCall = async (name, args) => {
      // a turn of the event loop, so that the runs' calls interleave
      await new Promise((resolve) => setImmediate(resolve));
      return { value: { name, args } };
    };
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        sandbox.run(
          `globalThis.mine = ${index};\nconst r = await callTool("t${index}", { index: ${index} });\nreturn [mine, r];`,
          slowEcho,
          DEFAULT_SANDBOX_LIMITS,
          new AbortController().signal,
        ),
      ),
    );
    expect(outcomes).toEqual(
      Array.from({ length: 8 }, (_, index) => ({
        ok: true,
        value: [index, { name: `t${index}`, args: { index } }],
        logs: [],
      })),
    );
  });
});
