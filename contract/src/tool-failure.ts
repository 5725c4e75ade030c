/**
 * The ToolFailure mirror: an envelope projected onto the shape the MCP ToolFailure proposal puts
 * under a failed `CallToolResult`'s `_meta["io.modelcontextprotocol/toolFailure"]`. The proposal
 * is open, not part of the MCP specification; the envelope stays the one source of truth and
 * every field here is read from it. Implements CONTRACT.md "ToolFailure mirror".
 *
 * @packageDocumentation
 */
import { deepFrozen } from './frozen.js';
import type { AnyErrorEnvelope } from './envelope.js';

/**
 * The `_meta` key of a failed `CallToolResult` under which the proposal carries its object, and the
 * identifier a server advertises it under in `capabilities.extensions`.
 */
export const TOOL_FAILURE_META_KEY = 'io.modelcontextprotocol/toolFailure' as const;

/** The proposal's three behavioural classes, in the proposal's order. */
export const TOOL_FAILURE_CLASSES = deepFrozen(['capability', 'reliability', 'governance'] as const);

/**
 * How a client should react to a failure: `capability` (the call cannot succeed as sent; change
 * it), `reliability` (transient; the same call may be retried), `governance` (refused by policy or
 * credentials; something outside the call must change).
 */
export type ToolFailureClass = (typeof TOOL_FAILURE_CLASSES)[number];

/**
 * The object the proposal puts under {@link TOOL_FAILURE_META_KEY}, as this project fills it from an
 * envelope (CONTRACT.md "ToolFailure mirror" maps each field).
 */
export interface ToolFailure {
  /** From `retryable` and `error_kind`, see {@link toolFailureClass}. */
  readonly class: ToolFailureClass;
  /** The envelope's `error_code`, unchanged (`UPSTREAM_HTTP_429`, `SCHEMA_REQUIRED`, ...). */
  readonly code: string;
  /** The envelope's `retryable`; `true` only with class `reliability`, as the proposal requires. */
  readonly retryable: boolean;
  /**
   * The earliest time a retry is worth it, in Unix epoch milliseconds (an integer): the moment the
   * mirror was made plus `_meta.retry_after_seconds`, rounded up, at most 8.64e15 (the last moment
   * a `Date` holds). Only on retryable failures that carry a wait.
   */
  readonly retryNotBefore?: number;
  /** The envelope's `_meta.correlation_id`, the id of the server's log line about this failure. */
  readonly correlationId: string;
  /** The envelope's first hint, when it has one: the next step, for the calling model. */
  readonly agentGuidance?: string;
}

/**
 * JSON Schema (draft 2020-12) of the proposal's `ToolFailure` object as the proposal's TypeScript
 * types state it: `class`, `code` and `correlationId` required, the rest optional, `retryable`
 * `true` only with class `reliability`. The proposal adds no keys of its own beside these, but its
 * object may grow, so other keys are allowed.
 */
export const TOOL_FAILURE_SCHEMA = deepFrozen({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'ToolFailure (MCP proposal, open)',
  type: 'object',
  required: ['class', 'code', 'correlationId'],
  properties: {
    class: { enum: ['capability', 'reliability', 'governance'] },
    code: { type: 'string', minLength: 1 },
    retryable: { type: 'boolean' },
    retryNotBefore: { type: 'integer', minimum: 0 },
    correlationId: { type: 'string', minLength: 1 },
    agentGuidance: { type: 'string' },
  },
  // the proposal: retryable "MUST be absent or false" outside class reliability
  if: { not: { properties: { class: { const: 'reliability' } } } },
  then: { properties: { retryable: { const: false } } },
} as const);

/**
 * The class of an envelope: a retryable failure is `reliability` (rate limits, 5xx answers, the
 * network, a server shutting down); else `auth_error` is `governance` (a credential or
 * permission must change); else `capability` (the call as sent cannot succeed: validation, an
 * unknown tool, a 4xx answer, a sandbox limit, an internal error not worth repeating).
 *
 * @param envelope - an envelope of either contract version.
 * @returns the class.
 */
export function toolFailureClass(envelope: Pick<AnyErrorEnvelope, 'error_kind' | 'retryable'>): ToolFailureClass {
  if (envelope.retryable) return 'reliability';
  return envelope.error_kind === 'auth_error' ? 'governance' : 'capability';
}

/**
 * The last moment a JavaScript `Date` holds, in epoch milliseconds: an upstream's absurd wait
 * (a `Retry-After` of 300 digits) stops here, so clients get a date they can parse, not `1e+302`.
 */
const LAST_DATE_MS = 8_640_000_000_000_000;

/**
 * The ToolFailure mirror of an envelope (CONTRACT.md "ToolFailure mirror"): every field read from
 * the envelope, none invented. The proposal requires `correlationId`, so an envelope without a
 * `_meta.correlation_id` has no mirror.
 *
 * @param envelope - an envelope of either contract version, as the client reads it.
 * @param nowMs - the current time in Unix epoch milliseconds, the start of `retryNotBefore`.
 * @returns the mirror, or `undefined` when the envelope has no `_meta.correlation_id`.
 */
export function toolFailureOf(envelope: AnyErrorEnvelope, nowMs: number): ToolFailure | undefined {
  const meta = envelope._meta;
  const correlationId = meta?.correlation_id;
  if (typeof correlationId !== 'string' || correlationId === '') return undefined;
  const wait = meta?.retry_after_seconds;
  const guidance = envelope.hints[0];
  return {
    class: toolFailureClass(envelope),
    code: envelope.error_code,
    retryable: envelope.retryable,
    ...(envelope.retryable && typeof wait === 'number' && Number.isFinite(wait) && wait >= 0
      ? { retryNotBefore: Math.min(Math.ceil(nowMs + wait * 1000), LAST_DATE_MS) }
      : {}),
    correlationId,
    ...(guidance === undefined ? {} : { agentGuidance: guidance }),
  };
}
