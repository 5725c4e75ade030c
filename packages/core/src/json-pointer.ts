/**
 * RFC 6901 JSON Pointers in URI fragments (`#/definitions/a~1b`), decoded the one way the RFC
 * prescribes: percent-decode the fragment, then split and unescape with `@hyperjump/json-pointer`.
 *
 * @packageDocumentation
 */

import { pointerSegments } from '@hyperjump/json-pointer';

/**
 * The reference tokens of the JSON Pointer in a reference's fragment.
 *
 * @param reference - e.g. `#/$defs/a~1b` or `other.json#/definitions/Thing`.
 * @returns the tokens (`['$defs', 'a/b']`; `[]` for `#`), or `undefined` when the reference has no
 * fragment or the fragment is not a JSON Pointer (a malformed %-escape, a `~` not followed by 0 or 1).
 */
export function fragmentSegments(reference: string): string[] | undefined {
  const hash = reference.indexOf('#');
  if (hash === -1) return undefined;
  try {
    return [...pointerSegments(decodeURIComponent(reference.slice(hash + 1)))];
  } catch {
    return undefined;
  }
}
