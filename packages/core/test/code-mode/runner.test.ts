import { once } from 'node:events';
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { createSandboxRunner } from '../../src/code-mode/runner.js';
import type { SandboxWorkers } from '../../src/code-mode/runner.js';
import type { InnerCall } from '../../src/code-mode/sandbox.js';
import { createChanges } from '@mcp-envelope/testing';

// A minute of wall time: no test here waits for a wall-time limit on the real clock, so a loaded
// machine cannot end a run that the test meant to finish.
const LIMITS = { wallTimeMs: 60_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024, innerCalls: 10 };

const echo: InnerCall = (name, args) => Promise.resolve({ value: { name, args } });

/** An inner call `started` that resolves `reached` when the code makes it, and answers at once. */
function startSignal(): { call: InnerCall; reached: Promise<void> } {
  const gate: { open: () => void } = { open: () => undefined };
  const reached = new Promise<void>((resolve) => {
    gate.open = resolve;
  });
  return {
    reached,
    call: (name, args) => {
      if (name === 'started') gate.open();
      return Promise.resolve({ value: { name, args } });
    },
  };
}

// Every worker the runner starts, so that a test can wait for one to exit (and its stderr to arrive).
const created = vi.hoisted(() => ({ workers: [] as Worker[] }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const original = await importOriginal<typeof WorkerThreads>();
  class RecordedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args);
      created.workers.push(this);
    }
  }
  return { ...original, Worker: RecordedWorker };
});

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
    const controller = new AbortController();
    const spin = startSignal();
    const state = { spinningSettled: false };
    const spinning = workers.run(
      "await callTool('started', {});\nwhile (true) {}",
      spin.call,
      LIMITS,
      controller.signal,
    );
    void spinning
      .catch(() => undefined)
      .finally(() => {
        state.spinningSettled = true;
      });
    await spin.reached;
    const quick = await workers.run('return 1 + 1;', echo, LIMITS, new AbortController().signal);
    expect(quick).toEqual({ ok: true, value: 2, logs: [] });
    // the spinning one has a minute of wall time: it is still running, and is only stopped by its cancellation
    expect(state.spinningSettled).toBe(false);
    controller.abort(new Error('done'));
    await expect(spinning).rejects.toThrow('done');
  });

  it('cancelling a spinning program rejects at once with the signal reason, long before its wall time', async () => {
    workers = createSandboxRunner();
    const controller = new AbortController();
    const spin = startSignal();
    const running = workers.run(
      "await callTool('started', {});\nwhile (true) {}",
      spin.call,
      LIMITS,
      controller.signal,
    );
    await spin.reached;
    const cancelledAt = performance.now();
    controller.abort(new Error('client cancelled'));
    await expect(running).rejects.toThrow('client cancelled');
    // generous for a loaded machine, and still a sixth of the minute of wall time the program had
    expect(performance.now() - cancelledAt).toBeLessThan(10_000);
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
    const { changed, until } = createChanges();
    const hold: InnerCall = (name) => {
      started.push(name);
      changed();
      return new Promise((resolve) => {
        held.set(name, () => {
          resolve({ value: name });
        });
      });
    };
    const runs = ['a', 'b', 'c'].map((name) =>
      runner.run(`return await callTool('${name}', {});`, hold, LIMITS, new AbortController().signal),
    );
    await until(() => started.length === 2);
    // c waits for a worker while a and b hold theirs: it starts only once a is released
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
    const spinner = new AbortController();
    const spin = startSignal();
    const spinning = workers.run("await callTool('started', {});\nwhile (true) {}", spin.call, LIMITS, spinner.signal);
    await spin.reached;
    const controller = new AbortController();
    const calls: string[] = [];
    const record: InnerCall = (name) => {
      calls.push(name);
      return Promise.resolve({ value: name });
    };
    const waiting = workers.run("return await callTool('waited', {});", record, LIMITS, controller.signal);
    // a yardstick: the same program on a runner of its own, started now, has had a fresh worker
    // run it by the time it answers; a runner that did not make this one wait would have run it too
    const yardstick = createSandboxRunner({ maxWorkers: 1 });
    try {
      expect(
        await yardstick.run("return await callTool('yardstick', {});", echo, LIMITS, new AbortController().signal),
      ).toEqual({
        ok: true,
        value: { name: 'yardstick', args: {} },
        logs: [],
      });
    } finally {
      yardstick.close();
    }
    controller.abort(new Error('client cancelled'));
    await expect(waiting).rejects.toThrow('client cancelled');
    spinner.abort(new Error('spinning stopped'));
    await expect(spinning).rejects.toThrow('spinning stopped');
    expect(
      await workers.run("return await callTool('next', {});", record, LIMITS, new AbortController().signal),
    ).toEqual({ ok: true, value: 'next', logs: [] });
    expect(calls).toEqual(['next']);
  });

  it('twenty inner calls in a row and twenty at once raise no MaxListenersExceededWarning', async () => {
    workers = createSandboxRunner();
    const before = created.workers.length;
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
      // the worker's stderr reaches this thread's asynchronously, and all of it before its exit event
      const exits = created.workers.slice(before).map((worker) => once(worker, 'exit'));
      workers.close();
      await Promise.all(exits);
      await new Promise((resolve) => setImmediate(resolve));
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

  it("the watchdog counts from the code's start, not from the program's posting: a fresh worker's load is not wall time", async () => {
    // This thread's clock is the test's: the watchdog fires only when the test moves it, however
    // slowly a loaded machine starts the worker or runs the code. The worker keeps its real clock,
    // and the minute of wall time it counts itself is never reached.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      workers = createSandboxRunner({ watchdogSlackMs: 0 });
      const limits = { ...LIMITS, wallTimeMs: 10_000 };
      const first = startSignal();
      const ran = workers.run(
        "await callTool('started', {});\nreturn 'ran';",
        first.call,
        limits,
        new AbortController().signal,
      );
      // posted: the startup limit (30 s) is armed; the worker cannot have started the code, since
      // its messages arrive on the event loop, which this loop does not yield to
      for (let tick = 0; tick < 100 && vi.getTimerCount() === 0; tick += 1) await Promise.resolve();
      expect(vi.getTimerCount()).toBe(1);
      // 15 s while the worker loads: a watchdog armed at posting (10 s) would stop the run here
      vi.advanceTimersByTime(15_000);
      // a watchdog that fired ends the run before the code starts
      await Promise.race([first.reached, ran]);
      vi.advanceTimersByTime(9_000);
      expect(await ran).toEqual({ ok: true, value: 'ran', logs: [] });
      // counted from the code's start, the watchdog stops a program that outlives its wall time
      const second = startSignal();
      const stuck = workers.run(
        "await callTool('started', {});\nwhile (true) {}",
        second.call,
        limits,
        new AbortController().signal,
      );
      await second.reached;
      vi.advanceTimersByTime(9_999);
      vi.advanceTimersByTime(1);
      expect(await stuck).toEqual({
        ok: false,
        limit: 'wall_time',
        detail: 'the code ran longer than the 10000 ms wall-time limit and its worker was stopped',
        logs: [],
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
