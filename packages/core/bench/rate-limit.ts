/**
 * The limiter's costs: a tools/call through the memory-store limiter against the same call with
 * `MCP_RATE_LIMIT=off` (rounds interleaved, ratio of medians measured in the same run), and the
 * heap 100,000 idle buckets take, before and after they expire and are swept.
 */
import type { Client } from '@modelcontextprotocol/client';

import { createEnvelopeLogger, createEnvelopeServer } from '../dist/index.js';
import type { EnvelopeAdapter, EnvelopeServer } from '../dist/index.js';
import { createMemoryRateLimitStore } from '../dist/rate-limit/memory-store.js';
import { benchAdapter, connectInMemory } from './bench-server.js';
import { median } from './stats.js';

/** What {@link measureRateLimit} measured. */
export interface RateLimitFigures {
  /** Median microseconds per call with the limiter on, and off. */
  readonly onMicros: number;
  readonly offMicros: number;
  /** Median over rounds of on / off. */
  readonly ratio: number;
  /** Heap taken by 100,000 idle buckets, and what is left of it after they expired and were swept, in MB. */
  readonly bucketsMb: number;
  readonly afterSweepMb: number;
  readonly buckets: number;
  readonly swept: number;
}

// the bench adapter, advertising the kind the limiter answers with
const adapter: EnvelopeAdapter = { ...benchAdapter, errorKinds: ['rate_limited'] };

function server(rateLimit: boolean): EnvelopeServer {
  return createEnvelopeServer({
    info: { name: 'bench-limiter', version: '0.0.0' },
    adapter,
    tools: [
      {
        name: 'bench',
        inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
        // a plan no bench exhausts: every call takes a token and none waits
        rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
        rateLimitIdentity: () => 'seller-1',
        handler: async (args: Record<string, unknown>) => {
          await Promise.resolve();
          return { ok: true, id: args['id'] };
        },
      },
    ],
    options: { env: {}, rateLimit, logger: createEnvelopeLogger() },
  });
}

async function timeCalls(client: Client, calls: number): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) await client.callTool({ name: 'bench', arguments: { id: index } });
  return ((performance.now() - started) * 1000) / calls;
}

function heapMb(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

async function bucketMemory(count: number): Promise<{ bucketsMb: number; afterSweepMb: number; swept: number }> {
  const clock = { ms: Date.now() };
  const store = createMemoryRateLimitStore({ now: () => clock.ms, sweepIntervalMs: 0 });
  const plan = { ratePerSecond: 0.0167, burst: 20 };
  const before = heapMb();
  for (let index = 0; index < count; index += 1)
    await store.take(`sp\u0000ordersV0_getOrders\u0000identity:${index}`, plan, 0);
  const filled = heapMb();
  // one token taken at 0.0167 per second: full again after 60 s
  clock.ms += 61_000;
  const swept = store.sweep();
  const after = heapMb();
  await store.close();
  return { bucketsMb: filled - before, afterSweepMb: after - before, swept };
}

/**
 * Measures the limiter.
 *
 * @param rounds - interleaved rounds of calls per configuration.
 * @param calls - calls per round.
 * @returns the figures.
 */
export async function measureRateLimit(rounds: number, calls: number): Promise<RateLimitFigures> {
  const onServer = server(true);
  const offServer = server(false);
  const on = await connectInMemory(onServer);
  const off = await connectInMemory(offServer);
  await timeCalls(on, calls);
  await timeCalls(off, calls);
  const onTimes: number[] = [];
  const offTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const first = round % 2 === 0;
    const a = await timeCalls(first ? on : off, calls);
    const b = await timeCalls(first ? off : on, calls);
    const [onTime, offTime] = first ? [a, b] : [b, a];
    onTimes.push(onTime);
    offTimes.push(offTime);
    ratios.push(onTime / offTime);
  }
  await Promise.all([on.close(), off.close(), onServer.close(), offServer.close()]);
  const buckets = 100_000;
  const memory = await bucketMemory(buckets);
  return { onMicros: median(onTimes), offMicros: median(offTimes), ratio: median(ratios), buckets, ...memory };
}
