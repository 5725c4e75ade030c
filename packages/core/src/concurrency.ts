/**
 * The concurrency guard of `tools/call`: a server bounds the calls it has in flight, in all and
 * per tool, and answers a call past either bound at once with a retryable `rate_limited` /
 * `SERVER_BUSY` envelope. It never queues: a queue without bound is how one greedy client made
 * every call of every other client wait, and a bounded queue only moves the refusal later.
 * Implements CONTRACT.md "SERVER_BUSY".
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

/** The resolved bounds, keyed by their env variable names. */
export interface ConcurrencySettings {
  /** The most calls the server runs at once, all tools together. */
  readonly MCP_MAX_CONCURRENT_CALLS: number;
  /** The most calls of one tool the server runs at once. */
  readonly MCP_MAX_CONCURRENT_CALLS_PER_TOOL: number;
}

/**
 * The defaults: 32 calls in all, 8 per tool. 32 stays well under the concurrency where REST APIs
 * start refusing (GitHub documents 100 concurrent requests, shared with the user's other
 * clients); 8 per tool leaves room for four tools at full width, so one tool cannot take the
 * whole server.
 */
export const CONCURRENCY_DEFAULTS: ConcurrencySettings = Object.freeze({
  MCP_MAX_CONCURRENT_CALLS: 32,
  MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 8,
});

/** Explicit bounds; an option that is set wins over the environment. */
export interface ConcurrencyOptions {
  /** `MCP_MAX_CONCURRENT_CALLS`: an integer from 1 to 100000 (default 32). */
  readonly maxConcurrentCalls?: number;
  /** `MCP_MAX_CONCURRENT_CALLS_PER_TOOL`: an integer from 1 to 100000 (default 8). */
  readonly maxConcurrentCallsPerTool?: number;
}

/** The largest bound accepted: past it, a bound protects nothing. */
const MAX_BOUND = 100_000;

/** Why a concurrency setting cannot be used (thrown by `createEnvelopeServer` at start); the message names the variable. */
export class ConcurrencySettingsError extends TypeError {
  /** @param message - the reason, naming the variable or option. */
  constructor(message: string) {
    super(message);
    this.name = 'ConcurrencySettingsError';
  }
}

function readBound(
  name: keyof ConcurrencySettings,
  raw: string | undefined,
  override: number | undefined,
  fallback: number,
): number {
  if (override !== undefined) {
    if (!Number.isSafeInteger(override) || override < 1 || override > MAX_BOUND)
      throw new ConcurrencySettingsError(`the option for ${name} must be an integer from 1 to ${MAX_BOUND}`);
    return override;
  }
  const text = raw?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_BOUND)
    throw new ConcurrencySettingsError(`${name} must be an integer from 1 to ${MAX_BOUND} (calls in flight)`);
  return value;
}

/**
 * Resolves the bounds: an explicit option wins; else the env value; else the default
 * ({@link CONCURRENCY_DEFAULTS}). Like the limiter's settings, an unreadable value stops the
 * server at start: a server quietly running without the bound a user set would send every call
 * of a burst upstream.
 *
 * @param env - the environment to read.
 * @param options - explicit bounds.
 * @returns the settings, keyed by env variable name.
 * @throws ConcurrencySettingsError naming the variable when a value is not an integer from 1 to 100000.
 */
export function resolveConcurrencySettings(
  env: Readonly<Record<string, string | undefined>>,
  options: ConcurrencyOptions,
): ConcurrencySettings {
  return {
    MCP_MAX_CONCURRENT_CALLS: readBound(
      'MCP_MAX_CONCURRENT_CALLS',
      env['MCP_MAX_CONCURRENT_CALLS'],
      options.maxConcurrentCalls,
      CONCURRENCY_DEFAULTS.MCP_MAX_CONCURRENT_CALLS,
    ),
    MCP_MAX_CONCURRENT_CALLS_PER_TOOL: readBound(
      'MCP_MAX_CONCURRENT_CALLS_PER_TOOL',
      env['MCP_MAX_CONCURRENT_CALLS_PER_TOOL'],
      options.maxConcurrentCallsPerTool,
      CONCURRENCY_DEFAULTS.MCP_MAX_CONCURRENT_CALLS_PER_TOOL,
    ),
  };
}

/** A call's place in flight; `release` gives it back (a second call does nothing). */
export interface ConcurrencySlot {
  readonly busy: false;
  release(): void;
}

/** Why a call was refused: which bound it met, that bound, and when to try again. */
export interface BusyRefusal {
  readonly busy: true;
  readonly scope: 'server' | 'tool';
  readonly limit: number;
  readonly retryAfterSeconds: number;
}

/** The guard of one server. */
export interface ConcurrencyGuard {
  /**
   * Takes a place in flight for a call of `tool`, or refuses it when the server or the tool is
   * at its bound.
   *
   * @param tool - the tool called.
   * @returns the slot, to release when the handler has ended, or the refusal.
   */
  enter(tool: string): ConcurrencySlot | BusyRefusal;
  /** Calls in flight, all tools together. */
  readonly inFlight: number;
}

/** How many recent call durations the retry estimate reads, per tool and for the server. */
const RECENT = 16;
/** The estimate with no call finished yet, in seconds. */
const FIRST_ESTIMATE_SECONDS = 1;
/** The estimate is kept between these, in seconds. */
const MIN_ESTIMATE_SECONDS = 0.1;
const MAX_ESTIMATE_SECONDS = 10;

/** Recent durations in milliseconds, newest last, at most {@link RECENT}. */
function remember(durations: number[], ms: number): void {
  durations.push(ms);
  if (durations.length > RECENT) durations.shift();
}

/**
 * The wait a busy call is told: the median of the scope's recent call durations, rounded up to
 * a tenth of a second, from 0.1 to 10 s. A slot frees when a call in flight ends, so a typical
 * call's duration is an honest upper guess; the median ignores the odd slow call.
 */
function retryEstimate(durations: readonly number[]): number {
  if (durations.length === 0) return FIRST_ESTIMATE_SECONDS;
  const sorted = [...durations].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const seconds = Math.ceil(median / 100) / 10;
  return Math.min(MAX_ESTIMATE_SECONDS, Math.max(MIN_ESTIMATE_SECONDS, seconds));
}

/**
 * Creates the guard of one server. Counts and durations live in this closure, one per server.
 *
 * @param settings - the bounds.
 * @param now - the clock, in milliseconds (tests pass their own).
 * @returns the guard.
 */
export function createConcurrencyGuard(
  settings: ConcurrencySettings,
  now: () => number = () => performance.now(),
): ConcurrencyGuard {
  const perTool = new Map<string, number>();
  const durations = { server: [] as number[], tools: new Map<string, number[]>() };
  const state = { inFlight: 0 };
  const toolDurations = (tool: string): number[] => {
    const known = durations.tools.get(tool);
    if (known !== undefined) return known;
    const created: number[] = [];
    durations.tools.set(tool, created);
    return created;
  };
  return {
    enter: (tool) => {
      const running = perTool.get(tool) ?? 0;
      if (running >= settings.MCP_MAX_CONCURRENT_CALLS_PER_TOOL)
        return {
          busy: true,
          scope: 'tool',
          limit: settings.MCP_MAX_CONCURRENT_CALLS_PER_TOOL,
          retryAfterSeconds: retryEstimate(toolDurations(tool)),
        };
      if (state.inFlight >= settings.MCP_MAX_CONCURRENT_CALLS)
        return {
          busy: true,
          scope: 'server',
          limit: settings.MCP_MAX_CONCURRENT_CALLS,
          retryAfterSeconds: retryEstimate(durations.server),
        };
      perTool.set(tool, running + 1);
      state.inFlight += 1;
      const started = now();
      let released = false;
      return {
        busy: false,
        release: () => {
          if (released) return;
          released = true;
          state.inFlight -= 1;
          const left = (perTool.get(tool) ?? 1) - 1;
          if (left === 0) perTool.delete(tool);
          else perTool.set(tool, left);
          const took = now() - started;
          remember(durations.server, took);
          remember(toolDurations(tool), took);
        },
      };
    },
    get inFlight() {
      return state.inFlight;
    },
  };
}

/**
 * The `rate_limited` / `SERVER_BUSY` envelope of a refused call (not yet finalized). It names no
 * `upstream`: the server refused, not the upstream API.
 *
 * @param tool - the tool called.
 * @param refusal - the bound met and the wait.
 * @returns the envelope.
 */
export function busyEnvelope(tool: string, refusal: BusyRefusal): ErrorEnvelope {
  const setting = refusal.scope === 'tool' ? 'MCP_MAX_CONCURRENT_CALLS_PER_TOOL' : 'MCP_MAX_CONCURRENT_CALLS';
  const what = refusal.scope === 'tool' ? `calls to ${tool}` : 'calls';
  const wait = refusal.retryAfterSeconds;
  return {
    error_kind: 'rate_limited',
    tool,
    summary: `This server is busy: ${refusal.limit} ${what} are already running, its limit (${setting}); this call was refused before any upstream call.`,
    details: [
      {
        path: '',
        issue: 'refused before any upstream call: too many calls in flight',
        received_type: 'object',
        scope: refusal.scope,
        limit: refusal.limit,
        setting,
      },
    ],
    hints: [
      `Wait ${wait} s (_meta.retry_after_seconds), then call ${tool} again.`,
      `Send fewer calls at once: at most ${refusal.limit} ${what} run together on this server.`,
    ],
    examples: [],
    error_code: 'SERVER_BUSY',
    retryable: true,
    _envelope_version: CONTRACT_VERSION,
    _meta: { retry_after_seconds: wait },
  };
}
