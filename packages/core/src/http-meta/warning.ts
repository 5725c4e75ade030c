/**
 * Parsing of HTTP `Warning` response headers (RFC 7234 section 5.5) into `_meta.warnings`
 * entries of kind `upstream_warning`. Implements CONTRACT.md "_meta.warnings".
 *
 * @packageDocumentation
 */
import type { EnvelopeWarning } from '@mcp-envelope/contract';

/** One parsed warning value: `warn-code warn-agent "warn-text" ["warn-date"]`. */
export interface ParsedWarning {
  /** The value exactly as sent (trimmed), quotes, agent and date included. */
  readonly value: string;
  /** Three-digit code, e.g. `199`, `299`; the raw token when it is not three digits. */
  readonly code: string;
  readonly agent: string;
  /** The quoted text with escapes resolved; `''` when the value had none. */
  readonly text: string;
  readonly date?: string;
}

/**
 * Splits a folded header at the commas between warning values: outside quotes, and only where
 * a warn-code follows, so that the comma of an unquoted HTTP-date (`Wed, 21 Oct 2015 ...`) or of
 * free text stays inside its value.
 */
function splitTopLevel(value: string): string[] {
  // a new value starts with its three-digit warn-code and a space (sticky: tested at one index)
  const valueStart = /\s*\d{3}\s/y;
  const startsValue = (index: number): boolean => {
    valueStart.lastIndex = index;
    return valueStart.test(value);
  };
  const parts: string[] = [];
  let current = '';
  let inQuotes = false;
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index] ?? '';
    if (inQuotes && character === '\\') {
      current += character + (value[index + 1] ?? '');
      index += 1;
    } else if (character === '"') {
      inQuotes = !inQuotes;
      current += character;
    } else if (character === ',' && !inQuotes && startsValue(index + 1)) {
      parts.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function readQuoted(value: string, start: number): { text: string; end: number } | undefined {
  if (value[start] !== '"') return undefined;
  let text = '';
  for (let index = start + 1; index < value.length; index += 1) {
    const character = value[index] ?? '';
    if (character === '\\') {
      text += value[index + 1] ?? '';
      index += 1;
    } else if (character === '"') {
      return { text, end: index + 1 };
    } else {
      text += character;
    }
  }
  return { text, end: value.length };
}

/**
 * Splits a `Warning` header (several values may share one header, separated by commas outside
 * quotes and followed by a warn-code; other commas are kept) and parses each value.
 *
 * @param header - the header value (repeated headers already joined with `", "`).
 * @returns the warnings in order; a value that does not follow the grammar is kept whole as the
 *   `text` with code `''`, so nothing the upstream said is lost.
 */
export function parseWarningHeader(header: string | undefined): ParsedWarning[] {
  if (header === undefined) return [];
  return splitTopLevel(header).map((part) => {
    const match = /^(\S+)\s+(\S+)\s+/.exec(part);
    const quoted = match === null ? undefined : readQuoted(part, match[0].length);
    if (match === null || quoted === undefined) return { value: part, code: '', agent: '', text: part };
    const rest = part.slice(quoted.end).trim();
    const date = readQuoted(rest, 0)?.text;
    return {
      value: part,
      code: match[1] ?? '',
      agent: match[2] ?? '',
      text: quoted.text,
      ...(date === undefined ? {} : { date }),
    };
  });
}

/**
 * `_meta.warnings` entries (`kind: "upstream_warning"`) for a `Warning` header.
 *
 * @param header - the header value.
 * @returns one warning per value: `summary` is the value as sent (`199 - "cached response"`),
 *   and the parsed parts (code, agent, text, date) go in `details[0]`.
 */
export function upstreamWarnings(header: string | undefined): EnvelopeWarning[] {
  return parseWarningHeader(header).map((warning) => ({
    kind: 'upstream_warning',
    summary: warning.value,
    details: [
      {
        code: warning.code,
        agent: warning.agent,
        text: warning.text,
        ...(warning.date === undefined ? {} : { date: warning.date }),
      },
    ],
    hints: [],
  }));
}
