/**
 * The concurrency guard's settings, its counting and retry estimate on a test clock, and the
 * limiter token a refused call gives back (in process, a real SDK client over the in-memory
 * transport). The storm against a real server process is busy-wire.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createConcurrencyGuard, CONCURRENCY_DEFAULTS, resolveConcurrencySettings } from '../src/concurrency.js';
import type { BusyRefusal, ConcurrencySlot } from '../src/concurrency.js';
import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { createMemoryRateLimitStore } from '../src/rate-limit/memory-store.js';
import type { MemoryRateLimitStore } from '../src/rate-limit/memory-store.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

describe('resolveConcurrencySettings', () => {
  it('defaults to 32 calls in all and 8 per tool; env values are read trimmed; options win', () => {
    expect(CONCURRENCY_DEFAULTS).toEqual({ MCP_MAX_CONCURRENT_CALLS: 32, MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 8 });
    expect(Object.isFrozen(CONCURRENCY_DEFAULTS)).toBe(true);
    expect(resolveConcurrencySettings({}, {})).toEqual(CONCURRENCY_DEFAULTS);
    expect(
      resolveConcurrencySettings({ MCP_MAX_CONCURRENT_CALLS: ' 100 ', MCP_MAX_CONCURRENT_CALLS_PER_TOOL: '' }, {}),
    ).toEqual({ MCP_MAX_CONCURRENT_CALLS: 100, MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 8 });
    expect(
      resolveConcurrencySettings(
        { MCP_MAX_CONCURRENT_CALLS: 'many', MCP_MAX_CONCURRENT_CALLS_PER_TOOL: '2' },
        { maxConcurrentCalls: 3, maxConcurrentCallsPerTool: 1 },
      ),
    ).toEqual({ MCP_MAX_CONCURRENT_CALLS: 3, MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 1 });
  });

  it.each(['0', '-1', '1.5', '1e3', 'many', '100001', '0x10'])(
    'stops the server at start for %j, naming the variable',
    (raw) => {
      expect(() => resolveConcurrencySettings({ MCP_MAX_CONCURRENT_CALLS_PER_TOOL: raw }, {})).toThrow(
        'MCP_MAX_CONCURRENT_CALLS_PER_TOOL must be an integer from 1 to 100000 (calls in flight)',
      );
    },
  );

  it.each([0, -1, 2.5, Number.NaN, 100_001])('refuses the option %d', (value) => {
    expect(() => resolveConcurrencySettings({}, { maxConcurrentCalls: value })).toThrow(
      'the option for MCP_MAX_CONCURRENT_CALLS must be an integer from 1 to 100000',
    );
  });

  it('createEnvelopeServer refuses an unreadable bound at start', () => {
    expect(() =>
      createEnvelopeServer({
        info: { name: 't', version: '0.0.1' },
        adapter: testAdapter,
        tools: [],
        options: { env: { MCP_MAX_CONCURRENT_CALLS: 'unlimited' }, logger: captureLog().logger },
      }),
    ).toThrow('MCP_MAX_CONCURRENT_CALLS must be an integer from 1 to 100000 (calls in flight)');
  });
});

describe('createConcurrencyGuard', () => {
  const slot = (entered: ConcurrencySlot | BusyRefusal): ConcurrencySlot => {
    if (entered.busy) throw new Error('expected a slot');
    return entered;
  };

  it('admits up to the per-tool bound and the server bound, refuses the next at once, and counts back to 0', () => {
    const guard = createConcurrencyGuard(
      { MCP_MAX_CONCURRENT_CALLS: 3, MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 2 },
      () => 0,
    );
    const a1 = slot(guard.enter('a'));
    const a2 = slot(guard.enter('a'));
    expect(guard.enter('a')).toEqual({ busy: true, scope: 'tool', limit: 2, retryAfterSeconds: 1 });
    const b1 = slot(guard.enter('b'));
    expect(guard.enter('b')).toEqual({ busy: true, scope: 'server', limit: 3, retryAfterSeconds: 1 });
    expect(guard.inFlight).toBe(3);
    a1.release();
    // a second release of the same slot frees nothing more
    a1.release();
    expect(guard.inFlight).toBe(2);
    slot(guard.enter('b')).release();
    for (const held of [a2, b1]) held.release();
    expect(guard.inFlight).toBe(0);
  });

  it('tells a refused call the median of the recent durations, rounded up to 0.1 s, between 0.1 and 10 s', () => {
    const clock = { ms: 0 };
    const guard = createConcurrencyGuard(
      { MCP_MAX_CONCURRENT_CALLS: 10, MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 1 },
      () => clock.ms,
    );
    const runFor = (tool: string, ms: number): void => {
      const held = slot(guard.enter(tool));
      clock.ms += ms;
      held.release();
    };
    const waitFor = (tool: string): number => {
      const held = slot(guard.enter(tool));
      const refused = guard.enter(tool);
      held.release();
      if (!refused.busy) throw new Error('expected a refusal');
      return refused.retryAfterSeconds;
    };
    for (const ms of [300, 120, 5000]) runFor('a', ms);
    // each waitFor is itself a call of 0 ms, so the history read is the one before it
    expect(waitFor('a')).toBe(0.3);
    runFor('fast', 20);
    expect(waitFor('fast')).toBe(0.1);
    runFor('slow', 60_000);
    expect(waitFor('slow')).toBe(10);
    // only the last 16 durations count: 16 calls of 2 s push the older ones out
    for (let index = 0; index < 16; index += 1) runFor('a', 2000);
    expect(waitFor('a')).toBe(2);
  });
});

describe('a call refused as busy gives its limiter token back', () => {
  const open: { connected?: Connected; store?: MemoryRateLimitStore } = {};
  afterEach(async () => {
    await open.connected?.close();
    await open.store?.close();
  });

  it('with a burst of 2 and the clock standing still, a third call still gets the token the busy one returned', async () => {
    const gate = { open: (): void => undefined, entered: (): void => undefined };
    const entered = new Promise<void>((resolve) => {
      gate.entered = resolve;
    });
    const opened = new Promise<void>((resolve) => {
      gate.open = resolve;
    });
    const tool: EnvelopeTool = {
      name: 'held',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      rateLimit: { ratePerSecond: 1, burst: 2 },
      handler: async () => {
        gate.entered();
        await opened;
        return { done: true };
      },
    };
    open.store = createMemoryRateLimitStore({ now: () => 0, sweepIntervalMs: 0 });
    const server = createEnvelopeServer({
      info: { name: 'refund-test', version: '0.0.1' },
      adapter: testAdapter,
      tools: [tool],
      options: {
        env: {},
        logger: captureLog().logger,
        rateLimitStore: open.store,
        rateLimitMaxWaitMs: 0,
        maxConcurrentCallsPerTool: 1,
      },
    });
    open.connected = await connectInMemory(server);
    const { client } = open.connected;
    const first = client.callTool({ name: 'held', arguments: {} });
    await entered;
    const busy = await client.callTool({ name: 'held', arguments: {} });
    expect(busy.structuredContent).toMatchObject({ error_code: 'SERVER_BUSY', details: [{ scope: 'tool', limit: 1 }] });
    gate.open();
    expect((await first).structuredContent).toEqual({ done: true });
    // two tokens, two calls admitted by the limiter: the second only because the busy call gave its token back
    expect((await client.callTool({ name: 'held', arguments: {} })).structuredContent).toEqual({ done: true });
    expect((await client.callTool({ name: 'held', arguments: {} })).structuredContent).toMatchObject({
      error_code: 'RATE_LIMITED',
    });
  });
});
