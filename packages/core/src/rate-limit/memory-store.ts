/**
 * The in-process token bucket store: buckets in a `Map` owned by the store instance, refilled by
 * elapsed time when touched, and reclaimed once idle long enough to be full again (by an
 * unref'd sweep, so no timer keeps the process alive). Implements CONTRACT.md "rate_limited"
 * (pre-flight limiter) for one process.
 *
 * @packageDocumentation
 */
import type { RateLimitPlan, RateLimitStore, RateLimitTake } from './store.js';

/** How often idle buckets are looked for, by default (60 s). */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Options of {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * How many tokens a new bucket starts with: `'full'` (default, `burst`) or `'empty'` (0), for a
   * fallback store that must not spend budget other replicas may already have spent.
   */
  readonly initialTokens?: 'full' | 'empty';
  /** Milliseconds between sweeps of idle buckets (default {@link DEFAULT_SWEEP_INTERVAL_MS}); 0 turns the timer off. */
  readonly sweepIntervalMs?: number;
  /** The clock in epoch milliseconds (tests); defaults to `Date.now`. */
  readonly now?: () => number;
}

/** The in-memory store plus what tests and benchmarks look at. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** How many buckets are held now. */
  readonly size: number;
  /** Drops every bucket that is full again by now. @returns how many were dropped. */
  sweep(): number;
}

/** One bucket: tokens (negative while reservations are outstanding) as of `atMs`, and the plan last used. */
interface Bucket {
  tokens: number;
  atMs: number;
  ratePerSecond: number;
  burst: number;
}

/** When the bucket will hold `burst` tokens again, in epoch ms. */
function fullAtMs(bucket: Bucket): number {
  return bucket.atMs + ((bucket.burst - bucket.tokens) / bucket.ratePerSecond) * 1000;
}

/** Brings the bucket to `nowMs` under `plan`: adds the tokens earned since, never above `burst`. */
function refill(bucket: Bucket, plan: RateLimitPlan, nowMs: number): void {
  const elapsed = Math.max(0, nowMs - bucket.atMs);
  bucket.ratePerSecond = plan.ratePerSecond;
  bucket.burst = plan.burst;
  bucket.tokens = Math.min(plan.burst, bucket.tokens + (elapsed * plan.ratePerSecond) / 1000);
  bucket.atMs = nowMs;
}

/** Milliseconds until the bucket holds one whole token (0 when it does). */
function msUntilToken(bucket: Bucket): number {
  return bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) / bucket.ratePerSecond) * 1000);
}

function answer(bucket: Bucket, granted: boolean, waitMs: number): RateLimitTake {
  return {
    granted,
    waitMs,
    remaining: Math.max(0, Math.floor(bucket.tokens)),
    resetAtMs: Math.ceil(fullAtMs(bucket)),
  };
}

/** Runs `work` now and answers as a promise, a throw becoming a rejection (the store's methods are async by interface). */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the store rethrows what it caught, as is
    return Promise.reject(error);
  }
}

/**
 * Throws when `plan` cannot describe a bucket: a store that accepted one would divide by zero or
 * never grant.
 */
function checkPlan(plan: RateLimitPlan): void {
  if (!(plan.ratePerSecond > 0) || !Number.isFinite(plan.ratePerSecond) || !(plan.burst >= 1))
    throw new TypeError(
      `a rate limit plan needs ratePerSecond > 0 and burst >= 1, got ${String(plan.ratePerSecond)}/${String(plan.burst)}`,
    );
}

/**
 * Creates a store that keeps its buckets in this process. Every method runs synchronously inside
 * the returned promise, so each is atomic per key. A bucket idle until it is full again is
 * dropped by the next sweep (a new one would start the same, unless `initialTokens` is
 * `'empty'`, which only makes it more careful).
 *
 * @param options - see {@link MemoryRateLimitStoreOptions}.
 * @returns the store; `close()` stops its sweep timer and drops every bucket.
 * @throws TypeError from `take`, `refund` or `drain` when the plan has `ratePerSecond <= 0` or `burst < 1`.
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const buckets = new Map<string, Bucket>();
  const now = options.now ?? Date.now;
  const startEmpty = options.initialTokens === 'empty';
  const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;

  const bucketAt = (key: string, plan: RateLimitPlan, nowMs: number): Bucket => {
    checkPlan(plan);
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: startEmpty ? 0 : plan.burst, atMs: nowMs, ...plan };
      buckets.set(key, bucket);
    } else refill(bucket, plan, nowMs);
    return bucket;
  };

  const sweep = (): number => {
    const nowMs = now();
    let dropped = 0;
    for (const [key, bucket] of buckets) {
      if (fullAtMs(bucket) <= nowMs) {
        buckets.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  };

  const timer = sweepIntervalMs > 0 ? setInterval(sweep, sweepIntervalMs) : undefined;
  // the sweep only reclaims memory: it must never be what keeps the process running
  timer?.unref();

  return {
    description: startEmpty ? 'memory (fallback, buckets start empty)' : 'memory',
    get size() {
      return buckets.size;
    },
    sweep,
    take: (key, plan, maxWaitMs) =>
      settle(() => {
        const bucket = bucketAt(key, plan, now());
        const waitMs = msUntilToken(bucket);
        if (waitMs > maxWaitMs) return answer(bucket, false, waitMs);
        // granted now, or reserved: the token is counted at once, so later callers queue behind it
        bucket.tokens -= 1;
        return answer(bucket, true, waitMs);
      }),
    refund: (key, plan) =>
      settle(() => {
        const bucket = bucketAt(key, plan, now());
        bucket.tokens = Math.min(plan.burst, bucket.tokens + 1);
      }),
    drain: (key, plan, waitMs) =>
      settle(() => {
        const bucket = bucketAt(key, plan, now());
        // a bucket already deeper in debt stays so: a drain never hands out tokens
        bucket.tokens = Math.min(bucket.tokens, 1 - (plan.ratePerSecond * Math.max(0, waitMs)) / 1000);
      }),
    close: () =>
      settle(() => {
        if (timer !== undefined) clearInterval(timer);
        buckets.clear();
      }),
  };
}
