/**
 * Reading an upstream HTTP error body of any shape without trusting it: JSON, HTML pages, plain
 * text, empty bodies and broken JSON. Adapters build their `details[]` from the result.
 *
 * @packageDocumentation
 */

/** What an upstream body turned out to be. */
export type ParsedUpstreamBody =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown }
  /** An HTML page: only a short text summary is kept (its title, else its first heading or text). */
  | { readonly kind: 'html'; readonly summary: string }
  /** A body that starts like JSON but does not parse; `text` is capped. */
  | { readonly kind: 'invalid_json'; readonly text: string }
  | { readonly kind: 'text'; readonly text: string };

/** The longest upstream message kept in an `issue` or summary, in characters. */
export const UPSTREAM_TEXT_LIMIT = 500;

/**
 * Shortens text to at most `limit` characters, ending with `…` when cut; whitespace runs collapse.
 *
 * @param text - any string.
 * @param limit - maximum length in characters (default `UPSTREAM_TEXT_LIMIT`).
 * @returns the capped string.
 */
export function capText(text: string, limit: number = UPSTREAM_TEXT_LIMIT): string {
  // A long text is cut: only the first `limit - 1` characters of its collapsed form are kept,
  // and a prefix's collapsed form is a prefix of the whole text's (a whitespace run cut short
  // still collapses to one space, and only the prefix's own ends are trimmed). So when a prefix
  // collapses to more than `limit` characters, it gives the same result without collapsing the
  // rest (API descriptions run to thousands of characters).
  if (limit >= 1 && text.length > CAP_PREFIX_FACTOR * limit) {
    const prefix = text
      .slice(0, CAP_PREFIX_FACTOR * limit)
      .replace(/\s+/g, ' ')
      .trim();
    if (prefix.length > limit) return `${prefix.slice(0, limit - 1)}…`;
  }
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= limit ? collapsed : `${collapsed.slice(0, Math.max(0, limit - 1))}…`;
}

/** How many times the limit {@link capText} collapses first of a long text (whitespace shrinks it). */
const CAP_PREFIX_FACTOR = 2;

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/** The largest Unicode code point; a numeric reference beyond it stands for U+FFFD, as HTML says. */
const MAX_CODE_POINT = 0x10ffff;

function codePointText(codePoint: number): string {
  return Number.isInteger(codePoint) && codePoint > 0 && codePoint <= MAX_CODE_POINT
    ? String.fromCodePoint(codePoint)
    : '\ufffd';
}

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (Object.hasOwn(ENTITIES, lower)) return ENTITIES[lower] ?? whole;
    if (lower.startsWith('#x')) return codePointText(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return codePointText(Number.parseInt(lower.slice(1), 10));
    return whole;
  });
}

/** One piece of an HTML page: text, a comment, or a tag (`name` lower-cased; `''` for `<!DOCTYPE>` and the like). */
interface HtmlToken {
  readonly kind: 'text' | 'comment' | 'open' | 'close';
  readonly name: string;
  /** Offset of the first character. */
  readonly start: number;
  /** Offset after the last character. */
  readonly end: number;
}

/**
 * Splits a page into text, comments and tags in one pass (each character is looked at a bounded
 * number of times, so a page of unclosed tags costs no more than any other). A `<` with no `>`
 * after it starts an unclosed tag that runs to the end of the page, a `<!--` without `-->` a
 * comment that does.
 */
function htmlTokens(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  // sticky, so one per call: its lastIndex is this walk's state
  const tagName = /\/?([a-z][a-z0-9-]*)?/iy;
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    if (open === -1) break;
    if (open > position) tokens.push({ kind: 'text', name: '', start: position, end: open });
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      position = close === -1 ? html.length : close + 3;
      tokens.push({ kind: 'comment', name: '', start: open, end: position });
      continue;
    }
    const close = html.indexOf('>', open + 1);
    // no `>` anywhere after this point: the rest is one unclosed tag, and no later `<` can end either
    position = close === -1 ? html.length : close + 1;
    tagName.lastIndex = open + 1;
    const match = tagName.exec(html);
    const closing = match?.[0].startsWith('/') === true;
    tokens.push({
      kind: closing ? 'close' : 'open',
      name: (match?.[1] ?? '').toLowerCase(),
      start: open,
      end: position,
    });
  }
  if (position < html.length) tokens.push({ kind: 'text', name: '', start: position, end: html.length });
  return tokens;
}

/** Elements whose content is never visible text, dropped with their content when they are closed. */
const HIDDEN_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'head']);

/** The visible text of a page: tags and comments become spaces, hidden elements vanish, entities are decoded. */
function stripTags(html: string): string {
  const tokens = htmlTokens(html);
  // where each hidden element's last closing tag is: an opening tag with no closing tag after it
  // is dropped alone, its content kept
  const lastClose = new Map<string, number>();
  tokens.forEach((token, index) => {
    if (token.kind === 'close' && HIDDEN_ELEMENTS.has(token.name)) lastClose.set(token.name, index);
  });
  const parts: string[] = [];
  let hiddenUntil: string | undefined;
  tokens.forEach((token, index) => {
    if (hiddenUntil !== undefined) {
      if (token.kind === 'close' && token.name === hiddenUntil) hiddenUntil = undefined;
      return;
    }
    if (token.kind === 'text') {
      parts.push(html.slice(token.start, token.end));
      return;
    }
    parts.push(' ');
    if (token.kind === 'open' && (lastClose.get(token.name) ?? -1) > index) hiddenUntil = token.name;
  });
  return decodeEntities(parts.join(''));
}

/** How the elements a summary prefers open and close (no `[^>]*`: it rescans to the end from every unclosed tag). */
const SUMMARY_ELEMENTS = {
  title: { opening: /<title\b/i, closing: /<\/title\s*>/gi },
  h1: { opening: /<h1\b/i, closing: /<\/h1\s*>/gi },
} as const;

/** The markup inside the first `<title>` or `<h1>` element that is closed, or `undefined`; linear in the page's length. */
function firstElementContent(html: string, name: keyof typeof SUMMARY_ELEMENTS): string | undefined {
  const element = SUMMARY_ELEMENTS[name];
  const opening = element.opening.exec(html);
  if (opening === null) return undefined;
  const start = html.indexOf('>', opening.index);
  if (start === -1) return undefined;
  // a copy, so the shared expression's lastIndex is nobody else's state
  const closing = new RegExp(element.closing);
  closing.lastIndex = start + 1;
  const end = closing.exec(html);
  return end === null ? undefined : html.slice(start + 1, end.index);
}

/**
 * A short text summary of an HTML page, never markup: the `<title>`, else the first `<h1>`, else
 * the page's visible text; capped at 200 characters. Time is linear in the page's length,
 * whatever markup it holds.
 *
 * @param html - the page.
 * @returns the summary, or `"HTML error page"` when the page has no text at all.
 */
export function htmlSummary(html: string): string {
  for (const candidate of [firstElementContent(html, 'title'), firstElementContent(html, 'h1'), html]) {
    if (candidate === undefined) continue;
    const text = capText(stripTags(candidate), 200);
    if (text !== '') return text;
  }
  return 'HTML error page';
}

function looksLikeHtml(text: string, contentType: string | undefined): boolean {
  if (contentType !== undefined && /\bhtml\b/i.test(contentType)) return true;
  return /^\s*(<!doctype html|<html\b|<head\b|<body\b)/i.test(text) || /<\/(html|body|title)>/i.test(text);
}

/**
 * Classifies and parses an upstream body. Never throws.
 *
 * @param body - the body as received: a string (raw text), an already-parsed JSON value, a
 *   `Uint8Array`/`ArrayBuffer` (decoded as UTF-8), or `undefined`/`null`/`''` (empty).
 * @param contentType - the response's `Content-Type`, when known (used to spot HTML).
 * @returns the parsed body.
 */
export function parseUpstreamBody(body: unknown, contentType?: string): ParsedUpstreamBody {
  if (body === undefined || body === null) return { kind: 'empty' };
  let text: string;
  if (typeof body === 'string') text = body;
  else if (body instanceof Uint8Array) text = new TextDecoder().decode(body);
  else if (body instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(body));
  else return { kind: 'json', value: body };
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (looksLikeHtml(trimmed, contentType)) return { kind: 'html', summary: htmlSummary(trimmed) };
  if (/^[[{"]/.test(trimmed) || (contentType !== undefined && /json/i.test(contentType))) {
    try {
      return { kind: 'json', value: JSON.parse(trimmed) as unknown };
    } catch {
      return { kind: 'invalid_json', text: capText(trimmed) };
    }
  }
  return { kind: 'text', text: capText(trimmed) };
}
