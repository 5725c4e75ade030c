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
});
