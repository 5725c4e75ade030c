/**
 * Where the pre-flight limiter keeps its token buckets: the interface a store implements (one
 * process in memory, or Redis shared by replicas) and what a take answers. A store decides
 * atomically; the limiter step of the call pipeline decides what to tell the caller.
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */

/** A token bucket's plan: tokens added per second and the most the bucket holds. */
export interface RateLimitPlan {
  /** Tokens added per second (a usage plan's rate); > 0. */
  readonly ratePerSecond: number;
  /** Capacity of the bucket (a usage plan's burst); >= 1. */
  readonly burst: number;
}

/**
 * What one take decided. A granted take may be a reservation: the token is already counted, and
 * the caller waits `waitMs` before going upstream. A refused take counted nothing.
 */
export interface RateLimitTake {
  /** True when the token is the caller's (now, or after `waitMs`). */
  readonly granted: boolean;
  /** Granted: how long to wait before the call may go upstream (0 = now). Refused: when a token is due, in ms. */
  readonly waitMs: number;
  /** Whole tokens left in the bucket after this take (>= 0). */
  readonly remaining: number;
  /** When the bucket will be full again, in epoch milliseconds. */
  readonly resetAtMs: number;
  /**
   * How long until then, in milliseconds (>= 0), on the store's own clock; a store that leaves it
   * out is read against this process's clock.
   */
  readonly resetAfterMs?: number;
}

/**
 * A place that keeps token buckets. Every method is atomic per key; keys of idle buckets expire
 * (a bucket idle long enough to be full again holds nothing worth keeping).
 */
export interface RateLimitStore {
  /** What `get_envelope_contract` reports as the store: `memory`, or the Redis URL without its password. */
  readonly description: string;
  /**
   * Takes one token from the bucket at `key`, created full when absent. When the bucket is empty
   * and the next token is due within `maxWaitMs`, the token is reserved (the bucket goes into
   * debt) and `waitMs` says how long to wait; otherwise nothing is taken.
   *
   * @throws when the store cannot be reached (the limiter then falls back to memory).
   */
  take(key: string, plan: RateLimitPlan, maxWaitMs: number): Promise<RateLimitTake>;
  /** Gives one token back (a cancelled call that never went upstream), never above `burst`. */
  refund(key: string, plan: RateLimitPlan): Promise<void>;
  /** Empties the bucket so that its next token is due in `waitMs` (an upstream 429's `Retry-After`). */
  drain(key: string, plan: RateLimitPlan, waitMs: number): Promise<void>;
  /** Releases connections and timers; the store is unusable afterwards. */
  close(): Promise<void>;
}
