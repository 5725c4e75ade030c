/**
 * RFC 8288 `Link` headers: how REST APIs (GitHub among them) point to the next page of a list.
 * Parsing is the `http-link-header` library's.
 *
 * @packageDocumentation
 */
import LinkHeader from 'http-link-header';

import { headerValue, lowerCaseHeaders } from '../http-meta/headers.js';
import type { HeaderSource } from '../http-meta/headers.js';

/** One link of a `Link` header. */
export interface WebLink {
  /** The target, as written between `<` and `>` (relative or absolute). */
  readonly uri: string;
  /** Its relation types, lower-cased (`next`, `last`, ...). */
  readonly rel: readonly string[];
  /** Its other parameters (`title`, `type`, ...); a repeated one keeps its first value. */
  readonly params: Readonly<Record<string, string>>;
}

type Reference = LinkHeader.Reference;

function paramsOf(reference: Reference): Record<string, string> {
  const entries = Object.entries(reference).flatMap(([name, value]): [string, string][] => {
    if (name === 'uri' || name === 'rel') return [];
    if (typeof value === 'string') return [[name, value]];
    if (Array.isArray(value) && typeof value[0] === 'string') return [[name, value[0]]];
    // an extended parameter (`title*`) arrives decoded as { value }
    const decoded = (value as { value?: unknown } | undefined)?.value;
    return typeof decoded === 'string' ? [[name, decoded]] : [];
  });
  return Object.fromEntries(entries);
}

/**
 * Parses a `Link` header. A link with several relation types (`rel="next last"`) is one
 * {@link WebLink} with all of them.
 *
 * @param value - the header value (repeated headers joined with `", "`).
 * @returns the links in order; `[]` when the header is absent or does not parse. Never throws.
 */
export function parseLinkHeader(value: string | undefined): WebLink[] {
  if (value === undefined || value.trim() === '') return [];
  let references: Reference[];
  try {
    references = LinkHeader.parse(value).refs;
  } catch {
    return [];
  }
  const links: { uri: string; rel: string[]; params: Record<string, string> }[] = [];
  for (const reference of references) {
    const rel = typeof reference.rel === 'string' && reference.rel !== '' ? [reference.rel.toLowerCase()] : [];
    const params = paramsOf(reference);
    const previous = links.at(-1);
    // the library splits `rel="next last"` into one reference per type: joined again here
    if (previous?.uri === reference.uri && JSON.stringify(previous.params) === JSON.stringify(params))
      previous.rel.push(...rel);
    else links.push({ uri: reference.uri, rel, params });
  }
  return links;
}

/**
 * The `next` page a response's `Link` header points to.
 *
 * @param headers - the response headers, any container and casing.
 * @returns the URI of the first link whose relation types include `next`, as written (relative
 *   or absolute), or `undefined`.
 */
export function nextPageLink(headers: HeaderSource | undefined): string | undefined {
  const links = parseLinkHeader(headerValue(lowerCaseHeaders(headers), 'link'));
  return links.find((link) => link.rel.includes('next'))?.uri;
}
