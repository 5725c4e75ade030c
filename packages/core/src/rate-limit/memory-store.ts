/**
 * A token-bucket store kept in this process: the default `MCP_RATE_LIMIT_STORE=memory`, and the
 * local fallback the limiter uses while a shared store cannot be reached. Buckets refill by the
 * time elapsed since their last use; a bucket that would be full again is expired and reclaimed,
 * lazily on its next use and by a sweep on an unref'd timer (which never keeps the process alive).
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import type { RateLimitPlan, RateLimitStore, RateLimitTake } from './store.js';

/** Options of {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * How many tokens a new bucket starts with: `'full'` (default, `burst`) or `'empty'` (0, for a
   * fallback store, since other replicas keep spending the shared budget meanwhile).
   */
  readonly initialTokens?: 'full' | 'empty';
  /** Milliseconds between sweeps of expired buckets (default 60,000); 0 sweeps only on {@link MemoryRateLimitStore.sweep}. */
  readonly sweepIntervalMs?: number;
  /** The clock in epoch milliseconds (tests, benches); defaults to `Date.now`. */
  readonly now?: () => number;
}

/** A memory store, with what tests and benches look at. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** How many buckets are held (expired ones not yet reclaimed included). */
  readonly size: () => number;
  /** Drops every expired bucket now. @returns how many were dropped. */
  readonly sweep: () => number;
}

interface Bucket {
  /** Tokens at `atMs`; below 0 while reservations are outstanding. */
  tokens: number;
  atMs: number;
  /** When the bucket would be full again (the plan is not kept, so the expiry is). */
  expiresMs: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

function refilled(bucket: Bucket, plan: RateLimitPlan, nowMs: number): number {
  const elapsed = Math.max(0, nowMs - bucket.atMs);
  return Math.min(plan.burst, bucket.tokens + (elapsed * plan.ratePerSecond) / 1000);
}

/** When a bucket holding `tokens` is full again, in epoch milliseconds. */
function fullAtMs(tokens: number, plan: RateLimitPlan, nowMs: number): number {
  return nowMs + Math.ceil((Math.max(0, plan.burst - tokens) * 1000) / plan.ratePerSecond);
}

/**
 * Creates a memory store. Its buckets belong to this instance; `close` stops the sweep and drops
 * them.
 *
 * @param options - see {@link MemoryRateLimitStoreOptions}.
 * @returns the store; `description` is `memory`.
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const now = options.now ?? Date.now;
  const startEmpty = options.initialTokens === 'empty';
  const buckets = new Map<string, Bucket>();
  const sweep = (): number => {
    const nowMs = now();
    let dropped = 0;
    for (const [key, bucket] of buckets) {
      if (bucket.expiresMs > nowMs) continue;
      buckets.delete(key);
      dropped += 1;
    }
    return dropped;
  };
  const intervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const timer = intervalMs > 0 ? setInterval(sweep, intervalMs) : undefined;
  timer?.unref();

  /** The bucket at `key` as of `nowMs`, created (or re-created once expired) when needed. */
  const current = (key: string, plan: RateLimitPlan, nowMs: number): Bucket => {
    const existing = buckets.get(key);
    if (existing !== undefined && existing.expiresMs > nowMs) {
      existing.tokens = refilled(existing, plan, nowMs);
      existing.atMs = nowMs;
      return existing;
    }
    const created = { tokens: startEmpty && existing === undefined ? 0 : plan.burst, atMs: nowMs, expiresMs: 0 };
    buckets.set(key, created);
    return created;
  };
  const settle = (bucket: Bucket, plan: RateLimitPlan): number => {
    const resetAtMs = fullAtMs(bucket.tokens, plan, bucket.atMs);
    // a full bucket is kept a moment, so that the next take in the same millisecond finds it
    bucket.expiresMs = Math.max(resetAtMs, bucket.atMs + 1);
    return resetAtMs;
  };

  const take = (key: string, plan: RateLimitPlan, maxWaitMs: number): RateLimitTake => {
    const nowMs = now();
    const bucket = current(key, plan, nowMs);
    const waitMs = bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) * 1000) / plan.ratePerSecond);
    const granted = waitMs <= maxWaitMs;
    if (granted) bucket.tokens -= 1;
    const resetAtMs = settle(bucket, plan);
    const resetAfterMs = Math.max(0, resetAtMs - nowMs);
    return { granted, waitMs, remaining: Math.max(0, Math.floor(bucket.tokens)), resetAtMs, resetAfterMs };
  };
  const refund = (key: string, plan: RateLimitPlan): void => {
    const bucket = current(key, plan, now());
    bucket.tokens = Math.min(plan.burst, bucket.tokens + 1);
    settle(bucket, plan);
  };
  const drain = (key: string, plan: RateLimitPlan, waitMs: number): void => {
    const bucket = current(key, plan, now());
    // the next whole token is due in `waitMs`
    bucket.tokens = Math.min(bucket.tokens, 1 - (Math.max(0, waitMs) * plan.ratePerSecond) / 1000);
    settle(bucket, plan);
  };

  return {
    description: 'memory',
    take: (key, plan, maxWaitMs) => Promise.resolve(take(key, plan, maxWaitMs)),
    refund: (key, plan) => {
      refund(key, plan);
      return Promise.resolve();
    },
    drain: (key, plan, waitMs) => {
      drain(key, plan, waitMs);
      return Promise.resolve();
    },
    close: () => {
      if (timer !== undefined) clearInterval(timer);
      buckets.clear();
      return Promise.resolve();
    },
    size: () => buckets.size,
    sweep,
  };
}
