/**
 * The runner's queue between sessions, on real workers: programs hold a worker on an inner call
 * the test answers, so which program starts next depends on the queue alone, never on the clock.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { SessionRunsExceededError } from '../../src/code-mode/fair-slots.js';
import { createSandboxRunner } from '../../src/code-mode/runner.js';
import type { SandboxWorkers } from '../../src/code-mode/runner.js';
import type { InnerCall } from '../../src/code-mode/sandbox.js';

const LIMITS = { wallTimeMs: 60_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024, innerCalls: 10 };

/** Inner calls that wait for the test: `started` lists them in start order, `release(name)` answers one. */
function holdingCalls(): {
  call: InnerCall;
  started: string[];
  release(name: string): void;
  until(count: number): Promise<void>;
  untilStarted(name: string): Promise<void>;
} {
  const started: string[] = [];
  const held = new Map<string, () => void>();
  const waiters: (() => void)[] = [];
  return {
    started,
    call: (name) => {
      started.push(name);
      for (const wake of waiters.splice(0)) wake();
      return new Promise((resolve) => {
        held.set(name, () => {
          resolve({ value: name });
        });
      });
    },
    release: (name) => held.get(name)?.(),
    // woken by each start, so it waits for the queue and never for a timer
    until: async (count) => {
      while (started.length < count) await new Promise<void>((wake) => waiters.push(wake));
    },
    untilStarted: async (name) => {
      while (!started.includes(name)) await new Promise<void>((wake) => waiters.push(wake));
    },
  };
}

const program = (name: string): string => `return await callTool('${name}', {});`;

let workers: SandboxWorkers | undefined;

afterEach(() => {
  workers?.close();
  workers = undefined;
});

describe('the sandbox queue between sessions', () => {
  it('a freed worker goes to the waiting session with none running, ahead of a greedy session queued earlier', async () => {
    workers = createSandboxRunner({ maxWorkers: 2 });
    const runner = workers;
    const hold = holdingCalls();
    const greedy = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((name) =>
      runner.run(program(name), hold.call, LIMITS, new AbortController().signal, 'session-a'),
    );
    await hold.until(2);
    const other = runner.run(program('b1'), hold.call, LIMITS, new AbortController().signal, 'session-b');
    hold.release('a1');
    await hold.until(3);
    // first come first served would have started a3 here
    expect(hold.started.slice(0, 2).toSorted()).toEqual(['a1', 'a2']);
    expect(hold.started[2]).toBe('b1');
    hold.release('b1');
    expect(await other).toEqual({ ok: true, value: 'b1', logs: [] });
    for (const name of ['a2', 'a3', 'a4', 'a5', 'a6']) {
      await hold.untilStarted(name);
      hold.release(name);
    }
    expect((await Promise.all(greedy)).map((outcome) => outcome.ok && outcome.value)).toEqual([
      'a1',
      'a2',
      'a3',
      'a4',
      'a5',
      'a6',
    ]);
  });

  it('refuses a session past maxSessionRuns queued or running at once, while another session is still queued', async () => {
    workers = createSandboxRunner({ maxWorkers: 1, maxSessionRuns: 3 });
    const runner = workers;
    const hold = holdingCalls();
    const accepted = ['a1', 'a2', 'a3'].map((name) =>
      runner.run(program(name), hold.call, LIMITS, new AbortController().signal, 'session-a'),
    );
    await hold.until(1);
    const refused = runner.run(program('a4'), hold.call, LIMITS, new AbortController().signal, 'session-a');
    await expect(refused).rejects.toBeInstanceOf(SessionRunsExceededError);
    await expect(refused).rejects.toMatchObject({ limit: 3 });
    const other = runner.run(program('b1'), hold.call, LIMITS, new AbortController().signal, 'session-b');
    hold.release('a1');
    await hold.until(2);
    expect(hold.started).toEqual(['a1', 'b1']);
    hold.release('b1');
    expect(await other).toMatchObject({ ok: true, value: 'b1' });
    // a run that ended makes room again: session-a may queue one more
    const again = runner.run(program('a5'), hold.call, LIMITS, new AbortController().signal, 'session-a');
    for (const name of ['a2', 'a3', 'a5']) {
      await hold.until(hold.started.length + 1);
      expect(hold.started.at(-1)).toBe(name);
      hold.release(name);
    }
    expect(await again).toMatchObject({ ok: true, value: 'a5' });
    expect((await Promise.all(accepted)).map((outcome) => outcome.ok)).toEqual([true, true, true]);
  });

  it('a cancelled waiting run leaves its queue at once and frees its place under the session cap', async () => {
    workers = createSandboxRunner({ maxWorkers: 1, maxSessionRuns: 2 });
    const runner = workers;
    const hold = holdingCalls();
    const first = runner.run(program('a1'), hold.call, LIMITS, new AbortController().signal, 'session-a');
    await hold.until(1);
    const controller = new AbortController();
    const waiting = runner.run(program('a2'), hold.call, LIMITS, controller.signal, 'session-a');
    controller.abort(new Error('client cancelled'));
    await expect(waiting).rejects.toThrow('client cancelled');
    const next = runner.run(program('a3'), hold.call, LIMITS, new AbortController().signal, 'session-a');
    hold.release('a1');
    await hold.until(2);
    expect(hold.started).toEqual(['a1', 'a3']);
    hold.release('a3');
    expect(await next).toMatchObject({ ok: true, value: 'a3' });
    expect(await first).toMatchObject({ ok: true, value: 'a1' });
  });
});
