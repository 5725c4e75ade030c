/**
 * The pre-flight limiter's settings, read from the environment: `MCP_RATE_LIMIT`,
 * `MCP_RATE_LIMIT_MAX_WAIT_MS` and `MCP_RATE_LIMIT_STORE`, and the function that opens the store
 * they name. A value that cannot be read stops the server at start with an error naming the
 * variable: a limiter silently off or on the wrong store would spend a shared budget.
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import type { EnvelopeLogger } from '../logger.js';
import { createMemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStore } from './store.js';

/** The resolved limiter settings, keyed by their env variable names. */
export interface RateLimitSettings {
  /** Whether calls take a token before their handler runs (`on`, the default). */
  readonly MCP_RATE_LIMIT: boolean;
  /** The longest a call waits for a token before it is refused, in milliseconds (default 2000). */
  readonly MCP_RATE_LIMIT_MAX_WAIT_MS: number;
  /** `memory` (default) or a `redis://host:port/db` URL. */
  readonly MCP_RATE_LIMIT_STORE: string;
}

/** The defaults: on, 2000 ms, memory. */
export const RATE_LIMIT_DEFAULTS: RateLimitSettings = {
  MCP_RATE_LIMIT: true,
  MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
  MCP_RATE_LIMIT_STORE: 'memory',
};

function readSwitch(raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new TypeError('MCP_RATE_LIMIT must be "on" or "off"');
}

function readMaxWait(raw: string | undefined): number {
  const value = raw?.trim();
  if (value === undefined || value === '') return RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_MAX_WAIT_MS;
  const parsed = Number(value);
  if (/^\d+$/.test(value) && Number.isSafeInteger(parsed)) return parsed;
  throw new TypeError('MCP_RATE_LIMIT_MAX_WAIT_MS must be a non-negative integer (milliseconds)');
}

function readStore(raw: string | undefined): string {
  const value = raw?.trim();
  if (value === undefined || value === '' || value === 'memory') return RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_STORE;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // the value is not echoed: a Redis URL may carry a password
  if (url?.protocol !== 'redis:' || url.hostname === '')
    throw new TypeError('MCP_RATE_LIMIT_STORE must be "memory" or a redis://host:port/db URL');
  return value;
}

/**
 * Reads the limiter settings from the environment.
 *
 * @param env - the environment to read.
 * @returns the settings, keyed by env variable name.
 * @throws TypeError naming the variable when `MCP_RATE_LIMIT` is not `on`/`off`,
 *   `MCP_RATE_LIMIT_MAX_WAIT_MS` not a non-negative integer, or `MCP_RATE_LIMIT_STORE` neither
 *   `memory` nor a `redis://` URL.
 */
export function resolveRateLimitSettings(env: Readonly<Record<string, string | undefined>>): RateLimitSettings {
  return {
    MCP_RATE_LIMIT: readSwitch(env['MCP_RATE_LIMIT']),
    MCP_RATE_LIMIT_MAX_WAIT_MS: readMaxWait(env['MCP_RATE_LIMIT_MAX_WAIT_MS']),
    MCP_RATE_LIMIT_STORE: readStore(env['MCP_RATE_LIMIT_STORE']),
  };
}

/**
 * `MCP_RATE_LIMIT_STORE` without a password: what logs and `get_envelope_contract` may show.
 *
 * @param store - the setting's value.
 * @returns `memory`, or the URL with its password replaced by `***`.
 */
export function describeRateLimitStore(store: string): string {
  if (store === 'memory') return store;
  const url = new URL(store);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/** What the Redis store module exports (loaded only when a `redis://` store is configured). */
interface RedisStoreModule {
  readonly createRedisRateLimitStore: (url: string, options: { logger: EnvelopeLogger }) => RateLimitStore;
}

/**
 * Opens the store `MCP_RATE_LIMIT_STORE` names: a memory store, or the Redis store, whose module
 * (and client library) is loaded only then.
 *
 * @param store - the resolved setting.
 * @param logger - handed to the Redis store.
 * @returns the store.
 * @throws Error when a Redis store is configured and its module cannot be loaded.
 */
export async function openRateLimitStore(store: string, logger: EnvelopeLogger): Promise<RateLimitStore> {
  if (store === 'memory') return createMemoryRateLimitStore();
  let loaded: RedisStoreModule;
  try {
    // a variable specifier, so that builds without the Redis store still compile
    const specifier = './redis-store.js';
    loaded = (await import(specifier)) as RedisStoreModule;
  } catch (error) {
    throw new Error('MCP_RATE_LIMIT_STORE=redis:// needs the Redis store', { cause: error });
  }
  return loaded.createRedisRateLimitStore(store, { logger });
}
