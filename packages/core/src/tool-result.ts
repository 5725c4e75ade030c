/**
 * `toolResult`: how a tool handler returns a `CallToolResult` it built itself (image or resource
 * blocks, several text blocks, an `isError` result carrying an envelope). Anything else a handler
 * returns is data, whatever its shape: an upstream body that looks like a `CallToolResult` (JSON
 * cannot carry the mark) becomes the result's value, never the result itself.
 *
 * @packageDocumentation
 */
import type { CallToolResult } from '@modelcontextprotocol/server';

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
