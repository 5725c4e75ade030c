/**
 * The capability object servers advertise so agents learn the contract versions, kinds and
 * upstreams at start-up.
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION, ERROR_KINDS, ERROR_KINDS_V1, NORMALIZED_KINDS, UPSTREAM_NAME_PATTERN } from './taxonomy.js';
import type { ContractVersion, ErrorKind, ErrorKindV1, NormalizedEventKind } from './taxonomy.js';
import { V1_UPSTREAMS, contractVersionsFor } from './v1.js';
import type { V1UpstreamSpelling } from './v1.js';

/** The value of the `openbridge_envelope` capability. Implements CONTRACT.md "Capabilities". */
export interface EnvelopeCapabilityValue {
  /** The version a client that states none is answered in (the server's oldest): what a reader of v1 reads. */
  readonly contract_version: ContractVersion;
  /** The kinds this server can emit in `contract_version`: a subset of that version's taxonomy, in taxonomy order. */
  readonly error_kinds: readonly (ErrorKind | ErrorKindV1)[];
  /** The `_meta.normalized[].kind` values this server can emit. */
  readonly normalized_kinds: readonly NormalizedEventKind[];
  /** Every version this server answers in, oldest first; a client picks one by stating the versions it reads. */
  readonly contract_versions: readonly ContractVersion[];
  /** The values the envelopes' `upstream` field can take (version 2). */
  readonly upstreams: readonly string[];
  /** The kinds per version, keyed by the version as a string. */
  readonly error_kinds_by_version: {
    readonly '1'?: readonly ErrorKindV1[];
    readonly '2': readonly ErrorKind[];
  };
}

/** The capability key, as servers advertise it under `capabilities.experimental`. */
export const ENVELOPE_CAPABILITY_KEY = 'openbridge_envelope' as const;

/**
 * The reverse-DNS identifier under which a server advertises the same capability value in
 * `capabilities.extensions` (where clients of protocol revision 2026-07-28 read extensions), and
 * the request `_meta` key under which a client states the versions it reads.
 * Implements CONTRACT.md "Capabilities" and "Versioning".
 */
export const ENVELOPE_EXTENSION_ID = 'io.github.mcp-envelope/envelope' as const;

/** What {@link envelopeCapability} builds the capability from. */
export interface EnvelopeCapabilityInput {
  /** The version 2 kinds the server can emit, in any order; repeats are removed. */
  readonly errorKinds: Iterable<string>;
  /** The normalization kinds the server can emit; defaults to all five. */
  readonly normalizedKinds?: Iterable<string>;
  /** The `upstream` names the server can emit (none for a server without an upstream). */
  readonly upstreams?: Iterable<string>;
}

/** The v1 kinds of a server's v2 kinds: each upstream kind becomes its upstreams' v1 kinds. */
function kindsV1(kinds: ReadonlySet<string>, upstreams: readonly string[]): readonly ErrorKindV1[] {
  const v1 = new Set<string>(kinds);
  for (const upstream of upstreams) {
    if (!Object.hasOwn(V1_UPSTREAMS, upstream)) continue;
    const spelling = V1_UPSTREAMS[upstream] as V1UpstreamSpelling;
    if (kinds.has('upstream_http')) v1.add(spelling.http_kind);
    if (kinds.has('upstream_client')) v1.add(spelling.client_kind);
  }
  return ERROR_KINDS_V1.filter((kind) => v1.has(kind));
}

function checkedSet(values: Iterable<string>, allowed: readonly string[], what: string): Set<string> {
  const set = new Set(values);
  for (const value of set) {
    if (!allowed.includes(value))
      throw new TypeError(`"${value}" is not ${what} of contract version ${CONTRACT_VERSION}`);
  }
  return set;
}

/**
 * Builds `{ openbridge_envelope: {...} }`, to be placed under the MCP server's
 * `capabilities.experimental` (and, under {@link ENVELOPE_EXTENSION_ID}, `capabilities.extensions`).
 * Lists are in taxonomy order without repeats, so two servers with the same kinds advertise the
 * same lists. A server whose upstreams all have a version 1 spelling answers in versions 1 and 2
 * (1 by default); any other server in 2 only. Implements CONTRACT.md "Capabilities".
 *
 * @param input - see {@link EnvelopeCapabilityInput}.
 * @returns the capability object.
 * @throws TypeError when a kind is not in the version 2 taxonomy, a normalized kind is unknown,
 *   or an upstream name does not match `^[a-z0-9][a-z0-9._-]{0,63}$`.
 */
export function envelopeCapability(input: EnvelopeCapabilityInput): {
  readonly [ENVELOPE_CAPABILITY_KEY]: EnvelopeCapabilityValue;
} {
  const kinds = checkedSet(input.errorKinds, ERROR_KINDS, 'an error_kind');
  const normalized = checkedSet(input.normalizedKinds ?? NORMALIZED_KINDS, NORMALIZED_KINDS, 'a normalized event kind');
  const upstreams = [...new Set(input.upstreams ?? [])];
  for (const upstream of upstreams) {
    if (!UPSTREAM_NAME_PATTERN.test(upstream))
      throw new TypeError(
        `"${upstream}" is not an upstream name (lower case letters, digits, ".", "_", "-"; at most 64)`,
      );
  }
  const versions = contractVersionsFor(upstreams);
  const v2 = ERROR_KINDS.filter((kind) => kinds.has(kind));
  const v1 = versions.includes(1) ? kindsV1(kinds, upstreams) : undefined;
  const byVersion = v1 === undefined ? { '2': v2 } : { '1': v1, '2': v2 };
  const defaultVersion = versions[0] ?? 2;
  return {
    [ENVELOPE_CAPABILITY_KEY]: {
      contract_version: defaultVersion,
      error_kinds: defaultVersion === 1 && v1 !== undefined ? v1 : v2,
      normalized_kinds: NORMALIZED_KINDS.filter((kind) => normalized.has(kind)),
      contract_versions: versions,
      upstreams,
      error_kinds_by_version: byVersion,
    },
  };
}
