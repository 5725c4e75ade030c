/**
 * The contract version each client is answered in, and the version 1 form of what core builds in
 * version 2. Core builds, checks and logs envelopes in version 2 only; a reader of version 1 gets
 * the projection at the way out, with the legacy kind of a version 1 migration window.
 * Implements CONTRACT.md "Versioning" and "Upgrading an agent from v1".
 *
 * @packageDocumentation
 */
import {
  ENVELOPE_CAPABILITY_KEY,
  ENVELOPE_EXTENSION_ID,
  isEnvelopeV2,
  isRecord,
  negotiateContractVersion,
  statedContractVersions,
  toV1EnvelopeOfServer,
  toV1Meta,
} from '@mcp-envelope/contract';
import type { AnyErrorEnvelope, ContractVersion, ErrorEnvelope, V1FormServer } from '@mcp-envelope/contract';

/** What projecting an answer for one client needs to know about the server. */
export interface VersionSettings extends V1FormServer {
  /** The versions the server answers in, oldest first (its capability's `contract_versions`). */
  readonly spoken: readonly ContractVersion[];
}

/**
 * The versions a capabilities object states: the extension's first, then the experimental key's.
 * An extension entry that lists none (`{}` declares the extension only) leaves the word to the other.
 */
function capabilityVersions(capabilities: unknown): readonly ContractVersion[] | undefined {
  if (!isRecord(capabilities)) return undefined;
  const extensions = capabilities['extensions'];
  const experimental = capabilities['experimental'];
  return (
    statedContractVersions(isRecord(extensions) ? extensions[ENVELOPE_EXTENSION_ID] : undefined) ??
    statedContractVersions(isRecord(experimental) ? experimental[ENVELOPE_CAPABILITY_KEY] : undefined)
  );
}

/**
 * The versions a client stated it reads: the request's `_meta` key wins; else its capabilities
 * (declared at `initialize`, or in a 2026-07-28 request's `_meta`).
 *
 * @param requestMeta - the request's `params._meta`, of any shape.
 * @param capabilities - the client's capabilities for this request, of any shape.
 * @returns the stated versions (possibly none in common with any), or `undefined` when none were stated.
 */
export function statedVersions(requestMeta: unknown, capabilities: unknown): readonly ContractVersion[] | undefined {
  const perRequest = isRecord(requestMeta) ? statedContractVersions(requestMeta[ENVELOPE_EXTENSION_ID]) : undefined;
  return perRequest ?? capabilityVersions(capabilities);
}

/**
 * The version to answer a client in: the highest both know, else the server's oldest.
 *
 * @param requestMeta - the request's `params._meta`.
 * @param capabilities - the client's capabilities.
 * @param spoken - the server's versions, oldest first.
 * @returns the version.
 */
export function answerVersion(
  requestMeta: unknown,
  capabilities: unknown,
  spoken: readonly ContractVersion[],
): ContractVersion {
  return negotiateContractVersion(statedVersions(requestMeta, capabilities), spoken);
}

/**
 * An envelope in the version a client reads. Version 1: {@link toV1Envelope} plus the legacy kind
 * of an open version 1 window; an envelope version 1 cannot express (an upstream it never knew)
 * stays version 2 rather than being lost.
 *
 * @param envelope - a version 2 envelope as core built it.
 * @param version - the client's version.
 * @param settings - see {@link VersionSettings}.
 * @returns the envelope to send.
 */
export function envelopeFor(
  envelope: ErrorEnvelope,
  version: ContractVersion,
  settings: VersionSettings,
): AnyErrorEnvelope {
  return version === 2 ? envelope : (toV1EnvelopeOfServer(envelope, settings) ?? envelope);
}

/** A `tools/call` result as far as projection reads it. */
interface ResultShape {
  readonly isError?: unknown;
  readonly structuredContent?: unknown;
  readonly content?: unknown;
  readonly [key: string]: unknown;
}

/** An error result whose envelope is shown to a reader of another version: both channels carry the new form. */
function projectErrorResult<Result extends ResultShape>(
  result: Result,
  envelope: ErrorEnvelope,
  version: ContractVersion,
  settings: VersionSettings,
): Result {
  const projected = envelopeFor(envelope, version, settings);
  if (projected === envelope) return result;
  const content = Array.isArray(result.content) ? [...(result.content as unknown[])] : [];
  const first: unknown = content[0];
  if (isRecord(first) && first['type'] === 'text') content[0] = { ...first, text: JSON.stringify(projected) };
  return { ...result, structuredContent: projected, content };
}

/** A success result whose data carries the server's `_meta.rate_limit`: reduced to the v1 keys, in the data and in the text that mirrors it. */
function projectSuccessResult<Result extends ResultShape>(result: Result): Result {
  const data = result.structuredContent;
  if (!isRecord(data) || !isRecord(data['_meta']) || !isRecord(data['_meta']['rate_limit'])) return result;
  const mirror = JSON.stringify(data);
  const projected = { ...data, _meta: toV1Meta(data['_meta']) };
  const text = JSON.stringify(projected);
  const content = Array.isArray(result.content)
    ? (result.content as unknown[]).map((block) =>
        isRecord(block) && block['type'] === 'text' && block['text'] === mirror ? { ...block, text } : block,
      )
    : result.content;
  return { ...result, structuredContent: projected, content };
}

/**
 * A `tools/call` result in the version a client reads: an error result's envelope (its
 * `structuredContent` and `content[0].text`) projected with {@link envelopeFor}; a success
 * result's `_meta.rate_limit` (in its data, where core puts the call's telemetry, and in the text
 * mirroring it) reduced to the version 1 keys. Anything else comes back unchanged.
 *
 * @param result - the result core built (version 2).
 * @param version - the client's version.
 * @param settings - see {@link VersionSettings}.
 * @returns the same object when nothing changes, else a projected copy.
 */
export function resultFor<Result extends ResultShape>(
  result: Result,
  version: ContractVersion,
  settings: VersionSettings,
): Result {
  if (version === 2 || !isRecord(result)) return result;
  if (result.isError === true && isEnvelopeV2(result.structuredContent))
    return projectErrorResult(result, result.structuredContent, version, settings);
  return result.isError === true ? result : projectSuccessResult(result);
}

/**
 * A tool result with the server's statement that it speaks the contract: the result's own
 * `_meta` (not the data's) gets `{ contract_version }` under `ENVELOPE_EXTENSION_ID`, beside the
 * keys a handler set there. The client helpers read a result that states it by `isError` alone, so
 * a success whose data looks like a refusal (`{ "error": {...} }`) stays data, as the server
 * decided. An input-required result (no `content`) comes back unchanged. Implements CONTRACT.md
 * "Wire channels".
 *
 * @param result - the result as projected for the client.
 * @param version - the contract version it is answered in.
 * @returns a copy with the statement.
 */
export function statedResult<Result extends ResultShape>(result: Result, version: ContractVersion): Result {
  if (!isRecord(result) || !Array.isArray(result.content)) return result;
  const own = isRecord(result['_meta']) ? result['_meta'] : {};
  return { ...result, _meta: { ...own, [ENVELOPE_EXTENSION_ID]: { contract_version: version } } };
}

/**
 * The `data` and message of a JSON-RPC error in the version a client reads, when its `data` is
 * an envelope (an unknown tool with `unknownToolAs: 'jsonrpc'`).
 *
 * @param data - the error's `data`.
 * @param version - the client's version.
 * @param settings - see {@link VersionSettings}.
 * @returns the projected `{ message, data }`, or `undefined` when nothing changes.
 */
export function jsonRpcErrorFor(
  data: unknown,
  version: ContractVersion,
  settings: VersionSettings,
): { readonly message: string; readonly data: AnyErrorEnvelope } | undefined {
  if (version === 2 || !isEnvelopeV2(data)) return undefined;
  const projected = envelopeFor(data, version, settings);
  return projected === data ? undefined : { message: JSON.stringify(projected), data: projected };
}
