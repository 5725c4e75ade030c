/**
 * The ToolFailure mirror on the wire, behind `toolFailureMeta` / `MCP_TOOL_FAILURE_META`: a failed
 * call's envelope gets a correlation id that its log line also holds (the proposal requires one),
 * and its result, in the contract version the client reads, gets
 * `_meta["io.modelcontextprotocol/toolFailure"]` read from that envelope by the contract's
 * `toolFailureOf`. Implements CONTRACT.md "ToolFailure mirror".
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { TOOL_FAILURE_META_KEY, isEnvelope, isRecord, toolFailureOf } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

import type { ServerEnvironment } from './types.js';

/**
 * The envelope of a failed call as the mirror needs it (the exit calls this only with the mirror
 * on): without a `_meta.correlation_id` yet, a new id, logged once with the tool, kind and code so
 * an operator finds the call a client reports; otherwise `envelope` itself.
 *
 * @param envelope - the finished envelope (version 2).
 * @param server - see {@link ServerEnvironment}: its logger and nothing else.
 * @returns the envelope, with a correlation id.
 */
export function identifiedFailure(envelope: ErrorEnvelope, server: ServerEnvironment): ErrorEnvelope {
  const existing = envelope._meta?.correlation_id;
  if (typeof existing === 'string' && existing !== '') return envelope;
  const correlationId = randomUUID();
  const details = {
    correlation_id: correlationId,
    tool: envelope.tool,
    error_kind: envelope.error_kind,
    error_code: envelope.error_code,
    retryable: envelope.retryable,
  };
  // an info line when the logger has the level: a failed call is the caller's business, not an alarm
  if (server.logger.info === undefined) server.logger.warn(details, 'tool call failed');
  else server.logger.info(details, 'tool call failed');
  return { ...envelope, _meta: { ...envelope._meta, correlation_id: correlationId } };
}

/** A `tools/call` result as far as the mirror reads it. */
interface ResultShape {
  readonly isError?: unknown;
  readonly structuredContent?: unknown;
  readonly _meta?: unknown;
  readonly [key: string]: unknown;
}

/**
 * A result with the ToolFailure mirror of the envelope it carries, in the version the client reads
 * (so `code` is the `error_code` that client sees). A success, an error result without an
 * envelope, or an envelope without a correlation id comes back unchanged; keys already in the
 * result's `_meta` stay.
 *
 * @param result - the result as it leaves the server (already in the client's contract version).
 * @param nowMs - the current time in Unix epoch milliseconds, where `retryNotBefore` starts.
 * @returns `result` itself, or a copy with `_meta["io.modelcontextprotocol/toolFailure"]`.
 */
export function withToolFailureMeta<Result extends ResultShape>(result: Result, nowMs: number): Result {
  if (result.isError !== true || !isEnvelope(result.structuredContent)) return result;
  const mirror = toolFailureOf(result.structuredContent, nowMs);
  if (mirror === undefined) return result;
  const meta = isRecord(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...meta, [TOOL_FAILURE_META_KEY]: mirror } };
}

/**
 * The `capabilities.extensions` entries of the mirror: `{ "io.modelcontextprotocol/toolFailure": {} }`
 * when it is on (the proposal defines no settings), none when it is off.
 *
 * @param on - whether the mirror is on.
 * @returns the entries to merge into `capabilities.extensions`.
 */
export function toolFailureExtension(on: boolean): Readonly<Record<string, Record<string, never>>> {
  return on ? { [TOOL_FAILURE_META_KEY]: {} } : {};
}
