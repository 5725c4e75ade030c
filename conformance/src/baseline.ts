/**
 * The baseline argument synthesizer: builds a VALID argument object for a tool from its
 * `inputSchema`, so that each probe changes exactly one thing and the server's complaint can only
 * be about that change.
 *
 * @packageDocumentation
 */
import { derefSchema, requiredProperties, withoutKeys } from './json-schema.js';
import { isRecord } from '@mcp-envelope/contract';
import type { JsonObject, JsonValue } from './json-schema.js';

/** The result of {@link synthesizeValue} and {@link synthesizeBaseline}. */
export type SynthesisResult<T extends JsonValue = JsonValue> =
  | {
      readonly ok: true;
      readonly value: T;
      /** Constraints the value may not meet (an unmatched `pattern`, say), as readable notes. */
      readonly notes: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/** Values used for string `format`s; each is valid for its format. */
const FORMAT_VALUES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-15T10:30:00Z',
  date: '2026-01-15',
  time: '10:30:00Z',
  email: 'conformance@example.com',
  'idn-email': 'conformance@example.com',
  uri: 'https://example.com/conformance',
  'uri-reference': 'https://example.com/conformance',
  iri: 'https://example.com/conformance',
  'iri-reference': 'https://example.com/conformance',
  url: 'https://example.com/conformance',
  uuid: '3f2b8c1e-5d4a-4c6b-9e7f-1a2b3c4d5e6f',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.10',
  ipv6: '2001:db8::10',
  duration: 'P1D',
  regex: '.*',
  'json-pointer': '/conformance',
};

/** Candidates tried, in order, when a string schema has a `pattern`. */
const PATTERN_CANDIDATES: readonly string[] = [
  'conformance',
  'ATVPDKIKX0DER',
  'A1',
  'ABC123',
  'a',
  'A',
  '1',
  '123',
  'abc',
  'US',
  'en_US',
];

const MAX_DEPTH = 24;
/** The longest string the synthesizer builds (a larger `minLength` is reported, not built). */
const MAX_STRING_LENGTH = 10_000;
/** The most array items the synthesizer builds (a larger `minItems` is reported, not built). */
const MAX_ITEMS = 1_000;

interface Context {
  readonly root: unknown;
  readonly notes: string[];
}

type Schema = Readonly<Record<string, unknown>>;

function fail(path: string, reason: string): SynthesisResult<never> {
  return { ok: false, reason: path === '' ? reason : `${path}: ${reason}` };
}

function done<T extends JsonValue>(value: T, context: Context): SynthesisResult<T> {
  return { ok: true, value, notes: context.notes };
}

function numberKeyword(schema: Schema, name: string): number | undefined {
  const value = schema[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The inclusive bounds of a numeric schema, drafts 4 and 2020-12 alike. */
function numericBounds(schema: Schema, integer: boolean): { low: number | undefined; high: number | undefined } {
  const step = integer ? 1 : 0.5;
  let low = numberKeyword(schema, 'minimum');
  let high = numberKeyword(schema, 'maximum');
  const exclusiveLow = numberKeyword(schema, 'exclusiveMinimum');
  const exclusiveHigh = numberKeyword(schema, 'exclusiveMaximum');
  if (exclusiveLow !== undefined) low = Math.max(low ?? -Infinity, exclusiveLow + step);
  else if (schema['exclusiveMinimum'] === true && low !== undefined) low += step;
  if (exclusiveHigh !== undefined) high = Math.min(high ?? Infinity, exclusiveHigh - step);
  else if (schema['exclusiveMaximum'] === true && high !== undefined) high -= step;
  return { low, high };
}

function synthesizeNumber(
  schema: Schema,
  integer: boolean,
  variant: number,
  path: string,
  context: Context,
): SynthesisResult {
  const { low, high } = numericBounds(schema, integer);
  let value = 1 + variant;
  if (low !== undefined && value < low) value = integer ? Math.ceil(low) : low;
  if (high !== undefined && value > high) value = integer ? Math.floor(high) : high;
  const multipleOf = numberKeyword(schema, 'multipleOf');
  if (multipleOf !== undefined && multipleOf > 0) {
    value = Math.ceil(value / multipleOf) * multipleOf;
    if (high !== undefined && value > high) value = Math.floor(high / multipleOf) * multipleOf;
  }
  if ((low !== undefined && value < low) || (high !== undefined && value > high)) {
    return fail(path, `no ${integer ? 'integer' : 'number'} within [${String(low)}, ${String(high)}]`);
  }
  return done(value, context);
}

function patternMatcher(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function fitLength(text: string, schema: Schema): string {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  const maxLength = numberKeyword(schema, 'maxLength');
  let fitted = text.length < minLength ? text + 'x'.repeat(minLength - text.length) : text;
  if (maxLength !== undefined && fitted.length > maxLength) fitted = fitted.slice(0, Math.max(0, maxLength));
  return fitted;
}

function synthesizeString(schema: Schema, variant: number, path: string, context: Context): SynthesisResult {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  if (minLength > MAX_STRING_LENGTH) return fail(path, `minLength ${minLength} is larger than ${MAX_STRING_LENGTH}`);
  const format = typeof schema['format'] === 'string' ? FORMAT_VALUES[schema['format']] : undefined;
  const base = format ?? (variant === 0 ? 'conformance' : `conformance${variant}`);
  const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : undefined;
  if (pattern === undefined || format !== undefined) return done(fitLength(base, schema), context);
  const matcher = patternMatcher(pattern);
  const candidates = [base, ...PATTERN_CANDIDATES].map((candidate) => fitLength(candidate, schema));
  const match = matcher === undefined ? undefined : candidates.find((candidate) => matcher.test(candidate));
  if (match !== undefined) return done(match, context);
  context.notes.push(`${path || '(root)'}: no value found for pattern /${pattern}/; sent "${candidates[0] ?? base}"`);
  return done(candidates[0] ?? base, context);
}

function synthesizeArray(
  schema: Schema,
  variant: number,
  path: string,
  depth: number,
  context: Context,
): SynthesisResult {
  const minItems = numberKeyword(schema, 'minItems') ?? 0;
  if (minItems > MAX_ITEMS) return fail(path, `minItems ${minItems} is larger than ${MAX_ITEMS}`);
  const maxItems = numberKeyword(schema, 'maxItems');
  const prefixItems = Array.isArray(schema['prefixItems'])
    ? schema['prefixItems']
    : Array.isArray(schema['items'])
      ? schema['items']
      : [];
  const itemSchema = Array.isArray(schema['items']) ? schema['additionalItems'] : schema['items'];
  let count = Math.max(minItems, prefixItems.length, 1);
  if (maxItems !== undefined) count = Math.min(count, maxItems);
  const items: JsonValue[] = [];
  for (let index = 0; index < count; index += 1) {
    const member: unknown = index < prefixItems.length ? prefixItems[index] : itemSchema;
    const unique = schema['uniqueItems'] === true ? index : variant;
    const result = synthesizeAt(member, unique, `${path}/${index}`, depth + 1, context);
    if (!result.ok) return result;
    items.push(result.value);
  }
  if (schema['uniqueItems'] === true && new Set(items.map((item) => JSON.stringify(item))).size !== items.length) {
    return fail(path, 'cannot build enough distinct items for uniqueItems');
  }
  return done(items, context);
}

function synthesizeObject(schema: Schema, path: string, depth: number, context: Context): SynthesisResult<JsonObject> {
  // Raw (unresolved) property schemas, so that a broken $ref is reported rather than read as {}.
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = requiredProperties(context.root, schema);
  const value: Record<string, JsonValue> = {};
  const add = (name: string): SynthesisResult | undefined => {
    const propertySchema: unknown = Object.hasOwn(properties, name)
      ? properties[name]
      : isRecord(schema['additionalProperties'])
        ? schema['additionalProperties']
        : true;
    const result = synthesizeAt(propertySchema, 0, path === '' ? name : `${path}/${name}`, depth + 1, context);
    if (result.ok) value[name] = result.value;
    return result.ok ? undefined : result;
  };
  for (const name of required) {
    const failure = add(name);
    if (failure !== undefined) return failure as SynthesisResult<never>;
  }
  const minProperties = numberKeyword(schema, 'minProperties') ?? 0;
  for (const name of Object.keys(properties)) {
    if (Object.keys(value).length >= minProperties) break;
    if (!Object.hasOwn(value, name)) add(name);
  }
  return done(value, context);
}

function chosenType(schema: Schema): string | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const names = type.filter((name): name is string => typeof name === 'string');
    return names.find((name) => name !== 'null') ?? names[0];
  }
  if (schema['properties'] !== undefined || schema['required'] !== undefined) return 'object';
  if (schema['items'] !== undefined || schema['prefixItems'] !== undefined) return 'array';
  if (schema['minLength'] !== undefined || schema['pattern'] !== undefined || schema['format'] !== undefined)
    return 'string';
  if (schema['minimum'] !== undefined || schema['maximum'] !== undefined) return 'number';
  return undefined;
}

function fromAnnotations(schema: Schema, variant: number): { found: true; value: JsonValue } | { found: false } {
  if (Object.hasOwn(schema, 'const')) return { found: true, value: schema['const'] as JsonValue };
  const values = schema['enum'];
  if (Array.isArray(values) && values.length > 0)
    return { found: true, value: values[variant % values.length] as JsonValue };
  if (variant === 0 && Object.hasOwn(schema, 'default') && schema['default'] !== undefined)
    return { found: true, value: schema['default'] as JsonValue };
  const examples = schema['examples'];
  if (variant === 0 && Array.isArray(examples) && examples.length > 0)
    return { found: true, value: examples[0] as JsonValue };
  return { found: false };
}

function mergeAllOf(schema: Schema, context: Context): Schema {
  const members = schema['allOf'];
  if (!Array.isArray(members)) return schema;
  const merged = withoutKeys(schema, ['allOf']);
  const properties: Record<string, unknown> = isRecord(schema['properties']) ? { ...schema['properties'] } : {};
  const required = new Set<unknown>(Array.isArray(schema['required']) ? schema['required'] : []);
  for (const member of members) {
    const resolved = derefSchema(context.root, member);
    if (!resolved.ok || !isRecord(resolved.schema)) continue;
    for (const [key, value] of Object.entries(resolved.schema)) {
      if (key === 'properties' && isRecord(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) for (const name of value) required.add(name);
      else if (!Object.hasOwn(merged, key)) merged[key] = value;
    }
  }
  return { ...merged, properties, required: [...required] };
}

function synthesizeAlternatives(
  schema: Schema,
  variant: number,
  path: string,
  depth: number,
  context: Context,
): SynthesisResult | undefined {
  const alternatives = Array.isArray(schema['anyOf'])
    ? schema['anyOf']
    : Array.isArray(schema['oneOf'])
      ? schema['oneOf']
      : undefined;
  if (alternatives === undefined) return undefined;
  const rest = withoutKeys(schema, ['anyOf', 'oneOf']);
  let lastFailure: SynthesisResult | undefined;
  for (const alternative of alternatives) {
    const resolved = derefSchema(context.root, alternative);
    if (!resolved.ok || resolved.schema === false) continue;
    const combined = resolved.schema === true ? rest : { ...rest, ...resolved.schema };
    if (combined['type'] === 'null' && alternatives.length > 1) continue;
    const result = synthesizeAt(combined, variant, path, depth + 1, context);
    if (result.ok) return result;
    lastFailure = result;
  }
  return lastFailure ?? fail(path, 'no usable anyOf/oneOf alternative');
}

function synthesizeAt(
  schemaInput: unknown,
  variant: number,
  path: string,
  depth: number,
  context: Context,
): SynthesisResult {
  if (depth > MAX_DEPTH) return fail(path, `schema nests deeper than ${MAX_DEPTH} levels (recursive $ref?)`);
  const resolved = derefSchema(context.root, schemaInput ?? true);
  if (!resolved.ok) return fail(path, resolved.reason);
  if (resolved.schema === false) return fail(path, 'schema is false: no value is valid');
  if (resolved.schema === true) return done(variant === 0 ? 'conformance' : `conformance${variant}`, context);
  const schema = mergeAllOf(resolved.schema, context);
  const annotated = fromAnnotations(schema, variant);
  if (annotated.found) return done(annotated.value, context);
  const alternative = synthesizeAlternatives(schema, variant, path, depth, context);
  if (alternative !== undefined) return alternative;
  switch (chosenType(schema)) {
    case 'string':
      return synthesizeString(schema, variant, path, context);
    case 'integer':
      return synthesizeNumber(schema, true, variant, path, context);
    case 'number':
      return synthesizeNumber(schema, false, variant, path, context);
    case 'boolean':
      return done(variant % 2 === 0, context);
    case 'null':
      return done(null, context);
    case 'array':
      return synthesizeArray(schema, variant, path, depth, context);
    case 'object':
      return synthesizeObject(schema, path, depth, context);
    default:
      return done(variant === 0 ? 'conformance' : `conformance${variant}`, context);
  }
}

/**
 * Builds one valid value for a JSON Schema: `const`, else the first `enum` value, else `default`,
 * else the first of `examples`, else a value of the schema's `type` that respects `format`,
 * `minLength`/`maxLength`, `pattern` (best effort), `minimum`/`maximum` (inclusive and exclusive),
 * `multipleOf`, `minItems`/`maxItems`/`uniqueItems`, `prefixItems`, `allOf` (merged),
 * `anyOf`/`oneOf` (first usable branch), and for objects the `required` properties only.
 * Local `$ref`s (`#/$defs/...`, `#/definitions/...`) are followed.
 *
 * @param schema - the schema to satisfy.
 * @param root - the document local `$ref`s point into; defaults to `schema` itself.
 * @returns `{ ok: true, value, notes }`, or `{ ok: false, reason }` naming the JSON-pointer path
 *   (without the leading slash) of the part no value could be built for.
 */
export function synthesizeValue(schema: unknown, root: unknown = schema): SynthesisResult {
  return synthesizeAt(schema, 0, '', 0, { root, notes: [] });
}

/**
 * Builds the baseline arguments of a tool: an object holding the `required` properties of its
 * `inputSchema` only, each with a valid value (see {@link synthesizeValue}).
 *
 * @param inputSchema - the tool's `inputSchema` as listed by `tools/list`.
 * @returns `{ ok: true, value, notes }` with the argument object, or `{ ok: false, reason }` when the
 *   schema is not an object schema or a required property cannot be given a valid value.
 */
export function synthesizeBaseline(inputSchema: unknown): SynthesisResult<JsonObject> {
  const context: Context = { root: inputSchema, notes: [] };
  const resolved = derefSchema(inputSchema, inputSchema);
  if (!resolved.ok) return fail('', resolved.reason);
  if (resolved.schema === true) return done({}, context);
  if (resolved.schema === false) return fail('', 'inputSchema is false: no arguments are valid');
  const schema = mergeAllOf(resolved.schema, context);
  const type = schema['type'];
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) {
    return fail('', `inputSchema type is ${JSON.stringify(type)}, not "object"`);
  }
  return synthesizeObject(schema, '', 0, context);
}

/**
 * Builds one valid value for a single property of an object schema (used to add an optional
 * property to the baseline).
 *
 * @param inputSchema - the whole `inputSchema` (for local `$ref`s).
 * @param propertySchema - the property's (possibly `$ref`) schema.
 * @returns see {@link synthesizeValue}.
 */
export function synthesizeProperty(inputSchema: unknown, propertySchema: unknown): SynthesisResult {
  return synthesizeAt(propertySchema, 0, '', 1, { root: inputSchema, notes: [] });
}
