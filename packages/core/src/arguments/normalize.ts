/**
 * Pre-flight argument normalization: canonical keys, alias drops, scalar-to-array coercion and
 * unknown-key events, computed from a precomputed index of the schema's top level. Implements
 * CONTRACT.md "Pre-flight normalization" and "Normalization events" (five kinds).
 *
 * @packageDocumentation
 */
import type { NormalizedEvent } from '@mcp-envelope/contract';

import { foldKey } from './did-you-mean.js';
import { isWrappableScalar, jsonTypeOf } from './json-type.js';
import type { PropertyInfo } from './schema-shape.js';

/**
 * What happens to a top-level key that matches no property (and no `patternProperties`):
 * - `rejected`: validation will reject it (strict mode injected `false`, or the author wrote
 *   `false`); event `unknown_field_rejected`.
 * - `passed_through`: it goes on to the tool, because nothing rejects it or the schema admits
 *   extra keys (`additionalProperties`/`unevaluatedProperties` is `true` or a sub-schema, which
 *   still validates it); event `unknown_field_passed_through`.
 */
export type UnknownKeyOutcome = 'rejected' | 'passed_through';

/** The precomputed data normalization needs; built once per tool by `compileTool`. */
export interface NormalizationIndex {
  /** Top-level properties by exact name. */
  readonly properties: ReadonlyMap<string, PropertyInfo>;
  /** Folded name (see `foldKey`) -> property names with that folded form. */
  readonly folded: ReadonlyMap<string, readonly string[]>;
  /** Compiled `patternProperties` keys: a matching key is always allowed, without an event. */
  readonly patterns: readonly RegExp[];
  /** The fate of any other unknown key. */
  readonly unknownKeyOutcome: UnknownKeyOutcome;
  /** The adapter's known renames (wrong key -> canonical key), if any. */
  readonly keyRenames: Readonly<Record<string, string>> | undefined;
  /** Memo of {@link matchKey} results for keys seen before (bounded, see {@link MATCH_CACHE_SIZE}). */
  readonly matchCache: Map<string, KeyMatch>;
}

/** At most this many non-canonical keys have their match remembered per tool. */
export const MATCH_CACHE_SIZE = 512;

/** The result of {@link normalizeArguments}: a new arguments object and the events, in key order. */
export interface NormalizationResult {
  readonly args: Record<string, unknown>;
  readonly events: readonly NormalizedEvent[];
}

/** The match of a non-canonical key against the schema. */
export type KeyMatch =
  | { readonly kind: 'canonical'; readonly target: string }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly string[] }
  | { readonly kind: 'none' };

const NO_EVENTS: readonly NormalizedEvent[] = Object.freeze([]);
const NO_MATCH: KeyMatch = Object.freeze({ kind: 'none' });

/**
 * Writes `value` under `key` as a plain own data property. `__proto__` goes through
 * `Object.defineProperty` so that it stays a data key and never changes the object's prototype.
 *
 * @param target - the object being built.
 * @param key - any string key, including `__proto__`, `constructor`, `prototype`.
 * @param value - the value to store.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * A new plain object with `keys[i]` set to `values[i]`, in that order. Every key is an own data
 * property (`__proto__` included: `Object.fromEntries` defines properties, it never sets the
 * prototype), and the object keeps V8's fast layout however many keys it has (see
 * {@link copyArguments}).
 *
 * @param keys - distinct string keys.
 * @param values - one value per key.
 * @returns the new object.
 */
function buildObject(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key, index) => [key, values[index]]));
}

/**
 * A shallow copy of an arguments object with every own enumerable string key kept as data
 * (`__proto__` included: spread defines properties, it never sets the prototype). Symbol keys,
 * which no JSON text holds and no schema names, are left out. Each getter is read once.
 *
 * A spread rather than a loop of assignments: it is the shorter code, and the copy stays as fast
 * to read as the parsed object (an object given more than about 16 properties one assignment at a
 * time made validation and the handler's reads two to three times slower on Node 20).
 *
 * @param args - the caller's arguments (not mutated).
 * @returns a new plain object.
 */
export function copyArguments(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = { ...args };
  if (Object.getOwnPropertySymbols(copy).length === 0) return copy;
  return Object.fromEntries(Object.keys(copy).map((key) => [key, copy[key]]));
}

/**
 * Matches a key that is not exactly a property: first the adapter's `keyRenames` (only when the
 * target is a property), then the case- and separator-insensitive comparison. Results are
 * remembered in the index's bounded `matchCache` (the first 512 distinct keys per tool).
 *
 * @param key - the key a caller sent.
 * @param index - the tool's normalization index.
 * @returns the unique canonical property, the ambiguous candidates, or no match.
 */
export function matchKey(key: string, index: NormalizationIndex): KeyMatch {
  const cached = index.matchCache.get(key);
  if (cached !== undefined) return cached;
  const match = computeMatch(key, index);
  if (index.matchCache.size < MATCH_CACHE_SIZE) index.matchCache.set(key, match);
  return match;
}

function computeMatch(key: string, index: NormalizationIndex): KeyMatch {
  const renames = index.keyRenames;
  if (renames !== undefined && Object.hasOwn(renames, key)) {
    const target = renames[key];
    if (target !== undefined && index.properties.has(target)) return { kind: 'canonical', target };
  }
  const candidates = index.folded.get(foldKey(key));
  if (candidates === undefined || candidates.length === 0) return NO_MATCH;
  if (candidates.length === 1) return { kind: 'canonical', target: candidates[0] as string };
  return { kind: 'ambiguous', candidates };
}

function isAllowedByPattern(key: string, patterns: readonly RegExp[]): boolean {
  for (const pattern of patterns) if (pattern.test(key)) return true;
  return false;
}

/** The JSON type of `value` when it is a scalar that must be wrapped for `info`, else `undefined`. */
function scalarToWrap(info: PropertyInfo, value: unknown): string | undefined {
  const accepted = info.arrayAcceptedTypes;
  if (accepted === undefined || !isWrappableScalar(value)) return undefined;
  const fromType = jsonTypeOf(value);
  return accepted.has(fromType) ? undefined : fromType;
}

function coercedEvent(field: string, fromType: string): NormalizedEvent {
  return { kind: 'coerced', field, from_type: fromType, to_type: 'array', reason: 'scalar_to_array' };
}

/**
 * Normalizes the top-level keys of an arguments object against the schema's top-level
 * properties. Rules, per key in the object's key order:
 * - exactly a property: kept;
 * - a known rename or a unique case/separator-insensitive match: renamed to the property
 *   (`renamed`, reason `schema_canonical_key`), unless the canonical key is also present or an
 *   earlier alias already took it, in which case it is dropped (`dropped_alias`, reason
 *   `canonical_key_present`);
 * - ambiguous or no match: kept unchanged; `unknown_field_rejected` or
 *   `unknown_field_passed_through` (reason `ambiguous_schema_match` or `no_schema_match`) unless
 *   a `patternProperties` pattern defines the key;
 * - a string, number or boolean sent for an array-typed property is wrapped in a one-item array
 *   (`coerced`, reason `scalar_to_array`), after any rename. `null` is never wrapped.
 *
 * @param args - the caller's arguments object; never mutated.
 * @param index - the tool's normalization index.
 * @returns a new object (own data keys only; `__proto__` stays a plain key) and the events.
 */
export function normalizeArguments(
  args: Readonly<Record<string, unknown>>,
  index: NormalizationIndex,
): NormalizationResult {
  // the copy is read from here on, so that no getter of the caller's object is read twice
  const output = copyArguments(args);
  const keys = Object.keys(output);
  // Common case: every key is exactly a property, so only coercion can happen. The copy is left
  // as it is until every key is known to be one, for the general case to start from.
  let events: NormalizedEvent[] | undefined;
  let wrapped: string[] | undefined;
  for (const key of keys) {
    const info = index.properties.get(key);
    if (info === undefined) return normalizeSlowly(output, keys, index);
    const fromType = scalarToWrap(info, output[key]);
    if (fromType === undefined) continue;
    (events ??= []).push(coercedEvent(key, fromType));
    (wrapped ??= []).push(key);
  }
  // each key exists already, so this replaces a value and never touches the prototype
  for (const key of wrapped ?? []) setOwn(output, key, [output[key]]);
  return { args: output, events: events ?? NO_EVENTS };
}

/** The general case of {@link normalizeArguments}: renames, drops and unknown keys. */
function normalizeSlowly(
  args: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  index: NormalizationIndex,
): NormalizationResult {
  const outputKeys: string[] = [];
  const outputValues: unknown[] = [];
  const events: NormalizedEvent[] = [];
  let claimed: Set<string> | undefined;
  const properties = index.properties;
  for (const key of keys) {
    const value = args[key];
    const info = properties.get(key);
    if (info !== undefined) {
      const fromType = scalarToWrap(info, value);
      outputKeys.push(key);
      if (fromType === undefined) {
        outputValues.push(value);
      } else {
        events.push(coercedEvent(key, fromType));
        outputValues.push([value]);
      }
      continue;
    }
    const match = matchKey(key, index);
    if (match.kind === 'canonical') {
      const target = match.target;
      if (Object.hasOwn(args, target) || claimed?.has(target) === true) {
        events.push({ kind: 'dropped_alias', from: key, canonical: target, reason: 'canonical_key_present' });
        continue;
      }
      (claimed ??= new Set()).add(target);
      events.push({ kind: 'renamed', from: key, to: target, reason: 'schema_canonical_key' });
      const fromType = scalarToWrap(properties.get(target) as PropertyInfo, value);
      outputKeys.push(target);
      if (fromType === undefined) {
        outputValues.push(value);
      } else {
        events.push(coercedEvent(target, fromType));
        outputValues.push([value]);
      }
      continue;
    }
    outputKeys.push(key);
    outputValues.push(value);
    if (isAllowedByPattern(key, index.patterns)) continue;
    const reason = match.kind === 'ambiguous' ? 'ambiguous_schema_match' : 'no_schema_match';
    events.push(
      index.unknownKeyOutcome === 'rejected'
        ? { kind: 'unknown_field_rejected', field: key, reason }
        : { kind: 'unknown_field_passed_through', field: key, reason },
    );
  }
  return { args: buildObject(outputKeys, outputValues), events: events.length === 0 ? NO_EVENTS : events };
}
