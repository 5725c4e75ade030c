/**
 * The three env switches of pre-flight normalization and the server options that override them.
 * Implements CONTRACT.md "Configuration" (same names, same meanings, same defaults on every server).
 *
 * @packageDocumentation
 */
import { ENV_SWITCHES } from '@mcp-envelope/contract';
import type { EnvSwitch } from '@mcp-envelope/contract';

import type { EnvelopeLogger } from './logger.js';

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
