/**
 * OpenAPI (Swagger 2.0, OpenAPI 3.0 and 3.1) schema objects -> JSON Schema draft 2020-12, the
 * dialect tool input schemas are published and validated in. Shared by every adapter that builds
 * tools from an API description.
 *
 * What changes: OpenAPI-only keywords are translated (`nullable`, boolean `exclusiveMinimum` /
 * `exclusiveMaximum`, `example`, `type: file`, tuple `items`) and every keyword that is not
 * JSON Schema 2020-12 (vendor `x-*` keys, `discriminator`, `xml`, `externalDocs`, ...) is dropped,
 * so a strict validator compiles the result. Everything that constrains values is kept: types,
 * arrays, enums, formats a standard validator knows, lengths, ranges, patterns, combinators.
 *
 * References: this module never loads or parses anything. A `$ref` is followed through the
 * caller's {@link ReferenceResolver} (an adapter backs it with a reference-resolution library),
 * or the document is passed already dereferenced. Cycles (recursive definitions, or object cycles
 * in a dereferenced document) end in a permissive stub that says it was not expanded.
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { JsonSchema } from '../output-schema.js';
import { referenceStrings } from '../json-references.js';
import { capText } from '../upstream-body/parse.js';
import { fragmentSegments } from '../json-pointer.js';

/**
 * Resolves a `$ref` string (`#/definitions/Order`, `#/components/schemas/Campaign`, or an external
 * reference the resolver understands) to its target value.
 *
 * @returns the target, or `undefined` when it cannot be resolved (the converter then emits a stub).
 */
export type ReferenceResolver = (reference: string) => unknown;

/**
 * How resolved references appear in the output:
 * - `inline` (default): each reference is replaced by its converted target (recursion ends in a
 *   stub). Simple for every consumer, but a model whose definitions nest deeply yields large
 *   schemas that validators compile slowly.
 * - `defs`: each referenced definition is converted once into the tool schema's `$defs` and
 *   referenced as `{ "$ref": "#/$defs/<Name>" }` (recursion stays recursion). A parameter's or
 *   body's own top-level schema is still written inline, so the tool's top-level properties keep
 *   their types.
 */
export type ReferenceMode = 'inline' | 'defs';

/** Options of the schema conversion. */
export interface SchemaConversionOptions {
  /** Follows `$ref`s; without it every `$ref` left in the document becomes a stub. */
  readonly resolveReference?: ReferenceResolver | undefined;
  /** Longest `description` kept, in characters (default `SCHEMA_DESCRIPTION_LIMIT`). */
  readonly descriptionLimit?: number | undefined;
  /** See {@link ReferenceMode}; default `inline`. */
  readonly referenceMode?: ReferenceMode | undefined;
}

/** Default cap of a schema `description`, in characters. */
export const SCHEMA_DESCRIPTION_LIMIT = 300;

/**
 * The `format` values kept: the ones Ajv with `ajv-formats` validates (JSON Schema formats plus
 * the OpenAPI numeric and binary formats). Any other format (`dateTime`, `PDF`, `ip`, ...) is an
 * annotation a strict validator rejects, so it is dropped.
 */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** Keywords copied unchanged when their value has the right JSON type. */
const COPIED_COUNTS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'maxContains',
  'minContains',
] as const;
const COPIED_BOOLEANS = ['uniqueItems', 'readOnly', 'writeOnly', 'deprecated'] as const;
const COPIED_STRINGS = ['title', 'contentMediaType', 'contentEncoding'] as const;
/** Keywords whose value is one schema. */
const SUBSCHEMA_KEYWORDS = [
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;
/**
 * Whether `keyword` of `schema` is a conditional JSON Schema ignores: `if` without `then` or
 * `else`, or `then`/`else` without `if`. Such a keyword checks nothing, and a strict validator
 * refuses the schema that holds it, so the converter leaves it out.
 */
function isIgnoredConditional(schema: Readonly<Record<string, unknown>>, keyword: string): boolean {
  if (keyword === 'if') return schema['then'] === undefined && schema['else'] === undefined;
  if (keyword === 'then' || keyword === 'else') return schema['if'] === undefined;
  return false;
}

/** Keywords whose value is a list of schemas. */
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keywords whose value maps names to schemas. */
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas'] as const;

/**
 * The JSON types each type-specific keyword applies to. Used to drop keywords a model puts on the
 * wrong type (`items` on a string, `maxLength` on an array) and to infer a missing `type` from the
 * keywords, so that a validator in strict-types mode compiles every converted schema.
 */
const KEYWORD_TYPES: Readonly<Record<string, 'object' | 'array' | 'string' | 'number'>> = {
  properties: 'object',
  patternProperties: 'object',
  additionalProperties: 'object',
  required: 'object',
  minProperties: 'object',
  maxProperties: 'object',
  dependentRequired: 'object',
  dependentSchemas: 'object',
  propertyNames: 'object',
  unevaluatedProperties: 'object',
  items: 'array',
  prefixItems: 'array',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
  contains: 'array',
  minContains: 'array',
  maxContains: 'array',
  unevaluatedItems: 'array',
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'number',
};

/**
 * Makes type-specific keywords agree with `type`: with a declared type, keywords that cannot apply
 * to it are removed; without one, the type is inferred from the keywords (an OpenAPI schema with
 * `properties` and no `type` means an object; `minimum` plus `maxLength` means number or string).
 */
function fitKeywordsToType(result: Record<string, unknown>): void {
  const type = result['type'];
  const format = result['format'];
  if (type !== undefined) {
    // with a declared type (even only `null`), keywords of other types can never apply
    const declared = new Set<string>();
    for (const name of typeof type === 'string' ? [type] : Array.isArray(type) ? (type as string[]) : [])
      if (name !== 'null') declared.add(name === 'integer' ? 'number' : name);
    for (const keyword of Object.keys(result)) {
      const family = KEYWORD_TYPES[keyword];
      if (family !== undefined && Object.hasOwn(KEYWORD_TYPES, keyword) && !declared.has(family))
        Reflect.deleteProperty(result, keyword);
    }
    if (typeof format === 'string' && !declared.has('string') && !declared.has('number'))
      Reflect.deleteProperty(result, 'format');
    return;
  }
  // the type families of the keywords present, in order, then the format's
  const families: string[] = [];
  for (const keyword of Object.keys(result)) {
    if (!Object.hasOwn(KEYWORD_TYPES, keyword)) continue;
    const family = KEYWORD_TYPES[keyword] ?? 'object';
    if (!families.includes(family)) families.push(family);
  }
  if (typeof format === 'string') {
    const formatType = NUMERIC_FORMATS.has(format) ? 'number' : 'string';
    if (!families.includes(formatType)) families.push(formatType);
  }
  if (families.length === 1) result['type'] = families[0];
  else if (families.length > 1) result['type'] = families;
}

/**
 * `dependentRequired` as the meta-schema allows it: each entry a list of unique strings. The
 * value itself when it already is one (the usual case), else a copy without the non-string
 * names, repeats and entries that are not lists.
 */
function translateDependentRequired(value: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const valid = Object.values(value).every(
    (names) =>
      Array.isArray(names) && names.every((name) => typeof name === 'string') && new Set(names).size === names.length,
  );
  if (valid) return value;
  const result: Record<string, unknown> = {};
  for (const [key, names] of Object.entries(value)) {
    if (Array.isArray(names))
      setOwnProperty(result, key, [...new Set(names.filter((name): name is string => typeof name === 'string'))]);
  }
  return result;
}

/** Formats that describe numbers; every other kept format describes strings. */
const NUMERIC_FORMATS: ReadonlySet<string> = new Set(['int32', 'int64', 'float', 'double']);

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isValidPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * Adds an own enumerable data property, `__proto__` included (which plain assignment would treat
 * as the prototype). Plain assignment for every other name: `Object.defineProperty` for each of
 * the thousands of properties a large model has was the converter's costliest line.
 */
function setOwnProperty(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** Whitespace `capText` changes: every white space character other than a plain space, a space before more white space, a space at either end. */
const COLLAPSIBLE_WHITESPACE = /[^\S ]| \s|^ | $/;

/**
 * `capText(text, limit)`, without building new strings for the usual description: a short,
 * single-spaced sentence that `capText` returns unchanged.
 */
function capSchemaText(text: string, limit: number): string {
  return text.length <= limit && !COLLAPSIBLE_WHITESPACE.test(text) ? text : capText(text, limit);
}

/** Where `defs` mode puts definitions inside a tool schema. */
const DEFS_PREFIX = '#/$defs/';

/** The last segment of a reference, for messages: `#/definitions/Order` -> `Order`. */
function referenceName(reference: string): string {
  const segments = fragmentSegments(reference);
  const segment = segments === undefined ? reference.slice(reference.lastIndexOf('/') + 1) : segments.at(-1);
  return segment === undefined || segment === '' ? reference : segment;
}

/**
 * The definition keys named by `$ref: '#/$defs/<key>'` anywhere inside a value (each object
 * visited once), whether or not such a definition exists.
 */
function referenceCandidatesIn(value: unknown): string[] {
  const keys: string[] = [];
  for (const reference of referenceStrings(value))
    if (reference.startsWith(DEFS_PREFIX)) keys.push(reference.slice(DEFS_PREFIX.length));
  return keys;
}

/** `type`, with OpenAPI's `nullable` folded in (Swagger 2.0 `file` is a binary string). */
function translateType(
  schema: Readonly<Record<string, unknown>>,
  result: Record<string, unknown>,
  nullable: boolean,
): void {
  let type: unknown = schema['type'];
  if (type === 'file') {
    type = 'string';
    result['format'] = 'binary';
  }
  if (typeof type === 'string' && JSON_TYPES.has(type))
    result['type'] = nullable && type !== 'null' ? [type, 'null'] : type;
  else if (Array.isArray(type)) {
    // each type once: the meta-schema requires a type list's items to be unique
    const types = [...new Set(type.filter((item): item is string => typeof item === 'string' && JSON_TYPES.has(item)))];
    if (nullable && !types.includes('null')) types.push('null');
    if (types.length > 0) result['type'] = types;
  }
}

/** `enum` (each value once, `null` added for a nullable schema), `const`, `default`, `examples`. */
function translateValues(
  schema: Readonly<Record<string, unknown>>,
  result: Record<string, unknown>,
  nullable: boolean,
): void {
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) {
    const seen = new Set<string>();
    const values = (schema['enum'] as readonly unknown[]).filter((value) => {
      const key = JSON.stringify(value) ?? 'undefined';
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (nullable && !values.includes(null)) values.push(null);
    result['enum'] = values;
  }
  if (Object.hasOwn(schema, 'const')) result['const'] = schema['const'];
  if (Object.hasOwn(schema, 'default')) result['default'] = schema['default'];
  if (Array.isArray(schema['examples'])) result['examples'] = schema['examples'];
  else if (Object.hasOwn(schema, 'example')) result['examples'] = [schema['example']];
}

/** `required`, without the read-only properties, and `dependentRequired`. */
function translateRequired(schema: Readonly<Record<string, unknown>>, result: Record<string, unknown>): void {
  if (Array.isArray(schema['required'])) {
    const required = (schema['required'] as readonly unknown[]).filter(
      (name): name is string => typeof name === 'string',
    );
    const properties = isRecord(schema['properties']) ? schema['properties'] : {};
    // a read-only property is never sent in a request, so it cannot be required of the caller
    const sendable = required.filter((name) => {
      const property = properties[name];
      return !(isRecord(property) && property['readOnly'] === true);
    });
    if (sendable.length > 0) {
      result['required'] = [...new Set(sendable)];
      // a required name the schema does not describe gets an open description, so a strict
      // validator accepts the schema and the name stays required
      const described = (result['properties'] ?? {}) as Record<string, unknown>;
      const undescribed = sendable.filter((name) => !Object.hasOwn(described, name));
      if (undescribed.length > 0) {
        const completed: Record<string, unknown> = { ...described };
        for (const name of undescribed) setOwnProperty(completed, name, {});
        result['properties'] = completed;
      }
    }
  }
  const dependentRequired = schema['dependentRequired'];
  if (isRecord(dependentRequired)) result['dependentRequired'] = translateDependentRequired(dependentRequired);
}

/**
 * A converter with its memo and cycle guards. One instance per document: the memo caches
 * converted `$ref` targets and source objects, so a definition used by many operations is
 * converted once and shared (the output is a DAG; JSON serialization expands it).
 */

export class SchemaConverter {
  private readonly resolveReference: ReferenceResolver | undefined;
  private readonly descriptionLimit: number;
  private readonly byReference = new Map<string, JsonSchema>();
  private readonly byObject = new WeakMap<object, JsonSchema>();
  private readonly referenceStack: string[] = [];
  private readonly objectStack = new Set<object>();
  /** Counts stubs emitted for cycles; a subtree that produced one depends on its path and is not memoized. */
  private cycleStubs = 0;
  /** `defs` mode: the key of each reference, and the converted definition of each key. */
  readonly referenceMode: ReferenceMode;
  private readonly keyByReference = new Map<string, string>();
  /** The values of {@link keyByReference}. */
  private readonly takenKeys = new Set<string>();
  /** `defs` mode: for each definition key, the keys its definition refers to (found once, when first needed). */
  private readonly referencedKeys = new Map<string, readonly string[]>();
  /** `defs` mode: keys whose definition is being converted (still the `{}` placeholder). */
  private readonly definitionsInProgress = new Set<string>();
  private readonly definitions = new Map<string, JsonSchema | boolean>();
  /** `defs` mode: the {@link referenceCandidatesIn} of each converted member schema seen by {@link SchemaConverter.definitionsFor}. */
  private readonly candidatesByMember = new WeakMap<object, readonly string[]>();

  /**
   * @param options - see {@link SchemaConversionOptions}.
   */
  constructor(options: SchemaConversionOptions = {}) {
    this.resolveReference = options.resolveReference;
    this.descriptionLimit = options.descriptionLimit ?? SCHEMA_DESCRIPTION_LIMIT;
    this.referenceMode = options.referenceMode ?? 'inline';
  }

  /**
   * In `defs` mode, the `$defs` a converted schema needs: every definition it references,
   * directly or through other definitions.
   *
   * @param schema - a schema produced by this converter.
   * @returns key -> definition, or `undefined` when it references none (always in `inline` mode).
   */
  definitionsFor(schema: unknown): Record<string, JsonSchema | boolean> | undefined {
    if (this.definitions.size === 0) return undefined;
    const needed = new Set<string>();
    const pending = this.keysReferencedByValues(schema);
    while (pending.length > 0) {
      const key = pending.pop() as string;
      if (needed.has(key)) continue;
      needed.add(key);
      for (const next of this.keysReferencedByDefinition(key)) if (!needed.has(next)) pending.push(next);
    }
    if (needed.size === 0) return undefined;
    const result: Record<string, JsonSchema | boolean> = {};
    for (const key of [...needed].sort()) result[key] = this.definitions.get(key) ?? {};
    return result;
  }

  /** The keys of the definitions a value refers to (`$ref: '#/$defs/<key>'` anywhere inside it), without following them. */
  private keysReferencedIn(value: unknown): string[] {
    return referenceCandidatesIn(value).filter((key) => this.definitions.has(key));
  }

  /**
   * {@link SchemaConverter.keysReferencedIn} for a value whose members are converted schemas (an
   * operation's input properties): each member's candidates are found once, since operations
   * share converted parameters and bodies and a converted schema never changes afterwards. The
   * candidates are filtered by the definitions known now, as a fresh walk would.
   */
  private keysReferencedByValues(value: unknown): string[] {
    if (!isRecord(value)) return this.keysReferencedIn(value);
    const keys: string[] = [];
    const reference = value['$ref'];
    if (typeof reference === 'string' && reference.startsWith(DEFS_PREFIX))
      keys.push(reference.slice(DEFS_PREFIX.length));
    for (const member of Object.values(value)) {
      if (typeof member !== 'object' || member === null) continue;
      let candidates = this.candidatesByMember.get(member);
      if (candidates === undefined) {
        candidates = referenceCandidatesIn(member);
        this.candidatesByMember.set(member, candidates);
      }
      for (const key of candidates) keys.push(key);
    }
    return keys.filter((key) => this.definitions.has(key));
  }

  /**
   * The keys a definition refers to directly. Every operation that needs a definition needs what
   * it refers to, so this is found once per definition (once its conversion has finished) rather
   * than by walking the definition again for each operation.
   */
  private keysReferencedByDefinition(key: string): readonly string[] {
    const known = this.referencedKeys.get(key);
    if (known !== undefined) return known;
    const keys = [...new Set(this.keysReferencedIn(this.definitions.get(key)))];
    if (!this.definitionsInProgress.has(key)) this.referencedKeys.set(key, keys);
    return keys;
  }

  /**
   * Caps a description to this converter's limit (whitespace collapsed).
   *
   * @param text - any description.
   * @returns the capped text, or `undefined` for a non-string or blank value.
   */
  description(text: unknown): string | undefined {
    if (typeof text !== 'string') return undefined;
    const capped = capSchemaText(text, this.descriptionLimit);
    return capped === '' ? undefined : capped;
  }

  /**
   * Follows a `$ref` through the resolver.
   *
   * @param reference - the `$ref` value.
   * @returns the target, or `undefined` when there is no resolver or it cannot resolve it.
   */
  resolve(reference: string): unknown {
    if (this.resolveReference === undefined) return undefined;
    try {
      return this.resolveReference(reference);
    } catch {
      return undefined;
    }
  }

  /**
   * Converts one OpenAPI schema object. Never throws on odd input: a non-object schema becomes
   * `{}` (anything), `true`/`false` stay booleans.
   *
   * @param schema - a Swagger 2.0 / OpenAPI 3.x schema object (or a Swagger 2.0 non-body
   *   parameter / items object, which use the same keywords).
   * @returns the JSON Schema 2020-12 equivalent (shared subtrees: treat as read-only).
   */
  convert(schema: unknown): JsonSchema | boolean {
    if (typeof schema === 'boolean') return schema;
    if (!isRecord(schema)) return {};
    const reference = schema['$ref'];
    if (typeof reference === 'string') return this.convertReference(reference, schema);
    return this.convertObject(schema);
  }

  /**
   * Like {@link SchemaConverter.convert}, but always an object schema (`true` -> `{}`, `false` ->
   * `{ not: {} }`), for places that need one.
   *
   * @param schema - any schema.
   * @returns an object schema.
   */
  convertToObject(schema: unknown): JsonSchema {
    const converted = this.convertTopLevel(schema);
    if (converted === true) return {};
    if (converted === false) return { not: {} };
    return converted;
  }

  private stub(type: unknown, why: string, pathDependent: boolean): JsonSchema {
    if (pathDependent) this.cycleStubs += 1;
    return {
      ...(typeof type === 'string' && JSON_TYPES.has(type) ? { type } : {}),
      description: why,
    };
  }

  /** Like `convert`, but a top-level `$ref` is written inline in `defs` mode too. */
  private convertTopLevel(schema: unknown): JsonSchema | boolean {
    if (this.referenceMode !== 'defs' || !isRecord(schema) || typeof schema['$ref'] !== 'string')
      return this.convert(schema);
    const reference = schema['$ref'];
    const target = this.resolve(reference);
    if (target === undefined)
      return this.stub(undefined, `${referenceName(reference)} (reference not resolved: not checked)`, false);
    const converted = this.convert(target);
    const siblingDescription = this.description(schema['description']);
    return siblingDescription === undefined || typeof converted === 'boolean'
      ? converted
      : { ...converted, description: siblingDescription };
  }

  /** `defs` mode: `{ $ref: '#/$defs/<key>' }`, converting the target into the definitions once. */
  private referenceToDefinition(reference: string, node: Readonly<Record<string, unknown>>): JsonSchema {
    let key = this.keyByReference.get(reference);
    if (key === undefined) {
      const target = this.resolve(reference);
      if (target === undefined)
        return this.stub(undefined, `${referenceName(reference)} (reference not resolved: not checked)`, false);
      const base = referenceName(reference).replace(/[^A-Za-z0-9_.-]+/g, '_') || 'Definition';
      key = base;
      for (let index = 2; this.takenKeys.has(key); index += 1) key = `${base}_${index}`;
      // registered before converting, so a recursive target refers to itself
      this.keyByReference.set(reference, key);
      this.takenKeys.add(key);
      this.definitions.set(key, {});
      this.definitionsInProgress.add(key);
      // the target may be on the object stack (a top-level schema written inline that refers to
      // itself); the `$ref` already ends that recursion, so translate it without the object guard
      try {
        this.definitions.set(
          key,
          isRecord(target) && typeof target['$ref'] !== 'string' ? this.translate(target) : this.convert(target),
        );
      } finally {
        this.definitionsInProgress.delete(key);
      }
    }
    const siblingDescription = this.description(node['description']);
    const pointer: Record<string, unknown> = { $ref: `${DEFS_PREFIX}${key}` };
    if (siblingDescription !== undefined) pointer['description'] = siblingDescription;
    return pointer;
  }

  private convertReference(reference: string, node: Readonly<Record<string, unknown>>): JsonSchema | boolean {
    if (this.referenceMode === 'defs') return this.referenceToDefinition(reference, node);
    const cached = this.byReference.get(reference);
    const siblingDescription = this.description(node['description']);
    const withSibling = (schema: JsonSchema | boolean): JsonSchema | boolean =>
      siblingDescription === undefined || typeof schema === 'boolean'
        ? schema
        : { ...schema, description: siblingDescription };
    if (cached !== undefined) return withSibling(cached);
    const name = referenceName(reference);
    if (this.referenceStack.includes(reference)) {
      const target = this.resolve(reference);
      return this.stub(
        isRecord(target) ? target['type'] : undefined,
        `${name} (recursive: not expanded; any value of this shape is passed through)`,
        true,
      );
    }
    const target = this.resolve(reference);
    if (target === undefined) return this.stub(undefined, `${name} (reference not resolved: not checked)`, false);
    this.referenceStack.push(reference);
    const stubsBefore = this.cycleStubs;
    let converted: JsonSchema | boolean;
    try {
      converted = this.convert(target);
    } finally {
      this.referenceStack.pop();
    }
    if (this.cycleStubs === stubsBefore && typeof converted !== 'boolean') this.byReference.set(reference, converted);
    return withSibling(converted);
  }

  private convertObject(schema: Readonly<Record<string, unknown>>): JsonSchema {
    const cached = this.byObject.get(schema);
    if (cached !== undefined) return cached;
    if (this.objectStack.has(schema)) {
      return this.stub(
        schema['type'],
        'recursive schema: not expanded; any value of this shape is passed through',
        true,
      );
    }
    this.objectStack.add(schema);
    const stubsBefore = this.cycleStubs;
    let converted: JsonSchema;
    try {
      converted = this.translate(schema);
    } finally {
      this.objectStack.delete(schema);
    }
    if (this.cycleStubs === stubsBefore) this.byObject.set(schema, converted);
    return converted;
  }

  private translate(schema: Readonly<Record<string, unknown>>): JsonSchema {
    const result: Record<string, unknown> = {};
    const nullable = schema['nullable'] === true || schema['x-nullable'] === true;
    // the order of these steps is the key order of the converted schema
    translateType(schema, result, nullable);
    this.translateAnnotations(schema, result);
    translateValues(schema, result, nullable);
    this.translateItems(schema, result);
    this.translateSubschemas(schema, result);
    translateRequired(schema, result);
    fitKeywordsToType(result);
    return result;
  }

  /** `description`, the copied keywords, `multipleOf`, `format`, `pattern` and the ranges. */
  private translateAnnotations(schema: Readonly<Record<string, unknown>>, result: Record<string, unknown>): void {
    const description = this.description(schema['description']);
    if (description !== undefined) result['description'] = description;
    for (const keyword of COPIED_STRINGS) {
      const value = schema[keyword];
      if (typeof value === 'string') result[keyword] = value;
    }
    for (const keyword of COPIED_BOOLEANS) {
      const value = schema[keyword];
      if (typeof value === 'boolean') result[keyword] = value;
    }
    for (const keyword of COPIED_COUNTS) {
      const count = schema[keyword];
      if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0) result[keyword] = count;
    }
    if (isFiniteNumber(schema['multipleOf']) && schema['multipleOf'] > 0) result['multipleOf'] = schema['multipleOf'];

    const format = schema['format'];
    if (typeof format === 'string' && KNOWN_FORMATS.has(format) && result['format'] === undefined)
      result['format'] = format;
    const pattern = schema['pattern'];
    if (typeof pattern === 'string' && isValidPattern(pattern)) result['pattern'] = pattern;

    // ranges: OpenAPI 3.0 / Swagger booleans become the 2020-12 numeric form
    this.translateBound(schema, result, 'minimum', 'exclusiveMinimum');
    this.translateBound(schema, result, 'maximum', 'exclusiveMaximum');
  }

  /** The keywords whose values are schemas, lists of schemas or maps of schemas. */
  private translateSubschemas(schema: Readonly<Record<string, unknown>>, result: Record<string, unknown>): void {
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = schema[keyword];
      if (value !== undefined && !isIgnoredConditional(schema, keyword)) result[keyword] = this.convert(value);
    }
    for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
      const list = schema[keyword];
      if (Array.isArray(list) && list.length > 0) result[keyword] = list.map((item) => this.convert(item));
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const map = schema[keyword];
      if (!isRecord(map)) continue;
      const converted: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(map)) {
        if (keyword === 'patternProperties' && !isValidPattern(name)) continue;
        setOwnProperty(converted, name, this.convert(value));
      }
      result[keyword] = converted;
    }
    const additional = schema['additionalProperties'];
    if (typeof additional === 'boolean') result['additionalProperties'] = additional;
    else if (isRecord(additional)) result['additionalProperties'] = this.convert(additional);
  }

  /**
   * `items` and tuples. A tuple (`items: [...]`, which OpenAPI does not allow, or 3.1
   * `prefixItems`) stays a tuple only when it is complete (`minItems` equal to its length and no
   * further items); otherwise each item must match one of the tuple's schemas, which a strict
   * validator accepts and which never rejects a value the tuple would allow.
   */
  private translateItems(schema: Readonly<Record<string, unknown>>, result: Record<string, unknown>): void {
    const items = schema['items'];
    const tuple = Array.isArray(items)
      ? (items as readonly unknown[])
      : Array.isArray(schema['prefixItems'])
        ? (schema['prefixItems'] as readonly unknown[])
        : undefined;
    const rest = Array.isArray(items) ? schema['additionalItems'] : items;
    if (tuple === undefined || tuple.length === 0) {
      if (rest !== undefined) result['items'] = this.convert(rest);
      return;
    }
    const converted = tuple.map((item) => this.convert(item));
    const complete = schema['minItems'] === tuple.length && (schema['maxItems'] === tuple.length || rest === false);
    if (complete) {
      result['prefixItems'] = converted;
      if (rest !== undefined) result['items'] = this.convert(rest);
      return;
    }
    if (rest === undefined || rest === true) return;
    result['items'] = { anyOf: rest === false ? converted : [...converted, this.convert(rest)] };
  }

  private translateBound(
    schema: Readonly<Record<string, unknown>>,
    result: Record<string, unknown>,
    inclusive: 'minimum' | 'maximum',
    exclusive: 'exclusiveMinimum' | 'exclusiveMaximum',
  ): void {
    const bound = schema[inclusive];
    const flag = schema[exclusive];
    if (isFiniteNumber(flag)) {
      result[exclusive] = flag;
      if (isFiniteNumber(bound)) result[inclusive] = bound;
      return;
    }
    if (!isFiniteNumber(bound)) return;
    if (flag === true) result[exclusive] = bound;
    else result[inclusive] = bound;
  }
}
