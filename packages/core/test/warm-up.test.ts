import { setTimeout as turn } from 'node:timers/promises';

import type * as Contract from '@mcp-envelope/contract';
import type { EnvelopeValidation } from '@mcp-envelope/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { compileTool, createPipelineCaches } from '../src/arguments/index.js';
import { createEnvelopeServer } from '../src/index.js';
import type { PipelineCaches } from '../src/arguments/index.js';
import { createWarmUp, serverWarmUpSteps, WARM_UP_QUIET_MS } from '../src/warm-up.js';
import { connectInMemory } from './fixtures/connect.js';
import { testAdapter } from './fixtures/test-adapter.js';

/** What each `validateEnvelope` call of this file returned: the real function, recorded. */
const validations = vi.hoisted((): EnvelopeValidation[] => []);

vi.mock('@mcp-envelope/contract', async (importOriginal) => {
  const contract = await importOriginal<typeof Contract>();
  return {
    ...contract,
    validateEnvelope: (value: unknown): EnvelopeValidation => {
      const validation = contract.validateEnvelope(value);
      validations.push(validation);
      return validation;
    },
  };
});

/** Real pipeline caches whose compiler records each meta-schema check it runs. */
function recordingCaches(): { caches: PipelineCaches; checked: unknown[] } {
  const caches = createPipelineCaches();
  const checked: unknown[] = [];
  const check = caches.compiler.metaSchemaProblem.bind(caches.compiler);
  caches.compiler.metaSchemaProblem = (schema) => {
    checked.push(schema);
    return check(schema);
  };
  return { caches, checked };
}

/** Steps that record their number when they run. */
function numberedSteps(count: number, ran: number[]): (() => void)[] {
  return Array.from({ length: count }, (_, index) => () => {
    ran.push(index);
  });
}

/** Lets `count` zero-delay timers fire. */
async function turns(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await turn(0);
}

describe('warm-up on idle', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one step per timer turn after start, in order, once however often start is called', async () => {
    const ran: number[] = [];
    const warmUp = createWarmUp(() => numberedSteps(3, ran));
    warmUp.start();
    warmUp.start();
    expect(ran).toEqual([]);
    await turn(0);
    expect(ran).toEqual([0]);
    await turns(4);
    expect(ran).toEqual([0, 1, 2]);
    warmUp.start();
    await turns(2);
    expect(ran).toEqual([0, 1, 2]);
  });

  it('starts no step once the steps have spent the CPU budget', async () => {
    const ran: number[] = [];
    const warmUp = createWarmUp(() => numberedSteps(5, ran), { budgetMs: 0 });
    warmUp.start();
    await turns(6);
    expect(ran).toEqual([0]);
  });

  it('does nothing when cancelled before its turn, and runs no further step when cancelled between two', async () => {
    const early: number[] = [];
    const cancelledEarly = createWarmUp(() => numberedSteps(3, early));
    cancelledEarly.start();
    cancelledEarly.cancel();
    await turns(4);
    expect(early).toEqual([]);
    const late: number[] = [];
    const cancelledLate = createWarmUp(() => numberedSteps(3, late));
    cancelledLate.start();
    await turn(0);
    cancelledLate.cancel();
    await turns(4);
    expect(late).toEqual([0]);
  });

  it('runs no step while calls are running, and goes on once they have finished', async () => {
    vi.useFakeTimers();
    const ran: number[] = [];
    const running = { calls: 1 };
    const warmUp = createWarmUp(() => numberedSteps(2, ran), { busy: () => running.calls > 0 });
    warmUp.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran).toEqual([]);
    running.calls = 0;
    // it looks again every 20 ms, then runs one step per timer turn (a zero delay is 1 ms in Node)
    await vi.advanceTimersByTimeAsync(20);
    expect(ran).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual([0, 1]);
  });

  it('runs no step when started after it was cancelled, as by a tools/list that reaches a closed server', async () => {
    vi.useFakeTimers();
    const ran: number[] = [];
    const warmUp = createWarmUp(() => numberedSteps(2, ran));
    warmUp.cancel();
    warmUp.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(ran).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('runs no step after one during which it was cancelled', async () => {
    vi.useFakeTimers();
    const ran: number[] = [];
    const warmUp = createWarmUp(() => [
      () => {
        ran.push(0);
        // the server closes while this step runs
        warmUp.cancel();
      },
      () => ran.push(1),
    ]);
    warmUp.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(ran).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  describe('with a quiet time', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('runs its first step only once the quiet time has passed since start', async () => {
      vi.useFakeTimers();
      const ran: number[] = [];
      const warmUp = createWarmUp(() => numberedSteps(2, ran), { quietMs: 50 });
      warmUp.start();
      await vi.advanceTimersByTimeAsync(49);
      expect(ran).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([0]);
      // the next step on the next timer turn (a zero delay is 1 ms in Node)
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([0, 1]);
    });

    it('runs no step while requests keep arriving within the quiet time, and goes on after a pause', async () => {
      vi.useFakeTimers();
      const ran: number[] = [];
      const warmUp = createWarmUp(() => numberedSteps(3, ran), { quietMs: 50 });
      warmUp.start();
      await vi.advanceTimersByTimeAsync(50);
      expect(ran).toEqual([0]);
      // a client calling every 10 ms, as one working through its calls does
      for (let call = 0; call < 20; call += 1) {
        warmUp.postpone();
        await vi.advanceTimersByTimeAsync(10);
      }
      expect(ran).toEqual([0]);
      await vi.advanceTimersByTimeAsync(39);
      expect(ran).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([0, 1]);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([0, 1, 2]);
    });
  });

  it('skips a step that throws and runs the next', async () => {
    const ran: string[] = [];
    const warmUp = createWarmUp(() => [
      () => {
        throw new TypeError('broken schema');
      },
      () => ran.push('next'),
    ]);
    warmUp.start();
    await turns(3);
    expect(ran).toEqual(['next']);
  });
});

describe('a server warm-up', () => {
  it('compiles the meta-schema, then each tool in order through a check of no arguments', async () => {
    const { caches, checked } = recordingCaches();
    const options = { normalizationEnabled: true, strictUnknownFields: true, caches, compile: 'deferred' } as const;
    const broken = compileTool('broken', { type: 'object', properties: { id: { type: 'no-such-type' } } }, options);
    const checkedTools: string[] = [];
    const tool = compileTool(
      'orders',
      { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      options,
    );
    const recording = (name: string, compiled: typeof tool) => ({
      check: (args: unknown) => {
        checkedTools.push(name);
        return compiled.check(args);
      },
    });
    const warmUp = createWarmUp(
      () => serverWarmUpSteps(caches, [recording('broken', broken), recording('orders', tool)]),
      { budgetMs: Number.POSITIVE_INFINITY },
    );
    validations.length = 0;
    warmUp.start();
    await turns(8);
    // the envelope step reached a version's validator (compiling it), not the refusal of an unversioned value
    expect(validations).toEqual([{ valid: false, version: 2, errors: expect.any(Array) }]);
    expect(checked).toEqual([{}]);
    // the broken schema's step failed and was skipped; the next tool still compiled
    expect(checkedTools).toEqual(['broken', 'orders']);
    expect(() => broken.check({})).toThrow(TypeError);
    expect(tool.check({ id: 'A1' })).toMatchObject({ ok: true, args: { id: 'A1' } });
  });
});

describe("a server's own warm-up work (EnvelopeServerOptions.warmUp)", () => {
  it('runs first among the steps, and its rejection is swallowed', async () => {
    const order: string[] = [];
    const { caches } = recordingCaches();
    const compiled = compileTool(
      'orders',
      { type: 'object' },
      { normalizationEnabled: true, strictUnknownFields: true },
    );
    const tool = {
      check: (args: unknown) => {
        order.push('tool');
        return compiled.check(args);
      },
    };
    const steps = [
      ...serverWarmUpSteps(caches, [tool], () => {
        order.push('prepare');
        return Promise.reject(new Error('token endpoint down'));
      }),
    ];
    expect(steps).toHaveLength(5);
    const prepared = (steps[0] as () => unknown)();
    expect(order).toEqual(['prepare']);
    // the rejection became an undefined value, not an unhandled rejection
    await expect(prepared).resolves.toBeUndefined();
    (steps[4] as () => unknown)();
    expect(order).toEqual(['prepare', 'tool']);
  });

  it('runs once, after the first tools/list, before any tool is called; a failing one leaves calls alone', async () => {
    const runs: number[] = [];
    const signals: AbortSignal[] = [];
    const server = createEnvelopeServer({
      info: { name: 'warm-up-test', version: '0.0.0' },
      adapter: testAdapter,
      tools: [{ name: 'echo', inputSchema: { type: 'object' }, handler: () => ({ ok: true, runs: runs.length }) }],
      options: {
        env: {},
        warmUp: (signal) => {
          runs.push(Date.now());
          signals.push(signal);
          throw new Error('the warm-up failed');
        },
      },
    });
    const connected = await connectInMemory(server);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await vi.advanceTimersByTimeAsync(WARM_UP_QUIET_MS * 2);
      expect(runs).toHaveLength(0);
      await connected.client.listTools();
      await connected.client.listTools();
      await vi.advanceTimersByTimeAsync(WARM_UP_QUIET_MS - 1);
      expect(runs).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(runs).toHaveLength(1);
      vi.useRealTimers();
      const result = await connected.client.callTool({ name: 'echo', arguments: {} });
      expect(result.structuredContent).toEqual({ ok: true, runs: 1 });
      expect(signals[0]?.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
      await connected.close();
    }
    // closing the server aborts what the warm-up may still be waiting for
    expect(signals[0]?.aborted).toBe(true);
  });
});
