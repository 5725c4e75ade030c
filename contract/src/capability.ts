/**
 * The capability object servers advertise so agents learn the contract version and kinds at
 * start-up.
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION, ERROR_KINDS, NORMALIZED_KINDS } from './taxonomy.js';
import type { ContractVersion, ErrorKind, NormalizedEventKind } from './taxonomy.js';

/** The value of the `openbridge_envelope` capability. */
export interface EnvelopeCapabilityValue {
  readonly contract_version: ContractVersion;
  /** The kinds this server can emit: a subset of the taxonomy, in taxonomy order, no repeats. */
  readonly error_kinds: readonly ErrorKind[];
  /** The `_meta.normalized[].kind` values this server can emit. */
  readonly normalized_kinds: readonly NormalizedEventKind[];
}

/** The capability key, as servers advertise it under `capabilities.experimental`. */
export const ENVELOPE_CAPABILITY_KEY = 'openbridge_envelope' as const;

/**
 * The reverse-DNS identifier under which a server advertises the same capability value in
 * `capabilities.extensions` (where clients of protocol revision 2026-07-28 read extensions).
 * Implements CONTRACT.md "Capabilities".
 */
export const ENVELOPE_EXTENSION_ID = 'io.github.mcp-envelope/envelope' as const;

/**
 * Builds `{ openbridge_envelope: { contract_version, error_kinds, normalized_kinds } }`, to be
 * placed under the MCP server's `capabilities.experimental`. Implements
 * CONTRACT.md "Capabilities".
 *
 * @param errorKinds - the kinds the server can emit, in any order; repeats are removed and the
 *   list is put in taxonomy order so that two servers with the same kinds advertise the same list.
 * @param normalizedKinds - the normalization kinds the server can emit; defaults to all five.
 * @returns the capability object.
 * @throws TypeError when a kind is not in the closed taxonomy.
 */
export function envelopeCapability(
  errorKinds: Iterable<string>,
  normalizedKinds: Iterable<string> = NORMALIZED_KINDS,
): { readonly [ENVELOPE_CAPABILITY_KEY]: EnvelopeCapabilityValue } {
  const kinds = new Set(errorKinds);
  for (const kind of kinds) {
    if (!(ERROR_KINDS as readonly string[]).includes(kind))
      throw new TypeError(`"${kind}" is not an error_kind of contract version ${CONTRACT_VERSION}`);
  }
  const normalized = new Set(normalizedKinds);
  for (const kind of normalized) {
    if (!(NORMALIZED_KINDS as readonly string[]).includes(kind))
      throw new TypeError(`"${kind}" is not a normalized event kind of contract version ${CONTRACT_VERSION}`);
  }
  return {
    [ENVELOPE_CAPABILITY_KEY]: {
      contract_version: CONTRACT_VERSION,
      error_kinds: ERROR_KINDS.filter((kind) => kinds.has(kind)),
      normalized_kinds: NORMALIZED_KINDS.filter((kind) => normalized.has(kind)),
    },
  };
}
