import { afterEach, describe, expect, it } from 'vitest';

import { createSandboxRunner } from '../../src/code-mode/runner.js';
import type { SandboxWorkers } from '../../src/code-mode/runner.js';
import type { InnerCall } from '../../src/code-mode/sandbox.js';

const LIMITS = { wallTimeMs: 5_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024, innerCalls: 10 };

const echo: InnerCall = (name, args) => Promise.resolve({ value: { name, args } });

let workers: SandboxWorkers | undefined;

afterEach(() => {
  workers?.close();
  workers = undefined;
});

describe('createSandboxRunner (programs in worker threads)', () => {
  it('runs a program whose inner calls are answered on this thread', async () => {
    workers = createSandboxRunner();
    const outcome = await workers.run(
      "const reply = await callTool('list_orders', { n: 1 });\nreturn reply;",
      echo,
      LIMITS,
      new AbortController().signal,
    );
    expect(outcome).toEqual({ ok: true, value: { name: 'list_orders', args: { n: 1 } }, logs: [] });
  });

  it('a short program finishes while another one spins in its own worker', async () => {
    workers = createSandboxRunner();
    const spinning = workers.run(
      'while (true) {}',
      echo,
      { ...LIMITS, wallTimeMs: 1_500 },
      new AbortController().signal,
    );
    const started = performance.now();
    const quick = await workers.run('return 1 + 1;', echo, LIMITS, new AbortController().signal);
    const quickMs = performance.now() - started;
    expect(quick).toEqual({ ok: true, value: 2, logs: [] });
    expect(await spinning).toMatchObject({ ok: false, limit: 'wall_time' });
    expect(quickMs).toBeLessThan(performance.now() - started);
  });

  it('cancelling a spinning program rejects at once with the signal reason, long before its wall time', async () => {
    workers = createSandboxRunner();
    const controller = new AbortController();
    const running = workers.run('while (true) {}', echo, LIMITS, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelledAt = performance.now();
    controller.abort(new Error('client cancelled'));
    await expect(running).rejects.toThrow('client cancelled');
    expect(performance.now() - cancelledAt).toBeLessThan(1_000);
    // the terminated worker is not reused: the next program gets a fresh one
    expect(await workers.run('return "again";', echo, LIMITS, new AbortController().signal)).toMatchObject({
      ok: true,
      value: 'again',
    });
  });

  it('runs at most maxWorkers programs at once: the next one starts when a worker frees', async () => {
    const runner = createSandboxRunner({ maxWorkers: 2 });
    workers = runner;
    const started: string[] = [];
    const held = new Map<string, () => void>();
    const hold: InnerCall = (name) => {
      started.push(name);
      return new Promise((resolve) => {
        held.set(name, () => {
          resolve({ value: name });
        });
      });
    };
    const until = async (check: () => boolean): Promise<void> => {
      while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const runs = ['a', 'b', 'c'].map((name) =>
      runner.run(`return await callTool('${name}', {});`, hold, LIMITS, new AbortController().signal),
    );
    await until(() => started.length === 2);
    // c waits for a worker while a and b hold theirs
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started.toSorted()).toEqual(['a', 'b']);
    held.get('a')?.();
    await until(() => started.length === 3);
    expect(started[2]).toBe('c');
    held.get('b')?.();
    held.get('c')?.();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c'].map((value) => ({ ok: true, value, logs: [] })));
  });

  it('a program cancelled while it waits for a worker rejects with the reason and never runs', async () => {
    workers = createSandboxRunner({ maxWorkers: 1 });
    const spinning = workers.run(
      'while (true) {}',
      echo,
      { ...LIMITS, wallTimeMs: 1_000 },
      new AbortController().signal,
    );
    const controller = new AbortController();
    const calls: string[] = [];
    const record: InnerCall = (name) => {
      calls.push(name);
      return Promise.resolve({ value: name });
    };
    const waiting = workers.run("return await callTool('waited', {});", record, LIMITS, controller.signal);
    // long enough for a worker of its own to have run it, well within the spinning one's wall time
    await new Promise((resolve) => setTimeout(resolve, 700));
    controller.abort(new Error('client cancelled'));
    await expect(waiting).rejects.toThrow('client cancelled');
    expect(await spinning).toMatchObject({ ok: false, limit: 'wall_time' });
    expect(
      await workers.run("return await callTool('next', {});", record, LIMITS, new AbortController().signal),
    ).toEqual({ ok: true, value: 'next', logs: [] });
    expect(calls).toEqual(['next']);
  });

  it('twenty inner calls in a row and twenty at once raise no MaxListenersExceededWarning', async () => {
    workers = createSandboxRunner();
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    };
    try {
      const outcome = await workers.run(
        "let n = 0;\nfor (let i = 0; i < 20; i += 1) n += (await callTool('count', {})).name.length;\nconst all = await Promise.all(Array.from({ length: 20 }, () => callTool('count', {})));\nreturn n + all.length;",
        echo,
        { ...LIMITS, innerCalls: 40 },
        new AbortController().signal,
      );
      expect(outcome).toEqual({ ok: true, value: 120, logs: [] });
      // the worker's stderr reaches this thread's asynchronously
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).not.toContain('MaxListenersExceededWarning');
  });

  it('an inner result reaches the code as its JSON: toJSON applied, a function dropped, a BigInt or a rejection a failure', async () => {
    workers = createSandboxRunner();
    const odd: InnerCall = (name) => {
      if (name === 'reject') return Promise.reject(new Error('the host gave up'));
      if (name === 'big') return Promise.resolve({ value: { count: 10n } });
      return Promise.resolve({ value: { when: new Date(0), format: () => 'x', price: { toJSON: () => '1.50' } } });
    };
    const outcome = await workers.run(
      "const odd = await callTool('odd', {});\nlet big;\ntry { big = await callTool('big', {}); } catch (e) { big = e.message; }\nlet rejected;\ntry { await callTool('reject', {}); } catch (e) { rejected = e.message; }\nreturn { odd, big, rejected };",
      odd,
      LIMITS,
      new AbortController().signal,
    );
    expect(outcome).toEqual({
      ok: true,
      value: {
        odd: { when: '1970-01-01T00:00:00.000Z', price: '1.50' },
        big: 'the result of big is not JSON',
        rejected: 'the host gave up',
      },
      logs: [],
    });
  });

  it("the watchdog counts from the code's start, not from the worker's: a fresh worker's load is not wall time", async () => {
    // without slack, a watchdog armed when the program was posted would fire while QuickJS loads
    workers = createSandboxRunner({ watchdogSlackMs: 0 });
    const limits = { ...LIMITS, wallTimeMs: 100 };
    expect(await workers.run('return "ran";', echo, limits, new AbortController().signal)).toEqual({
      ok: true,
      value: 'ran',
      logs: [],
    });
    expect(await workers.run('while (true) {}', echo, limits, new AbortController().signal)).toMatchObject({
      ok: false,
      limit: 'wall_time',
    });
  });
});
