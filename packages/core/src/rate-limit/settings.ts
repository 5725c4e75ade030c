/**
 * The pre-flight limiter's settings: `MCP_RATE_LIMIT`, `MCP_RATE_LIMIT_MAX_WAIT_MS`,
 * `MCP_RATE_LIMIT_STORE` and `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`, read from the environment with server options that override them, and
 * the store each setting opens. Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import type { EnvelopeLogger } from '../logger.js';
import { parseBooleanSwitch } from '../options.js';

import { createMemoryRateLimitStore } from './memory-store.js';
import { createLazyRedisRateLimitStore } from './redis-lazy.js';
import { withoutPassword } from './redis-url.js';
import type { RateLimitStore } from './store.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './store-deadlines.js';

/** The resolved limiter settings, keyed by their env variable names. */
export interface RateLimitSettings {
  /** Whether tools with a plan take a token before their handler runs. */
  readonly MCP_RATE_LIMIT: boolean;
  /** The most milliseconds a call waits for a token before it is refused (>= 0). */
  readonly MCP_RATE_LIMIT_MAX_WAIT_MS: number;
  /** `memory`, or the store's `redis://` URL as given (it may hold a password: show its `storeDescription`). */
  readonly MCP_RATE_LIMIT_STORE: string;
  /**
   * How many milliseconds a call waits for a shared (Redis) store before it falls back to local
   * buckets (>= 1). The store's connect deadline is half of it and its command deadline a quarter
   * (see `storeDeadlines`); a `memory` store has no deadline.
   */
  readonly MCP_RATE_LIMIT_STORE_TIMEOUT_MS: number;
}

/** The defaults: on, 2000 ms of waiting, buckets in this process, 1000 ms for a shared store. */
export const RATE_LIMIT_DEFAULTS: RateLimitSettings = Object.freeze({
  MCP_RATE_LIMIT: true,
  MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
  MCP_RATE_LIMIT_STORE: 'memory',
  MCP_RATE_LIMIT_STORE_TIMEOUT_MS: DEFAULT_STORE_TIMEOUT_MS,
});

/** Explicit limiter settings; an option that is set wins over the environment. */
export interface RateLimitOptions {
  /** `MCP_RATE_LIMIT`: limit tools that have a plan (default true). */
  readonly rateLimit?: boolean;
  /** `MCP_RATE_LIMIT_MAX_WAIT_MS`: an integer of milliseconds from 0 to 2^31 - 1 (default 2000). */
  readonly rateLimitMaxWaitMs?: number;
  /**
   * A store to use instead of the one `MCP_RATE_LIMIT_STORE` names (tests, or servers of one
   * process sharing buckets); the server does not close it.
   */
  readonly rateLimitStore?: RateLimitStore;
  /**
   * `MCP_RATE_LIMIT_STORE_TIMEOUT_MS`: an integer of milliseconds from 1 to 2^31 - 1 (default
   * 1000) a call waits for a shared store before falling back to local buckets.
   */
  readonly rateLimitStoreTimeoutMs?: number;
}

/** Why a limiter setting cannot be used; the message names the variable, never its value. */
export class RateLimitSettingsError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'RateLimitSettingsError';
  }
}

function readSwitch(raw: string | undefined): boolean {
  const parsed = parseBooleanSwitch(raw);
  if (parsed === 'invalid') throw new RateLimitSettingsError('MCP_RATE_LIMIT must be on or off');
  return parsed ?? RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT;
}

/**
 * The longest wait a timer can hold (2^31 - 1 ms, about 24.8 days): Node fires a longer timer
 * after 1 ms, which would send a reserved call upstream at once.
 */
const MAX_RATE_LIMIT_WAIT_MS = 2_147_483_647;

/** A whole number of milliseconds from `min` to the timer limit: an option is checked, an env value parsed. */
function readMilliseconds(
  name: string,
  min: number,
  raw: string | undefined,
  override: number | undefined,
  fallback: number,
): number {
  if (override !== undefined) {
    if (!Number.isSafeInteger(override) || override < min || override > MAX_RATE_LIMIT_WAIT_MS)
      throw new RateLimitSettingsError(
        `the option for ${name} must be an integer from ${min} to ${MAX_RATE_LIMIT_WAIT_MS}`,
      );
    return override;
  }
  const text = raw?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > MAX_RATE_LIMIT_WAIT_MS)
    throw new RateLimitSettingsError(
      `${name} must be a ${min === 0 ? 'non-negative' : 'positive'} integer (milliseconds) of at most ${MAX_RATE_LIMIT_WAIT_MS}`,
    );
  return value;
}

/** `memory`, or a `redis://` / `rediss://` URL with a host and an optional numeric database path. */
function readStore(raw: string | undefined): string {
  const text = raw?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'memory') return RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_STORE;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // the value itself is not repeated: a Redis URL may carry a password
  if (
    url === undefined ||
    (url.protocol !== 'redis:' && url.protocol !== 'rediss:') ||
    url.hostname === '' ||
    !/^(\/\d*)?$/.test(url.pathname)
  )
    throw new RateLimitSettingsError('MCP_RATE_LIMIT_STORE must be memory or a redis://host:port/db URL');
  return text;
}

/**
 * Resolves the limiter settings: an explicit option wins; else the env value; else the default
 * ({@link RATE_LIMIT_DEFAULTS}). Unlike the normalization switches, an unreadable value stops
 * the server at start: a limiter quietly running with other settings would spend a budget shared
 * with other callers.
 *
 * @param env - the environment to read.
 * @param options - explicit settings.
 * @returns the settings, keyed by env variable name.
 * @throws RateLimitSettingsError naming the variable (never its value) when a value cannot be used.
 */
export function resolveRateLimitSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: RateLimitOptions,
): RateLimitSettings {
  return {
    MCP_RATE_LIMIT: options.rateLimit ?? readSwitch(env['MCP_RATE_LIMIT']),
    MCP_RATE_LIMIT_MAX_WAIT_MS: readMilliseconds(
      'MCP_RATE_LIMIT_MAX_WAIT_MS',
      0,
      env['MCP_RATE_LIMIT_MAX_WAIT_MS'],
      options.rateLimitMaxWaitMs,
      RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_MAX_WAIT_MS,
    ),
    MCP_RATE_LIMIT_STORE: readStore(env['MCP_RATE_LIMIT_STORE']),
    // a zero deadline would fall back before any store could answer
    MCP_RATE_LIMIT_STORE_TIMEOUT_MS: readMilliseconds(
      'MCP_RATE_LIMIT_STORE_TIMEOUT_MS',
      1,
      env['MCP_RATE_LIMIT_STORE_TIMEOUT_MS'],
      options.rateLimitStoreTimeoutMs,
      RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_STORE_TIMEOUT_MS,
    ),
  };
}

/**
 * A store setting fit to show in logs and `get_envelope_contract`: `memory`, or the URL with its
 * user name, password and every query value that may carry a credential replaced by `***` (see
 * `withoutPassword`).
 *
 * @param setting - `MCP_RATE_LIMIT_STORE` as {@link resolveRateLimitSettings} accepted it.
 * @returns the description.
 */
export function storeDescription(setting: string): string {
  return setting === 'memory' ? setting : withoutPassword(setting);
}

/**
 * Opens the store `MCP_RATE_LIMIT_STORE` names: a new in-memory store for `memory`; for a Redis
 * URL, the Redis store.
 *
 * @param setting - the resolved `MCP_RATE_LIMIT_STORE`.
 * @param options - the logger the Redis store reports connection trouble to; the Redis store's
 * `MCP_RATE_LIMIT_STORE_TIMEOUT_MS` in ms (default: {@link RATE_LIMIT_DEFAULTS}), from which its
 * connect and command deadlines follow (`storeDeadlines`).
 * @returns the store; its owner closes it.
 */
export function openRateLimitStore(
  setting: string,
  options: { readonly logger: EnvelopeLogger; readonly timeoutMs?: number },
): RateLimitStore {
  if (setting === 'memory') return createMemoryRateLimitStore();
  // the Redis client is loaded on the store's first call, never by servers without Redis
  return createLazyRedisRateLimitStore(setting, options);
}
