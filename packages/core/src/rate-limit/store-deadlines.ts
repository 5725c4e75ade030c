/**
 * The deadlines of a shared rate-limit store, all derived from `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`
 * so an operator turns one knob. Its own module because both the settings (which open the store)
 * and the Redis store (which the settings load lazily) need it. Implements CONTRACT.md
 * "rate_limited" (pre-flight limiter, across replicas).
 *
 * @packageDocumentation
 */

/** The default `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`, in milliseconds. */
export const DEFAULT_STORE_TIMEOUT_MS = 1000;

/** The deadlines of a shared store, in milliseconds, derived from `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`. */
export interface RateLimitStoreDeadlines {
  /** How long the limiter waits for one store call before it falls back to local buckets. */
  readonly callMs: number;
  /** How long a connection attempt may take before it counts as failed. */
  readonly connectMs: number;
  /** How long one command may take before it fails. */
  readonly commandMs: number;
}

/**
 * The store's deadlines from its one setting: the limiter's deadline is the setting; a connection
 * gets half of it and a command a quarter, so a call that must first connect and then run its
 * command still fails inside the limiter's deadline with the store's own error (never below 1 ms).
 * The default 1000 ms gives 500 ms and 250 ms.
 *
 * @param timeoutMs - `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`, in milliseconds (>= 1).
 * @returns the three deadlines, in milliseconds.
 */
export function storeDeadlines(timeoutMs: number): RateLimitStoreDeadlines {
  return {
    callMs: timeoutMs,
    connectMs: Math.max(1, Math.floor(timeoutMs / 2)),
    commandMs: Math.max(1, Math.floor(timeoutMs / 4)),
  };
}
