/**
 * The Redis store behind a lazy import: the server creates its store synchronously at start, and
 * the Redis client library is loaded only when a `redis://` store is configured, on the first
 * call that needs it. Implements CONTRACT.md "rate_limited" (pre-flight limiter, across replicas).
 *
 * @packageDocumentation
 */
import type { EnvelopeLogger } from '../logger.js';
import type { RateLimitStore } from './store.js';

/**
 * Query parameters of a Redis URL shown as they are: options that cannot carry a credential. The
 * Redis client turns every other query parameter into a connection option of the same name
 * (`?password=`, `?username=`, `?sentinelPassword=`, ...), so any other value is masked.
 */
const HARMLESS_QUERY_KEYS: ReadonlySet<string> = new Set(['db', 'family', 'connectionName', 'keyPrefix']);

/** What replaces a user name, a password or a query value in a shown Redis URL. */
const MASK = '***';

/**
 * A Redis URL fit for logs and settings, without loading the Redis client: the user name and
 * the password (`redis://user:password@host`, `redis://:password@host`) and the value of every
 * query parameter but `db`, `family`, `connectionName` and `keyPrefix` (`?password=`,
 * `?username=`, `?sentinelPassword=`, ...) replaced by `***`, as the Redis client reads
 * credentials from all of these.
 *
 * @param url - a `redis://` or `rediss://` URL.
 * @returns the masked URL (an unparsable URL becomes `redis://(unparsable)`).
 */
export function withoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'redis://(unparsable)';
  }
  if (parsed.username !== '') parsed.username = MASK;
  if (parsed.password !== '') parsed.password = MASK;
  if (parsed.search !== '') {
    const shown = new URLSearchParams();
    for (const [key, value] of parsed.searchParams) shown.append(key, HARMLESS_QUERY_KEYS.has(key) ? value : MASK);
    parsed.search = shown.toString();
  }
  return parsed.toString();
}

/**
 * Creates a store that loads `./redis-store.js` (and with it the Redis client) on first use, then
 * delegates every method to the Redis store.
 *
 * @param url - the `redis://` URL of `MCP_RATE_LIMIT_STORE`.
 * @param options - the logger handed to the Redis store.
 * @returns the store; its `description` is the URL with its credentials masked ({@link withoutPassword}).
 * @throws from its methods (rejecting) what the Redis store throws, or the import's error when the module cannot load.
 */
export function createLazyRedisRateLimitStore(
  url: string,
  options: { readonly logger: EnvelopeLogger },
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
