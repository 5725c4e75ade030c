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

/**
 * Every `{` of a string, in order: `starts[slot]` is its index, `ends[slot]` the index after its
 * matching `}`, or -1 when it has none.
 */
interface BraceTable {
  readonly count: number;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

function countOpenBraces(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) === OPEN) count += 1;
  return count;
}

/**
 * Pairs every `{` with its matching `}` in one left-to-right pass. Outside any brace, quotes are
 * prose and ignored; inside one, JSON strings (with `\` escapes) are skipped, so braces in string
 * values do not count. Typed arrays sized by a first count keep a string of a million braces from
 * churning the heap.
 */
function pairBraces(text: string): BraceTable {
  const braces = countOpenBraces(text);
  const starts = new Int32Array(braces);
  const ends = new Int32Array(braces).fill(-1);
  const open = new Int32Array(braces);
  let opened = 0;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === OPEN) {
      open[depth] = opened;
      starts[opened] = index;
      opened += 1;
      depth += 1;
    } else if (depth > 0) {
      if (code === QUOTE) inString = true;
      else if (code === CLOSE) {
        depth -= 1;
        ends[open[depth] ?? 0] = index + 1;
      }
    }
  }
  return { count: opened, starts, ends };
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
export function findInJsonObjects<T>(
  text: string,
  visit: (value: Readonly<Record<string, unknown>>) => T | undefined,
): T | undefined {
  if (text.length > MAX_SCANNED_TEXT_LENGTH) return undefined;
  const { count, starts, ends } = pairBraces(text);
  let skipUntil = 0;
  let failures = 0;
  for (let slot = 0; slot < count; slot += 1) {
    const start = starts[slot] ?? 0;
    const end = ends[slot] ?? -1;
    if (end === -1 || start < skipUntil) continue;
    const attempt = parseObject(text.slice(start, end));
    if (!attempt.parsed) {
      failures += 1;
      if (failures > MAX_FAILED_PARSES) return undefined;
      continue;
    }
    skipUntil = end;
    const found = visit(attempt.value as Readonly<Record<string, unknown>>);
    if (found !== undefined) return found;
  }
  return undefined;
}
