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
 * @param limit - maximum length in characters (default {@link UPSTREAM_TEXT_LIMIT}).
 * @returns the capped string.
 */
export function capText(text: string, limit: number = UPSTREAM_TEXT_LIMIT): string {
  // A long text is cut: only the first `limit - 1` characters of its collapsed form are kept,
  // and a prefix's collapsed form is a prefix of the whole text's (a whitespace run cut short
  // still collapses to one space, and only the prefix's own ends are trimmed). So when a prefix
  // collapses to more than `limit` characters, it gives the same result without collapsing the
  // rest (API descriptions run to thousands of characters).
  if (limit >= 1 && text.length > CAP_PREFIX_FACTOR * limit) {
    const prefix = text.slice(0, CAP_PREFIX_FACTOR * limit).replace(/\s+/g, ' ').trim();
    if (prefix.length > limit) return `${prefix.slice(0, limit - 1)}…`;
  }
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= limit ? collapsed : `${collapsed.slice(0, Math.max(0, limit - 1))}…`;
}

/** How many times the limit {@link capText} collapses first of a long text (whitespace shrinks it). */
const CAP_PREFIX_FACTOR = 2;

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (Object.hasOwn(ENTITIES, lower)) return ENTITIES[lower] ?? whole;
    if (lower.startsWith('#x')) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16) || 0x3f);
    if (lower.startsWith('#')) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10) || 0x3f);
    return whole;
  });
}

function stripTags(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
}

/**
 * A short text summary of an HTML page, never markup: the `<title>`, else the first `<h1>`, else
 * the page's visible text; capped at 200 characters.
 *
 * @param html - the page.
 * @returns the summary, or `"HTML error page"` when the page has no text at all.
 */
export function htmlSummary(html: string): string {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  const heading = /<h1\b[^>]*>([\s\S]*?)<\/h1\s*>/i.exec(html)?.[1];
  for (const candidate of [title, heading, html]) {
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
