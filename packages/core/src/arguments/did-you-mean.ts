/**
 * Similarity helpers behind the `did_you_mean`, `case_mismatch` and `enum_suggest` hints and the
 * unknown-tool suggestion. Implements CONTRACT.md "Hints" (similarity thresholds are per-server;
 * this is core's default matcher).
 *
 * @packageDocumentation
 */
import { distance } from 'fastest-levenshtein';

/**
 * The largest edit distance at which a candidate still counts as close to an input:
 * `max(1, floor(length / 3))` where `length` is the input's length in UTF-16 code units.
 *
 * @param input - the string a caller sent.
 * @returns the threshold (an integer >= 1).
 */
export function similarityThreshold(input: string): number {
  return Math.max(1, Math.floor(input.length / 3));
}

/**
 * Closest candidate by Levenshtein distance, compared case-insensitively, within
 * {@link similarityThreshold} of the input. Ties go to the earlier candidate.
 *
 * @param input - the string a caller sent (a key, a tool name, an enum value).
 * @param candidates - the valid strings, in preference order.
 * @returns the closest candidate as written in `candidates`, or `undefined` when none is close.
 *
 * Implements CONTRACT.md "Hints" (`did_you_mean`).
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const threshold = similarityThreshold(input);
  const lowered = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = threshold + 1;
  for (const candidate of candidates) {
    // A length gap larger than the threshold can never be within it; skipping it also bounds the
    // cost of a huge input against short candidates.
    if (Math.abs(candidate.length - input.length) >= bestDistance) continue;
    const candidateDistance = distance(lowered, candidate.toLowerCase());
    if (candidateDistance < bestDistance) {
      best = candidate;
      bestDistance = candidateDistance;
      if (candidateDistance === 0) break;
    }
  }
  return best;
}

/**
 * Candidates ordered for an `enum_suggest` hint: those within {@link similarityThreshold} of the
 * input first (closest first, ties in candidate order), then every other candidate in its
 * original order.
 *
 * @param input - the value a caller sent, as a string.
 * @param candidates - the allowed values, rendered as strings, in schema order.
 * @returns a new array holding every candidate once.
 */
export function orderByCloseness(input: string, candidates: readonly string[]): string[] {
  const threshold = similarityThreshold(input);
  const lowered = input.toLowerCase();
  const close: { candidate: string; distance: number; position: number }[] = [];
  const rest: string[] = [];
  candidates.forEach((candidate, position) => {
    const gap = Math.abs(candidate.length - input.length);
    const candidateDistance = gap > threshold ? gap : distance(lowered, candidate.toLowerCase());
    if (candidateDistance <= threshold) close.push({ candidate, distance: candidateDistance, position });
    else rest.push(candidate);
  });
  close.sort((left, right) => left.distance - right.distance || left.position - right.position);
  return [...close.map((entry) => entry.candidate), ...rest];
}

/**
 * Folds a key for the case- and separator-insensitive comparison used by normalization and the
 * `case_mismatch` hint: lower-cased, with `_`, `-`, spaces and `.` removed
 * (`Marketplace_IDs` -> `marketplaceids`).
 *
 * @param key - an argument key or a schema property name.
 * @returns the folded form.
 */
export function foldKey(key: string): string {
  return key.replace(/[_\-. ]/g, '').toLowerCase();
}
