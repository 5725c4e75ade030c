/**
 * The Redis store behind a lazy import: the server creates its store synchronously at start, and
 * the Redis client library is loaded only when a `redis://` store is configured, on the first
 * call that needs it. Implements CONTRACT.md "rate_limited" (pre-flight limiter, across replicas).
 *
 * @packageDocumentation
 */
import type { EnvelopeLogger } from '../logger.js';
import { withoutPassword } from './redis-url.js';
import type { RateLimitStore } from './store.js';

/**
 * Creates a store that loads `./redis-store.js` (and with it the Redis client) on first use, then
 * delegates every method to the Redis store.
 *
 * @param url - the `redis://` URL of `MCP_RATE_LIMIT_STORE`.
 * @param options - the logger and the deadline (`MCP_RATE_LIMIT_STORE_TIMEOUT_MS`, ms) handed to the Redis store.
 * @returns the store; its `description` is the URL with its credentials masked ({@link withoutPassword}).
 * @throws from its methods (rejecting) what the Redis store throws, or the import's error when the module cannot load.
 */
export function createLazyRedisRateLimitStore(
  url: string,
  options: { readonly logger: EnvelopeLogger; readonly timeoutMs?: number },
): RateLimitStore {
  const state: { loading: Promise<RateLimitStore> | undefined; closed: boolean } = {
    loading: undefined,
    closed: false,
  };
  const store = (): Promise<RateLimitStore> => {
    state.loading ??= import('./redis-store.js').then((module) => module.createRedisRateLimitStore(url, options));
    return state.loading;
  };
  return {
    description: withoutPassword(url),
    take: async (key, plan, maxWaitMs) => (await store()).take(key, plan, maxWaitMs),
    refund: async (key, plan) => {
      await (await store()).refund(key, plan);
    },
    drain: async (key, plan, waitMs) => {
      await (await store()).drain(key, plan, waitMs);
    },
    close: async () => {
      // a store never used has no client to close
      if (state.loading !== undefined && !state.closed) await (await state.loading).close();
      state.closed = true;
    },
  };
}
