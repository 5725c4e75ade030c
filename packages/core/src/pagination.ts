/**
 * Opaque `tools/list` cursors. A cursor is base64url of `"v1:<offset>:<fingerprint>"`, where the
 * fingerprint is the first 16 hex characters of SHA-256 over the tool names in listing order, so
 * a cursor from another server or another tool set is rejected rather than silently misread.
 * Implements MCP "Pagination" (an invalid cursor is JSON-RPC -32602 Invalid params).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';

/** The default number of tools per `tools/list` page. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * Fingerprints a tool set.
 *
 * @param names - the tool names in listing order.
 * @returns 16 lower-case hex characters.
 */
export function toolSetFingerprint(names: readonly string[]): string {
  return createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Encodes a cursor pointing at `offset` in the tool set with `fingerprint`.
 *
 * @returns the opaque cursor string.
 */
export function encodeCursor(offset: number, fingerprint: string): string {
  return Buffer.from(`v1:${offset}:${fingerprint}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor issued by {@link encodeCursor} for the same tool set.
 *
 * @param cursor - the client's cursor.
 * @param fingerprint - the current tool set's fingerprint.
 * @param total - the number of tools; a valid offset is from 1 to `total - 1`.
 * @returns the offset, or `undefined` when the cursor is malformed, from another tool set, or out
 *   of range.
 */
export function decodeCursor(cursor: string, fingerprint: string, total: number): number | undefined {
  if (cursor.length === 0 || cursor.length > 128 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = /^v1:(\d{1,9}):([0-9a-f]{16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null || match[2] !== fingerprint) return undefined;
  const offset = Number(match[1]);
  return offset >= 1 && offset < total ? offset : undefined;
}
