/**
 * Code Mode under attack, through the real server and a real SDK client: memory the code
 * allocates in many small pieces, output measured by code the program redefined, and deeply
 * nested values. The figures are bounds with generous margins, not timings.
 */
import { describe, expect, it } from 'vitest';

import { useTestSession } from '../fixtures/session.js';

const session = useTestSession();

const MIB = 1024 * 1024;

/** Generous wall time: the memory runs allocate tens of MiB on a busy machine. */
const CODE_MODE_ON = {
  env: { CODE_MODE: 'true', CODE_MODE_WALL_TIME_MS: '30000' },
  additionalErrorKinds: [],
};

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };

async function execute(code: string): Promise<Result> {
  return (await session.current.client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
    timeout: 120_000,
  })) as Result;
}

/** `details[0].reason` of an error result, or `ok` for a success. */
function reason(result: Result): unknown {
  if (result.isError !== true) return 'ok';
  return (result.structuredContent?.['details'] as { reason?: unknown }[] | undefined)?.[0]?.reason;
}

describe('CODE_MODE_MEMORY_MB holds for every allocation kind', () => {
  it.each([
    ['strings', 'const k = [];\nfor (let i = 0; i < 100000; i++) k.push("x".repeat(10000) + i);\nreturn k.length;'],
    ['arrays', 'const k = [];\nfor (let i = 0; i < 100000; i++) k.push(new Array(10000).fill(i));\nreturn k.length;'],
    [
      'typed arrays',
      'const k = [];\nfor (let i = 0; i < 100; i++) k.push(new Float64Array(1024 * 1024));\nreturn k.length;',
    ],
    [
      'ArrayBuffers',
      'const k = [];\nfor (let i = 0; i < 800; i++) k.push(new ArrayBuffer(1024 * 1024));\nreturn k.length;',
    ],
    ['objects', 'const k = [];\nfor (let i = 0; i < 10000000; i++) k.push({ a: i, b: [i] });\nreturn k.length;'],
  ])('%s in many small pieces end with the memory limit envelope', async (_kind, code) => {
    await session.start(CODE_MODE_ON);
    const result = await execute(code);
    expect(result.structuredContent).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      details: [{ path: 'code', reason: 'memory', setting: 'CODE_MODE_MEMORY_MB', limit: 64 }],
    });
    // the worker that hit the limit is replaced: the next run works
    expect((await execute('return "still working"')).structuredContent).toEqual({ result: 'still working' });
  });

  it('the bound follows CODE_MODE_MEMORY_MB: 32 MiB of 1 MiB ArrayBuffers fail at 16 MiB and pass at 64', async () => {
    const code = 'const k = [];\nfor (let i = 0; i < 32; i++) k.push(new ArrayBuffer(1024 * 1024));\nreturn k.length;';
    await session.start({ ...CODE_MODE_ON, env: { ...CODE_MODE_ON.env, CODE_MODE_MEMORY_MB: '16' } });
    expect((await execute(code)).structuredContent).toMatchObject({ details: [{ reason: 'memory', limit: 16 }] });
    await session.start(CODE_MODE_ON);
    expect((await execute(code)).structuredContent).toEqual({ result: 32 });
  });

  it('four concurrent runs at the limit keep the process under the documented bound, and idle workers give it back', async () => {
    await session.start(CODE_MODE_ON);
    // warm the workers up, so that the baseline holds the loaded code and a QuickJS module each
    await Promise.all(Array.from({ length: 4 }, () => execute('return 1')));
    const baseline = process.memoryUsage().rss;
    const peak = { rss: baseline };
    const sampler = setInterval(() => {
      peak.rss = Math.max(peak.rss, process.memoryUsage().rss);
    }, 20);
    const code =
      'const k = [];\nfor (let i = 0; i < 100; i++) k.push(new ArrayBuffer(8 * 1024 * 1024));\nreturn k.length;';
    const results = await Promise.all(Array.from({ length: 4 }, () => execute(code)));
    clearInterval(sampler);
    peak.rss = Math.max(peak.rss, process.memoryUsage().rss);
    expect(results.map(reason)).toEqual(['memory', 'memory', 'memory', 'memory']);
    // the documented bound: 4 x (CODE_MODE_MEMORY_MB + 16 MiB) of WebAssembly memory, plus 160 MiB
    // for the workers' own heaps and the allocator
    expect((peak.rss - baseline) / MIB).toBeLessThan(4 * (64 + 16) + 160);
    // a worker whose memory grew is replaced after its run, so nothing of the runs stays behind
    expect((await execute('return 2')).structuredContent).toEqual({ result: 2 });
    expect((process.memoryUsage().rss - baseline) / MIB).toBeLessThan(128);
  });
});

/** Code that tries to get about 6 MB out under the 1 MiB output limit after redefining something. */
const SMUGGLERS: readonly (readonly [string, string, unknown])[] = [
  [
    'Array.prototype.join returning an object whose toString answers small, then big',
    `let n = 0;
Array.prototype.join = function () {
  return { length: 1, toString() { n += 1; return n % 2 === 1 ? "a" : "y".repeat(6e6); } };
};
for (let i = 0; i < 4; i++) console.log("x");
return 1;`,
    { result: 1, logs: ['x', 'x', 'x', 'x'] },
  ],
  [
    'Array.prototype.map and join returning a giant string',
    `Array.prototype.map = function () { return ["y".repeat(6e6)]; };
Array.prototype.join = function () { return "y".repeat(6e6); };
console.log("x");
return 1;`,
    { result: 1, logs: ['x'] },
  ],
  [
    'JSON.stringify replaced before the value is returned',
    `JSON.stringify = () => "1";
return "y".repeat(6e6);`,
    'output',
  ],
  [
    'String.prototype methods and Symbol.toPrimitive on a logged object',
    `String.prototype.toString = () => "a";
String.prototype.concat = () => "a";
String.prototype.slice = () => "a";
const big = "y".repeat(6e6);
console.log({ [Symbol.toPrimitive]: () => big, toJSON: () => undefined });
return 1;`,
    'output',
  ],
  [
    'Object.keys, a toJSON, a getter and a Proxy in the returned value',
    `Object.keys = () => [];
const big = "y".repeat(2e6);
return [{ toJSON: () => big }, { get g() { return big; } }, new Proxy({}, { ownKeys: () => ["p"], getOwnPropertyDescriptor: () => ({ value: big, enumerable: true, configurable: true }), get: () => big })];`,
    'output',
  ],
];

describe('CODE_MODE_OUTPUT_BYTES holds against redefined builtins', () => {
  it.each(SMUGGLERS)('%s', async (_label, code, expected) => {
    await session.start(CODE_MODE_ON);
    const result = await execute(code);
    // whatever the code redefined, the answer stays within the limit (plus its envelope's text)
    expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThan(MIB + 4096);
    if (expected === 'output') expect(reason(result)).toBe('output');
    else expect(result.structuredContent).toEqual(expected);
  });
});

describe('deeply nested output', () => {
  it.each([
    ['a 3,000-deep array', 'let v = 1;\nfor (let i = 0; i < 3000; i++) v = [v];\nreturn v;'],
    ['a 3,000-deep object', 'let v = 1;\nfor (let i = 0; i < 3000; i++) v = { v };\nreturn v;'],
    ['a 100,000-deep array', 'let v = 1;\nfor (let i = 0; i < 1e5; i++) v = [v];\nreturn v;'],
  ])('%s returned is a sandbox_runtime envelope, and the worker runs on', async (_label, code) => {
    await session.start(CODE_MODE_ON);
    const result = await execute(code);
    expect(result.structuredContent).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
    });
    expect(['runtime_error', 'memory']).toContain(reason(result));
    expect((await execute('return "still working"')).structuredContent).toEqual({ result: 'still working' });
  });

  it('a 3,000-deep value logged is one log line', async () => {
    await session.start(CODE_MODE_ON);
    const result = await execute('let v = 1;\nfor (let i = 0; i < 3000; i++) v = [v];\nconsole.log(v);\nreturn 1;');
    expect(result.structuredContent).toEqual({ result: 1, logs: [`${'['.repeat(3000)}1${']'.repeat(3000)}`] });
  });
});

describe('deeply nested arguments of an inner call', () => {
  it('a 3,000-deep argument gets its answer at once, the same a tools/call over the wire gets', async () => {
    await session.start({ ...CODE_MODE_ON, env: { ...CODE_MODE_ON.env, CODE_MODE_WALL_TIME_MS: '60000' } });
    const deep = 'let v = 1;\nfor (let i = 0; i < 3000; i++) v = { v };';
    const inner = await execute(
      `${deep}\nconst reply = await callTool('get_tags', { filter: v });\nreturn reply.error_kind ?? 'no envelope';`,
    );
    // the worker posted the arguments as a structured clone the server's thread could not read, so the
    // call was never answered and the run ended at its wall time
    expect(inner.structuredContent).toEqual({ result: 'mcp_input_validation' });
    let nested: unknown = 1;
    for (let depth = 0; depth < 3000; depth += 1) nested = { v: nested };
    const direct = await session.current.client.callTool({ name: 'get_tags', arguments: { filter: nested } });
    expect((direct.structuredContent as Record<string, unknown>)['error_kind']).toBe('mcp_input_validation');
  });
});
