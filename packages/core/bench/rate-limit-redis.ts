/**
 * The Redis rate-limit store's cost per take on loopback, beside a bare Redis `PING` measured in
 * the same run on the same server: a take is one script call, so it should cost about one round
 * trip (a `PING`) plus the script's own work. Starts its own `redis-server`.
 */
import { startRedisServer } from '@mcp-envelope/testing';
import { Redis } from 'ioredis';

import { createRedisRateLimitStore } from '../dist/rate-limit/redis-store.js';

/** What {@link measureRedisLimiter} measured, in microseconds. */
export interface RedisLimiterFigures {
  readonly takeMedianUs: number;
  readonly takeP99Us: number;
  readonly pingMedianUs: number;
  readonly pingP99Us: number;
  /** Samples of each. */
  readonly samples: number;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

const silent = { error: (): void => undefined, warn: (): void => undefined };

/**
 * Times `samples` takes and `samples` pings, alternating one of each so that both see the same
 * machine load, after a warm-up of each.
 *
 * @param samples - measured calls of each kind.
 * @returns medians and 99th percentiles in microseconds.
 * @throws when `redis-server` cannot be started or a take is refused (the bench plan never runs dry).
 */
export async function measureRedisLimiter(samples: number): Promise<RedisLimiterFigures> {
  const server = await startRedisServer();
  const store = createRedisRateLimitStore(server.url, { logger: silent });
  const ping = new Redis(server.url);
  // a plan that never runs dry, so every take runs the whole script and grants
  const plan = { ratePerSecond: 1_000_000, burst: 1_000_000 };
  const take = async (): Promise<void> => {
    if (!(await store.take('bench:op:identity', plan, 0)).granted) throw new Error('a bench take was refused');
  };
  try {
    for (let warm = 0; warm < 500; warm += 1) {
      await take();
      await ping.ping();
    }
    const takes: number[] = [];
    const pings: number[] = [];
    for (let sample = 0; sample < samples; sample += 1) {
      let started = performance.now();
      await take();
      takes.push((performance.now() - started) * 1000);
      started = performance.now();
      await ping.ping();
      pings.push((performance.now() - started) * 1000);
    }
    return {
      takeMedianUs: percentile(takes, 0.5),
      takeP99Us: percentile(takes, 0.99),
      pingMedianUs: percentile(pings, 0.5),
      pingP99Us: percentile(pings, 0.99),
      samples,
    };
  } finally {
    ping.disconnect();
    await store.close();
    await server.stop();
  }
}
