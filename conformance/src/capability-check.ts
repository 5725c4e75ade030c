/**
 * Reads and checks the `openbridge_envelope` capability a server advertises at initialization.
 *
 * @packageDocumentation
 */
import { isDeepStrictEqual } from 'node:util';

import {
  CONTRACT_VERSION,
  ENV_SWITCHES,
  ENVELOPE_CAPABILITY_KEY,
  ERROR_KINDS,
  NORMALIZED_KINDS,
} from '@mcp-envelope/contract';

import { isRecord } from './json-schema.js';
import type { CapabilityStatus } from './report-types.js';

const EXPERIMENTAL_LOCATION = `capabilities.experimental.${ENVELOPE_CAPABILITY_KEY}`;
const TOP_LEVEL_LOCATION = `capabilities.${ENVELOPE_CAPABILITY_KEY}`;

function locate(capabilities: unknown): { location: string; value: unknown } | undefined {
  if (!isRecord(capabilities)) return undefined;
  const experimental = capabilities['experimental'];
  if (isRecord(experimental) && Object.hasOwn(experimental, ENVELOPE_CAPABILITY_KEY)) {
    return { location: EXPERIMENTAL_LOCATION, value: experimental[ENVELOPE_CAPABILITY_KEY] };
  }
  if (Object.hasOwn(capabilities, ENVELOPE_CAPABILITY_KEY))
    return { location: TOP_LEVEL_LOCATION, value: capabilities[ENVELOPE_CAPABILITY_KEY] };
  return undefined;
}

function listIssues(name: string, list: unknown, allowed: readonly string[]): string[] {
  if (!Array.isArray(list)) return [`${name} is not a list`];
  const issues: string[] = [];
  const seen = new Set<unknown>();
  for (const entry of list) {
    if (typeof entry !== 'string' || !allowed.includes(entry))
      issues.push(`${name} contains ${JSON.stringify(entry)}, which is not in the v${CONTRACT_VERSION} taxonomy`);
    if (seen.has(entry)) issues.push(`${name} lists ${JSON.stringify(entry)} twice`);
    seen.add(entry);
  }
  return issues;
}

/**
 * Finds the envelope capability (under `capabilities.experimental`, else at the top level of
 * `capabilities`) and checks it: `contract_version` must be 1, `error_kinds` a list of distinct
 * kinds of the closed taxonomy, and `normalized_kinds`, when present, a list of distinct
 * normalization kinds. Implements CONTRACT.md "Conformance" rule 5.
 *
 * @param capabilities - the server capabilities (ideally the raw `initialize` result's, since SDK
 *   clients strip unknown top-level keys).
 * @returns the status; `issues` is empty exactly when the capability is advertised and valid.
 */
export function checkCapability(capabilities: unknown): CapabilityStatus {
  const found = locate(capabilities);
  if (found === undefined) {
    return {
      advertised: false,
      location: null,
      value: null,
      contract_version: null,
      error_kinds: null,
      issues: [
        `no capability advertised (no ${ENVELOPE_CAPABILITY_KEY} in capabilities.experimental or at the top level)`,
      ],
    };
  }
  const value = found.value;
  if (!isRecord(value)) {
    return {
      advertised: true,
      location: found.location,
      value,
      contract_version: null,
      error_kinds: null,
      issues: [`${found.location} is not an object`],
    };
  }
  const issues: string[] = [];
  const contractVersion = value['contract_version'];
  if (contractVersion !== CONTRACT_VERSION)
    issues.push(`contract_version is ${JSON.stringify(contractVersion) ?? 'absent'}, expected ${CONTRACT_VERSION}`);
  const kinds = value['error_kinds'];
  issues.push(...listIssues('error_kinds', kinds, ERROR_KINDS));
  if (Object.hasOwn(value, 'normalized_kinds'))
    issues.push(...listIssues('normalized_kinds', value['normalized_kinds'], NORMALIZED_KINDS));
  const errorKinds = Array.isArray(kinds) ? kinds.filter((kind): kind is string => typeof kind === 'string') : null;
  return {
    advertised: true,
    location: found.location,
    value,
    contract_version: contractVersion ?? null,
    error_kinds: errorKinds,
    issues,
  };
}

/**
 * Whether a kind may be emitted under the advertised capability.
 *
 * @param status - from {@link checkCapability}.
 * @param kind - an `error_kind` that arrived.
 * @returns `undefined` when it is advertised, else the reason it fails check (3).
 */
export function kindAdvertisementIssue(status: CapabilityStatus, kind: string): string | undefined {
  if (!status.advertised) return 'no capability advertised';
  if (status.error_kinds === null) return 'advertised error_kinds is not a list';
  return status.error_kinds.includes(kind) ? undefined : `error_kind ${kind} is not in the advertised error_kinds`;
}

/** The switches a server reports in `get_envelope_contract`'s `settings` (`undefined`: not reported). */
export interface ServerSettings {
  /** `MCP_SCHEMA_KEY_NORMALIZATION_ENABLED`. */
  readonly normalizationEnabled: boolean | undefined;
  /** `MCP_STRICT_UNKNOWN_FIELDS`. */
  readonly strictUnknownFields: boolean | undefined;
}

/** The keys on which `get_envelope_contract` must repeat the advertised capability. */
export const CONTRACT_TOOL_KEYS = ['contract_version', 'error_kinds', 'normalized_kinds'] as const;

/**
 * Compares what `get_envelope_contract` returned with the advertised capability object, key by
 * key over {@link CONTRACT_TOOL_KEYS}. Implements CONTRACT.md "Capabilities" (the tool returns the
 * same object plus the switches).
 *
 * @param contract - the tool's result value (its `structuredContent`, or its text parsed).
 * @param capability - the advertised `openbridge_envelope` value.
 * @returns one line per key that differs; empty when they agree.
 */
export function contractToolDisagreements(contract: unknown, capability: unknown): string[] {
  if (!isRecord(contract)) return ['get_envelope_contract returned no object'];
  const advertised = isRecord(capability) ? capability : {};
  return CONTRACT_TOOL_KEYS.filter((key) => !isDeepStrictEqual(contract[key], advertised[key])).map(
    (key) =>
      `${key}: get_envelope_contract says ${JSON.stringify(contract[key]) ?? 'nothing'}, the capability ${JSON.stringify(advertised[key]) ?? 'nothing'}`,
  );
}

/**
 * Reads the reported switches from a `get_envelope_contract` result.
 *
 * @param contract - the tool's result value.
 * @returns the booleans found under `settings`; a switch that is absent or not a boolean is `undefined`.
 */
export function settingsOfContract(contract: unknown): ServerSettings {
  const settings = isRecord(contract) && isRecord(contract['settings']) ? contract['settings'] : {};
  const flag = (name: string): boolean | undefined =>
    typeof settings[name] === 'boolean' ? settings[name] : undefined;
  return {
    normalizationEnabled: flag('MCP_SCHEMA_KEY_NORMALIZATION_ENABLED'),
    strictUnknownFields: flag('MCP_STRICT_UNKNOWN_FIELDS'),
  };
}

/**
 * The env switches a `get_envelope_contract` result does not report as booleans under `settings`
 * (the contract asks for all three, so that hosts and the probe know how the server behaves).
 *
 * @param contract - the tool's result value.
 * @returns the names of the switches missing or not boolean, in `ENV_SWITCHES` order; empty when all are reported.
 */
export function unreportedSwitches(contract: unknown): string[] {
  const settings = isRecord(contract) && isRecord(contract['settings']) ? contract['settings'] : {};
  return Object.keys(ENV_SWITCHES).filter((name) => typeof settings[name] !== 'boolean');
}
