/**
 * The errors the throwing client helpers raise: {@link ToolEnvelopeError} for a failure that
 * carries an envelope, {@link ToolCallError} for one that does not. Both are brand-checked with
 * a `Symbol.for` key, so `isInstance` also recognizes instances made by another copy of this
 * package (a bundled copy, a second version in `node_modules`). Implements CONTRACT.md
 * "Receiving envelopes".
 *
 * @packageDocumentation
 */
import type { ReceivedEnvelope } from './received-envelope.js';
import { retryAfterSecondsOf } from './received-envelope.js';

/** Which channel a failure arrived on inside a tool result. */
export type FailureChannel = 'is_error' | 'in_band';

/** Which channel an envelope arrived on: a tool result's, or a JSON-RPC error. */
export type EnvelopeChannel = FailureChannel | 'json_rpc_error';

const TOOL_CALL_ERROR_BRAND = Symbol.for('@mcp-envelope/contract/ToolCallError');
const TOOL_ENVELOPE_ERROR_BRAND = Symbol.for('@mcp-envelope/contract/ToolEnvelopeError');

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * A tool call that failed with an envelope, on any channel. Thrown by `callOrThrow` and
 * `unwrapOrThrow`; build one yourself from an envelope found elsewhere (for example in the
 * message of an error a client library threw). The envelope's fields are copied onto the error
 * under their wire names, so a handler branches on `error.error_kind` without parsing anything.
 */
export class ToolEnvelopeError extends Error {
  /** The envelope as received (extra keys and `_meta` included). */
  readonly envelope: ReceivedEnvelope;
  /** Where the envelope arrived. */
  readonly channel: EnvelopeChannel;
  /** The tool that failed, as the envelope names it (`"unknown_tool"` when the server could not tell). */
  readonly tool: string;
  readonly error_kind: ReceivedEnvelope['error_kind'];
  readonly error_code: ReceivedEnvelope['error_code'];
  readonly retryable: boolean;
  readonly hints: readonly string[];
  /** `_meta.retry_after_seconds` when the envelope has a non-negative number there, else `undefined`. */
  readonly retry_after_seconds: number | undefined;
  /** The prior kind during a reclassification window, else `undefined`. */
  readonly legacy_error_kind: ReceivedEnvelope['legacy_error_kind'];
  /**
   * The contract version the envelope was sent in (`_envelope_version`): 1 (v1 kinds such as
   * `sp_api_http`), 2 (`upstream_http` with `upstream`), or a later integer.
   */
  readonly envelope_version: number;
  /** Version 2: the upstream API named by the envelope, else `undefined`. */
  readonly upstream: string | undefined;
  private readonly [TOOL_ENVELOPE_ERROR_BRAND] = true;

  /**
   * @param envelope - the envelope that arrived.
   * @param channel - where it arrived.
   */
  constructor(envelope: ReceivedEnvelope, channel: EnvelopeChannel) {
    super(`tool "${envelope.tool}" failed: ${envelope.error_kind}/${envelope.error_code}: ${envelope.summary}`);
    this.name = 'ToolEnvelopeError';
    this.envelope = envelope;
    this.channel = channel;
    this.tool = envelope.tool;
    this.error_kind = envelope.error_kind;
    this.error_code = envelope.error_code;
    this.retryable = envelope.retryable;
    this.hints = envelope.hints;
    this.retry_after_seconds = retryAfterSecondsOf(envelope);
    this.legacy_error_kind = envelope.legacy_error_kind;
    this.envelope_version = envelope._envelope_version;
    this.upstream = envelope.upstream;
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is a `ToolEnvelopeError`.
   */
  static isInstance(value: unknown): value is ToolEnvelopeError {
    return hasBrand(value, TOOL_ENVELOPE_ERROR_BRAND);
  }

  /** The JSON form: `{ name, channel, envelope }`. */
  toJSON(): { name: string; channel: EnvelopeChannel; envelope: ReceivedEnvelope } {
    return { name: this.name, channel: this.channel, envelope: this.envelope };
  }
}

/**
 * An in-band refusal that is not an envelope: the object a server put under
 * `structuredContent.error`, conventionally `{ code, message, field?, details? }`.
 */
export type InBandError = Readonly<Record<string, unknown>>;

/**
 * A tool call that failed without an envelope (a server that does not conform, or a failure it
 * did not classify). Carries what did arrive. For an in-band `{ error: { code, message, field,
 * details } }` refusal, `code`, `field` and `details` are fields of their own.
 */
export class ToolCallError extends Error {
  /** What arrived in place of an envelope (the joined text, or the in-band error as JSON). */
  readonly text: string;
  /** The channel it arrived on. */
  readonly channel: FailureChannel;
  /** The tool that was called. */
  readonly tool: string;
  /** The in-band error object as sent, when the refusal was one; else `undefined`. */
  readonly error: InBandError | undefined;
  /** The in-band error's `code` when it is a string; branch on this, not on the message. */
  readonly code: string | undefined;
  /** The in-band error's `field` (the argument to change) when it is a string. */
  readonly field: string | undefined;
  /** The in-band error's `details`, as sent (any JSON value), or `undefined`. */
  readonly details: unknown;
  private readonly [TOOL_CALL_ERROR_BRAND] = true;

  /**
   * @param tool - the tool that was called.
   * @param text - what arrived in place of an envelope.
   * @param channel - where it arrived.
   * @param error - the in-band error object, when the refusal was one.
   */
  constructor(tool: string, text: string, channel: FailureChannel, error?: InBandError) {
    const code = stringOrUndefined(error?.['code']);
    const message = stringOrUndefined(error?.['message']);
    const shown = code !== undefined && message !== undefined ? `${code}: ${message}` : text;
    super(`tool "${tool}" failed without an error envelope: ${shown.slice(0, 500)}`);
    this.name = 'ToolCallError';
    this.tool = tool;
    this.text = text;
    this.channel = channel;
    this.error = error;
    this.code = code;
    this.field = stringOrUndefined(error?.['field']);
    this.details = error?.['details'];
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is a `ToolCallError`.
   */
  static isInstance(value: unknown): value is ToolCallError {
    return hasBrand(value, TOOL_CALL_ERROR_BRAND);
  }

  /** The JSON form: `{ name, tool, channel, text }`, plus `error` for an in-band refusal. */
  toJSON(): { name: string; tool: string; channel: FailureChannel; text: string; error?: InBandError } {
    const base = { name: this.name, tool: this.tool, channel: this.channel, text: this.text };
    return this.error === undefined ? base : { ...base, error: this.error };
  }
}
