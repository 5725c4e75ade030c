/**
 * Reads and checks the `openbridge_envelope` capability a server advertises at initialization.
 *
 * @packageDocumentation
 */
import { isDeepStrictEqual } from 'node:util';

import {
  CONTRACT_VERSIONS,
  ENV_SWITCHES,
  ENVELOPE_CAPABILITY_KEY,
  ERROR_KINDS,
  ERROR_KINDS_V1,
  NORMALIZED_KINDS,
} from '@mcp-envelope/contract';

import { isRecord } from '@mcp-envelope/contract';
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

/** The kinds of each contract version's taxonomy, keyed as `error_kinds_by_version` keys them. */
const TAXONOMIES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '1': ERROR_KINDS_V1,
  '2': ERROR_KINDS,
});

/** The pattern of an `upstream` name (CONTRACT.md "The upstream field"). */
const UPSTREAM_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function listIssues(name: string, list: unknown, allowed: readonly string[], vocabulary: string): string[] {
  if (!Array.isArray(list)) return [`${name} is not a list`];
  const issues: string[] = [];
  const seen = new Set<unknown>();
  for (const entry of list) {
    if (typeof entry !== 'string' || !allowed.includes(entry))
      issues.push(`${name} contains ${JSON.stringify(entry)}, which is not in ${vocabulary}`);
    if (seen.has(entry)) issues.push(`${name} lists ${JSON.stringify(entry)} twice`);
    seen.add(entry);
  }
  return issues;
}

function strings(list: unknown): string[] | null {
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : null;
}

/**
 * The versions a capability says it answers in: `contract_versions`, or `[contract_version]` for
 * a server of a release before version 2 (which advertised version 1 alone, without the list).
 */
function versionsIssues(value: Readonly<Record<string, unknown>>): { versions: number[] | null; issues: string[] } {
  const version = value['contract_version'];
  const known: readonly unknown[] = CONTRACT_VERSIONS;
  const issues: string[] = [];
  if (!known.includes(version))
    issues.push(
      `contract_version is ${JSON.stringify(version) ?? 'absent'}, expected one of ${CONTRACT_VERSIONS.join(', ')}`,
    );
  const listed = value['contract_versions'];
  if (listed === undefined)
    return version === 1
      ? { versions: [1], issues }
      : { versions: null, issues: [...issues, 'contract_versions is absent'] };
  if (!Array.isArray(listed) || listed.length === 0)
    return { versions: null, issues: [...issues, 'contract_versions is not a non-empty list'] };
  for (const entry of listed)
    if (!known.includes(entry))
      issues.push(`contract_versions contains ${JSON.stringify(entry)}, which is not a contract version`);
  const versions = listed.filter((entry): entry is number => known.includes(entry));
  if (versions.some((entry, index) => index > 0 && entry <= (versions[index - 1] ?? 0)))
    issues.push('contract_versions is not ascending without repeats');
  // a client that states nothing gets the server's oldest version, which contract_version names
  if (known.includes(version) && versions[0] !== version)
    issues.push(`contract_version ${String(version)} is not the oldest of contract_versions [${versions.join(', ')}]`);
  return { versions, issues };
}

/** `error_kinds_by_version`: one list per spoken version, each within its version's taxonomy; `error_kinds` repeats the default version's. */
function kindsByVersionIssues(value: Readonly<Record<string, unknown>>, versions: readonly number[]): string[] {
  const byVersion = value['error_kinds_by_version'];
  const version = String(value['contract_version']);
  if (byVersion === undefined)
    return value['contract_versions'] === undefined ? [] : ['error_kinds_by_version is absent'];
  if (!isRecord(byVersion)) return ['error_kinds_by_version is not an object'];
  const issues: string[] = [];
  for (const key of Object.keys(byVersion))
    if (!versions.includes(Number(key)))
      issues.push(`error_kinds_by_version has "${key}", which contract_versions does not list`);
  for (const spoken of versions) {
    const key = String(spoken);
    if (!Object.hasOwn(byVersion, key)) issues.push(`error_kinds_by_version has no "${key}"`);
    else
      issues.push(
        ...listIssues(
          `error_kinds_by_version["${key}"]`,
          byVersion[key],
          TAXONOMIES[key] ?? [],
          `the v${key} taxonomy`,
        ),
      );
  }
  if (Object.hasOwn(byVersion, version) && !isDeepStrictEqual(value['error_kinds'], byVersion[version]))
    issues.push(`error_kinds differs from error_kinds_by_version["${version}"] (the kinds of contract_version)`);
  return issues;
}

/** `upstreams`: distinct names of the `upstream` pattern; not empty when a version 2 upstream kind is advertised. */
function upstreamsIssues(value: Readonly<Record<string, unknown>>): string[] {
  const upstreams = value['upstreams'];
  if (upstreams === undefined) return value['contract_versions'] === undefined ? [] : ['upstreams is absent'];
  if (!Array.isArray(upstreams)) return ['upstreams is not a list'];
  const issues = upstreams
    .filter((entry) => typeof entry !== 'string' || !UPSTREAM_NAME.test(entry))
    .map(
      (entry) => `upstreams contains ${JSON.stringify(entry)}, which is not an upstream name (${UPSTREAM_NAME.source})`,
    );
  if (new Set(upstreams).size !== upstreams.length) issues.push('upstreams lists a name twice');
  const byVersion = value['error_kinds_by_version'];
  const v2 = isRecord(byVersion) ? strings(byVersion['2']) : null;
  if (upstreams.length === 0 && v2?.some((kind) => kind === 'upstream_http' || kind === 'upstream_client') === true)
    issues.push('upstreams is empty, but upstream kinds are advertised (their envelopes must name an upstream)');
  return issues;
}

/**
 * Finds the envelope capability (under `capabilities.experimental`, else at the top level of
 * `capabilities`) and checks it: `contract_version` is a contract version and the oldest of
 * `contract_versions`; `error_kinds_by_version` has one list of distinct kinds per spoken version,
 * each within that version's taxonomy, and `error_kinds` equals the list of `contract_version`;
 * `upstreams` holds distinct upstream names (not empty when upstream kinds are advertised);
 * `normalized_kinds`, when present, distinct normalization kinds. A capability of a release
 * before version 2 (`contract_version: 1` without `contract_versions`) is read as version 1 only.
 * Implements CONTRACT.md "Conformance" rule 5 and "Capabilities".
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
      contract_versions: null,
      error_kinds_by_version: null,
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
      contract_versions: null,
      error_kinds_by_version: null,
      issues: [`${found.location} is not an object`],
    };
  }
  const contractVersion = value['contract_version'];
  const { versions, issues } = versionsIssues(value);
  const taxonomy = TAXONOMIES[String(contractVersion)] ?? ERROR_KINDS;
  issues.push(...listIssues('error_kinds', value['error_kinds'], taxonomy, `the v${String(contractVersion)} taxonomy`));
  issues.push(...kindsByVersionIssues(value, versions ?? []), ...upstreamsIssues(value));
  if (Object.hasOwn(value, 'normalized_kinds'))
    issues.push(
      ...listIssues('normalized_kinds', value['normalized_kinds'], NORMALIZED_KINDS, 'the normalization kinds'),
    );
  return {
    advertised: true,
    location: found.location,
    value,
    contract_version: contractVersion ?? null,
    error_kinds: strings(value['error_kinds']),
    contract_versions: versions,
    error_kinds_by_version: kindsByVersion(value, versions),
    issues,
  };
}

/** The advertised kinds per version: `error_kinds_by_version`, or `error_kinds` for `contract_version` alone. */
function kindsByVersion(
  value: Readonly<Record<string, unknown>>,
  versions: readonly number[] | null,
): Readonly<Record<string, readonly string[]>> | null {
  const byVersion = value['error_kinds_by_version'];
  if (isRecord(byVersion))
    return Object.fromEntries(
      (versions ?? []).flatMap((version) => {
        const kinds = strings(byVersion[String(version)]);
        return kinds === null ? [] : [[String(version), kinds]];
      }),
    );
  const kinds = strings(value['error_kinds']);
  return kinds === null ? null : { [String(value['contract_version'])]: kinds };
}

/**
 * Whether a kind may be emitted under the advertised capability, in the envelope version it arrived in.
 *
 * @param status - from {@link checkCapability}.
 * @param kind - an `error_kind` that arrived.
 * @param version - the envelope's `_envelope_version` (default the capability's `contract_version`).
 * @returns `undefined` when it is advertised for that version, else the reason it fails check (3).
 */
export function kindAdvertisementIssue(status: CapabilityStatus, kind: string, version?: unknown): string | undefined {
  if (!status.advertised) return 'no capability advertised';
  const key = String(version ?? status.contract_version);
  const kinds =
    status.error_kinds_by_version?.[key] ?? (key === String(status.contract_version) ? status.error_kinds : null);
  if (kinds === null) return `no error_kinds advertised for contract version ${key}`;
  return kinds.includes(kind) ? undefined : `error_kind ${kind} is not in the advertised error_kinds of version ${key}`;
}

/** The switches a server reports in `get_envelope_contract`'s `settings` (`undefined`: not reported). */
export interface ServerSettings {
  /** `MCP_SCHEMA_KEY_NORMALIZATION_ENABLED`. */
  readonly normalizationEnabled: boolean | undefined;
  /** `MCP_STRICT_UNKNOWN_FIELDS`. */
  readonly strictUnknownFields: boolean | undefined;
}

/** The keys on which `get_envelope_contract` must repeat the advertised capability. */
export const CONTRACT_TOOL_KEYS = [
  'contract_version',
  'error_kinds',
  'normalized_kinds',
  'contract_versions',
  'upstreams',
  'error_kinds_by_version',
] as const;

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
