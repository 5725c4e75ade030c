/**
 * Result shaping, the last step of `tools/call`: how a tool handler's return value becomes the
 * `CallToolResult` sent on the wire. Data gets the call's `_meta`, forged telemetry is dropped,
 * secrets are redacted and output schemas are checked. A value that cannot be sent, a result past
 * `MCP_MAX_RESULT_BYTES` and a handler's own `isError` result are thrown as a `CallFailed`, which
 * the call's one exit (call-exit.ts) turns into an envelope.
 *
 * @packageDocumentation
 */
import { ENVELOPE_EXTENSION_ID, isRecord } from '@mcp-envelope/contract';
import type { EnvelopeMeta } from '@mcp-envelope/contract';
import { isCallToolResult } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';

import { CallFailed } from './call-exit.js';
import { UpstreamClientError } from './errors.js';
import type { EnvelopeLimits } from './options.js';
import type { Redactor } from './redact.js';
import type { ToolEntry } from './tool-registry.js';
import { isInputRequiredToolResult, isToolResult } from './tool-result.js';
import type { CallRecord, ProtocolEra } from './types.js';

/**
 * The `_meta` keys only the server writes (the contract's telemetry): a plain data result's own
 * `_meta` loses them, so no upstream body can pose as the server's telemetry.
 */
const TELEMETRY_KEYS: readonly string[] = [
  'normalized',
  'rate_limit',
  'retry_after_seconds',
  'warnings',
  'correlation_id',
  'validator',
];

/**
 * The most bytes the server's statement of the contract (`_meta["io.github.mcp-envelope/envelope"]`,
 * added to every result after it is shaped) adds to a result's JSON: kept free under
 * `MCP_MAX_RESULT_BYTES`, so the result on the wire stays within the limit.
 */
const STATEMENT_BYTES = JSON.stringify({ _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: 99 } } }).length;

/** What {@link createResultShaper} needs of its server. */
export interface ResultShaperInput {
  readonly redactor: Redactor;
  readonly limits: EnvelopeLimits;
  /** The call's success `_meta` (redacted), or `undefined` when it has none. */
  readonly successMeta: (call: CallRecord) => EnvelopeMeta | undefined;
}

/** Turns handler return values into wire results. */
export interface ResultShaper {
  /**
   * The result for what a handler returned (see `EnvelopeTool` for the rules).
   *
   * @throws {@link CallFailed} for a value that cannot be sent (an `internal_error`), a result past
   *   `MCP_MAX_RESULT_BYTES` or a handler's own `isError` result; whatever a `toJSON` method or
   *   getter of the value throws.
   */
  shape(value: unknown, entry: ToolEntry, call: CallRecord, era: ProtocolEra): CallToolResult | InputRequiredResult;
}

/** Whether `value` is an object of another class than `Object` (a `Date`, a `Map`, a class instance). */
function isClassInstance(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null;
}

function className(value: object): string {
  const name: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor
    ?.name;
  return typeof name === 'string' && name !== '' ? name : 'non-plain';
}

/**
 * `value` without the telemetry keys of its own `_meta`: in data (an upstream body), they are
 * not this server's telemetry, and a forged `warnings` or `retry_after_seconds` would read as
 * if it were. The call's own telemetry is merged in afterwards.
 */
function withoutForgedTelemetry(value: Record<string, unknown>): Record<string, unknown> {
  const existing = value['_meta'];
  if (!isRecord(existing) || !TELEMETRY_KEYS.some((key) => Object.hasOwn(existing, key))) return value;
  const rest = Object.fromEntries(Object.entries(existing).filter(([key]) => !TELEMETRY_KEYS.includes(key)));
  const copy = { ...value };
  if (Object.keys(rest).length === 0) delete copy['_meta'];
  else copy['_meta'] = rest;
  return copy;
}

function withMeta(value: Record<string, unknown>, meta: EnvelopeMeta): Record<string, unknown> {
  const existing = value['_meta'];
  if (existing !== undefined && !isRecord(existing)) return value;
  return { ...value, _meta: existing === undefined ? meta : { ...meta, ...existing } };
}

/** Ends the call with an `internal_error` for a handler result that cannot be sent: `problem` goes to the log only. */
function badResult(problem: string, call: CallRecord): never {
  throw new CallFailed({
    type: 'internal',
    error: new TypeError(`tool "${call.tool}" ${problem}`),
    reason: 'result',
    call,
  });
}

/** Ends the call with an `internal_error` when `structured` breaks the tool's output schema. */
function checkOutput(entry: ToolEntry, structured: unknown, call: CallRecord): void {
  const outcome = entry.outputChecker?.check(structured);
  if (outcome === undefined || outcome.ok) return;
  badResult(`returned structuredContent that does not match its outputSchema: ${outcome.reason}`, call);
}

/** `value` and its JSON text, redacted: the text is tested first, so a clean value is walked no further. */
function redactedJson(deps: ResultShaperInput, value: unknown, text: string): { value: unknown; text: string } {
  if (!deps.redactor.mayRedact(text)) return { value, text };
  const redacted = deps.redactor.value(value);
  return redacted === value ? { value, text } : { value: redacted, text: JSON.stringify(redacted) };
}

function objectResult(
  deps: ResultShaperInput,
  value: Record<string, unknown>,
  entry: ToolEntry,
  call: CallRecord,
): CallToolResult {
  const meta = deps.successMeta(call);
  const data = withoutForgedTelemetry(value);
  const withCallMeta = meta === undefined ? data : withMeta(data, meta);
  const json = JSON.stringify(withCallMeta);
  // a toJSON method can turn the object into another value on the wire, where structuredContent must be an object
  if (json.charCodeAt(0) !== 0x7b)
    badResult('returned an object whose JSON form is not an object (a toJSON method?); return plain JSON data', call);
  const { value: structured, text } = redactedJson(deps, withCallMeta, json);
  checkOutput(entry, structured, call);
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * An array, string, number, boolean or `null`: as text, and under 2026-07-28 also as
 * `structuredContent`; checked against the tool's output schema (of a non-object root) in both eras.
 */
function scalarResult(
  deps: ResultShaperInput,
  value: unknown,
  entry: ToolEntry,
  call: CallRecord,
  era: ProtocolEra,
): CallToolResult {
  const json = JSON.stringify(value) as string | undefined;
  if (typeof json !== 'string') badResult(`returned a value with no JSON form (${typeof value})`, call);
  const redacted = redactedJson(deps, value, json);
  checkOutput(entry, redacted.value, call);
  const text = typeof value === 'string' ? deps.redactor.string(value) : redacted.text;
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  return era === 'modern' ? { ...result, structuredContent: redacted.value } : result;
}

function rawResult(
  deps: ResultShaperInput,
  value: Record<string, unknown>,
  entry: ToolEntry,
  call: CallRecord,
): CallToolResult {
  if (!isCallToolResult(value))
    badResult('returned an invalid CallToolResult (see the MCP CallToolResult schema)', call);
  const result = value;
  // its envelope (or the lack of one) is read where every failure leaves the call
  if (result.isError === true) throw new CallFailed({ type: 'error_result', result, call });
  const structured = result.structuredContent;
  const meta = deps.successMeta(call);
  if (meta === undefined || !isRecord(structured)) {
    checkOutput(entry, structured, call);
    return result;
  }
  const mirror = JSON.stringify(structured);
  const injected = withMeta(structured, meta);
  checkOutput(entry, injected, call);
  const injectedText = JSON.stringify(injected);
  return {
    ...result,
    structuredContent: injected,
    content: result.content.map((block) =>
      block.type === 'text' && block.text === mirror ? { ...block, text: injectedText } : block,
    ),
  };
}

/**
 * `result` when its JSON is within `MCP_MAX_RESULT_BYTES` less {@link STATEMENT_BYTES} (the
 * statement is added after), else the adapter's envelope for a result too large. The exact size
 * is measured only when a cheap bound says it could pass the limit: a character of a text block takes at most 6 bytes as an escaped JSON string, and
 * `structuredContent` that the text mirrors (`mirrored`, core's own results) at most 3 per
 * character of that text.
 */
function boundedResult(
  deps: ResultShaperInput,
  result: CallToolResult,
  mirrored: boolean,
  call: CallRecord,
): CallToolResult {
  const limit = deps.limits.MCP_MAX_RESULT_BYTES;
  const max = limit - STATEMENT_BYTES;
  let bound = 4096;
  for (const block of result.content) {
    if (block.type === 'text') bound += block.text.length * (mirrored ? 9 : 6);
    else if (block.type === 'image' || block.type === 'audio') bound += block.data.length + block.mimeType.length * 6;
    else bound += max;
  }
  if (!mirrored && (result.structuredContent !== undefined || result._meta !== undefined)) bound += max;
  if (bound <= max || Buffer.byteLength(JSON.stringify(result)) <= max) return result;
  const failure = new UpstreamClientError({
    type: 'response_too_large',
    subject: 'result',
    limitBytes: limit,
    setting: 'MCP_MAX_RESULT_BYTES',
  });
  // the adapter words this failure, like a body too large from upstream
  throw new CallFailed({ type: 'thrown', error: failure, call });
}

function unboundedResult(
  deps: ResultShaperInput,
  value: unknown,
  entry: ToolEntry,
  call: CallRecord,
  era: ProtocolEra,
): CallToolResult {
  if (isToolResult(value)) return rawResult(deps, deps.redactor.value({ ...value }), entry, call);
  // A Date, Map or class instance is no JSON object: as structuredContent it would make the SDK
  // refuse the whole result with a JSON-RPC error, and as text it would lose its data ({} for a Map).
  if (isClassInstance(value)) {
    badResult(
      `returned a ${className(value as object)} object; return plain JSON data (an object literal, array, string, number, boolean or null)`,
      call,
    );
  }
  if (isRecord(value)) return objectResult(deps, value, entry, call);
  // an object-root schema admits no other value; any other root is checked in scalarResult
  if (entry.outputRoot === 'object' || (entry.outputRoot === 'other' && value === undefined)) {
    badResult(
      `declares an outputSchema but returned ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
      call,
    );
  }
  if (value === undefined) return { content: [] };
  return scalarResult(deps, value, entry, call, era);
}

/**
 * Creates the result shaper of one server.
 *
 * @returns the shaper.
 */
export function createResultShaper(input: ResultShaperInput): ResultShaper {
  return {
    shape: (value, entry, call, era) => {
      // Sent as built: the embedded requests' text is redacted; `requestState` is opaque (often
      // signed), so a redaction there would only break it.
      if (isInputRequiredToolResult(value))
        return value.inputRequests === undefined
          ? { ...value }
          : { ...value, inputRequests: input.redactor.value(value.inputRequests) };
      const result = unboundedResult(input, value, entry, call, era);
      return boundedResult(input, result, !isToolResult(value), call);
    },
  };
}
