import { beforeAll, describe, expect, it } from 'vitest';

import { createSandbox, DEFAULT_SANDBOX_LIMITS } from '../src/code-mode/sandbox.js';
import type { InnerCall, InnerCallOutcome, Sandbox, SandboxLimits, SandboxOutcome } from '../src/code-mode/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox();
});

const noCalls: InnerCall = () => Promise.reject(new Error('no inner call expected'));

function run(
  code: string,
  callTool: InnerCall = noCalls,
  limits: Partial<SandboxLimits> = {},
): Promise<SandboxOutcome> {
  return sandbox.run(code, callTool, { ...DEFAULT_SANDBOX_LIMITS, ...limits }, new AbortController().signal);
}

/** An inner call that records what it was asked and answers from `answer`. */
function recording(answer: (name: string, args: unknown) => InnerCallOutcome): {
  callTool: InnerCall;
  seen: { name: string; args: unknown }[];
} {
  const seen: { name: string; args: unknown }[] = [];
  return {
    seen,
    callTool: async (name, args) => {
      seen.push({ name, args });
      await new Promise((resolve) => setImmediate(resolve));
      return answer(name, args);
    },
  };
}

describe('sandbox return values', () => {
  it.each([
    ['return 42', 42],
    ['return -1.5', -1.5],
    ['return "héllo"', 'héllo'],
    ['return true', true],
    ['return false', false],
    ['return null', null],
    ['return [1, "two", [3]]', [1, 'two', [3]]],
    ['return { a: { b: [null, 2] }, c: "d" }', { a: { b: [null, 2] }, c: 'd' }],
    ['return undefined', null],
    ['const x = 1', null],
    ['return await Promise.resolve(7)', 7],
    ['return { skip: undefined, keep: 1 }', { keep: 1 }],
    ['return NaN', null],
  ])('%s answers its JSON value', async (code, value) => {
    expect(await run(code)).toEqual({ ok: true, value, logs: [] });
  });

  it('a value that is not JSON is a runtime error naming it', async () => {
    const outcome = await run('return 10n');
    expect(outcome).toEqual({
      ok: false,
      error: 'runtime',
      message: expect.stringMatching(/^TypeError: the return value is not JSON: /) as unknown,
      logs: [],
    });
  });

  it('console.log lines come back as logs, non-strings as JSON', async () => {
    expect(await run('console.log("a", 1, { b: [2] }); console.warn("w"); return 0')).toEqual({
      ok: true,
      value: 0,
      logs: ['a 1 {"b":[2]}', 'w'],
    });
  });
});

describe('sandbox inner calls', () => {
  it('calls in sequence reach the host with their JSON arguments, in order', async () => {
    const { callTool, seen } = recording((name, args) => ({ value: { name, echoed: args } }));
    const outcome = await run(
      'const a = await callTool("first", { n: 1 });\nconst b = await callTool("second", { n: a.echoed.n + 1 });\nreturn [a, b];',
      callTool,
    );
    expect(seen).toEqual([
      { name: 'first', args: { n: 1 } },
      { name: 'second', args: { n: 2 } },
    ]);
    expect(outcome).toEqual({
      ok: true,
      value: [
        { name: 'first', echoed: { n: 1 } },
        { name: 'second', echoed: { n: 2 } },
      ],
      logs: [],
    });
  });

  it('calls under Promise.all run concurrently and resolve in place', async () => {
    // no call answers before all three are out (calls made one after another would never get
    // there), and they answer in the reverse of their order in the code
    const waiting: { name: string; answer: () => void }[] = [];
    const callTool: InnerCall = (name) =>
      new Promise((resolve) => {
        waiting.push({
          name,
          answer: () => {
            resolve({ value: name });
          },
        });
        if (waiting.length === 3) for (const call of waiting.toReversed()) call.answer();
      });
    const outcome = await run(
      'return await Promise.all(["slow", "fast", "mid"].map((n) => callTool(n, {})))',
      callTool,
    );
    expect(outcome).toEqual({ ok: true, value: ['slow', 'fast', 'mid'], logs: [] });
    expect(waiting.map((call) => call.name)).toEqual(['slow', 'fast', 'mid']);
  });

  it('an envelope the host returns is a plain value the code branches on', async () => {
    const envelope = {
      _envelope_version: 1,
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_REQUIRED',
      retryable: false,
      summary: 'missing marketplaceIds',
    };
    const outcome = await run(
      'const r = await callTool("getOrders", {});\nif (r._envelope_version === 1) return { failed: r.error_code };\nreturn r;',
      () => Promise.resolve({ value: envelope }),
    );
    expect(outcome).toEqual({ ok: true, value: { failed: 'SCHEMA_REQUIRED' }, logs: [] });
  });

  it('a { throw } outcome throws an Error inside, which the code can catch', async () => {
    const outcome = await run(
      'try {\n  await callTool("broken", {});\n  return "not thrown";\n} catch (e) {\n  return [e instanceof Error, e.message];\n}',
      () => Promise.resolve({ throw: 'the server answered without an envelope' }),
    );
    expect(outcome).toEqual({ ok: true, value: [true, 'the server answered without an envelope'], logs: [] });
  });

  it('an uncaught { throw } outcome is a runtime error at the awaiting line', async () => {
    const outcome = await run('const x = 1;\nawait callTool("broken", {});', () => Promise.resolve({ throw: 'boom' }));
    expect(outcome).toEqual({ ok: false, error: 'runtime', message: 'Error: boom', line: 2, column: 15, logs: [] });
  });

  it('a host rejection is thrown inside like a { throw } outcome', async () => {
    const outcome = await run('try { await callTool("x") } catch (e) { return e.message }', () =>
      Promise.reject(new Error('host failed')),
    );
    expect(outcome).toEqual({ ok: true, value: 'host failed', logs: [] });
  });

  it('callTool without arguments sends {}', async () => {
    const { callTool, seen } = recording(() => ({ value: 1 }));
    await run('return await callTool("ping")', callTool);
    expect(seen).toEqual([{ name: 'ping', args: {} }]);
  });

  it('the 51st inner call ends the run with the inner_calls limit', async () => {
    const { callTool, seen } = recording(() => ({ value: 0 }));
    const outcome = await run(
      'for (let i = 0; i < 100; i++) {\n  try { await callTool("t", { i }); } catch {}\n}\nreturn "done";',
      callTool,
    );
    expect(outcome).toEqual({
      ok: false,
      limit: 'inner_calls',
      detail: 'the code made more than the 50 callTool calls the inner-call limit allows',
      logs: [],
    });
    expect(seen).toHaveLength(50);
  });

  it('arguments over 1 MiB of JSON throw a RangeError at the call, catchable, and never reach the host', async () => {
    const { callTool, seen } = recording(() => ({ value: 'sent' }));
    const outcome = await run(
      'const big = "x".repeat(2 * 1024 * 1024);\nlet caught;\ntry { await callTool("t", { big }); } catch (e) { caught = e.name + ": " + e.message; }\nconst accents = "é".repeat(600 * 1024);\nawait callTool("t", { accents });',
      callTool,
    );
    expect(outcome).toEqual({
      ok: false,
      error: 'runtime',
      message:
        'RangeError: callTool(name, args): args is 1228814 bytes of JSON, more than the 1048576 one call may send',
      line: 5,
      column: 15,
      logs: [],
    });
    expect(seen).toEqual([]);
    const within = await run(
      'let caught;\ntry { await callTool("t", { big: "x".repeat(3 * 1024 * 1024) }); } catch (e) { caught = e.message; }\nreturn [caught, await callTool("t", { small: "x".repeat(1024 * 1024 - 20) })];',
      callTool,
    );
    expect(within).toEqual({
      ok: true,
      value: [
        'callTool(name, args): args is at least 3145738 bytes of JSON, more than the 1048576 one call may send',
        'sent',
      ],
      logs: [],
    });
    expect(seen).toHaveLength(1);
  });
});

describe('sandbox error locations', () => {
  it('a syntax error carries its line and column in the user code', async () => {
    expect(await run('const a = 1;\nconst b = ;\nreturn a;')).toEqual({
      ok: false,
      error: 'syntax',
      message: "SyntaxError: unexpected token in expression: ';'",
      line: 2,
      column: 11,
      logs: [],
    });
  });

  it('a runtime error carries the line and column of the failing expression', async () => {
    expect(await run('const a = 1;\nfunction f(o) {\n  return o.missing.deeper;\n}\nreturn f({});')).toEqual({
      ok: false,
      error: 'runtime',
      message: "TypeError: cannot read property 'deeper' of undefined",
      line: 3,
      column: 19,
      logs: [],
    });
  });

  it('a thrown non-Error is a runtime error that shows the value', async () => {
    expect(await run('throw { code: 7 }')).toEqual({
      ok: false,
      error: 'runtime',
      message: 'the code threw a value that is not an Error: {"code":7}',
      logs: [],
    });
  });

  it('a promise that can never settle is a runtime error, not a hang', async () => {
    expect(await run('await new Promise(() => {});')).toEqual({
      ok: false,
      error: 'runtime',
      message: 'the code awaits a promise that never settles (only callTool promises settle in the sandbox)',
      logs: [],
    });
  });
});
