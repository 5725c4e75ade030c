/**
 * Client-side helpers: one way to get an envelope out of a tool call, whatever channel the
 * failure used. Implements CONTRACT.md "Receiving envelopes".
 *
 * Channels a failure can arrive on:
 * - `isError: true`, envelope in `structuredContent`;
 * - `isError: true`, envelope as JSON text in a `content` text block, possibly behind a prefix a
 *   client SDK added (`ToolError: `, `MCP error -32602: `);
 * - `isError: false` with the envelope in-band: `structuredContent.error`, or
 *   `structuredContent` itself being an envelope;
 * - a JSON-RPC error whose `data` or `message` carries the envelope.
 *
 * @packageDocumentation
 */
import type { ErrorEnvelope } from './envelope.js';
import { isEnvelope } from './validate.js';

/** The parts of an MCP `CallToolResult` the helpers read. Any object shape is accepted. */
export interface ToolResultLike {
  readonly isError?: boolean | undefined;
  readonly content?: readonly unknown[] | undefined;
  readonly structuredContent?: unknown;
  readonly [key: string]: unknown;
}

/** Which channel a failure arrived on. */
export type FailureChannel = 'is_error' | 'in_band';

/**
 * The result of {@link unwrapToolResult}.
 * - `{ ok: true, value }`: a success. `value` is `structuredContent` when the result has it (any
 *   JSON value: object, array, string, number, boolean or `null`); else the text of the text
 *   blocks joined with `"\n"` when every block is text; else the `content` array as is.
 * - `{ ok: false, envelope }`: a failure carrying a valid v1 envelope.
 * - `{ ok: false, text }`: a failure without an envelope; `text` is what did arrive (the text
 *   blocks, or the in-band error serialized as JSON).
 */
export type UnwrappedToolResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly envelope: ErrorEnvelope; readonly channel: FailureChannel }
  | { readonly ok: false; readonly text: string; readonly channel: FailureChannel };

const PREFIXES: readonly RegExp[] = [/^ToolError:\s*/, /^MCP error -?\d+:\s*/, /^Error:\s*/];

/**
 * Parses an envelope out of a string: clean JSON, or JSON behind client-added prefixes such as
 * `ToolError: ` and `MCP error -32602: ` (several may be stacked), with surrounding whitespace.
 *
 * @param text - the raw string.
 * @returns the envelope when the string holds a valid v1 envelope; else `undefined`.
 */
export function parseEnvelopeText(text: string): ErrorEnvelope | undefined {
  let candidate = text.trim();
  for (let round = 0; round < 4; round += 1) {
    if (candidate.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(candidate);
        return isEnvelope(parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    }
    const prefix = PREFIXES.find((pattern) => pattern.test(candidate));
    if (prefix === undefined) return undefined;
    candidate = candidate.replace(prefix, '');
  }
  return undefined;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  return (content ?? []).flatMap((block) => (isRecord(block) && typeof block['text'] === 'string' ? [block['text']] : []));
}

/**
 * Turns any tool call result into one of three outcomes, checking every channel in a fixed
 * order: `isError` first (envelope in `structuredContent`, else in any text block), then an
 * in-band envelope (`structuredContent.error`, or `structuredContent` itself), then an in-band
 * non-envelope refusal (`structuredContent` holding nothing but `error` and `_meta`), then success.
 * An `error` key beside other data is part of a success.
 * Never throws, whatever the input.
 *
 * @param result - a `CallToolResult` ({@link ToolResultLike}), or anything a server sent in its place.
 * @returns see {@link UnwrappedToolResult}.
 */
export function unwrapToolResult(result: unknown): UnwrappedToolResult {
  if (!isRecord(result)) return { ok: false, text: `not a tool result: ${safeStringify(result)}`, channel: 'is_error' };
  const content = Array.isArray(result['content']) ? (result['content'] as unknown[]) : undefined;
  const hasStructured = Object.hasOwn(result, 'structuredContent') && result['structuredContent'] !== undefined;
  const structured = result['structuredContent'];

  if (result['isError'] === true) {
    if (isEnvelope(structured)) return { ok: false, envelope: structured, channel: 'is_error' };
    if (isRecord(structured) && isEnvelope(structured['error'])) return { ok: false, envelope: structured['error'], channel: 'is_error' };
    const texts = allTexts(content);
    for (const text of texts) {
      const envelope = parseEnvelopeText(text);
      if (envelope !== undefined) return { ok: false, envelope, channel: 'is_error' };
    }
    return { ok: false, text: texts.join('\n'), channel: 'is_error' };
  }

  if (hasStructured) {
    if (isEnvelope(structured)) return { ok: false, envelope: structured, channel: 'in_band' };
    if (isRecord(structured) && Object.hasOwn(structured, 'error') && structured['error'] !== undefined && structured['error'] !== null) {
      const inBand = structured['error'];
      if (isEnvelope(inBand)) return { ok: false, envelope: inBand, channel: 'in_band' };
      // A payload that is only `{ error }` (plus `_meta`) is a refusal; an `error` key beside
      // data (a batch answer's per-item errors, say) is part of a successful result.
      if (Object.keys(structured).every((key) => key === 'error' || key === '_meta')) {
        return { ok: false, text: typeof inBand === 'string' ? inBand : safeStringify(inBand), channel: 'in_band' };
      }
    }
    return { ok: true, value: structured };
  }

  const texts = textBlocks(content);
  if (texts === undefined) return { ok: true, value: content };
  if (texts.length === 1) {
    const envelope = parseEnvelopeText(texts[0] ?? '');
    if (envelope !== undefined) return { ok: false, envelope, channel: 'in_band' };
  }
  return { ok: true, value: texts.join('\n') };
}

/**
 * Extracts an envelope from a JSON-RPC error (an SDK `McpError`, or a raw `{code, message, data}`
 * object): from `data` when it is an envelope (or holds one under `envelope`), else from
 * `message` (clean JSON or behind an `MCP error -32602: ` style prefix).
 *
 * @param error - anything caught from a call.
 * @returns the envelope, or `undefined` when the error carries none.
 */
export function envelopeFromJsonRpcError(error: unknown): ErrorEnvelope | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  const record = error as unknown as Record<string, unknown>;
  const data = record['data'];
  if (isEnvelope(data)) return data;
  if (isRecord(data) && isEnvelope(data['envelope'])) return data['envelope'];
  if (typeof data === 'string') {
    const fromData = parseEnvelopeText(data);
    if (fromData !== undefined) return fromData;
  }
  return typeof record['message'] === 'string' ? parseEnvelopeText(record['message']) : undefined;
}

/** The minimal client surface {@link callWithEnvelope} needs; an SDK v1 `Client` fits it. */
export interface ToolCallingClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

const TOOL_CALL_ERROR_BRAND = Symbol.for('@mcp-envelope/contract/ToolCallError');

/**
 * Thrown by {@link callWithEnvelope} when a call failed without an envelope (a server that does
 * not conform, or a failure it did not classify). Carries what did arrive.
 */
export class ToolCallError extends Error {
  /** What arrived in place of an envelope (the joined text, or the in-band error as JSON). */
  readonly text: string;
  /** The channel it arrived on. */
  readonly channel: FailureChannel;
  /** The tool that was called. */
  readonly tool: string;
  private readonly [TOOL_CALL_ERROR_BRAND] = true;

  constructor(tool: string, text: string, channel: FailureChannel) {
    super(`tool "${tool}" failed without an error envelope: ${text.slice(0, 500)}`);
    this.name = 'ToolCallError';
    this.tool = tool;
    this.text = text;
    this.channel = channel;
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is a `ToolCallError`.
   */
  static isInstance(value: unknown): value is ToolCallError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_CALL_ERROR_BRAND] === true;
  }

  /** The JSON form: `{ name, tool, channel, text }`. */
  toJSON(): { name: string; tool: string; channel: FailureChannel; text: string } {
    return { name: this.name, tool: this.tool, channel: this.channel, text: this.text };
  }
}

/**
 * Calls a tool and returns exactly one of value and envelope, whatever the channel, so that one
 * `error_kind` branch handles every conforming server.
 *
 * @param client - an MCP SDK `Client` (or anything with a compatible `callTool`).
 * @param name - the tool name.
 * @param args - the tool arguments.
 * @returns `[value, null]` on success (see {@link UnwrappedToolResult} for `value`), or
 *   `[null, envelope]` for an envelope-shaped failure on any channel, including a JSON-RPC error
 *   that carries an envelope.
 * @throws ToolCallError when the call failed without an envelope.
 * @throws the original error for transport and protocol failures that carry no envelope.
 */
export async function callWithEnvelope(
  client: ToolCallingClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<readonly [unknown, null] | readonly [null, ErrorEnvelope]> {
  let result: unknown;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (error) {
    const envelope = envelopeFromJsonRpcError(error);
    if (envelope !== undefined) return [null, envelope];
    throw error;
  }
  const unwrapped = unwrapToolResult(result);
  if (unwrapped.ok) return [unwrapped.value, null];
  if ('envelope' in unwrapped) return [null, unwrapped.envelope];
  throw new ToolCallError(name, unwrapped.text, unwrapped.channel);
}
