/**
 * The three env switches of pre-flight normalization and the server options that override them
 * (CONTRACT.md "Configuration": same names, same meanings, same defaults on every server), and the
 * size limits on upstream bodies and tool results.
 *
 * @packageDocumentation
 */
import { ENV_SWITCHES } from '@mcp-envelope/contract';
import type { EnvSwitch } from '@mcp-envelope/contract';

import type { EnvelopeLogger } from './logger.js';
import { DEFAULT_MAX_UPSTREAM_BODY_BYTES } from './upstream.js';

/** The values the switches resolved to, keyed by their env variable names. */
export type EnvelopeSettings = { readonly [Name in EnvSwitch]: boolean };

/** Explicit overrides; an option that is set wins over the environment. */
export interface EnvelopeSwitchOptions {
  /** `MCP_SCHEMA_KEY_NORMALIZATION_ENABLED`: run pre-flight key normalization (default true). */
  readonly normalizationEnabled?: boolean;
  /** `MCP_SCHEMA_KEY_NORMALIZATION_META`: emit `_meta.normalized` events (default false). */
  readonly normalizationMeta?: boolean;
  /** `MCP_STRICT_UNKNOWN_FIELDS`: reject keys the schema does not know (default true). */
  readonly strictUnknownFields?: boolean;
}

const OPTION_FOR_SWITCH = {
  MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'normalizationEnabled',
  MCP_SCHEMA_KEY_NORMALIZATION_META: 'normalizationMeta',
  MCP_STRICT_UNKNOWN_FIELDS: 'strictUnknownFields',
} as const satisfies Record<EnvSwitch, keyof EnvelopeSwitchOptions>;

const TRUE_WORDS: ReadonlySet<string> = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS: ReadonlySet<string> = new Set(['false', '0', 'no', 'off']);

/**
 * Reads one boolean env value: `true`/`1`/`yes`/`on` and `false`/`0`/`no`/`off`, in any case,
 * surrounding whitespace ignored.
 *
 * @param raw - the variable's value, or `undefined` when unset.
 * @returns the boolean, `undefined` when unset or empty, or `'invalid'` for any other text.
 */
export function parseBooleanSwitch(raw: string | undefined): boolean | 'invalid' | undefined {
  if (raw === undefined) return undefined;
  const word = raw.trim().toLowerCase();
  if (word === '') return undefined;
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return 'invalid';
}

/**
 * Resolves the three switches: an explicit option wins; else the env value; else the contract
 * default. An unreadable env value falls back to the default and logs one warning naming the
 * variable (the value itself is not logged).
 *
 * @param env - the environment to read (defaults to `process.env` at the call site).
 * @param options - explicit overrides.
 * @param logger - where the warning goes.
 * @returns the settings, keyed by env variable name.
 */
export function resolveSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: EnvelopeSwitchOptions,
  logger: EnvelopeLogger,
): EnvelopeSettings {
  const resolve = (name: EnvSwitch): boolean => {
    const override = options[OPTION_FOR_SWITCH[name]];
    if (override !== undefined) return override;
    const parsed = parseBooleanSwitch(env[name]);
    if (parsed === 'invalid') {
      logger.warn(
        { variable: name, default: ENV_SWITCHES[name] },
        `${name} is not one of true/false/1/0/yes/no/on/off; using the default`,
      );
      return ENV_SWITCHES[name];
    }
    return parsed ?? ENV_SWITCHES[name];
  };
  return {
    MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: resolve('MCP_SCHEMA_KEY_NORMALIZATION_ENABLED'),
    MCP_SCHEMA_KEY_NORMALIZATION_META: resolve('MCP_SCHEMA_KEY_NORMALIZATION_META'),
    MCP_STRICT_UNKNOWN_FIELDS: resolve('MCP_STRICT_UNKNOWN_FIELDS'),
  };
}

/** The default limit on a tool result as sent, in bytes (9 MiB: under the 10 MiB line the SDK's stdio client accepts). */
export const DEFAULT_MAX_RESULT_BYTES = 9 * 1024 * 1024;

/** The size limits, keyed by their env variable names (what `get_envelope_contract` reports). */
export interface EnvelopeLimits {
  /** The most bytes a successful upstream body may have, declared or decompressed. */
  readonly MCP_MAX_UPSTREAM_BODY_BYTES: number;
  /** The most bytes a tool result may have as JSON on the wire. */
  readonly MCP_MAX_RESULT_BYTES: number;
}

/** Explicit limits; an option that is set wins over the environment. */
export interface EnvelopeLimitOptions {
  /** `MCP_MAX_UPSTREAM_BODY_BYTES` (default 4 MiB, `DEFAULT_MAX_UPSTREAM_BODY_BYTES`). */
  readonly maxUpstreamBodyBytes?: number;
  /** `MCP_MAX_RESULT_BYTES` (default 9 MiB, `DEFAULT_MAX_RESULT_BYTES`). */
  readonly maxResultBytes?: number;
}

/**
 * Resolves the size limits: an explicit option wins; else the env value (a positive integer of
 * bytes); else the default. An unreadable env value falls back to the default with one warning.
 *
 * @param env - the environment to read.
 * @param options - explicit limits.
 * @param logger - where the warning goes.
 * @returns the limits, keyed by env variable name.
 * @throws TypeError when an option is not a positive integer.
 */
export function resolveLimits(
  env: Readonly<Record<string, string | undefined>>,
  options: EnvelopeLimitOptions,
  logger: EnvelopeLogger,
): EnvelopeLimits {
  const resolve = (name: keyof EnvelopeLimits, override: number | undefined, fallback: number): number => {
    if (override !== undefined) {
      if (!Number.isSafeInteger(override) || override < 1)
        throw new TypeError(`the option for ${name} must be a positive integer of bytes, got ${String(override)}`);
      return override;
    }
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(value) && value >= 1) return value;
    logger.warn({ variable: name, default: fallback }, `${name} is not a positive integer of bytes; using the default`);
    return fallback;
  };
  return {
    MCP_MAX_UPSTREAM_BODY_BYTES: resolve(
      'MCP_MAX_UPSTREAM_BODY_BYTES',
      options.maxUpstreamBodyBytes,
      DEFAULT_MAX_UPSTREAM_BODY_BYTES,
    ),
    MCP_MAX_RESULT_BYTES: resolve('MCP_MAX_RESULT_BYTES', options.maxResultBytes, DEFAULT_MAX_RESULT_BYTES),
  };
}

/** The env variable of the ToolFailure mirror (CONTRACT.md "ToolFailure mirror"). */
export const TOOL_FAILURE_META_ENV = 'MCP_TOOL_FAILURE_META';

/** The explicit switch of the ToolFailure mirror; set, it wins over the environment. */
export interface ToolFailureMetaOptions {
  /**
   * `MCP_TOOL_FAILURE_META`: give every failed call's result
   * `_meta["io.modelcontextprotocol/toolFailure"]`, read from its envelope, and advertise the key in
   * `capabilities.extensions` (default false). See CONTRACT.md "ToolFailure mirror".
   */
  readonly toolFailureMeta?: boolean;
}

/**
 * Resolves the ToolFailure mirror switch: the option when set; else `MCP_TOOL_FAILURE_META` read
 * like the other switches (`true`/`1`/`yes`/`on`, `false`/`0`/`no`/`off`); else off. An
 * unreadable value leaves it off with one warning naming the variable (the value is not logged).
 *
 * @param env - the environment to read.
 * @param options - the explicit switch.
 * @param logger - where the warning goes.
 * @returns whether the mirror is on.
 */
export function resolveToolFailureMeta(
  env: Readonly<Record<string, string | undefined>>,
  options: ToolFailureMetaOptions,
  logger: EnvelopeLogger,
): boolean {
  if (options.toolFailureMeta !== undefined) return options.toolFailureMeta;
  const parsed = parseBooleanSwitch(env[TOOL_FAILURE_META_ENV]);
  if (parsed !== 'invalid') return parsed ?? false;
  logger.warn(
    { variable: TOOL_FAILURE_META_ENV, default: false },
    `${TOOL_FAILURE_META_ENV} is not one of true/false/1/0/yes/no/on/off; using the default`,
  );
  return false;
}
