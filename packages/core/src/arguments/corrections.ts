/**
 * What a `SCHEMA_*` detail tells a caller so it can correct its call without a human: the value
 * it sent (`received_value`, cut to a bounded size), what the schema expected (`expected`, one
 * short sentence) and, where one exists, the nearest value that passes the failed check
 * (`did_you_mean`). Implements CONTRACT.md "Schema validation codes" (correction keys).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import { fullFormats } from 'ajv-formats/dist/formats.js';

import { closestMatch, foldKey } from './did-you-mean.js';

/** At most this many characters of a received string are echoed (the cut one ends with `…`). */
export const RECEIVED_STRING_LIMIT = 200;
/**
 * At most this many characters of JSON text for an echoed array or object, and for any
 * `did_you_mean`: a larger one is left out rather than cut, since a cut structure is no value.
 */
export const CORRECTION_JSON_LIMIT = 200;
/** At most this many values or key names are listed in an `expected` sentence. */
const EXPECTED_LIST_LIMIT = 10;

/** A UTF-16 surrogate without its pair: such a string is no text any reader can take back. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The JSON text of `value` when it has at most `limit` characters, else `undefined`; never walks further than that. */
export function boundedJson(value: unknown, limit: number = CORRECTION_JSON_LIMIT): string | undefined {
  const budget = { left: limit };
  const parts: string[] = [];
  return writeBounded(value, parts, budget, 0) ? parts.join('') : undefined;
}

function writeBounded(value: unknown, parts: string[], budget: { left: number }, depth: number): boolean {
  const push = (text: string): boolean => {
    budget.left -= text.length;
    parts.push(text);
    return budget.left >= 0;
  };
  if (value === null || typeof value === 'boolean') return push(String(value));
  if (typeof value === 'number') return Number.isFinite(value) && push(JSON.stringify(value));
  if (typeof value === 'string')
    return value.length <= budget.left && !LONE_SURROGATE.test(value) && push(JSON.stringify(value));
  if (typeof value !== 'object' || depth > 16) return false;
  if (Array.isArray(value)) {
    if (!push('[')) return false;
    for (let index = 0; index < value.length; index += 1) {
      if ((index > 0 && !push(',')) || !writeBounded(value[index], parts, budget, depth + 1)) return false;
    }
    return push(']');
  }
  if (!push('{')) return false;
  let first = true;
  for (const key of Object.keys(value)) {
    if (!first && !push(',')) return false;
    first = false;
    if (key.length > budget.left || !push(`${JSON.stringify(key)}:`)) return false;
    if (!writeBounded((value as Record<string, unknown>)[key], parts, budget, depth + 1)) return false;
  }
  return push('}');
}

/**
 * The characters of a word, as the redaction patterns read a token's body (`ghp_` and letters and
 * digits): a cut inside a run of them may leave a token's head.
 */
const TOKEN_CHARACTER = /[A-Za-z0-9_]/;

/**
 * The first `end` characters of `value`, less the word the cut lands in. The head of a token
 * (`ghp_` and a few characters) no longer matches the pattern that would redact the whole, so a
 * cut word is dropped rather than echoed in part.
 */
function withoutCutWord(value: string, end: number): string {
  if (!TOKEN_CHARACTER.test(value.charAt(end)) || !TOKEN_CHARACTER.test(value.charAt(end - 1)))
    return value.slice(0, end);
  let start = end;
  while (start > 0 && TOKEN_CHARACTER.test(value.charAt(start - 1))) start -= 1;
  return value.slice(0, start);
}

/**
 * The `received_value` keys of a detail: a string cut to {@link RECEIVED_STRING_LIMIT}
 * characters (then `received_truncated: true`), a number, boolean or `null` as it is, an array or
 * object when its JSON text has at most {@link CORRECTION_JSON_LIMIT} characters. Nothing for a
 * missing value, a number JSON cannot carry, or a larger structure (the caller holds it anyway).
 *
 * @param value - the value at the detail's path.
 * @returns the keys to add (possibly none).
 */
export function receivedValueKeys(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) return {};
    if (value.length <= RECEIVED_STRING_LIMIT) return { received_value: value };
    // never split a surrogate pair: the detail must stay well-formed text
    let end = RECEIVED_STRING_LIMIT - 1;
    if (/[\ud800-\udbff]/.test(value.charAt(end - 1))) end -= 1;
    return { received_value: `${withoutCutWord(value, end)}…`, received_truncated: true };
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return {};
  // the value as its JSON reads, so that structured content says what the text channel says
  // (JSON has no -0) and the detail shares nothing with the caller's arguments
  const text = boundedJson(value);
  return text === undefined ? {} : { received_value: JSON.parse(text) as unknown };
}

/** What the correction of one violation reads. */
export interface CorrectionInput {
  /** The key of the code table entry (`maximum` for `exclusiveMaximum`, ...). */
  readonly tableKeyword: string;
  /** The JSON Schema keyword that failed. */
  readonly keyword: string;
  /** The value at the detail's path; for an unknown key, the object holding it. */
  readonly value: unknown;
  /** The keyword's extra keys on the detail (`limit`, `allowed`, `extra`, ...). */
  readonly extras: Readonly<Record<string, unknown>>;
  /** The schema object holding the failing keyword. */
  readonly parentSchema: unknown;
}

function listed(values: readonly unknown[]): string {
  const shown = values
    .slice(0, EXPECTED_LIST_LIMIT)
    .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
  const more = values.length > EXPECTED_LIST_LIMIT ? ` and ${values.length - EXPECTED_LIST_LIMIT} more` : '';
  return `${shown.join(', ')}${more}`;
}

function counted(limit: string, noun: string): string {
  return `${limit} ${noun}${limit === '1' ? '' : 's'}`;
}

function schemaKeyword(schema: unknown, keyword: string): unknown {
  return isRecord(schema) && Object.hasOwn(schema, keyword) ? schema[keyword] : undefined;
}

/** The `expected` sentence of a violation: what would have passed, in a few words. */
export function expectedOf(input: CorrectionInput): string | undefined {
  const { extras } = input;
  const limit = String(extras['limit']);
  const exclusive = extras['exclusive'] === true;
  switch (input.tableKeyword) {
    case 'type':
      // `Infinity` and `NaN` are of type number to JavaScript: what fails is their finiteness
      if (typeof input.value === 'number' && !Number.isFinite(input.value)) return 'a finite number';
      return `a value of type ${String(extras['expected_type']).split('|').join(' or ')}`;
    case 'required': {
      const property = propertySchema(input.parentSchema, String(extras['field']));
      const type = schemaKeyword(property, 'type');
      return typeof type === 'string' ? `a value of type ${type}` : 'a value';
    }
    case 'maxItems':
      return `at most ${counted(limit, 'item')}`;
    case 'minItems':
      return `at least ${counted(limit, 'item')}`;
    case 'maxLength':
      return `at most ${counted(limit, 'character')}`;
    case 'minLength':
      return `at least ${counted(limit, 'character')}`;
    case 'maximum':
      return exclusive ? `a number below ${limit}` : `a number no greater than ${limit}`;
    case 'minimum':
      return exclusive ? `a number above ${limit}` : `a number no smaller than ${limit}`;
    case 'enum':
      return `one of: ${listed(Array.isArray(extras['allowed']) ? extras['allowed'] : [])}`;
    case 'const':
      return `exactly ${listed(Array.isArray(extras['allowed']) ? extras['allowed'] : [])}`;
    case 'pattern':
      return `a string matching ${String(extras['pattern'])}`;
    case 'format':
      return `a valid ${String(extras['format'])}`;
    case 'additionalProperties':
      // not the list itself: `did_you_mean` names the nearest key, and `tools/list` has them all
      return declaredNames(input.parentSchema).length === 0 ? 'no other keys' : 'only the keys the schema declares';
    case 'multipleOf':
      return `a multiple of ${limit}`;
    case 'uniqueItems':
      return 'items that are all different';
    default:
      return combinatorExpected(input);
  }
}

function combinatorExpected(input: CorrectionInput): string | undefined {
  const branches = schemaKeyword(input.parentSchema, input.tableKeyword);
  const count = Array.isArray(branches) ? ` ${branches.length}` : '';
  if (input.tableKeyword === 'oneOf') return `a value matching exactly one of the${count} alternatives`;
  if (input.tableKeyword === 'anyOf') return `a value matching at least one of the${count} alternatives`;
  if (input.tableKeyword === 'allOf') return `a value matching all of the${count} parts`;
  if (input.keyword === 'dependentRequired') return `${String(input.extras['field'])} sent too`;
  return undefined;
}

function propertySchema(parent: unknown, name: string): unknown {
  const properties = schemaKeyword(parent, 'properties');
  return isRecord(properties) && Object.hasOwn(properties, name) ? properties[name] : undefined;
}

function declaredNames(parent: unknown): string[] {
  const properties = schemaKeyword(parent, 'properties');
  return isRecord(properties) ? Object.keys(properties) : [];
}

/** What the nearest-value search returns when it found nothing (`undefined` and `null` can be values). */
const NONE: unique symbol = Symbol('no suggestion');

/**
 * The nearest value that passes the failed check, when one can be found without guessing what
 * the caller meant (see CONTRACT.md for the rule of each keyword); `undefined` when none.
 *
 * @param input - the violation's keyword, value, extras and schema.
 * @param declared - for an unknown key without declared `properties` on its object (a
 *   top-level `$ref` or `allOf`), the names to match it against.
 * @returns the value, or for an unknown key the nearest declared key name.
 */
export function nearestValue(input: CorrectionInput, declared?: readonly string[]): unknown {
  const found = nearestOf(input, declared);
  if (found === NONE) return undefined;
  const text = boundedJson(found);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function nearestOf(input: CorrectionInput, declared: readonly string[] | undefined): unknown {
  const { value, extras, parentSchema } = input;
  const limit = extras['limit'];
  switch (input.tableKeyword) {
    case 'type':
      return converted(value, String(extras['expected_type']).split('|'));
    case 'required':
      return schemaValue(propertySchema(parentSchema, String(extras['field'])));
    case 'maxItems':
      return Array.isArray(value) && typeof limit === 'number' ? value.slice(0, limit) : NONE;
    case 'maxLength':
      return typeof value === 'string' && typeof limit === 'number' ? shortened(value, limit) : NONE;
    case 'minItems':
    case 'minLength':
      return schemaValue(parentSchema, (candidate) => lengthOf(candidate) >= Number(limit));
    case 'maximum':
    case 'minimum':
      return boundValue(input);
    case 'enum':
    case 'const':
      return nearestAllowed(value, Array.isArray(extras['allowed']) ? extras['allowed'] : []);
    case 'additionalProperties': {
      const names = declaredNames(parentSchema);
      return nearestKey(String(extras['extra']), names.length > 0 ? names : (declared ?? []));
    }
    case 'multipleOf':
      return nearestMultiple(value, Number(limit), parentSchema);
    case 'uniqueItems':
      return Array.isArray(value) ? distinctItems(value) : NONE;
    case 'pattern':
      return patternValue(value, String(extras['pattern']), parentSchema);
    case 'format':
      return formatValue(value, String(extras['format']), parentSchema);
    default:
      return NONE;
  }
}

/**
 * `value` cut to `limit` code points, less the word the cut lands in (see `withoutCutWord`);
 * nothing when no whole word is left.
 */
function shortened(value: string, limit: number): unknown {
  const head = Array.from(value).slice(0, limit).join('');
  const cut = withoutCutWord(value, head.length);
  return cut === '' ? NONE : cut;
}

function lengthOf(value: unknown): number {
  if (typeof value === 'string') return Array.from(value).length;
  return Array.isArray(value) ? value.length : -1;
}

/**
 * A value the schema itself offers: its `const`, an `enum` of one value, its `default`, or its
 * first example that `accepts` allows. Nothing else: choosing among several values is the caller's.
 */
function schemaValue(schema: unknown, accepts: (value: unknown) => boolean = () => true): unknown {
  if (!isRecord(schema)) return NONE;
  if (Object.hasOwn(schema, 'const')) return schema['const'];
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && allowed.length === 1) return allowed[0];
  const examples: readonly unknown[] = Array.isArray(schema['examples']) ? (schema['examples'] as unknown[]) : [];
  const candidates = [
    ...(Object.hasOwn(schema, 'default') ? [schema['default']] : []),
    ...examples,
    ...(Object.hasOwn(schema, 'example') ? [schema['example']] : []),
  ];
  const found = candidates.find((candidate) => accepts(candidate));
  return found === undefined ? NONE : found;
}

const NUMERIC_TEXT = /^\s*-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

/** The value written as one of the expected types, where only one reading is possible ("5" -> 5). */
function converted(value: unknown, expected: readonly string[]): unknown {
  for (const type of expected) {
    if (typeof value === 'string') {
      if ((type === 'number' || type === 'integer') && NUMERIC_TEXT.test(value)) {
        const number = Number(value);
        if (Number.isFinite(number) && (type === 'number' || Number.isInteger(number))) return number;
      }
      if (type === 'boolean' && /^(?:true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
      if (type === 'object' || type === 'array') {
        const parsed = parsedJson(value);
        if (type === 'array' ? Array.isArray(parsed) : isRecord(parsed)) return parsed;
      }
    }
    if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
    if (type === 'array' && value !== null && typeof value !== 'object' && !Number.isNaN(value)) return [value];
  }
  return NONE;
}

function parsedJson(text: string): unknown {
  // a large text is no quick fix, and parsing it would cost what validation saved
  if (text.length > CORRECTION_JSON_LIMIT) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The bound itself for an inclusive bound, the next integer inside an exclusive one on an integer. */
function boundValue(input: CorrectionInput): unknown {
  const limit = input.extras['limit'];
  if (typeof limit !== 'number' || typeof input.value !== 'number') return NONE;
  const integer = schemaKeyword(input.parentSchema, 'type') === 'integer';
  const upper = input.tableKeyword === 'maximum';
  if (input.extras['exclusive'] === true) {
    if (!integer) return NONE;
    return upper ? Math.ceil(limit) - 1 : Math.floor(limit) + 1;
  }
  if (!integer) return limit;
  return upper ? Math.floor(limit) : Math.ceil(limit);
}

/** The allowed value equal to the sent one once case or JSON type is ignored, else the closest string. */
function nearestAllowed(value: unknown, allowed: readonly unknown[]): unknown {
  if (allowed.length === 1) return allowed[0];
  const text = typeof value === 'string' ? value : boundedJson(value);
  if (text === undefined) return NONE;
  const same = allowed.find(
    (candidate) =>
      (typeof candidate === 'string' ? candidate : JSON.stringify(candidate)).toLowerCase() === text.toLowerCase(),
  );
  if (same !== undefined) return same;
  const strings = allowed.filter((candidate): candidate is string => typeof candidate === 'string');
  return closestMatch(text, strings) ?? NONE;
}

/** The declared key equal to an unknown one ignoring case and separators, else the closest one. */
function nearestKey(key: string, declared: readonly string[]): unknown {
  // a declared name can still be unknown to validation (`__proto__`): never suggest the key itself
  const names = declared.filter((name) => name !== key);
  const folded = foldKey(key);
  return names.find((name) => foldKey(name) === folded) ?? closestMatch(key, names) ?? NONE;
}

/** The nearest multiple of `divisor`, kept inside the schema's `minimum`/`maximum` when it has them. */
function nearestMultiple(value: unknown, divisor: number, schema: unknown): unknown {
  if (typeof value !== 'number' || !(divisor > 0)) return NONE;
  const multiple = (count: number): number => Number((count * divisor).toPrecision(15));
  let count = Math.round(value / divisor);
  const minimum = schemaKeyword(schema, 'minimum');
  const maximum = schemaKeyword(schema, 'maximum');
  if (typeof minimum === 'number' && multiple(count) < minimum) count = Math.ceil(minimum / divisor);
  if (typeof maximum === 'number' && multiple(count) > maximum) count = Math.floor(maximum / divisor);
  const result = multiple(count);
  return result === value || (typeof minimum === 'number' && result < minimum) ? NONE : result;
}

function distinctItems(items: readonly unknown[]): unknown {
  const seen = new Set<string>();
  const kept: unknown[] = [];
  for (const item of items) {
    const text = boundedJson(item);
    if (text === undefined) return NONE;
    if (seen.has(text)) continue;
    seen.add(text);
    kept.push(item);
  }
  return kept;
}

function compiledPattern(pattern: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // try without the `u` flag, as validation does for OpenAPI patterns
    }
  }
  return undefined;
}

/** A pattern that is one character class repeated (`^[a-zA-Z0-9-]*$`): its class, to drop other characters. */
const CLASS_ONLY_PATTERN = /^\^(\[(?:\\.|[^\]\\])+\])(?:[*+]|\{\d+(?:,\d*)?\})\$$/;

/**
 * The sent string in lower or upper case, or without the characters the pattern's one class
 * refuses, when that matches; else a schema example that matches.
 */
function patternValue(value: unknown, pattern: string, schema: unknown): unknown {
  const compiled = compiledPattern(pattern);
  if (compiled === undefined) return NONE;
  const matches = (candidate: unknown): boolean => typeof candidate === 'string' && compiled.test(candidate);
  if (typeof value === 'string') {
    const candidates = [value.toLowerCase(), value.toUpperCase()];
    const characterClass = CLASS_ONLY_PATTERN.exec(pattern)?.[1];
    const allowed = characterClass === undefined ? undefined : compiledPattern(characterClass);
    if (allowed !== undefined)
      candidates.push(
        Array.from(value)
          .filter((character) => allowed.test(character))
          .join(''),
      );
    const found = candidates.find((candidate) => candidate !== '' && candidate !== value && matches(candidate));
    if (found !== undefined) return found;
  }
  return schemaValue(schema, matches);
}

/** The sent date or date-time written in the format asked for, where only one reading exists; else a schema example. */
function formatValue(value: unknown, format: string, schema: unknown): unknown {
  const valid = (candidate: unknown): boolean => typeof candidate === 'string' && passesFormat(format, candidate);
  if (typeof value === 'string') {
    const text = value.trim();
    const candidates: string[] = [];
    if (format === 'date-time') {
      if (/^\d{4}-\d{2}-\d{2}$/.test(text)) candidates.push(`${text}T00:00:00Z`);
      const spaced = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:\d{2})?$/i.exec(text);
      if (spaced !== null) {
        const time = (spaced[2] as string).length === 5 ? `${spaced[2] as string}:00` : (spaced[2] as string);
        candidates.push(`${spaced[1] as string}T${time}${(spaced[3] ?? 'Z').toUpperCase()}`);
      }
    }
    if (format === 'date' && /^\d{4}-\d{2}-\d{2}[T ]/i.test(text)) candidates.push(text.slice(0, 10));
    if (format === 'email' || format === 'uri' || format === 'uuid') candidates.push(text);
    const found = candidates.find((candidate) => candidate !== value && valid(candidate));
    if (found !== undefined) return found;
  }
  return schemaValue(schema, valid);
}

function passesFormat(format: string, text: string): boolean {
  const formats = fullFormats as Readonly<Record<string, unknown>>;
  const definition = Object.hasOwn(formats, format) ? formats[format] : undefined;
  const check = isRecord(definition) ? definition['validate'] : definition;
  if (check instanceof RegExp) return check.test(text);
  if (typeof check === 'function') return (check as (text: string) => unknown)(text) === true;
  return false;
}
