import { beforeAll, describe, expect, it } from 'vitest';

import { createSandbox, DEFAULT_SANDBOX_LIMITS } from '../src/code-mode/sandbox.js';
import type { InnerCall, Sandbox, SandboxLimits, SandboxOutcome } from '../src/code-mode/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox();
});

const answerOne: InnerCall = () => Promise.resolve({ value: 1 });

function run(
  code: string,
  limits: Partial<SandboxLimits> = {},
  callTool: InnerCall = answerOne,
): Promise<SandboxOutcome> {
  return sandbox.run(code, callTool, { ...DEFAULT_SANDBOX_LIMITS, ...limits }, new AbortController().signal);
}

const blockedDetail = (name: string): string =>
  `the code used ${name}, which the sandbox does not offer (no modules, network, file system, process or timers; call tools with callTool)`;

describe('sandbox: no way to the host', () => {
  it('the global object holds the language built-ins, callTool and console, and nothing of the host', async () => {
    const outcome = await run(
      'const own = Object.getOwnPropertyNames(globalThis);\nreturn ["callTool", "console", "WebAssembly", "navigator", "os", "std"].map((n) => own.includes(n));',
    );
    expect(outcome).toEqual({ ok: true, value: [true, true, false, false, false, false], logs: [] });
  });

  it('Function("return this")() and indirect eval reach only the sandbox global', async () => {
    const outcome = await run(
      'const viaFunction = Function("return this")();\nconst viaEval = (0, eval)("this");\nviaFunction.planted = 1;\nreturn [viaFunction === globalThis, viaEval === globalThis, typeof viaEval.planted];',
    );
    expect(outcome).toEqual({ ok: true, value: [true, true, 'number'], logs: [] });
    expect('planted' in globalThis).toBe(false);
  });

  it.each([
    ['constructor.constructor("return process")()', '`process`'],
    ['callTool.constructor("return process")().env', '`process`'],
    ['(async () => {}).constructor("return require")()', '`require`'],
    ['return eval("require")("fs")', '`require`'],
    ['return require("child_process")', '`require`'],
    ['return await fetch("http://127.0.0.1/")', '`fetch`'],
    ['return process.env', '`process`'],
    ['return typeof setTimeout', '`setTimeout`'],
    ['setInterval(() => {}, 1)', '`setInterval`'],
    ['return Buffer.from("x")', '`Buffer`'],
    ['return globalThis.global', '`global`'],
    ['return await import("node:fs")', 'import()'],
    ['return Object.getOwnPropertyDescriptor(globalThis, "process").get()', '`process`'],
  ])('%s ends the run with the blocked_capability limit naming %s', async (code, name) => {
    expect(await run(code)).toEqual({ ok: false, limit: 'blocked_capability', detail: blockedDetail(name), logs: [] });
  });

  it('catching the blocked capability error does not let the code carry on', async () => {
    expect(await run('try { require("fs"); } catch {}\nreturn "carried on";')).toEqual({
      ok: false,
      limit: 'blocked_capability',
      detail: blockedDetail('`require`'),
      logs: [],
    });
  });

  it('the blocked globals cannot be deleted or redefined', async () => {
    const outcome = await run(
      'const results = [delete globalThis.fetch];\ntry { Object.defineProperty(globalThis, "fetch", { value: 1 }); results.push("redefined"); } catch (e) { results.push(e.name); }\nreturn results;',
    );
    expect(outcome).toEqual({ ok: true, value: [false, 'TypeError'], logs: [] });
  });

  it('a static import is a syntax error (the code is a function body, not a module)', async () => {
    expect(await run('import fs from "node:fs";\nreturn 1;')).toEqual({
      ok: false,
      error: 'syntax',
      message: "SyntaxError: expecting '('",
      line: 1,
      column: 8,
      logs: [],
    });
  });
});

describe('sandbox: host objects stay untouched', () => {
  it('polluting the prototypes of a value passed in changes nothing on the host', async () => {
    const shared = { a: 1, nested: { b: 2 } };
    const seen: unknown[] = [];
    const callTool: InnerCall = (_name, args) => {
      seen.push(args);
      return Promise.resolve({ value: shared });
    };
    const hostPrototypeKeys = Object.getOwnPropertyNames(Object.prototype);
    const outcome = await run(
      [
        'const r = await callTool("get", {});',
        'r.__proto__.polluted = "yes";',
        'Object.prototype.polluted2 = "yes";',
        'Object.getPrototypeOf(r.nested).toString = () => "hacked";',
        'r.a = 2;',
        'r.nested.b = 3;',
        'await callTool("send", JSON.parse(\'{"__proto__": {"isAdmin": true}}\'));',
        'return [r.a, ({}).polluted, ({}).polluted2];',
      ].join('\n'),
      {},
      callTool,
    );
    expect(outcome).toEqual({ ok: true, value: [2, 'yes', 'yes'], logs: [] });
    expect(shared).toEqual({ a: 1, nested: { b: 2 } });
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(hostPrototypeKeys);
    const probe: Record<string, unknown> = {};
    expect([
      probe['polluted'],
      probe['polluted2'],
      probe['isAdmin'],
      probe.toString === Object.prototype.toString,
    ]).toEqual([undefined, undefined, undefined, true]);
    // the `__proto__` key arrives as an own data property of a plain host object, not as a prototype
    const sent = seen[1] as Record<string, unknown>;
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(sent)).toEqual(['__proto__']);
    expect(sent['isAdmin']).toBeUndefined();
  });

  it.each([
    [
      'f.caller',
      'let c = "unset";\nfunction f() { c = String(f.caller); return 1; }\nawait callTool("a", { toJSON: f });\nreturn c;',
      'undefined',
    ],
    [
      'arguments.callee.caller',
      'let c = "unset";\nconst o = { toJSON() { try { c = typeof arguments.callee.caller; } catch (e) { c = e.name; } return 1; } };\nawait callTool("a", o);\nreturn c;',
      'TypeError',
    ],
    [
      'a then getter on Object.prototype',
      'let got = "unset";\nObject.defineProperty(Object.prototype, "then", { get() { got = typeof this; return undefined; }, configurable: true });\nawait callTool("a", {});\nconsole.log("x");\nreturn got;',
      'unset',
    ],
    [
      'Symbol.toPrimitive on the name',
      'try { await callTool({ [Symbol.toPrimitive]: () => "a" }, {}); } catch (e) { return e.message; }',
      'callTool(name, args): name must be a string',
    ],
  ])('code the prelude runs (%s) reaches none of its host functions', async (_trick, code, value) => {
    expect(await run(code)).toEqual({ ok: true, value, logs: code.includes('console.log') ? ['x'] : [] });
  });

  it('each run gets a fresh global: what one run plants, the next does not see', async () => {
    await run('globalThis.leftover = 1; Object.prototype.inherited = 1; return null');
    expect(await run('return [typeof leftover, typeof ({}).inherited]')).toEqual({
      ok: true,
      value: ['undefined', 'undefined'],
      logs: [],
    });
  });
});

describe('sandbox limits', () => {
  it('an infinite loop stops at the wall time, try/catch notwithstanding', async () => {
    const started = performance.now();
    const outcome = await run('for (;;) {\n  try { for (;;) {} } catch {}\n}', { wallTimeMs: 300 });
    const elapsed = performance.now() - started;
    expect(outcome).toEqual({
      ok: false,
      limit: 'wall_time',
      detail: 'the code ran longer than the 300 ms wall-time limit (time awaiting callTool included)',
      logs: [],
    });
    expect(elapsed).toBeGreaterThanOrEqual(300);
    // generous for a loaded machine: what matters is that the loop ends at all
    expect(elapsed).toBeLessThan(300 + 10_000);
  });

  it('an endless chain of awaits stops at the wall time', async () => {
    expect(await run('for (;;) await null;', { wallTimeMs: 200 })).toMatchObject({ ok: false, limit: 'wall_time' });
  });

  it('an endless promise chain interrupted at its wall time ends with the wall_time limit, and the next run works', async () => {
    const code = 'const next = () => Promise.resolve().then(next);\nnext();\nawait new Promise(() => next());';
    // QuickJS leaves objects of an interrupted chain behind, so freeing the runtime aborts the module
    expect(await run(code, { wallTimeMs: 200 })).toEqual({
      ok: false,
      limit: 'wall_time',
      detail: 'the code ran longer than the 200 ms wall-time limit (time awaiting callTool included)',
      logs: [],
    });
    expect(await run('return [1, 2].map((n) => n * 2);')).toEqual({ ok: true, value: [2, 4], logs: [] });
  });

  it('time awaiting a host call counts, and the late call is aborted', async () => {
    let innerSignal: AbortSignal | undefined;
    const never: InnerCall = (_name, _args, signal) => {
      innerSignal = signal;
      return new Promise(() => undefined);
    };
    const started = performance.now();
    const outcome = await run('return await callTool("slow", {})', { wallTimeMs: 200 }, never);
    expect(outcome).toMatchObject({ ok: false, limit: 'wall_time' });
    // generous for a loaded machine: the call never answers, so only the wall time ends the run
    expect(performance.now() - started).toBeLessThan(200 + 10_000);
    expect(innerSignal?.aborted).toBe(true);
  });

  it('unbounded array growth ends with the memory limit', async () => {
    expect(await run('const a = [];\nfor (;;) a.push({ n: a.length });', { memoryBytes: 8 * 1024 * 1024 })).toEqual({
      ok: false,
      limit: 'memory',
      detail: 'the code used more than the 8388608-byte memory limit',
      logs: [],
    });
  });

  it('one allocation beyond the limit ends with the memory limit', async () => {
    expect(await run('return "x".repeat(200 * 1024 * 1024).length')).toEqual({
      ok: false,
      limit: 'memory',
      detail: 'the code used more than the 67108864-byte memory limit',
      logs: [],
    });
  });

  it.each([
    ['unbounded recursion', 'function f(n) {\n  return f(n + 1) + 1;\n}\nreturn f(0);'],
    ['deeply nested JSON.parse', 'return JSON.parse("[".repeat(1e6) + "]".repeat(1e6));'],
    ['deeply nested data returned', 'let o = [];\nfor (let i = 0; i < 1e5; i++) o = [o];\nreturn o;'],
  ])('%s ends with the memory limit on the stack, and the sandbox runs on', async (_label, code) => {
    expect(await run(code)).toEqual({
      ok: false,
      limit: 'memory',
      detail: 'the code nested too deeply for the interpreter stack (deep recursion or deeply nested data)',
      logs: [],
    });
    expect(await run('return "still working"')).toEqual({ ok: true, value: 'still working', logs: [] });
  });

  it('a return value over the output limit ends with the output limit', async () => {
    expect(await run('return "x".repeat(2 * 1024 * 1024)')).toEqual({
      ok: false,
      limit: 'output',
      detail:
        "the return value's JSON (at least 2097154 bytes) and the logs (0 bytes) exceed the 1048576-byte output limit",
      logs: [],
    });
  });

  it('multi-byte characters count as their UTF-8 bytes', async () => {
    expect(await run('return "é".repeat(600)', { outputBytes: 1000 })).toEqual({
      ok: false,
      limit: 'output',
      detail: "the return value's JSON (1202 bytes) and the logs (0 bytes) exceed the 1000-byte output limit",
      logs: [],
    });
  });

  it('logging without end ends with the output limit', async () => {
    expect(await run('for (;;) console.log("x".repeat(1000));', { outputBytes: 10_000 })).toEqual({
      ok: false,
      limit: 'output',
      detail: 'the code logged more than the 10000-byte output limit',
      // each line counts its bytes plus one: the tenth is one byte over
      logs: Array.from({ length: 9 }, () => 'x'.repeat(1000)),
    });
  });

  it('logging empty lines without end ends with the output limit too, not at the wall time', async () => {
    const outcome = await run('for (;;) console.log("");', { outputBytes: 1000, wallTimeMs: 2000 });
    expect(outcome).toEqual({
      ok: false,
      limit: 'output',
      detail: 'the code logged more than the 1000-byte output limit',
      logs: Array.from({ length: 1000 }, () => ''),
    });
  });
});

describe('sandbox: the host abort signal', () => {
  it('aborting stops a run between its inner calls, which rejects with the signal reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the client');
    let calls = 0;
    // the fifth call aborts the run while it is pending, as a client cancelling mid-run would
    const tick: InnerCall = async () => {
      calls += 1;
      if (calls === 5) controller.abort(reason);
      await Promise.resolve();
      return { value: calls };
    };
    const started = performance.now();
    await expect(
      sandbox.run('for (;;) await callTool("tick", {});', tick, DEFAULT_SANDBOX_LIMITS, controller.signal),
    ).rejects.toBe(reason);
    // generous for a loaded machine: without the abort the loop runs until the default wall time
    expect(performance.now() - started).toBeLessThan(DEFAULT_SANDBOX_LIMITS.wallTimeMs);
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(50);
  });

  it('aborting while an inner call is pending stops the run and aborts the inner call', async () => {
    const controller = new AbortController();
    let innerSignal: AbortSignal | undefined;
    const never: InnerCall = (_name, _args, signal) => {
      innerSignal = signal;
      controller.abort(new Error('stop'));
      return new Promise(() => undefined);
    };
    await expect(
      sandbox.run('return await callTool("t", {})', never, DEFAULT_SANDBOX_LIMITS, controller.signal),
    ).rejects.toThrow('stop');
    expect(innerSignal?.aborted).toBe(true);
  });

  it('an already aborted signal runs nothing', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    let called = false;
    const callTool: InnerCall = () => {
      called = true;
      return Promise.resolve({ value: 1 });
    };
    await expect(
      sandbox.run('await callTool("t")', callTool, DEFAULT_SANDBOX_LIMITS, controller.signal),
    ).rejects.toThrow('too late');
    expect(called).toBe(false);
  });
});
