/**
 * Calls one tool through the real SDK client and sorts whatever comes back into one of four
 * outcomes, using the contract's client helpers for every channel an envelope can arrive on.
 *
 * @packageDocumentation
 */
import { isDeepStrictEqual } from 'node:util';

import { envelopeFromJsonRpcError, unwrapToolResult, validateEnvelope } from '@mcp-envelope/contract';
import type { EnvelopeViolation, ErrorEnvelope } from '@mcp-envelope/contract';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import { isRecord } from '@mcp-envelope/contract';

/** The channel a failure arrived on. */
export type OutcomeChannel = 'is_error' | 'in_band' | 'json_rpc_error' | 'timeout' | 'transport';

/** What one tool call gave. */
export type CallOutcome =
  | { readonly type: 'success'; readonly value: unknown }
  | {
      readonly type: 'envelope';
      readonly envelope: ErrorEnvelope;
      readonly channel: OutcomeChannel;
      /** Set when a tool result's `content[0].text` is not the same envelope as clean JSON. */
      readonly textCopyIssue?: string;
    }
  | {
      readonly type: 'invalid-envelope';
      /** The envelope-like object that arrived (it has `error_kind`, `error_code` or `_envelope_version`). */
      readonly candidate: Readonly<Record<string, unknown>>;
      readonly violations: readonly EnvelopeViolation[];
      readonly channel: OutcomeChannel;
    }
  | { readonly type: 'no-envelope'; readonly text: string; readonly channel: OutcomeChannel };

/** Keys that mark an object as an attempt at an envelope. */
const ENVELOPE_MARKERS = ['_envelope_version', 'error_kind', 'error_code'] as const;

/** Extra time allowed past the SDK request timeout before the call is abandoned regardless. */
const DEADLINE_GRACE_MS = 1_000;

function looksLikeEnvelope(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && ENVELOPE_MARKERS.some((key) => Object.hasOwn(value, key));
}

function parseJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Finds an object that tries to be an envelope (has `error_kind`, `error_code` or
 * `_envelope_version`) anywhere a failure can carry one: `structuredContent`,
 * `structuredContent.error`, the JSON in a text block, a JSON-RPC error's `data`, `data.envelope`
 * or `message`.
 *
 * @param carrier - a tool result or a caught JSON-RPC error.
 * @returns the first such object, or `undefined`.
 */
export function findEnvelopeCandidate(carrier: unknown): Record<string, unknown> | undefined {
  if (!isRecord(carrier) && !(carrier instanceof Error)) return undefined;
  const record = carrier as unknown as Record<string, unknown>;
  const structured = record['structuredContent'];
  const data = record['data'];
  const candidates: unknown[] = [
    structured,
    isRecord(structured) ? structured['error'] : undefined,
    data,
    isRecord(data) ? data['envelope'] : undefined,
  ];
  if (Array.isArray(record['content'])) {
    for (const block of record['content'])
      if (isRecord(block) && typeof block['text'] === 'string') candidates.push(parseJsonObject(block['text']));
  }
  if (typeof data === 'string') candidates.push(parseJsonObject(data));
  if (typeof record['message'] === 'string') candidates.push(parseJsonObject(record['message']));
  return candidates.find(looksLikeEnvelope);
}

/**
 * Renders anything as a single readable line (for quoting what arrived).
 *
 * @param value - a string, an error or any value.
 * @returns the text, whitespace runs collapsed to one space.
 */
export function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Error) text = value.message;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.replace(/\s+/g, ' ').trim();
}

function fromCandidate(candidate: Record<string, unknown>, channel: OutcomeChannel): CallOutcome {
  const validation = validateEnvelope(candidate);
  if (validation.valid) return { type: 'envelope', envelope: candidate as unknown as ErrorEnvelope, channel };
  return { type: 'invalid-envelope', candidate, violations: validation.errors, channel };
}

function parsedText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Checks the text copy of an envelope-carrying tool result: many agent hosts show the model only
 * `content[0].text`, so it must parse, as clean JSON, to the same object as `structuredContent`
 * (or, without `structuredContent`, to the envelope itself).
 *
 * @param result - the tool result the envelope was read from.
 * @param envelope - the envelope read from it.
 * @returns why the text copy fails, or `undefined` when it is the same envelope.
 */
export function textCopyIssue(result: unknown, envelope: ErrorEnvelope): string | undefined {
  if (!isRecord(result)) return undefined;
  const first: unknown = Array.isArray(result['content']) ? result['content'][0] : undefined;
  if (!isRecord(first) || first['type'] !== 'text' || typeof first['text'] !== 'string')
    return 'content[0] is not a text block carrying the envelope';
  const text = first['text'];
  const parsed = parsedText(text);
  if (parsed === undefined) return `content[0].text is not the envelope as JSON: "${describeValue(text).slice(0, 80)}"`;
  const structured = result['structuredContent'];
  const copy = structured === undefined ? envelope : structured;
  if (isDeepStrictEqual(parsed, copy) || isDeepStrictEqual(parsed, envelope)) return undefined;
  const other = isRecord(parsed)
    ? `${String(parsed['error_kind'])}/${String(parsed['error_code'])}`
    : describeValue(parsed).slice(0, 40);
  return `content[0].text holds another value (${other}) than the envelope ${envelope.error_kind}/${envelope.error_code}`;
}

/**
 * Sorts a tool result the server sent: success, envelope (any channel `unwrapToolResult` reads;
 * its text copy checked by {@link textCopyIssue}), an invalid envelope, or a failure without one.
 *
 * @param result - the `CallToolResult` (or anything sent in its place).
 * @returns the outcome.
 */
export function classifyToolResult(result: unknown): CallOutcome {
  const unwrapped = unwrapToolResult(result);
  if (unwrapped.ok) return { type: 'success', value: unwrapped.value };
  // The client helpers read envelopes tolerantly; a conformance check holds them to the v1 schema.
  if ('envelope' in unwrapped) {
    const outcome = fromCandidate(unwrapped.envelope, unwrapped.channel);
    if (outcome.type !== 'envelope') return outcome;
    const issue = textCopyIssue(result, outcome.envelope);
    return issue === undefined ? outcome : { ...outcome, textCopyIssue: issue };
  }
  const candidate = findEnvelopeCandidate(result);
  if (candidate !== undefined) return fromCandidate(candidate, unwrapped.channel);
  const text = unwrapped.text.trim() === '' ? `(empty) ${describeValue(result)}` : unwrapped.text;
  return { type: 'no-envelope', text, channel: unwrapped.channel };
}

/**
 * Sorts an error thrown by a call: a JSON-RPC error carrying an envelope (read with
 * `envelopeFromJsonRpcError`), one carrying an invalid envelope, a timeout, or any other failure.
 *
 * @param error - what the call threw.
 * @param timeoutMs - the timeout that was used, for the message.
 * @returns the outcome.
 */
export function classifyCallError(error: unknown, timeoutMs: number): CallOutcome {
  const envelope = envelopeFromJsonRpcError(error);
  if (envelope !== undefined) return fromCandidate(envelope, 'json_rpc_error');
  const candidate = findEnvelopeCandidate(error);
  if (candidate !== undefined) return fromCandidate(candidate, 'json_rpc_error');
  if (
    error instanceof DeadlineError ||
    (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
  ) {
    return { type: 'no-envelope', text: `timed out after ${timeoutMs} ms`, channel: 'timeout' };
  }
  const channel: OutcomeChannel = error instanceof McpError ? 'json_rpc_error' : 'transport';
  return { type: 'no-envelope', text: describeValue(error), channel };
}

/** Rejection used by {@link withDeadline}. */
export class DeadlineError extends Error {
  constructor(milliseconds: number) {
    super(`no answer within ${milliseconds} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * Races a promise against a timer, so that nothing the server does can hang the caller.
 *
 * @param promise - the work.
 * @param milliseconds - how long to wait.
 * @returns the promise's value.
 * @throws DeadlineError when the timer fires first; otherwise whatever the promise rejects with.
 */
export async function withDeadline<T>(promise: Promise<T>, milliseconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new DeadlineError(milliseconds));
    }, milliseconds);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls a tool with the SDK client and classifies the result or the error. Never throws.
 *
 * @param client - a connected SDK `Client`.
 * @param name - the tool name.
 * @param args - the arguments.
 * @param timeoutMs - the request timeout in milliseconds (the call is abandoned 1 s after it at most).
 * @param meta - the request's `params._meta` (e.g. the contract versions the client reads); none by default.
 * @returns the outcome.
 */
export async function callToolOutcome(
  client: Client,
  name: string,
  args: Readonly<Record<string, unknown>>,
  timeoutMs: number,
  meta?: Readonly<Record<string, unknown>>,
): Promise<CallOutcome> {
  try {
    const params = { name, arguments: { ...args }, ...(meta === undefined ? {} : { _meta: { ...meta } }) };
    const result = await withDeadline(
      client.callTool(params, undefined, { timeout: timeoutMs }),
      timeoutMs + DEADLINE_GRACE_MS,
    );
    return classifyToolResult(result);
  } catch (error) {
    return classifyCallError(error, timeoutMs);
  }
}
