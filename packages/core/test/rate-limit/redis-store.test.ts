import { startRedisServer } from '@mcp-envelope/testing';
import type { RedisServer } from '@mcp-envelope/testing';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRedisRateLimitStore, REDIS_RATE_LIMIT_KEY_PREFIX } from '../../src/rate-limit/redis-store.js';
import type { EnvelopeLogger } from '../../src/logger.js';
import type { RateLimitStore } from '../../src/rate-limit/store.js';
import { createChanges } from '@mcp-envelope/testing';
import type { Changes } from '@mcp-envelope/testing';

interface LogLine {
  readonly level: 'error' | 'warn';
  readonly details: Record<string, unknown>;
  readonly message: string;
}

function capturingLogger(): { lines: LogLine[]; logger: EnvelopeLogger; until: Changes['until'] } {
  const lines: LogLine[] = [];
  const { changed, until } = createChanges();
  return {
    lines,
    until,
    logger: {
      error: (details, message) => {
        lines.push({ level: 'error', details, message });
        changed();
      },
      warn: (details, message) => {
        lines.push({ level: 'warn', details, message });
        changed();
      },
    },
  };
}

/**
 * Resolves once Redis has expired `key`, told by its keyspace notification: the tests wait on
 * Redis's own clock, which this process cannot move, by an event instead of a sleep.
 */
async function expiredInRedis(key: string): Promise<void> {
  const subscriber = new Redis(redis.url);
  try {
    await subscriber.subscribe('__keyevent@0__:expired');
    const expired = new Promise<void>((resolve) => {
      subscriber.on('message', (_channel: string, name: string) => {
        if (name === key) resolve();
      });
    });
    if ((await inspector.exists(key)) === 1) await expired;
  } finally {
    subscriber.disconnect();
  }
}

/** Resolves once `ms` milliseconds have passed on Redis's clock: a marker key with that TTL expired. */
async function redisTimePasses(ms: number): Promise<void> {
  const marker = `${freshKey()}:marker`;
  await inspector.set(marker, '1', 'PX', ms);
  await expiredInRedis(marker);
}

/**
 * The stores under test get `MCP_RATE_LIMIT_STORE_TIMEOUT_MS` = 5 s (connect 2.5 s, command
 * 1.25 s) instead of the default 1 s: what they assert is the buckets' arithmetic, and a loaded
 * two-core machine can hold a loopback round trip past the default's 250 ms command deadline.
 */
const LOADED_TIMEOUT_MS = 5000;

let redis: RedisServer;
let store: RateLimitStore;
let inspector: Redis;
let keyCounter = 0;
/** A key no other test uses. */
const freshKey = (): string => `test:${process.pid}:${(keyCounter += 1)}`;

beforeAll(async () => {
  redis = await startRedisServer();
  store = createRedisRateLimitStore(redis.url, { logger: capturingLogger().logger, timeoutMs: LOADED_TIMEOUT_MS });
  inspector = new Redis(redis.url);
  // expired keys announce themselves, so a test can wait for Redis's clock without sleeping
  await inspector.config('SET', 'notify-keyspace-events', 'Ex');
});
afterAll(async () => {
  await store.close();
  inspector.disconnect();
  await redis.stop();
});

describe('Redis rate-limit store', () => {
  it('grants a fresh bucket its burst, then refuses with the time the next token is due', async () => {
    const key = freshKey();
    const plan = { ratePerSecond: 1, burst: 3 };
    const before = Date.now();
    const takes = [];
    for (let index = 0; index < 4; index += 1) takes.push(await store.take(key, plan, 0));
    expect(takes.map((take) => [take.granted, take.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(takes.slice(0, 3).map((take) => take.waitMs)).toEqual([0, 0, 0]);
    const refused = takes[3];
    const took = Date.now() - before;
    // Redis's clock and ours are the same machine's: the bucket refilled for as long as the takes
    // took (however loaded the machine), so the next token is that much less than 1 s away
    // (1 ms of slack each way for the whole milliseconds both clocks count in)
    expect(refused?.waitMs).toBeGreaterThanOrEqual(1000 - took - 1);
    expect(refused?.waitMs).toBeLessThanOrEqual(1000);
    // three tokens short at one per second: full again 3 s after the first take (same slack)
    expect(refused?.resetAtMs).toBeGreaterThanOrEqual(before + 3000 - 1);
    expect(refused?.resetAtMs).toBeLessThanOrEqual(Date.now() + 3000 + 1);
  });

  it('refills by time on Redis clock, never above the burst', async () => {
    const key = freshKey();
    // a token every 500 ms: the refusal below needs the two takes within that interval, slack for
    // a loaded two-core machine (at 50 ms a take was seen to come late and find a new token)
    const plan = { ratePerSecond: 2, burst: 1 };
    expect((await store.take(key, plan, 0)).granted).toBe(true);
    const refused = await store.take(key, plan, 0);
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(0);
    expect(refused.waitMs).toBeLessThanOrEqual(500);
    // two intervals on Redis's clock: an uncapped bucket would hold two tokens by now, or more
    await redisTimePasses(1000);
    const refilled = await store.take(key, plan, 0);
    expect(refilled.granted).toBe(true);
    // burst 1: however long the wait was, the bucket held one token only, so none is left
    expect(refilled.remaining).toBe(0);
  });

  it('reserves a token due within the wait allowed, queueing reservations one interval apart', async () => {
    const key = freshKey();
    const plan = { ratePerSecond: 2, burst: 1 };
    const takes = [];
    for (let index = 0; index < 4; index += 1) takes.push(await store.take(key, plan, 1000));
    expect(takes.map((take) => take.granted)).toEqual([true, true, true, false]);
    const waits = takes.map((take) => take.waitMs);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThan(400);
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[2]).toBeGreaterThan(900);
    expect(waits[2]).toBeLessThanOrEqual(1000);
    // refused: its token would come 1.5 s out, past the 1 s allowed
    expect(waits[3]).toBeGreaterThan(1400);
    expect(waits[3]).toBeLessThanOrEqual(1500);
  });

  it('refunds a token but never fills a bucket above its burst', async () => {
    const key = freshKey();
    const plan = { ratePerSecond: 0.001, burst: 2 };
    expect((await store.take(key, plan, 0)).remaining).toBe(1);
    await store.refund(key, plan);
    await store.refund(key, plan);
    await store.refund(key, plan);
    const takes = [];
    for (let index = 0; index < 3; index += 1) takes.push((await store.take(key, plan, 0)).granted);
    expect(takes).toEqual([true, true, false]);
    // a refund to a bucket Redis does not hold (full already) creates no key
    const untouched = freshKey();
    await store.refund(untouched, plan);
    expect(await inspector.exists(REDIS_RATE_LIMIT_KEY_PREFIX + untouched)).toBe(0);
  });

  it('drains a bucket so that its next token is due when the upstream said', async () => {
    const key = freshKey();
    const plan = { ratePerSecond: 1, burst: 5 };
    await store.drain(key, plan, 3000);
    const refused = await store.take(key, plan, 0);
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(2900);
    expect(refused.waitMs).toBeLessThanOrEqual(3000);
    const reserved = await store.take(key, plan, 5000);
    expect(reserved.granted).toBe(true);
    expect(reserved.waitMs).toBeGreaterThan(2900);
    expect(reserved.waitMs).toBeLessThanOrEqual(3000);
  });

  it('grants exactly the burst to 200 concurrent takes from two clients', async () => {
    const other = createRedisRateLimitStore(redis.url, {
      logger: capturingLogger().logger,
      timeoutMs: LOADED_TIMEOUT_MS,
    });
    try {
      // connected before the burst, so the burst does not share the store's first-connect
      // deadline with a loaded machine's slow connect
      expect((await other.take(freshKey(), { ratePerSecond: 1, burst: 1 }, 0)).granted).toBe(true);
      const key = freshKey();
      const plan = { ratePerSecond: 0.001, burst: 37 };
      const takes = await Promise.all(
        Array.from({ length: 200 }, (_, index) => (index % 2 === 0 ? store : other).take(key, plan, 0)),
      );
      expect(takes.filter((take) => take.granted)).toHaveLength(37);
      expect(takes.filter((take) => !take.granted)).toHaveLength(163);
    } finally {
      await other.close();
    }
  });

  it('rejects a plan that cannot describe a bucket, before calling Redis', async () => {
    await expect(store.take(freshKey(), { ratePerSecond: 0, burst: 1 }, 0)).rejects.toThrow(TypeError);
    await expect(store.drain(freshKey(), { ratePerSecond: 1, burst: 0 }, 10)).rejects.toThrow(TypeError);
  });

  it('gives each key a TTL until its bucket is full again, and the key vanishes when idle', async () => {
    const key = freshKey();
    const plan = { ratePerSecond: 20, burst: 1 };
    await store.take(key, plan, 0);
    const ttl = await inspector.pttl(REDIS_RATE_LIMIT_KEY_PREFIX + key);
    // full again in 50 ms, plus the 1 s margin
    expect(ttl).toBeGreaterThan(900);
    expect(ttl).toBeLessThanOrEqual(1050);
    await expiredInRedis(REDIS_RATE_LIMIT_KEY_PREFIX + key);
    expect(await inspector.exists(REDIS_RATE_LIMIT_KEY_PREFIX + key)).toBe(0);
  });
});

describe('Redis rate-limit store when Redis goes away', () => {
  it('rejects at once while Redis is down, logs once, and works again after a restart', async () => {
    const own = await startRedisServer({ password: 's3cret-pw/+' });
    const { lines, logger, until } = capturingLogger();
    // 2 s (connect 1 s, command 0.5 s): the first take must reach Redis on a loaded machine, and a
    // failed connect must still end well inside the 3 s bound below
    const outage = createRedisRateLimitStore(own.url, { logger, timeoutMs: 2000 });
    try {
      const plan = { ratePerSecond: 1, burst: 2 };
      expect((await outage.take('outage', plan, 0)).granted).toBe(true);
      expect(outage.description).toBe(`redis://:***@127.0.0.1:${own.port}`);
      await own.stop();
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const started = performance.now();
        await expect(outage.take('outage', plan, 0)).rejects.toThrow(/Redis unreachable/);
        // a real socket's clock: the store gives up within its 1 s connect timeout, where the
        // client's own reconnect schedule would hold the call for many seconds; 3 s is slack for a
        // loaded machine that still tells the two apart
        expect(performance.now() - started).toBeLessThan(3000);
      }
      await own.restart();
      // the client reconnects on its own schedule and says so once it is ready
      await until(() => lines.length > 0);
      // the restarted Redis holds nothing: a full bucket
      expect((await outage.take('outage', plan, 0)).granted).toBe(true);
      // the outage is the limiter's to log; the store says once that Redis is back
      expect(lines.map((line) => line.message)).toEqual([
        'rate-limit store: Redis reachable again; buckets are shared across replicas again',
      ]);
      expect(JSON.stringify(lines)).not.toContain('s3cret');
    } finally {
      await outage.close();
      await own.stop();
    }
  });

  it('rejects at once when nothing listens at the URL', async () => {
    const { lines, logger } = capturingLogger();
    const nowhere = createRedisRateLimitStore('redis://:hunter2@127.0.0.1:1/0', { logger });
    try {
      expect(nowhere.description).toBe('redis://:***@127.0.0.1:1/0');
      const started = performance.now();
      await expect(nowhere.take('k', { ratePerSecond: 1, burst: 1 }, 0)).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
      // slack as above: a refused connection fails at once; the reconnect schedule would take seconds
      expect(performance.now() - started).toBeLessThan(3000);
      expect(JSON.stringify(lines)).not.toContain('hunter2');
    } finally {
      await nowhere.close();
    }
  });
});

describe('Redis rate-limit store deadlines from MCP_RATE_LIMIT_STORE_TIMEOUT_MS', () => {
  it('gives up on a Redis that holds its commands after a quarter of the setting, with ioredis timing out', async () => {
    // 2000 ms: a 500 ms command deadline, twice the default's 250 ms, so the lower bound below
    // tells the setting from the default
    const slow = createRedisRateLimitStore(redis.url, { logger: capturingLogger().logger, timeoutMs: 2000 });
    const pauser = new Redis(redis.url);
    try {
      expect((await slow.take(freshKey(), { ratePerSecond: 1, burst: 1 }, 0)).granted).toBe(true);
      // Redis holds every write for 60 s: the take must end on the client's deadline, not Redis's
      await pauser.call('CLIENT', 'PAUSE', '60000', 'WRITE');
      const started = performance.now();
      await expect(slow.take(freshKey(), { ratePerSecond: 1, burst: 1 }, 0)).rejects.toThrow('Command timed out');
      const elapsed = performance.now() - started;
      // a timer never fires early (1 ms of rounding aside); 30 s is slack for a loaded machine
      // that still tells the deadline from the 60 s pause
      expect(elapsed).toBeGreaterThanOrEqual(499);
      expect(elapsed).toBeLessThan(30_000);
    } finally {
      await pauser.call('CLIENT', 'UNPAUSE');
      pauser.disconnect();
      await slow.close();
    }
  });

  it('gives up on a server that accepts and never answers when its ready check times out', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const mute = createRedisRateLimitStore(`redis://127.0.0.1:${address.port}/0`, {
      logger: capturingLogger().logger,
      timeoutMs: 1200,
    });
    try {
      const started = performance.now();
      // the TCP connect succeeds; the client's ready check is a command, so its 300 ms deadline (a
      // quarter of 1200) ends the first connection, unless a loaded machine delays the connect so
      // long that the 600 ms connect deadline (half of 1200) comes first: either is the setting's
      await expect(mute.take('k', { ratePerSecond: 1, burst: 1 }, 0)).rejects.toThrow(
        new RegExp(
          `^rate-limit store redis://127\\.0\\.0\\.1:${String(address.port)}/0: Redis unreachable \\((Command timed out|not connected within 600 ms)\\)$`,
        ),
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(299);
    } finally {
      await mute.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        silent.close(() => {
          resolve();
        });
      });
    }
  });
});
