/**
 * `Link` pagination as an opaque cursor. GitHub pages list answers with an RFC 8288 `Link`
 * header whose `next` URL carries the paging state (`page=2`, `after=...`, sometimes a path by
 * repository id). The server hands that URL's path and query to the agent as `next_page_cursor`,
 * bound to the tool that produced it; a later call with it as `page_cursor` asks for that path and
 * query on the server's own upstream, so a cursor never leads anywhere else.
 *
 * @packageDocumentation
 */
import { EnvelopeError } from '@mcp-envelope/core';

import { redactGithubText } from './redaction.js';
import { PAGE_CURSOR_PROPERTY } from './tools.js';

/** The result key that holds the next page's cursor. */
export const NEXT_PAGE_CURSOR_KEY = 'next_page_cursor';

/** The cursor format's version tag: a cursor of another format is refused, not misread. */
const CURSOR_VERSION = 1;

/**
 * The cursor for the next page.
 *
 * @param tool - the tool that answered.
 * @param next - the `next` link's URL (absolute, or relative to the upstream).
 * @param baseUrl - the server's upstream base URL; a path prefix it has (`/api/v3`) is taken off.
 * @param redact - applied to the path and query before encoding: the cursor is output that no
 *   redactor can read inside, and anyone can decode it (the server passes its own redactor, which
 *   knows its token); defaults to {@link redactGithubText}.
 * @returns an opaque base64url string.
 */
export function encodePageCursor(
  tool: string,
  next: string,
  baseUrl: string,
  redact: (text: string) => string = redactGithubText,
): string {
  const base = new URL(baseUrl);
  const url = new URL(next, `${base.origin}/`);
  const prefix = base.pathname.replace(/\/+$/, '');
  const path =
    prefix !== '' && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
  return Buffer.from(
    JSON.stringify({ v: CURSOR_VERSION, t: tool, p: redact(`${path}${url.search}`) }),
    'utf8',
  ).toString('base64url');
}

/** Whether a path segment is `..`, plain or with its dots percent-encoded (`%2e%2e`, `.%2E`). */
function isDotDotSegment(segment: string): boolean {
  return /^(?:\.|%2e){2}$/i.test(segment);
}

function invalidCursor(tool: string, issue: string): EnvelopeError {
  return new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: 'INPUT_VALIDATION_FAILED',
    tool,
    summary: `${PAGE_CURSOR_PROPERTY} is not a cursor this tool gave: ${issue}.`,
    details: [{ path: PAGE_CURSOR_PROPERTY, issue, received_type: 'string' }],
    hints: [
      `Send ${PAGE_CURSOR_PROPERTY} exactly as the previous answer of ${tool} gave it in ${NEXT_PAGE_CURSOR_KEY}, or leave it out for the first page.`,
    ],
  });
}

/**
 * The path and query a cursor asks for.
 *
 * @param tool - the tool being called (a cursor of another tool is refused).
 * @param cursor - the `page_cursor` argument.
 * @returns a path starting with one `/`, with its query string.
 * @throws EnvelopeError (`mcp_input_validation` / `INPUT_VALIDATION_FAILED`, detail path
 *   `page_cursor`) when the cursor is not one this tool gave.
 */
export function decodePageCursor(tool: string, cursor: string): string {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor(tool, 'it does not decode');
  }
  const { v, t, p } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (v !== CURSOR_VERSION || typeof p !== 'string') throw invalidCursor(tool, 'it does not decode');
  if (t !== tool) throw invalidCursor(tool, 'it was given by another tool');
  // only a plain path on the server's own upstream: no other host, no climbing out of a prefix;
  // URL parsing resolves `%2e%2e` like `..`, so a dot segment is refused however it is spelled
  if (!/^\/(?!\/)/.test(p) || /[\\\s]/.test(p) || p.split(/[/?]/).some(isDotDotSegment))
    throw invalidCursor(tool, 'it does not hold a plain path');
  return p;
}
