/**
 * Client-side helpers: one way to get an envelope out of a tool call, whatever channel the
 * failure used and whatever a client library wrapped around it. Implements CONTRACT.md
 * "Receiving envelopes". No `node:` imports: these run in browsers too.
 *
 * Channels a failure can arrive on:
 * - `isError: true`, envelope in `structuredContent`;
 * - `isError: true`, envelope as JSON in a `content` text block, possibly inside prose a client
 *   library added (`ToolError: {...}`, `MCP tool 'x' on server 'y' returned an error: {...}`);
 * - `isError: false` with the envelope in-band: `structuredContent.error`, or
 *   `structuredContent` itself being an envelope;
 * - a JSON-RPC error whose `data` or `message` carries the envelope.
 *
 * Envelopes are recognized structurally ({@link isReceivedEnvelope}), so a server of a later
 * minor release still reads as one.
 *
 * @packageDocumentation
 */
import { isRecord } from './shapes.js';
import { ENVELOPE_EXTENSION_ID } from './capability.js';
import { ToolCallError, ToolEnvelopeError } from './client-errors.js';
import type { FailureChannel, InBandError } from './client-errors.js';
import { deepFrozen } from './frozen.js';
import { findInJsonObjects } from './json-scan.js';
import { isReceivedEnvelope } from './received-envelope.js';
import type { ReceivedEnvelope } from './received-envelope.js';

/** The parts of an MCP `CallToolResult` the helpers read. Any object shape is accepted. */
export interface ToolResultLike {
  readonly isError?: boolean | undefined;
  readonly content?: readonly unknown[] | undefined;
  readonly structuredContent?: unknown;
  readonly [key: string]: unknown;
}

/**
 * The result of {@link unwrapToolResult}.
 * - `{ ok: true, value }`: a success. `value` is `structuredContent` when the result has it (any
 *   JSON value: object, array, string, number, boolean or `null`); else the text of the text
 *   blocks joined with `"\n"` when every block is text; else the `content` array as is.
 * - `{ ok: false, envelope, channel }`: a failure carrying an envelope.
 * - `{ ok: false, text, channel }`: a failure without an envelope; `text` is what did arrive (the
 *   text blocks, or the in-band error serialized as JSON). `error` is the in-band error object
 *   itself when the refusal was `structuredContent.error` holding an object.
 */
export type UnwrappedToolResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly envelope: ReceivedEnvelope; readonly channel: FailureChannel }
  | { readonly ok: false; readonly text: string; readonly channel: FailureChannel; readonly error?: InBandError };

/** How deep {@link parseEnvelopeText} looks into a parsed wrapper (a serialized result, a text block). */
const MAX_WRAPPER_DEPTH = 3;

/** Keys under which wrappers hold an envelope object, or something that holds one. */
const NESTING_KEYS = ['error', 'envelope', 'structuredContent', 'data', 'content'] as const;

/** Keys under which wrappers hold text that may carry an envelope. */
const TEXT_KEYS = ['text', 'message'] as const;

/**
 * An envelope in a parsed value: the value itself, or one held by a wrapper a client library
 * serialized (`{ error }`, `{ type: "text", text }`, `{ error: true, message }`, a whole
 * `CallToolResult`), at most {@link MAX_WRAPPER_DEPTH} levels down.
 */
function envelopeInValue(value: unknown, depth: number): ReceivedEnvelope | undefined {
  if (isReceivedEnvelope(value)) return value;
  if (depth >= MAX_WRAPPER_DEPTH || typeof value !== 'object' || value === null) return undefined;
  const items = Array.isArray(value) ? (value as unknown[]) : [];
  if (isRecord(value)) {
    for (const key of NESTING_KEYS) items.push(value[key]);
    for (const key of TEXT_KEYS) {
      const text = value[key];
      if (typeof text === 'string') items.push(text);
    }
  }
  for (const item of items) {
    const found = typeof item === 'string' ? envelopeInText(item, depth + 1) : envelopeInValue(item, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function envelopeInText(text: string, depth: number): ReceivedEnvelope | undefined {
  return findInJsonObjects(text, (object) => envelopeInValue(object, depth));
}

/**
 * Finds an envelope in a string, wherever it sits: the whole string, or a JSON object behind any
 * prefix and before any suffix a client library added (`ToolError: {...}`,
 * `MCP tool 'x' on server 'y' returned an error: {...}`, `Error: ... {...}\n Please fix your
 * mistakes.`). The first balanced JSON object that is an envelope, or that wraps one (a
 * serialized text block or tool result), wins. Linear in the string's length; strings longer
 * than `MAX_SCANNED_TEXT_LENGTH` are not searched.
 *
 * @param text - the raw string.
 * @returns the envelope ({@link isReceivedEnvelope}), or `undefined` when the string holds none.
 */
export function parseEnvelopeText(text: string): ReceivedEnvelope | undefined {
  return envelopeInText(text, 0);
}

/** `JSON.stringify` that never throws (BigInt, cycles, throwing `toJSON`): falls back to `String`. */
function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
}

function textBlocks(content: readonly unknown[] | undefined): string[] | undefined {
  if (content === undefined) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return undefined;
    texts.push(block['text']);
  }
  return texts;
}

function allTexts(content: readonly unknown[] | undefined): string[] {
  return (content ?? []).flatMap((block) =>
    isRecord(block) && typeof block['text'] === 'string' ? [block['text']] : [],
  );
}

/** A failure read from text: the first envelope in any of the texts, else the texts themselves. */
function failureFromTexts(texts: readonly string[], channel: FailureChannel): UnwrappedToolResult {
  for (const text of texts) {
    const envelope = parseEnvelopeText(text);
    if (envelope !== undefined) return { ok: false, envelope, channel };
  }
  return { ok: false, text: texts.join('\n'), channel };
}

/**
 * Rewrites the shapes agent frameworks hand over in place of a `CallToolResult` into one, so the
 * channel rules below apply to them too: a bare text block (OpenAI Agents), `{ error: true,
 * message }` (Mastra), a message with a `status` and a string or block `content` (a LangChain
 * `ToolMessage`), and the AI SDK's model output (`{ type: "content", value }`,
 * `{ type: "error-text", value }`). Returns `undefined` for anything else.
 */
function asToolResult(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const content = value['content'];
  if (content === undefined) return fromContentFreeShape(value);
  // A LangChain ToolMessage: no isError, no structuredContent, and content a string or blocks.
  if (
    Object.hasOwn(value, 'isError') ||
    Object.hasOwn(value, 'structuredContent') ||
    typeof value['status'] !== 'string'
  )
    return undefined;
  if (typeof content === 'string')
    return { isError: value['status'] === 'error', content: [{ type: 'text', text: content }] };
  return Array.isArray(content) ? { isError: value['status'] === 'error', content } : undefined;
}

function fromContentFreeShape(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const type = value['type'];
  const payload = value['value'];
  if (type === 'text' && typeof value['text'] === 'string') return { content: [value] };
  if (value['error'] === true && typeof value['message'] === 'string')
    return { isError: true, content: [{ type: 'text', text: value['message'] }] };
  if (type === 'content' && Array.isArray(payload)) return { content: payload };
  if (type === 'error-text' && typeof payload === 'string')
    return { isError: true, content: [{ type: 'text', text: payload }] };
  return undefined;
}

/** The `error` object of a payload that holds nothing but `error` (and `_meta`): a refusal's fields. */
function refusalObject(structured: unknown): InBandError | undefined {
  if (!isRecord(structured) || !isRecord(structured['error'])) return undefined;
  return Object.keys(structured).every((key) => key === 'error' || key === '_meta') ? structured['error'] : undefined;
}

function unwrapIsError(structured: unknown, content: readonly unknown[] | undefined): UnwrappedToolResult {
  if (isReceivedEnvelope(structured)) return { ok: false, envelope: structured, channel: 'is_error' };
  if (isRecord(structured) && isReceivedEnvelope(structured['error']))
    return { ok: false, envelope: structured['error'], channel: 'is_error' };
  const failure = failureFromTexts(allTexts(content), 'is_error');
  // An isError result may carry the same `{ error: { code, field, ... } }` refusal as an in-band one.
  const refusal = refusalObject(structured);
  if (refusal === undefined || !('text' in failure)) return failure;
  return { ...failure, text: failure.text === '' ? safeStringify(refusal) : failure.text, error: refusal };
}

function unwrapStructured(structured: unknown): UnwrappedToolResult {
  if (isReceivedEnvelope(structured)) return { ok: false, envelope: structured, channel: 'in_band' };
  if (!isRecord(structured) || !Object.hasOwn(structured, 'error')) return { ok: true, value: structured };
  const inBand = structured['error'];
  if (inBand === undefined || inBand === null) return { ok: true, value: structured };
  if (isReceivedEnvelope(inBand)) return { ok: false, envelope: inBand, channel: 'in_band' };
  // A payload that is only `{ error }` (plus `_meta`) is a refusal; an `error` key beside
  // data (a batch answer's per-item errors, say) is part of a successful result.
  if (!Object.keys(structured).every((key) => key === 'error' || key === '_meta'))
    return { ok: true, value: structured };
  const text = typeof inBand === 'string' ? inBand : safeStringify(inBand);
  return isRecord(inBand)
    ? { ok: false, text, channel: 'in_band', error: inBand }
    : { ok: false, text, channel: 'in_band' };
}

/**
 * Whether a tool result states that a server speaking the contract sent it: its own `_meta` holds
 * `{ contract_version }` (an integer from 1) under `io.github.mcp-envelope/envelope`. Such a
 * server reports every failure with `isError: true`, so a result that states it and is not
 * `isError` is a success whatever its data looks like (an upstream body `{ "error": {...} }`
 * the server's adapter judged to be data, say). Implements CONTRACT.md "Receiving envelopes".
 *
 * @param result - a `CallToolResult`, or anything else.
 * @returns whether the statement is there.
 */
export function statesContract(result: unknown): boolean {
  if (!isRecord(result) || !isRecord(result['_meta'])) return false;
  const statement = result['_meta'][ENVELOPE_EXTENSION_ID];
  if (!isRecord(statement)) return false;
  const version = statement['contract_version'];
  return typeof version === 'number' && Number.isInteger(version) && version >= 1;
}

/** The value of a success: `structuredContent`, else the text blocks joined, else the content as is. */
function successValue(result: Record<string, unknown>, content: readonly unknown[] | undefined): UnwrappedToolResult {
  const structured = result['structuredContent'];
  if (Object.hasOwn(result, 'structuredContent') && structured !== undefined) return { ok: true, value: structured };
  const texts = textBlocks(content);
  return texts === undefined ? { ok: true, value: content } : { ok: true, value: texts.join('\n') };
}

function unwrapRecord(result: Record<string, unknown>): UnwrappedToolResult {
  const content = Array.isArray(result['content']) ? (result['content'] as unknown[]) : undefined;
  const structured = result['structuredContent'];
  if (result['isError'] === true) return unwrapIsError(structured, content);
  if (statesContract(result)) return successValue(result, content);
  if (Object.hasOwn(result, 'structuredContent') && structured !== undefined) return unwrapStructured(structured);
  const texts = textBlocks(content);
  if (texts === undefined) return { ok: true, value: content };
  if (texts.length === 1) {
    const envelope = parseEnvelopeText(texts[0] ?? '');
    if (envelope !== undefined) return { ok: false, envelope, channel: 'in_band' };
  }
  return { ok: true, value: texts.join('\n') };
}

/**
 * Turns any tool call result into one of three outcomes, checking every channel in a fixed
 * order: `isError` first (envelope in `structuredContent`, else in any text block; without one, a
 * `structuredContent` of nothing but `{ error: {...} }` is the failure's `error`), then an
 * in-band envelope (`structuredContent.error`, or `structuredContent` itself), then an in-band
 * non-envelope refusal (`structuredContent` holding nothing but `error` and `_meta`), then success.
 * An `error` key beside other data is part of a success. A result that is not `isError` and
 * states that a server speaking the contract sent it ({@link statesContract}: the result's
 * `_meta["io.github.mcp-envelope/envelope"].contract_version`) is a success without the in-band
 * checks: such a server sends every failure with `isError`, and data shaped like a refusal is
 * data its adapter kept. Shapes that drop the result's `_meta` (the AI SDK's model output, a
 * LangChain `ToolMessage`, a bare text block) are read by the in-band rules above.
 *
 * Also read, as what agent frameworks pass on in place of a `CallToolResult`:
 * - a bare envelope, or a string holding one: a failure on `in_band`;
 * - a `{ type: "text", text }` block: as a result whose only block it is;
 * - `{ error: true, message }`: an `isError` result whose text is `message`;
 * - `{ content, status }` without `isError` (a LangChain `ToolMessage`): its content (a string
 *   is one text block), `isError` when `status` is `"error"`;
 * - the AI SDK's model output: `{ type: "content", value: [...] }` as a result with that
 *   content, `{ type: "error-text", value }` as an `isError` result with that text.
 *
 * Never throws, whatever the input.
 *
 * @param result - a `CallToolResult` ({@link ToolResultLike}), or anything a server or a client
 *   library produced in its place.
 * @returns see {@link UnwrappedToolResult}.
 */
export function unwrapToolResult(result: unknown): UnwrappedToolResult {
  if (isReceivedEnvelope(result)) return { ok: false, envelope: result, channel: 'in_band' };
  if (typeof result === 'string') {
    const envelope = parseEnvelopeText(result);
    if (envelope !== undefined) return { ok: false, envelope, channel: 'in_band' };
  }
  if (!isRecord(result)) return { ok: false, text: `not a tool result: ${safeStringify(result)}`, channel: 'is_error' };
  return unwrapRecord(asToolResult(result) ?? result);
}

/** The `cause` chain of an error is followed this many levels (a wrapped `McpError`, say). */
const MAX_CAUSE_DEPTH = 3;

function envelopeInError(record: Record<string, unknown>): ReceivedEnvelope | undefined {
  const data = record['data'];
  if (isReceivedEnvelope(data)) return data;
  if (isRecord(data) && isReceivedEnvelope(data['envelope'])) return data['envelope'];
  if (typeof data === 'string') {
    const fromData = parseEnvelopeText(data);
    if (fromData !== undefined) return fromData;
  }
  return typeof record['message'] === 'string' ? parseEnvelopeText(record['message']) : undefined;
}

/**
 * Extracts an envelope from an error: an SDK `McpError` or a raw `{code, message, data}` object
 * (from `data` when it is an envelope or holds one under `envelope`, else from the JSON in
 * `message`), or any error a client library threw with the envelope in its message
 * (`MCP tool 'x' on server 'y' returned an error: {...}`). When the error itself carries none,
 * its `cause` chain is searched, at most three levels deep.
 *
 * @param error - anything caught from a call.
 * @returns the envelope, or `undefined` when the error carries none.
 */
export function envelopeFromJsonRpcError(error: unknown): ReceivedEnvelope | undefined {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth += 1) {
    if (!isRecord(current) && !(current instanceof Error)) return undefined;
    const record = current as unknown as Record<string, unknown>;
    const envelope = envelopeInError(record);
    if (envelope !== undefined) return envelope;
    current = record['cause'];
  }
  return undefined;
}

/**
 * The throwing form of {@link unwrapToolResult}: the success value, or a typed error.
 *
 * @param result - a `CallToolResult`, or anything {@link unwrapToolResult} reads.
 * @param tool - the tool that was called, for a {@link ToolCallError} (default `"unknown_tool"`).
 * @returns the success value (see {@link UnwrappedToolResult}).
 * @throws ToolEnvelopeError when the result is a failure carrying an envelope.
 * @throws ToolCallError when the result is a failure without one.
 */
export function unwrapOrThrow(result: unknown, tool = 'unknown_tool'): unknown {
  const unwrapped = unwrapToolResult(result);
  if (unwrapped.ok) return unwrapped.value;
  if ('envelope' in unwrapped) throw new ToolEnvelopeError(unwrapped.envelope, unwrapped.channel);
  throw new ToolCallError(tool, unwrapped.text, unwrapped.channel, unwrapped.error);
}

/**
 * The minimal client surface {@link callWithEnvelope} needs; the MCP SDK's v1 `Client`
 * (`@modelcontextprotocol/sdk`) and v2 `Client` (`@modelcontextprotocol/client`) fit it, and both
 * send `params._meta` on the wire as given.
 */
export interface ToolCallingClient {
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<unknown>;
}

/**
 * The contract versions the helpers state by default: both, so a server that speaks v2 answers
 * in v2 and a server of the v1 era (which ignores the statement) in v1. Implements CONTRACT.md
 * "Receiving envelopes".
 */
export const CLIENT_CONTRACT_VERSIONS = deepFrozen([1, 2] as const);

/** Options of {@link callWithEnvelope} and {@link callOrThrow}. */
export interface CallOptions {
  /**
   * The contract versions this caller reads, stated to the server in the request's `_meta` under
   * `io.github.mcp-envelope/envelope` (default `[1, 2]`); the server answers in the highest one
   * it speaks. `[1]` keeps v1 envelopes from every server that still speaks v1.
   */
  readonly contractVersions?: readonly number[];
}

/** The request `_meta` that states `versions`, after checking them. */
function statedMeta(options: CallOptions): Record<string, unknown> {
  const versions = options.contractVersions ?? CLIENT_CONTRACT_VERSIONS;
  if (
    !Array.isArray(versions) ||
    versions.length === 0 ||
    !versions.every((version) => Number.isInteger(version) && (version as number) >= 1)
  ) {
    throw new TypeError(
      `contractVersions must be a non-empty list of contract versions (integers from 1), got ${safeStringify(versions)}`,
    );
  }
  return { [ENVELOPE_EXTENSION_ID]: { contract_versions: Array.from(versions as readonly number[]) } };
}

async function callTool(
  client: ToolCallingClient,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<{ result: unknown } | { envelope: ReceivedEnvelope }> {
  const _meta = statedMeta(options);
  try {
    return { result: await client.callTool({ name, arguments: args, _meta }) };
  } catch (error) {
    const envelope = envelopeFromJsonRpcError(error);
    if (envelope !== undefined) return { envelope };
    throw error;
  }
}

/**
 * Calls a tool and returns exactly one of value and envelope, whatever the channel, so that one
 * `error_kind` branch handles every conforming server. The request states the contract versions
 * the caller reads (`_meta["io.github.mcp-envelope/envelope"] = { contract_versions: [1, 2] }`),
 * so a server that speaks v2 answers in v2; `envelope._envelope_version` tells which version
 * arrived (`upgradeEnvelope` turns a v1 one into v2).
 *
 * @param client - an MCP SDK `Client` of either major version (or anything with a compatible `callTool`).
 * @param name - the tool name.
 * @param args - the tool arguments.
 * @param options - {@link CallOptions}: the versions to state (default `[1, 2]`).
 * @returns `[value, null]` on success (see {@link UnwrappedToolResult} for `value`), or
 *   `[null, envelope]` for an envelope-shaped failure on any channel, including a JSON-RPC error
 *   that carries an envelope.
 * @throws TypeError when `options.contractVersions` is not a non-empty list of integers from 1
 *   (before anything is sent).
 * @throws ToolCallError when the call failed without an envelope.
 * @throws the original error for transport and protocol failures that carry no envelope.
 */
export async function callWithEnvelope(
  client: ToolCallingClient,
  name: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<readonly [unknown, null] | readonly [null, ReceivedEnvelope]> {
  const called = await callTool(client, name, args, options);
  if ('envelope' in called) return [null, called.envelope];
  const unwrapped = unwrapToolResult(called.result);
  if (unwrapped.ok) return [unwrapped.value, null];
  if ('envelope' in unwrapped) return [null, unwrapped.envelope];
  throw new ToolCallError(name, unwrapped.text, unwrapped.channel, unwrapped.error);
}

/**
 * Calls a tool and returns its success value; every failure is thrown as a typed error, so a
 * `catch` branches on `ToolEnvelopeError.isInstance(error) && error.error_kind`. States the
 * contract versions the caller reads, as {@link callWithEnvelope} does.
 *
 * @param client - an MCP SDK `Client` of either major version (or anything with a compatible `callTool`).
 * @param name - the tool name.
 * @param args - the tool arguments.
 * @param options - {@link CallOptions}: the versions to state (default `[1, 2]`).
 * @returns the success value (see {@link UnwrappedToolResult}).
 * @throws TypeError when `options.contractVersions` is not a non-empty list of integers from 1.
 * @throws ToolEnvelopeError for a failure carrying an envelope, on any channel (`channel` says
 *   which, `json_rpc_error` included; `envelope_version` which contract version).
 * @throws ToolCallError for a failure without an envelope (`code`, `field` and `details` set for
 *   a `{ error: { code, message, field, details } }` refusal, in band or on `isError`).
 * @throws the original error for transport and protocol failures that carry no envelope.
 */
export async function callOrThrow(
  client: ToolCallingClient,
  name: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<unknown> {
  const called = await callTool(client, name, args, options);
  if ('envelope' in called) throw new ToolEnvelopeError(called.envelope, 'json_rpc_error');
  return unwrapOrThrow(called.result, name);
}
