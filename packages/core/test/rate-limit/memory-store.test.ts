import { afterEach, describe, expect, it } from 'vitest';

import { createMemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import type { MemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';

const PLAN = { ratePerSecond: 2, burst: 3 };

describe('memory rate limit store', () => {
  const clock = { ms: 1_000_000 };
  const stores: MemoryRateLimitStore[] = [];
  const open = (initialTokens: 'full' | 'empty' = 'full'): MemoryRateLimitStore => {
    const store = createMemoryRateLimitStore({ now: () => clock.ms, sweepIntervalMs: 0, initialTokens });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    clock.ms = 1_000_000;
  });

  it('starts full, grants burst tokens, then refuses with the time the next token is due', async () => {
    const store = open();
    const takes = [];
    for (let index = 0; index < 3; index += 1) takes.push(await store.take('k', PLAN, 0));
    expect(takes.map((take) => [take.granted, take.waitMs, take.remaining])).toEqual([
      [true, 0, 2],
      [true, 0, 1],
      [true, 0, 0],
    ]);
    const refused = await store.take('k', PLAN, 0);
    expect(refused).toEqual({
      granted: false,
      waitMs: 500,
      remaining: 0,
      resetAtMs: 1_000_000 + 1500,
      resetAfterMs: 1500,
    });
  });

  it('refills by elapsed time, never above burst', async () => {
    const store = open();
    for (let index = 0; index < 3; index += 1) await store.take('k', PLAN, 0);
    clock.ms += 500;
    expect((await store.take('k', PLAN, 0)).granted).toBe(true);
    expect((await store.take('k', PLAN, 0)).granted).toBe(false);
    clock.ms += 60_000;
    expect(await store.take('k', PLAN, 0)).toMatchObject({ granted: true, remaining: 2 });
  });

  it('reserves a token due within max wait, queueing later callers behind it', async () => {
    const store = open();
    for (let index = 0; index < 3; index += 1) await store.take('k', PLAN, 2000);
    const first = await store.take('k', PLAN, 2000);
    const second = await store.take('k', PLAN, 2000);
    expect([first.granted, first.waitMs, second.granted, second.waitMs]).toEqual([true, 500, true, 1000]);
    // the debt is -2 tokens now: the next token is 1500 ms away, past a 1200 ms wait
    expect(await store.take('k', PLAN, 1200)).toMatchObject({ granted: false, waitMs: 1500 });
  });

  it('refunds one token, never above burst', async () => {
    const store = open();
    await store.take('k', PLAN, 0);
    await store.refund('k', PLAN);
    await store.refund('k', PLAN);
    expect((await store.take('k', PLAN, 0)).remaining).toBe(2);
  });

  it('drains a bucket so that its next token is due after the wait', async () => {
    const store = open();
    await store.drain('k', PLAN, 3000);
    expect(await store.take('k', PLAN, 0)).toMatchObject({ granted: false, waitMs: 3000 });
    clock.ms += 3000;
    expect(await store.take('k', PLAN, 0)).toMatchObject({ granted: true, waitMs: 0 });
  });

  it('keeps buckets of different keys apart', async () => {
    const store = open();
    for (let index = 0; index < 3; index += 1) await store.take('a', PLAN, 0);
    expect((await store.take('a', PLAN, 0)).granted).toBe(false);
    expect((await store.take('b', PLAN, 0)).granted).toBe(true);
  });

  it('starts buckets empty when asked to (a fallback store)', async () => {
    const store = open('empty');
    expect(await store.take('k', PLAN, 0)).toMatchObject({ granted: false, waitMs: 500 });
  });

  it('treats an expired bucket as full even when buckets start empty', async () => {
    const store = open('empty');
    expect((await store.take('k', PLAN, 0)).granted).toBe(false);
    clock.ms += 500;
    expect((await store.take('k', PLAN, 0)).granted).toBe(true);
    clock.ms += 10_000;
    expect(await store.take('k', PLAN, 0)).toMatchObject({ granted: true, remaining: 2 });
  });

  it('reclaims buckets once they are full again, and only those', async () => {
    const store = open();
    for (let index = 0; index < 1000; index += 1) await store.take(`idle-${index}`, PLAN, 0);
    await store.drain('drained', PLAN, 10_000);
    expect(store.size()).toBe(1001);
    clock.ms += 499;
    expect(store.sweep()).toBe(0);
    clock.ms += 1;
    expect(store.sweep()).toBe(1000);
    expect(store.size()).toBe(1);
  });
});
