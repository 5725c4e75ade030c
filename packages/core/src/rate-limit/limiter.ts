/**
 * The limiter of one server: takes tokens from its store, falls back to a local store while that
 * store cannot be reached, and learns plans from what the upstream answers (a reported limit
 * replaces the rate; a rate limit of any status drains the bucket, and so does a budget the
 * upstream says is spent until its reset). Implements CONTRACT.md "rate_limited"
 * (pre-flight limiter).
 *
 * @packageDocumentation
 */
import { MAX_RETRY_AFTER_SECONDS } from '../http-meta/rate-limit.js';
import type { EnvelopeLogger } from '../logger.js';

import { createMemoryRateLimitStore } from './memory-store.js';
import type { RateLimitSettings } from './settings.js';
import type { RateLimitPlan, RateLimitStore, RateLimitTake } from './store.js';

/** The plan a tool without one gets when its upstream answers with a rate limit (a 429, or a 403 marked as one): one request per second. */
export const BACKOFF_PLAN: RateLimitPlan = { ratePerSecond: 1, burst: 1 };

/** The first backoff after a rate limit without `Retry-After` or a reset (1 s); each further one doubles it. */
export const FIRST_BACKOFF_MS = 1000;

/** The longest backoff after rate limits without `Retry-After` or a reset (60 s). */
export const MAX_BACKOFF_MS = 60_000;

/** How long a plan learned from a rate limit alone outlives its drain (60 s): then the tool runs unlimited again. */
export const BACKOFF_PLAN_TTL_MS = 60_000;

/**
 * The longest an upstream's stated wait drains a bucket: `MAX_RETRY_AFTER_SECONDS` (24 h, a daily
 * quota's reset), the same longest wait an envelope states. The wait comes from headers the upstream
 * controls: a reset in the year 10000 would otherwise lock a tool out for millennia, and one past
 * the largest `Date` would break the refusal's `reset_at`.
 */
export const MAX_LEARNED_WAIT_MS = MAX_RETRY_AFTER_SECONDS * 1000;

/** How many keys' learned plans and backoffs are kept at most; past it the oldest is forgotten. */
export const MAX_LEARNED_KEYS = 100_000;

/** What `get_envelope_contract` reports of the limiter. */
export interface RateLimitReport {
  readonly MCP_RATE_LIMIT: boolean;
  readonly MCP_RATE_LIMIT_MAX_WAIT_MS: number;
  /** The store's description: `memory`, or its URL without credentials. */
  readonly MCP_RATE_LIMIT_STORE: string;
  /** How many ms a call waits for a shared store before it falls back to local buckets. */
  readonly MCP_RATE_LIMIT_STORE_TIMEOUT_MS: number;
  /** True while the store cannot be reached and buckets are kept in this process. */
  readonly rate_limit_store_fallback: boolean;
}

/** What one upstream exchange told the limiter. */
export interface RateLimitObservation {
  /** The limit the upstream reported, in requests per second (`_meta.rate_limit.limit_per_second`). */
  readonly limitPerSecond?: number | string | undefined;
  /** The requests the upstream said are left (`_meta.rate_limit.remaining`). */
  readonly remaining?: number | string | undefined;
  /** The last upstream HTTP status of the call. */
  readonly status?: number | undefined;
  /**
   * Seconds until the upstream accepts requests again: its `Retry-After`, else the time to the
   * reset it stated.
   */
  readonly retryAfterSeconds?: number | undefined;
  /** The last answer was a rate limit whatever its status (a 429 always is). */
  readonly rateLimited?: boolean | undefined;
  /** The last answer said no request is left until its reset (`remaining: 0`), in `retryAfterSeconds`. */
  readonly exhausted?: boolean | undefined;
}

/** The limiter of one server. */
export interface RateLimiter {
  readonly maxWaitMs: number;
  report(): RateLimitReport;
  /** The plan in force for `key`: learned in this process, else the tool's own, else none. */
  planFor(key: string, toolPlan: RateLimitPlan | undefined): RateLimitPlan | undefined;
  /** Takes a token at nine tenths of `plan`'s rate (see `RateLimitStore.take`); never rejects while the local fallback works. */
  take(key: string, plan: RateLimitPlan): Promise<RateLimitTake>;
  /** Gives a token back. */
  refund(key: string, plan: RateLimitPlan): Promise<void>;
  /** Learns from one call's upstream answers. */
  learn(key: string, toolPlan: RateLimitPlan | undefined, observed: RateLimitObservation): Promise<void>;
  /** Closes the stores the limiter opened. */
  close(): Promise<void>;
}

/** What {@link createRateLimiter} needs. */
export interface RateLimiterInput {
  readonly settings: RateLimitSettings;
  readonly store: RateLimitStore;
  /** Whether the limiter owns `store` (and closes it). */
  readonly ownsStore: boolean;
  readonly logger: EnvelopeLogger;
  /** Milliseconds to wait for `store` before falling back; `undefined`: no deadline (a local store). */
  readonly storeTimeoutMs?: number | undefined;
  /** The clock in epoch milliseconds (tests). */
  readonly now?: () => number;
}

/** A map that forgets its oldest key past {@link MAX_LEARNED_KEYS}. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_LEARNED_KEYS) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}

/** Rejects when `work` has not settled within `timeoutMs`. */
function withDeadline<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the rate limit store did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  return Promise.race([work, deadline]).finally(() => {
    clearTimeout(timer);
  });
}

/** The store, or the local fallback while the store fails: one warning per outage, none with secrets. */
function fallbackGuard(input: RateLimiterInput): {
  run: <T>(work: (store: RateLimitStore) => Promise<T>) => Promise<T>;
  fallingBack: () => boolean;
  close: () => Promise<void>;
} {
  const state: { fallingBack: boolean; local: RateLimitStore | undefined } = { fallingBack: false, local: undefined };
  const run = async <T>(work: (store: RateLimitStore) => Promise<T>): Promise<T> => {
    try {
      const value = await withDeadline(work(input.store), input.storeTimeoutMs);
      state.fallingBack = false;
      return value;
    } catch (error) {
      if (!state.fallingBack)
        input.logger.warn(
          {
            store: input.store.description,
            error: error instanceof Error ? error.name : typeof error,
            code: (error as { code?: unknown } | null)?.code,
          },
          'the rate limit store cannot be reached: limiting in this process (buckets start empty) until it answers again',
        );
      state.fallingBack = true;
      // empty at first: the other replicas may have spent the budget already
      state.local ??= createMemoryRateLimitStore({ initialTokens: 'empty' });
      return work(state.local);
    }
  };
  return {
    run,
    fallingBack: () => state.fallingBack,
    close: async () => {
      await state.local?.close();
    },
  };
}

/** The learned plans and backoffs of one limiter, and what a rate limit or a reported limit changes in them. */
function createLearning(now: () => number): {
  planFor: RateLimiter['planFor'];
  learnLimit: (key: string, toolPlan: RateLimitPlan | undefined, limit: number, remaining: number | undefined) => void;
  backoff: (
    key: string,
    toolPlan: RateLimitPlan | undefined,
    retryAfterSeconds: number | undefined,
  ) => {
    plan: RateLimitPlan;
    waitMs: number;
  };
  answered: (key: string) => void;
} {
  const learned = new Map<string, { plan: RateLimitPlan; expiresAtMs: number | undefined }>();
  const backoffs = new Map<string, number>();
  const planFor = (key: string, toolPlan: RateLimitPlan | undefined): RateLimitPlan | undefined => {
    const entry = learned.get(key);
    if (entry === undefined) return toolPlan;
    if (entry.expiresAtMs !== undefined && entry.expiresAtMs <= now()) {
      learned.delete(key);
      return toolPlan;
    }
    return entry.plan;
  };
  return {
    planFor,
    learnLimit: (key, toolPlan, limit, remaining) => {
      const current = planFor(key, toolPlan);
      if (current?.ratePerSecond === limit && learned.get(key)?.expiresAtMs === undefined) return;
      // Without a plan of its own, the burst is what the upstream says is left (plus the request
      // just answered): a bucket of one would refuse calls the upstream still accepts.
      const burst = current?.burst ?? Math.max(1, Math.ceil(limit), Math.floor(remaining ?? 0) + 1);
      remember(learned, key, { plan: { ratePerSecond: limit, burst }, expiresAtMs: undefined });
    },
    backoff: (key, toolPlan, retryAfterSeconds) => {
      const previous = backoffs.get(key);
      const waitMs =
        retryAfterSeconds === undefined
          ? Math.min(MAX_BACKOFF_MS, previous === undefined ? FIRST_BACKOFF_MS : previous * 2)
          : Math.ceil(Math.min(retryAfterSeconds * 1000, MAX_LEARNED_WAIT_MS));
      if (retryAfterSeconds === undefined) remember(backoffs, key, waitMs);
      let plan = planFor(key, toolPlan);
      if (plan === undefined || learned.get(key)?.expiresAtMs !== undefined) {
        plan ??= BACKOFF_PLAN;
        remember(learned, key, { plan, expiresAtMs: now() + waitMs + BACKOFF_PLAN_TTL_MS });
      }
      return { plan, waitMs };
    },
    answered: (key) => {
      backoffs.delete(key);
    },
  };
}

/** The share of a plan's rate the limiter spends (see {@link withLatencyMargin}). */
const RATE_LIMIT_SPEND_SHARE = 0.9;

/**
 * The plan the limiter spends: the stated rate less a tenth. The upstream's bucket starts when the
 * first request arrives, later than the limiter's first take by that request's latency (a token
 * fetch, a slow network), so a token spent the moment it is due here would arrive early there and
 * be answered 429.
 */
function withLatencyMargin(plan: RateLimitPlan): RateLimitPlan {
  return { ratePerSecond: plan.ratePerSecond * RATE_LIMIT_SPEND_SHARE, burst: plan.burst };
}

/** A non-negative finite count, from a header value as `_meta` holds it. */
function nonNegative(value: number | string | undefined): number | undefined {
  const number = typeof value === 'string' ? Number(value.trim()) : value;
  return number !== undefined && Number.isFinite(number) && number >= 0 ? number : undefined;
}

/**
 * The slowest rate the limiter learns: one request per {@link MAX_LEARNED_WAIT_MS}. A learned plan
 * is kept until the upstream states another, which a refused call never hears: a slower rate
 * (a window of 1e9 s in a header) would refuse the tool's calls for the life of the process.
 */
const MIN_LEARNED_RATE_PER_SECOND = 1000 / MAX_LEARNED_WAIT_MS;

/** A number of requests per second the limiter may learn, from a header value as `_meta` holds it. */
function limitValue(value: number | string | undefined): number | undefined {
  const number = typeof value === 'string' ? Number(value.trim()) : value;
  return number !== undefined && Number.isFinite(number) && number >= MIN_LEARNED_RATE_PER_SECOND ? number : undefined;
}

/**
 * Whether an answer drains the bucket, and for how long: a rate limit of any status (a 429, a 403
 * the upstream marks as one) for its wait, or exponential backoff without one; a budget the
 * upstream says is spent (`remaining: 0`) until its stated reset, though the answer itself was
 * accepted.
 */
function drainFor(observed: RateLimitObservation): { drain: boolean; limited: boolean; seconds?: number } {
  const limited = observed.status === 429 || observed.rateLimited === true;
  const seconds = observed.retryAfterSeconds;
  if (limited) return { drain: true, limited, ...(seconds === undefined ? {} : { seconds }) };
  const exhausted = observed.exhausted === true && seconds !== undefined && seconds > 0;
  return exhausted ? { drain: true, limited, seconds } : { drain: false, limited };
}

/**
 * Creates a server's limiter over `input.store`. A store that throws or misses the deadline is
 * replaced, for that operation, by a local memory store whose buckets start empty; every later
 * operation tries the store again, so the limiter recovers when it answers. Learned plans live in
 * this process.
 *
 * @param input - see {@link RateLimiterInput}.
 * @returns the limiter.
 */
export function createRateLimiter(input: RateLimiterInput): RateLimiter {
  const now = input.now ?? Date.now;
  const guard = fallbackGuard(input);
  const learning = createLearning(now);
  const maxWaitMs = input.settings.MCP_RATE_LIMIT_MAX_WAIT_MS;
  return {
    maxWaitMs,
    report: () => ({
      MCP_RATE_LIMIT: input.settings.MCP_RATE_LIMIT,
      MCP_RATE_LIMIT_MAX_WAIT_MS: maxWaitMs,
      MCP_RATE_LIMIT_STORE: input.store.description,
      MCP_RATE_LIMIT_STORE_TIMEOUT_MS: input.settings.MCP_RATE_LIMIT_STORE_TIMEOUT_MS,
      rate_limit_store_fallback: guard.fallingBack(),
    }),
    planFor: learning.planFor,
    take: (key, plan) => guard.run((store) => store.take(key, withLatencyMargin(plan), maxWaitMs)),
    refund: (key, plan) => guard.run((store) => store.refund(key, withLatencyMargin(plan))),
    learn: async (key, toolPlan, observed) => {
      const limit = limitValue(observed.limitPerSecond);
      if (limit !== undefined) learning.learnLimit(key, toolPlan, limit, nonNegative(observed.remaining));
      const wait = drainFor(observed);
      if (wait.drain) {
        const { plan, waitMs } = learning.backoff(key, toolPlan, wait.seconds);
        await guard.run((store) => store.drain(key, withLatencyMargin(plan), waitMs));
      }
      if (!wait.limited && observed.status !== undefined) learning.answered(key);
    },
    close: async () => {
      await guard.close();
      if (input.ownsStore) await input.store.close();
    },
  };
}
