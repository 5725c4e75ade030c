/**
 * Finds JSON objects embedded in a longer string: error messages that client libraries build by
 * putting prose around a tool's text (`MCP tool 'x' on server 'y' returned an error: {...}`,
 * `Error: ... {...}\n Please fix your mistakes.`). Pure string work, no `node:` imports, so it
 * runs in browsers too.
 *
 * @packageDocumentation
 */

/**
 * The longest string the scanner reads, in UTF-16 code units (1 MiB of them). A conforming
 * server bounds its envelopes to a few kilobytes; a longer string is not searched at all, so a
 * huge success text costs nothing.
 */
export const MAX_SCANNED_TEXT_LENGTH = 1_048_576;

/**
 * How many candidate objects may fail to parse before the search gives up. Each failed parse
 * reads at most the whole string, so this keeps the worst case linear in the string's length.
 */
const MAX_FAILED_PARSES = 32;

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/** One balanced `{ ... }` span: `start` is the `{`, `end` the index after the matching `}`. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Pairs every `{` with its matching `}` in one left-to-right pass. Outside any brace, quotes are
 * prose and ignored; inside one, JSON strings (with `\` escapes) are skipped, so braces in string
 * values do not count. Spans come out in the order of their `{`, outer before inner.
 */
function balancedSpans(text: string): Span[] {
  const starts: number[] = [];
  const ends: number[] = [];
  const open: number[] = [];
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === OPEN) {
      open.push(starts.length);
      starts.push(index);
      ends.push(-1);
    } else if (open.length > 0) {
      if (code === QUOTE) inString = true;
      else if (code === CLOSE) ends[open.pop() as number] = index + 1;
    }
  }
  const spans: Span[] = [];
  starts.forEach((start, slot) => {
    const end = ends[slot] ?? -1;
    if (end !== -1) spans.push({ start, end });
  });
  return spans;
}

function parseObject(text: string): { readonly parsed: true; readonly value: unknown } | { readonly parsed: false } {
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false };
  }
}

/**
 * Calls `visit` with each JSON object found in `text`, leftmost first, until `visit` returns
 * something other than `undefined`. An object that parses is visited whole and its inner objects
 * are not visited separately; a `{ ... }` span that is not JSON is skipped and the objects inside
 * it are tried instead. Linear in the length of `text`; strings longer than
 * {@link MAX_SCANNED_TEXT_LENGTH} are not read.
 *
 * @param text - any string.
 * @param visit - called with each parsed object (a JSON object, never an array or a scalar).
 * @returns the first value `visit` returned, or `undefined`.
 */
export function findInJsonObjects<T>(text: string, visit: (value: Readonly<Record<string, unknown>>) => T | undefined): T | undefined {
  if (text.length > MAX_SCANNED_TEXT_LENGTH) return undefined;
  let skipUntil = 0;
  let failures = 0;
  for (const span of balancedSpans(text)) {
    if (span.start < skipUntil) continue;
    const attempt = parseObject(text.slice(span.start, span.end));
    if (!attempt.parsed) {
      failures += 1;
      if (failures > MAX_FAILED_PARSES) return undefined;
      continue;
    }
    skipUntil = span.end;
    const found = visit(attempt.value as Readonly<Record<string, unknown>>);
    if (found !== undefined) return found;
  }
  return undefined;
}
