/**
 * Pre-flight argument normalization: canonical keys, alias drops, scalar-to-array coercion and
 * unknown-key events, computed from a precomputed index of the schema's top level. Implements
 * CONTRACT.md "Pre-flight normalization" and "Normalization events" (five kinds, DESIGN 5).
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
  /**
   * The same properties in a prototype-less lookup object (faster than `Map#get` on the hot path;
   * `__proto__` is never a key of it).
   */
  readonly propertyTable: Readonly<Record<string, PropertyInfo | undefined>>;
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

const BUILDER_KEY_LIMIT = 256;
const BUILDER_CACHE_SIZE = 16;
const BUILDER_COMPILE_LIMIT = 64;

type ObjectMaker = (values: readonly unknown[]) => Record<string, unknown>;
type Copier = (source: Readonly<Record<string, unknown>>) => Record<string, unknown>;

interface MakerEntry {
  readonly keys: readonly string[];
  readonly make: ObjectMaker;
  copier: { readonly copy: Copier; readonly arrayPositions: readonly number[] } | undefined;
}

/**
 * Builds the plain objects that carry normalized arguments, quickly.
 *
 * Why: V8 keeps an object built by adding more than a dozen keys one at a time in its slow
 * "dictionary" representation, and Ajv then validates it several times slower (the MCP SDK
 * already hands tool arguments over in that representation). An object literal with known keys
 * is created in the fast representation. So, for a key sequence made only of the schema's own
 * property names (the common case: every key was exactly a property), this class compiles once a
 * small function returning an object literal with those keys, the same technique Ajv uses for
 * validators. Keys are the schema author's property names, embedded as JSON string literals in
 * computed-key position (so `__proto__` stays a plain own key); caller-chosen keys never reach
 * the generated code. A key sequence that needed no change also gets a copier (an object literal
 * reading each key by its constant name), used while the same sequence keeps arriving.
 * Bounded: 16 cached key sequences per tool, at most 64 functions compiled over the tool's
 * lifetime, sequences of at most 256 keys; anything else (and any environment that forbids code
 * generation) is built key by key, which is correct but slower to validate.
 */
export class ObjectBuilder {
  private readonly makers: MakerEntry[] = [];
  private next = 0;
  private compiled = 0;
  /**
   * The compiled copier of a key sequence made only of property names that needed no change,
   * when one was remembered (see {@link ObjectBuilder.rememberCopy}): a client sends the same
   * shape again and again, and the copier reads it with constant-name loads instead of a keyed
   * loop.
   *
   * @param keys - `Object.keys` of the arguments.
   * @returns the copier and the positions of the array-typed properties, or `undefined`.
   */
  copierFor(keys: readonly string[]): { readonly copy: Copier; readonly arrayPositions: readonly number[] } | undefined {
    const entry = this.entryFor(keys);
    return entry?.copier;
  }

  /**
   * Compiles a copier for `keys` (every one a schema property name, needing no change), once per
   * cached key sequence; counts against the same compile bound as the makers.
   *
   * @param keys - the key sequence, already built once with {@link ObjectBuilder.build}.
   * @param arrayPositions - positions of the array-typed properties (their values are checked
   *   for scalar wrapping before the copier is used).
   */
  rememberCopy(keys: readonly string[], arrayPositions: readonly number[]): void {
    const entry = this.entryFor(keys);
    if (entry === undefined || entry.copier !== undefined || this.compiled >= BUILDER_COMPILE_LIMIT) return;
    this.compiled += 1;
    try {
      const body = keys.map((key) => `[${JSON.stringify(key)}]: source[${JSON.stringify(key)}]`).join(', ');
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- keys are schema property names, escaped as JSON string literals (see the class description)
      entry.copier = { copy: new Function('source', `return { ${body} };`) as Copier, arrayPositions };
    } catch {
      // code generation forbidden: keep building key by key
    }
  }

  private entryFor(keys: readonly string[]): MakerEntry | undefined {
    for (const entry of this.makers) {
      const cached = entry.keys;
      if (cached.length !== keys.length) continue;
      let same = true;
      for (let index = 0; index < keys.length; index += 1) {
        if (cached[index] !== keys[index]) {
          same = false;
          break;
        }
      }
      if (same) return entry;
    }
    return undefined;
  }

  /**
   * A new plain object with `keys[i]` set to `values[i]`, in that order. Every key is an own data
   * property (`__proto__` included: it never changes the prototype).
   *
   * @param keys - distinct string keys.
   * @param values - one value per key.
   * @param trustedKeys - `true` when every key is one of the schema's property names (only then
   *   may a compiled maker be used or created).
   * @returns the new object.
   */
  build(keys: readonly string[], values: readonly unknown[], trustedKeys: boolean): Record<string, unknown> {
    const make = trustedKeys ? this.makerFor(keys) : undefined;
    if (make !== undefined) return make(values);
    const output: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index += 1) setOwn(output, keys[index] as string, values[index]);
    return output;
  }

  private makerFor(keys: readonly string[]): ObjectMaker | undefined {
    if (keys.length === 0 || keys.length > BUILDER_KEY_LIMIT) return undefined;
    const known = this.entryFor(keys);
    if (known !== undefined) return known.make;
    if (this.compiled >= BUILDER_COMPILE_LIMIT) return undefined;
    this.compiled += 1;
    let make: ObjectMaker;
    try {
      const body = keys.map((key, index) => `[${JSON.stringify(key)}]: values[${index}]`).join(', ');
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- keys are schema property names, escaped as JSON string literals (see the class description)
      make = new Function('values', `return { ${body} };`) as ObjectMaker;
    } catch {
      return undefined;
    }
    const entry: MakerEntry = { keys: [...keys], make, copier: undefined };
    if (this.makers.length < BUILDER_CACHE_SIZE) this.makers.push(entry);
    else {
      this.makers[this.next] = entry;
      this.next = (this.next + 1) % BUILDER_CACHE_SIZE;
    }
    return make;
  }
}

/**
 * A shallow copy of an arguments object with every own enumerable string key kept as data
 * (`__proto__` included).
 *
 * @param args - the caller's arguments (not mutated).
 * @param properties - the schema's top-level properties (keys that are all properties build faster).
 * @param builder - the tool's object builder.
 * @returns a new plain object.
 */
export function copyArguments(
  args: Readonly<Record<string, unknown>>,
  properties: ReadonlyMap<string, PropertyInfo>,
  builder: ObjectBuilder,
): Record<string, unknown> {
  const keys = Object.keys(args);
  const values = new Array<unknown>(keys.length);
  let trusted = true;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    values[index] = args[key];
    if (trusted && !properties.has(key)) trusted = false;
  }
  return builder.build(keys, values, trusted);
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
  builder: ObjectBuilder,
): NormalizationResult {
  const keys = Object.keys(args);
  const table = index.propertyTable;
  // Fastest path: the same keys, in the same order, as the last call that needed no change.
  const copier = builder.copierFor(keys);
  if (copier !== undefined) {
    let unchanged = true;
    for (const position of copier.arrayPositions) {
      const key = keys[position] as string;
      if (scalarToWrap(table[key] as PropertyInfo, args[key]) !== undefined) {
        unchanged = false;
        break;
      }
    }
    if (unchanged) return { args: copier.copy(args), events: NO_EVENTS };
  }
  // Fast path: every key is exactly a property (the common case); only coercion can happen.
  const count = keys.length;
  const values = new Array<unknown>(count);
  let events: NormalizedEvent[] | undefined;
  let arrayPositions: number[] | undefined;
  let position = 0;
  for (; position < count; position += 1) {
    const key = keys[position] as string;
    const info = table[key];
    if (info === undefined) break;
    const value = args[key];
    if (info.arrayAcceptedTypes !== undefined) (arrayPositions ??= []).push(position);
    const fromType = info.arrayAcceptedTypes === undefined ? undefined : scalarToWrap(info, value);
    if (fromType === undefined) {
      values[position] = value;
    } else {
      (events ??= []).push(coercedEvent(key, fromType));
      values[position] = [value];
    }
  }
  if (position === count) {
    const built = builder.build(keys, values, true);
    if (events === undefined && copier === undefined) builder.rememberCopy(keys, arrayPositions ?? []);
    return { args: built, events: events ?? NO_EVENTS };
  }
  return normalizeSlowly(args, keys, index, builder);
}

/** The general case of {@link normalizeArguments}: renames, drops and unknown keys. */
function normalizeSlowly(
  args: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  index: NormalizationIndex,
  builder: ObjectBuilder,
): NormalizationResult {
  const outputKeys: string[] = [];
  const outputValues: unknown[] = [];
  const events: NormalizedEvent[] = [];
  let claimed: Set<string> | undefined;
  let trusted = true;
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
    trusted = false;
    if (isAllowedByPattern(key, index.patterns)) continue;
    const reason = match.kind === 'ambiguous' ? 'ambiguous_schema_match' : 'no_schema_match';
    events.push(
      index.unknownKeyOutcome === 'rejected'
        ? { kind: 'unknown_field_rejected', field: key, reason }
        : { kind: 'unknown_field_passed_through', field: key, reason },
    );
  }
  return { args: builder.build(outputKeys, outputValues, trusted), events: events.length === 0 ? NO_EVENTS : events };
}
