/**
 * A {@link RateLimitStore} in Redis, shared by every replica that points at the same Redis: each
 * operation is one server-side Lua script (one round trip, atomic per key), timed by Redis's own
 * clock (`TIME`) because the replicas' clocks disagree. Idle keys expire once their bucket would
 * be full again. A Redis that is down or slow makes every method throw quickly (the limiter then
 * falls back to its memory store); the client reconnects by itself when Redis returns.
 *
 * The limiter imports this module lazily, only when `MCP_RATE_LIMIT_STORE` is a `redis://` URL,
 * so servers without Redis never load the client.
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter, across replicas).
 *
 * @packageDocumentation
 */
import { Redis } from 'ioredis';

import type { EnvelopeLogger } from '../logger.js';
import { withoutPassword } from './redis-url.js';
import { DEFAULT_STORE_TIMEOUT_MS, storeDeadlines, type RateLimitStoreDeadlines } from './store-deadlines.js';
import type { RateLimitPlan, RateLimitStore, RateLimitTake } from './store.js';

/** Options of {@link createRedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** Where "Redis reachable again" is logged after an outage (never the password). */
  readonly logger: EnvelopeLogger;
  /** Prefix of every key (default {@link REDIS_RATE_LIMIT_KEY_PREFIX}). */
  readonly keyPrefix?: string;
  /**
   * `MCP_RATE_LIMIT_STORE_TIMEOUT_MS` in ms (default 1000): a connection attempt may take half of
   * it and one script a quarter (`storeDeadlines`).
   */
  readonly timeoutMs?: number;
}

/** The prefix of the store's keys unless `keyPrefix` says otherwise. */
export const REDIS_RATE_LIMIT_KEY_PREFIX = 'mcp-envelope:rl:';

/** Reconnect delays grow by this much per attempt, in ms ... */
const RECONNECT_STEP_MS = 100;
/** ... up to this, and the client keeps trying for as long as the store is open. */
const RECONNECT_MAX_DELAY_MS = 1000;
/** A key outlives the moment its bucket is full again by this much, in ms. */
const EXPIRY_MARGIN_MS = 1000;

/**
 * Shared by the scripts: reads the bucket at KEYS[1] (absent = full) and refills it by the time
 * passed on Redis's clock. ARGV[1] = tokens per second, ARGV[2] = burst. Sets `now` (ms),
 * `perMs`, `burst` and `tokens` (may be negative: reserved tokens not yet due).
 */
const READ_BUCKET = `
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local perMs = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = burst; at = now end
if now > at then tokens = math.min(burst, tokens + (now - at) * perMs) end
local function save()
  local untilFull = math.ceil((burst - tokens) / perMs)
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.max(1, untilFull) + tonumber(ARGV[#ARGV]))
  return untilFull
end
`;

/**
 * Take: ARGV[3] = max wait in ms. Returns { granted 0|1, waitMs, remaining, resetAtMs,
 * resetAfterMs }; a refused take saves nothing.
 */
const TAKE_SCRIPT = `${READ_BUCKET}
local maxWait = tonumber(ARGV[3])
local wait = 0
if tokens < 1 then wait = math.ceil((1 - tokens) / perMs) end
if wait > maxWait then
  local refusedUntilFull = math.ceil((burst - tokens) / perMs)
  return { 0, wait, 0, now + refusedUntilFull, refusedUntilFull }
end
tokens = tokens - 1
local untilFull = save()
return { 1, wait, math.max(0, math.floor(tokens)), now + untilFull, untilFull }
`;

/** Refund: one token back, never above burst; an absent key is a full bucket already. */
const REFUND_SCRIPT = `${READ_BUCKET}
if state[1] == false then return 0 end
tokens = math.min(burst, tokens + 1)
save()
return 1
`;

/** Drain: ARGV[3] = ms until the next token; the bucket keeps any deeper debt it already has. */
const DRAIN_SCRIPT = `${READ_BUCKET}
tokens = math.min(tokens, 1 - tonumber(ARGV[3]) * perMs)
save()
return 1
`;

/** The scripts as commands on the client (EVALSHA, falling back to EVAL once after a Redis restart). */
interface ScriptedRedis {
  rateLimitTake(key: string, rate: string, burst: string, maxWaitMs: string, margin: string): Promise<number[]>;
  rateLimitRefund(key: string, rate: string, burst: string, margin: string): Promise<number>;
  rateLimitDrain(key: string, rate: string, burst: string, waitMs: string, margin: string): Promise<number>;
}

/** Creates the client: fails fast while Redis is away, and keeps reconnecting until closed. */
function createClient(url: string, deadlines: RateLimitStoreDeadlines): Redis {
  return new Redis(url, {
    connectTimeout: deadlines.connectMs,
    commandTimeout: deadlines.commandMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt: number) => Math.min(attempt * RECONNECT_STEP_MS, RECONNECT_MAX_DELAY_MS),
  });
}

/** An error of this store: `code` is the last connection error's (e.g. `ECONNREFUSED`), else `REDIS_UNREACHABLE`. */
function unreachable(description: string, reason: string, code: string | undefined): Error {
  return Object.assign(new Error(`rate-limit store ${description}: Redis unreachable (${reason})`), {
    code: code ?? 'REDIS_UNREACHABLE',
  });
}

/**
 * Watches the connection, and answers whether a command should wait for the first connection or
 * fail at once. The outage itself is the limiter's to log (it falls back, once per outage); the
 * store logs once when Redis is reachable again.
 */
function watchConnection(
  client: Redis,
  description: string,
  logger: EnvelopeLogger,
  connectMs: number,
): { whenUsable: () => Promise<void>; stop: () => void } {
  const state: { down: boolean; stopped: boolean; since: number; code: string | undefined } = {
    down: false,
    stopped: false,
    since: 0,
    code: undefined,
  };
  const markDown = (code: string | undefined): void => {
    state.code = code ?? state.code;
    if (state.down || state.stopped) return;
    state.down = true;
    state.since = Date.now();
  };
  client.on('error', (error: Error & { code?: unknown }) => {
    markDown(typeof error.code === 'string' ? error.code : undefined);
  });
  client.on('close', () => {
    // a close before the first connection is the connect error's business
    if (client.status !== 'connecting') markDown(undefined);
  });
  client.on('ready', () => {
    if (state.down && !state.stopped)
      logger.warn(
        { store: description, unreachable_ms: Date.now() - state.since },
        'rate-limit store: Redis reachable again; buckets are shared across replicas again',
      );
    state.down = false;
    state.code = undefined;
  });
  let pending: Promise<void> | undefined;
  const firstConnection = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        client.off('ready', settle);
        client.off('error', settle);
        pending = undefined;
        if (error === undefined) resolve();
        else reject(unreachable(description, error.message, state.code));
      };
      const timer = setTimeout(() => {
        settle(new Error(`not connected within ${connectMs} ms`));
      }, connectMs);
      client.once('ready', settle);
      client.once('error', settle);
    });
  return {
    // only the very first connection is waited for; during an outage a take throws at once
    whenUsable: async () => {
      if (client.status === 'ready') return;
      if (state.down || client.status === 'end' || client.status === 'close')
        throw unreachable(description, client.status, state.code);
      // every call waiting for the first connection shares one wait
      pending ??= firstConnection();
      await pending;
    },
    stop: () => {
      state.stopped = true;
    },
  };
}

/**
 * Creates a rate-limit store in the Redis at `url`. It connects at once in the background; a
 * method called before the first connection waits for it (at most half of `timeoutMs`, 500 ms by
 * default).
 *
 * @param url - `redis://[:password@]host:port[/db]` (or `rediss://`).
 * @param options - the logger; optionally the key prefix and the deadline `timeoutMs`.
 * @returns the store; its `description` is the URL without its password.
 * @throws never here; each method throws (rejects) when Redis is unreachable or answers no faster
 * than a quarter of `timeoutMs` (250 ms by default), and with a TypeError when the plan has `ratePerSecond <= 0` or `burst < 1`.
 */
export function createRedisRateLimitStore(url: string, options: RedisRateLimitStoreOptions): RateLimitStore {
  const description = withoutPassword(url);
  const prefix = options.keyPrefix ?? REDIS_RATE_LIMIT_KEY_PREFIX;
  const deadlines = storeDeadlines(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS);
  const client = createClient(url, deadlines);
  client.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  client.defineCommand('rateLimitRefund', { numberOfKeys: 1, lua: REFUND_SCRIPT });
  client.defineCommand('rateLimitDrain', { numberOfKeys: 1, lua: DRAIN_SCRIPT });
  const scripts = client as unknown as ScriptedRedis;
  const { whenUsable, stop } = watchConnection(client, description, options.logger, deadlines.connectMs);
  const margin = String(EXPIRY_MARGIN_MS);
  const planArgs = (plan: RateLimitPlan): [string, string] => {
    // the script would divide by zero or never grant
    if (!(plan.ratePerSecond > 0) || !Number.isFinite(plan.ratePerSecond) || !(plan.burst >= 1))
      throw new TypeError(
        `a rate limit plan needs ratePerSecond > 0 and burst >= 1, got ${String(plan.ratePerSecond)}/${String(plan.burst)}`,
      );
    return [String(plan.ratePerSecond), String(plan.burst)];
  };
  return {
    description,
    take: async (key, plan, maxWaitMs): Promise<RateLimitTake> => {
      await whenUsable();
      const reply = await scripts.rateLimitTake(
        prefix + key,
        ...planArgs(plan),
        String(Math.max(0, maxWaitMs)),
        margin,
      );
      const [granted, waitMs, remaining, resetAtMs, resetAfterMs] = reply.map(Number);
      return {
        granted: granted === 1,
        waitMs: waitMs ?? 0,
        remaining: remaining ?? 0,
        resetAtMs: resetAtMs ?? 0,
        resetAfterMs: Math.max(0, resetAfterMs ?? 0),
      };
    },
    refund: async (key, plan) => {
      await whenUsable();
      await scripts.rateLimitRefund(prefix + key, ...planArgs(plan), margin);
    },
    drain: async (key, plan, waitMs) => {
      await whenUsable();
      await scripts.rateLimitDrain(prefix + key, ...planArgs(plan), String(Math.max(0, waitMs)), margin);
    },
    close: () => {
      stop();
      client.disconnect(false);
      return Promise.resolve();
    },
  };
}
