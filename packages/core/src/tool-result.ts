/**
 * `toolResult`: how a tool handler returns a `CallToolResult` it built itself (image or resource
 * blocks, several text blocks, an `isError` result carrying an envelope). Anything else a handler
 * returns is data, whatever its shape: an upstream body that looks like a `CallToolResult` (JSON
 * cannot carry the mark) becomes the result's value, never the result itself.
 *
 * @packageDocumentation
 */
import { inputRequired } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, InputRequiredSpec } from '@modelcontextprotocol/server';

const TOOL_RESULT_BRAND = Symbol.for('@mcp-envelope/core/ToolResult');

/**
 * Marks `result` as a `CallToolResult` of the tool's own making, for a handler to return. Core
 * checks it against the MCP result schema (a broken one answers `internal_error`), adds the call's
 * `_meta` to an object `structuredContent` (and to a text block that mirrors it), and reads the
 * envelope of an `isError` result (one without an envelope answers `internal_error`).
 *
 * @param result - `content` (content blocks), optional `structuredContent`, `isError`, `_meta`.
 * @returns a shallow copy of `result` carrying the mark (a symbol key, not sent on the wire).
 */
export function toolResult(result: CallToolResult): CallToolResult {
  const marked = { ...result };
  Object.defineProperty(marked, TOOL_RESULT_BRAND, { value: true, enumerable: false });
  return marked;
}

/**
 * Whether a handler's return value was made by {@link toolResult} (by this or another copy of
 * this package).
 *
 * @param value - anything a handler returned.
 * @returns `true` only for a marked object.
 */
export function isToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_RESULT_BRAND] === true;
}

const INPUT_REQUIRED_BRAND = Symbol.for('@mcp-envelope/core/InputRequiredResult');

/**
 * Builds the answer of a tool that needs more input from the client before it can finish
 * (multi round-trip requests): the SDK's `inputRequired` result, marked so that core sends it as
 * it is instead of as data. A 2026-07-28 client fulfils `inputRequests` and calls the tool again
 * with `inputResponses` (read them from `context.request.mcpReq.inputResponses`) and the
 * `requestState` echoed (mint it with `context.mintRequestState`, read it back with
 * `context.requestState`); for a 2025-11-25 client the SDK sends the requests itself over the
 * session and calls the handler again with the answers.
 *
 * Contract: the SDK refuses a request the client's declared capabilities do not cover with the
 * JSON-RPC error -32021 (`MissingRequiredClientCapability`), and a `requestState` that fails
 * verification with -32602.
 *
 * @param spec - `inputRequests` (elicitation, sampling or roots requests by key) and/or `requestState`.
 * @returns the marked result.
 * @throws TypeError when `spec` has neither `inputRequests` nor `requestState` (from the SDK's builder).
 */
export function inputRequiredResult(spec: InputRequiredSpec): InputRequiredResult {
  const marked = { ...inputRequired(spec) };
  Object.defineProperty(marked, INPUT_REQUIRED_BRAND, { value: true, enumerable: false });
  return marked;
}

/**
 * Whether a handler's return value was made by {@link inputRequiredResult}.
 *
 * @param value - anything a handler returned.
 * @returns `true` only for a marked object.
 */
export function isInputRequiredToolResult(value: unknown): value is InputRequiredResult {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[INPUT_REQUIRED_BRAND] === true
  );
}
