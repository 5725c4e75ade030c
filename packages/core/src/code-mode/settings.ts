/**
 * The Code Mode switch and the sandbox limits: `CODE_MODE` and the `CODE_MODE_*` limits, read
 * from the environment, with server options that override them. Implements CONTRACT.md
 * "Code Mode".
 *
 * @packageDocumentation
 */
import type { EnvelopeLogger } from '../logger.js';
import { parseBooleanSwitch } from '../options.js';

/** The resolved Code Mode settings, keyed by their env variable names (what `get_envelope_contract` reports). */
export interface CodeModeSettings {
  /** Whether the meta tools (`search_tools`, `get_tool_schema`, `execute_code`) are served. */
  readonly CODE_MODE: boolean;
  /** The most milliseconds one `execute_code` call may run, inner calls included. */
  readonly CODE_MODE_WALL_TIME_MS: number;
  /** The most megabytes (MiB) the sandbox's heap may grow to. */
  readonly CODE_MODE_MEMORY_MB: number;
  /** The most bytes of the code's return value as JSON and its logged lines together (each line one byte more). */
  readonly CODE_MODE_OUTPUT_BYTES: number;
  /** The most `callTool` calls one `execute_code` call may make. */
  readonly CODE_MODE_MAX_CALLS: number;
  /**
   * The most `execute_code` runs one session may have queued or running at once; the next is
   * refused at once with a retryable `sandbox_runtime` envelope.
   */
  readonly CODE_MODE_MAX_SESSION_RUNS: number;
}

/**
 * The defaults: off; 5 s, 64 MiB, 1 MiB of output, 50 inner calls, 8 runs per session (enough to
 * fill the four workers and have as many waiting).
 */
export const CODE_MODE_DEFAULTS: CodeModeSettings = Object.freeze({
  CODE_MODE: false,
  CODE_MODE_WALL_TIME_MS: 5000,
  CODE_MODE_MEMORY_MB: 64,
  CODE_MODE_OUTPUT_BYTES: 1024 * 1024,
  CODE_MODE_MAX_CALLS: 50,
  CODE_MODE_MAX_SESSION_RUNS: 8,
});

/** Explicit Code Mode settings; an option that is set wins over the environment. */
export interface CodeModeOptions {
  /** `CODE_MODE`: serve the meta tools and hide the other tools from `tools/list` (default false). */
  readonly codeMode?: boolean;
  /** `CODE_MODE_WALL_TIME_MS`, `CODE_MODE_MEMORY_MB`, `CODE_MODE_OUTPUT_BYTES`, `CODE_MODE_MAX_CALLS`, `CODE_MODE_MAX_SESSION_RUNS`: positive integers; the wall time at most 3600000 ms, the memory at most 4095 MiB. */
  readonly codeModeLimits?: Partial<Omit<CodeModeSettings, 'CODE_MODE'>>;
}

type LimitName = Exclude<keyof CodeModeSettings, 'CODE_MODE'>;

const LIMIT_NAMES: readonly LimitName[] = [
  'CODE_MODE_WALL_TIME_MS',
  'CODE_MODE_MEMORY_MB',
  'CODE_MODE_OUTPUT_BYTES',
  'CODE_MODE_MAX_CALLS',
  'CODE_MODE_MAX_SESSION_RUNS',
];

/**
 * The largest value each limit takes: one hour of wall time (the run's timers must fit in a
 * 32-bit millisecond count, as Node's do), and 4095 MiB of memory (QuickJS counts its limit in a
 * 32-bit size, so 4096 MiB would wrap to none at all).
 */
export const CODE_MODE_MAXIMUMS: Readonly<Partial<Record<LimitName, number>>> = {
  CODE_MODE_WALL_TIME_MS: 3_600_000,
  CODE_MODE_MEMORY_MB: 4095,
};

function resolveSwitch(
  env: Readonly<Record<string, string | undefined>>,
  override: boolean | undefined,
  logger: EnvelopeLogger,
): boolean {
  if (override !== undefined) return override;
  const parsed = parseBooleanSwitch(env['CODE_MODE']);
  if (parsed !== 'invalid') return parsed ?? CODE_MODE_DEFAULTS.CODE_MODE;
  logger.warn(
    { variable: 'CODE_MODE', default: CODE_MODE_DEFAULTS.CODE_MODE },
    'CODE_MODE is not one of true/false/1/0/yes/no/on/off; using the default',
  );
  return CODE_MODE_DEFAULTS.CODE_MODE;
}

function resolveLimit(
  name: LimitName,
  env: Readonly<Record<string, string | undefined>>,
  override: number | undefined,
  logger: EnvelopeLogger,
): number {
  const fallback = CODE_MODE_DEFAULTS[name];
  const maximum = CODE_MODE_MAXIMUMS[name];
  const wanted = maximum === undefined ? 'a positive integer' : `an integer from 1 to ${maximum}`;
  const within = (value: number): boolean =>
    Number.isSafeInteger(value) && value >= 1 && (maximum === undefined || value <= maximum);
  if (override !== undefined) {
    if (!within(override)) throw new TypeError(`the option for ${name} must be ${wanted}, got ${String(override)}`);
    return override;
  }
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (/^\d+$/.test(raw) && within(Number(raw))) return Number(raw);
  logger.warn(
    { variable: name, default: fallback, ...(maximum === undefined ? {} : { maximum }) },
    `${name} is not ${wanted}; using the default`,
  );
  return fallback;
}

/**
 * Resolves the Code Mode settings: an explicit option wins; else the env value; else the default
 * ({@link CODE_MODE_DEFAULTS}). An unreadable env value, or one above its maximum
 * ({@link CODE_MODE_MAXIMUMS}), falls back to the default with one warning naming the variable
 * (not the value).
 *
 * @param env - the environment to read.
 * @param options - explicit settings.
 * @param logger - where the warnings go.
 * @returns the settings, keyed by env variable name.
 * @throws TypeError when a limit option is not an integer from 1 to its maximum.
 */
export function resolveCodeModeSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: CodeModeOptions,
  logger: EnvelopeLogger,
): CodeModeSettings {
  const limits = Object.fromEntries(
    LIMIT_NAMES.map((name) => [name, resolveLimit(name, env, options.codeModeLimits?.[name], logger)]),
  ) as Record<LimitName, number>;
  return { CODE_MODE: resolveSwitch(env, options.codeMode, logger), ...limits };
}
