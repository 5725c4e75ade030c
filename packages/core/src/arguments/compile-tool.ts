/**
 * `compileTool`: everything about a tool's input schema computed once (property index, the
 * published schema with strict-mode injection, the Ajv validator), and the per-call `check`.
 * Implements CONTRACT.md "Pre-flight normalization", "Strict unknown fields", "Schema validation
 * codes" and "Hints".
 *
 * @packageDocumentation
 */
import { types } from 'node:util';

import { SCHEMA_FALLBACK_CODE } from '@mcp-envelope/contract';
import type { NormalizedEvent, NormalizedEventKind } from '@mcp-envelope/contract';
import type { ValidateFunction } from 'ajv';

import { referenceStrings } from '../json-references.js';

import { buildHints } from './hints.js';
import { isJsonObject } from './json-type.js';
import { ObjectBuilder, copyArguments, normalizeArguments, setOwn } from './normalize.js';
import type { NormalizationIndex, UnknownKeyOutcome } from './normalize.js';
import { prepareSchema } from './prepare-schema.js';
import type { PreparedSchema } from './prepare-schema.js';
import { analyzeTopLevel, isSchemaNode } from './schema-shape.js';
import type { PropertyInfo, SchemaNode, TopLevelShape } from './schema-shape.js';
import { abortedViolation, collectViolations, compileValidator, mergeViolations, metaSchemaProblem } from './schema-validation.js';
import type { Violation, ViolationContext } from './schema-validation.js';
import type { ArgumentCheck, ArgumentPipelineOptions, CompiledTool, JsonSchemaObject } from './types.js';
import { unsendableViolations } from './unsendable-values.js';

const NO_EVENTS: readonly NormalizedEvent[] = Object.freeze([]);

/** The keyword strict mode injects, if any, for a schema's top level. */
export type InjectedKeyword = 'additionalProperties' | 'unevaluatedProperties' | undefined;

/**
 * Decides the strict-mode injection (CONTRACT.md "Strict unknown fields"): only when strict mode
 * is on and the top level states no intent about extra keys (no `additionalProperties` or
 * `unevaluatedProperties` on the root, its `$ref` chain or its `allOf` branches).
 * `patternProperties` is no such intent: the injected keyword leaves keys matching a pattern
 * alone and rejects the keys that match neither a property nor a pattern. `additionalProperties: false` is injected when every property is in the root's own
 * `properties`; when properties come from a `$ref` target or an `allOf`/`anyOf`/`oneOf` branch,
 * `unevaluatedProperties: false` is injected instead, because a top-level
 * `additionalProperties: false` would reject those valid keys.
 *
 * @param shape - the schema's top-level view.
 * @param strictUnknownFields - `MCP_STRICT_UNKNOWN_FIELDS`.
 * @returns the keyword to inject with the value `false`, or `undefined`.
 */
export function injectedKeyword(shape: TopLevelShape, strictUnknownFields: boolean): InjectedKeyword {
  const silent = shape.additionalIntent === 'absent' && shape.unevaluatedIntent === 'absent';
  if (!strictUnknownFields || !silent) return undefined;
  return shape.composed ? 'unevaluatedProperties' : 'additionalProperties';
}

/**
 * What happens to a top-level key that matches no property, given the schema and the injection:
 * `rejected` when validation will reject it (injected or author-written `false`), else
 * `passed_through` (nothing rejects it, or the schema admits extra keys with `true` or a
 * sub-schema). The event label follows the actual outcome, so a schema that itself says
 * `additionalProperties: false` reports `unknown_field_rejected` even with strict mode off.
 *
 * @param shape - the schema's top-level view.
 * @param injected - the injected keyword, if any.
 * @returns the outcome.
 */
export function unknownKeyOutcome(shape: TopLevelShape, injected: InjectedKeyword): UnknownKeyOutcome {
  if (injected !== undefined) return 'rejected';
  const intent = shape.additionalIntent !== 'absent' ? shape.additionalIntent : shape.unevaluatedIntent;
  return intent === 'forbids' ? 'rejected' : 'passed_through';
}

/** The scalar types a call may send where an array is wanted (see `isWrappableScalar`). */
const WRAPPABLE_TYPES = ['string', 'integer', 'number', 'boolean'] as const;

/**
 * The event kinds normalization can record for a tool (see `CompiledTool.normalizedKinds`).
 *
 * @param shape - the schema's top-level view.
 * @param outcome - what happens to an unknown key.
 * @returns the kinds.
 */
export function possibleNormalizedKinds(shape: TopLevelShape, outcome: UnknownKeyOutcome): Set<NormalizedEventKind> {
  const kinds = new Set<NormalizedEventKind>();
  if (shape.properties.size > 0) {
    kinds.add('renamed');
    kinds.add('dropped_alias');
  }
  for (const info of shape.properties.values()) {
    const accepted = info.arrayAcceptedTypes;
    if (accepted !== undefined && WRAPPABLE_TYPES.some((type) => !accepted.has(type))) kinds.add('coerced');
  }
  kinds.add(outcome === 'rejected' ? 'unknown_field_rejected' : 'unknown_field_passed_through');
  return kinds;
}

function resolvesLocally(root: unknown, reference: string): boolean {
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    if (raw === '') continue;
    // decodeURIComponent and the RFC 6901 unescaping only when there is something to decode
    const decoded = raw.includes('%') ? decodeURIComponent(raw) : raw;
    const segment = decoded.includes('~') ? decoded.replace(/~1/g, '/').replace(/~0/g, '~') : decoded;
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<string, unknown>)[segment];
  }
  return true;
}

/**
 * The first local `$ref` (`#/...`) that points nowhere in the schema, found without compiling.
 *
 * @param schema - a schema document.
 * @returns a description such as `can't resolve reference #/$defs/Missing`, or `undefined`.
 */
export function danglingLocalReference(schema: Record<string, unknown>): string | undefined {
  // generated schemas repeat the same few references many times
  const resolved = new Set<string>();
  for (const reference of referenceStrings(schema)) {
    if (!reference.startsWith('#/') || resolved.has(reference)) continue;
    if (!resolvesLocally(schema, reference)) return `can't resolve reference ${reference}`;
    resolved.add(reference);
  }
  return undefined;
}

/**
 * Every local `$ref` (`#/...`) string anywhere inside a value, under any key, as
 * {@link danglingLocalReference} finds them.
 */
function localReferencesIn(value: unknown): string[] {
  return [...new Set(referenceStrings(value).filter((reference) => reference.startsWith('#/')))];
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether two values are the same plain data (primitives, arrays, objects with the
 * `Object.prototype` or `null` prototype, compared by content, key order aside). Anything else
 * (a `Date`, a `Map`, a class instance, a proxy) is never the same, so nothing is reused for it.
 */
function samePlainData(left: unknown, right: unknown, depth = 0): boolean {
  if (left === right) return typeof left !== 'object' || left === null || (!types.isProxy(left) && (Array.isArray(left) || isPlainObject(left)));
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null || depth > 256) return false;
  if (types.isProxy(left) || types.isProxy(right)) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length || Object.getPrototypeOf(left) !== Array.prototype || Object.getPrototypeOf(right) !== Array.prototype) return false;
    for (let index = 0; index < left.length; index += 1) {
      if (index in left !== index in right || !samePlainData(left[index], right[index], depth + 1)) return false;
    }
    return Object.keys(left).length === left.length && Object.keys(right).length === right.length;
  }
  if (Array.isArray(right) || !isPlainObject(left) || !isPlainObject(right)) return false;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !samePlainData((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** What the creation checks found for one prepared `$defs` entry, checked as a schema of its own. */
interface DefinitionVerdict {
  /** The prepared entry this verdict is for. */
  readonly prepared: Readonly<Record<string, unknown>>;
  /** Ajv's meta-schema problem with it, or `undefined`. */
  readonly problem: string | undefined;
  /** The local references inside it (each tool resolves them against its own schema). */
  readonly localReferences: readonly string[];
}

/**
 * Verdicts per pipeline options object (`createEnvelopeServer` makes one for all of a server's
 * tools), then per author's `$defs` entry object. Tools generated from one API description carry
 * the same definition objects, so most entries come again and again; a verdict is reused only
 * for an entry whose prepared form is the same plain data as the one it was found for.
 */
const definitionVerdicts = new WeakMap<object, WeakMap<object, DefinitionVerdict>>();

/**
 * The creation check: `metaSchemaProblem(schema) ?? danglingLocalReference(schema)`, with the
 * same verdict and message, at less cost when `$defs` entries repeat across tools. The
 * 2020-12 meta-schema checks each `$defs` entry as a schema of its own (`$defs` is
 * `additionalProperties: { $dynamicRef: "#meta" }`), so an entry that is an object without its
 * own `$schema` is checked alone (or its earlier verdict reused), and the rest of the schema
 * without it. A problem found that way is described again from the whole schema, so the message
 * is the one it always was.
 *
 * @param schema - the prepared schema.
 * @param authorDefinitions - the author's `$defs` (the identities verdicts are filed under).
 * @param verdicts - the verdicts known for these pipeline options.
 * @returns the problem, or `undefined`.
 */
function creationProblem(schema: Record<string, unknown>, authorDefinitions: unknown, verdicts: WeakMap<object, DefinitionVerdict>): string | undefined {
  const definitions = schema['$defs'];
  if (!isSchemaNode(definitions) || !isSchemaNode(authorDefinitions)) return metaSchemaProblem(schema) ?? danglingLocalReference(schema);
  const inPlace: Record<string, unknown> = {};
  const known: DefinitionVerdict[] = [];
  for (const key of Object.keys(definitions)) {
    const prepared = definitions[key];
    const author = Object.hasOwn(authorDefinitions, key) ? authorDefinitions[key] : undefined;
    if (!isSchemaNode(prepared) || Object.hasOwn(prepared, '$schema') || !isSchemaNode(author)) {
      setOwn(inPlace, key, prepared);
      continue;
    }
    let verdict = verdicts.get(author);
    if (verdict === undefined || !samePlainData(verdict.prepared, prepared)) {
      verdict = { prepared, problem: metaSchemaProblem(prepared), localReferences: localReferencesIn(prepared) };
      verdicts.set(author, verdict);
    }
    known.push(verdict);
  }
  if (known.length === 0) return metaSchemaProblem(schema) ?? danglingLocalReference(schema);
  const rest: Record<string, unknown> = { ...schema, $defs: inPlace };
  const problem = metaSchemaProblem(rest) ?? known.find((verdict) => verdict.problem !== undefined)?.problem;
  if (problem !== undefined) return metaSchemaProblem(schema) ?? problem;
  const resolved = new Set<string>();
  for (const references of [localReferencesIn(rest), ...known.map((verdict) => verdict.localReferences)]) {
    for (const reference of references) {
      if (resolved.has(reference)) continue;
      let resolves: boolean;
      try {
        resolves = resolvesLocally(schema, reference);
      } catch {
        resolves = false; // a malformed escape: the whole-schema walk below throws or reports as before
      }
      if (!resolves) return danglingLocalReference(schema) ?? `can't resolve reference ${reference}`;
      resolved.add(reference);
    }
  }
  return undefined;
}

/** Why {@link plainCopy} gave up: the value needs `structuredClone`'s own rules. */
class NotPlainData extends Error {}

/**
 * A deep copy of plain data (primitives other than symbols, dense arrays without extra
 * properties, objects whose prototype is `Object.prototype` or `null`), equal to what
 * `structuredClone` returns for it: the same own enumerable properties in the same order, shared
 * and circular references kept as such, every object an ordinary one. Several times faster than
 * `structuredClone` on large generated schemas.
 *
 * @throws NotPlainData on anything else (functions, symbols, holes, proxies, `Date`, `Map`, class
 *   instances, ...), which the caller hands to `structuredClone` instead.
 */
function plainCopy(value: unknown, copies: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw new NotPlainData();
    return value;
  }
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (types.isProxy(value)) throw new NotPlainData();
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) throw new NotPlainData();
    const copy: unknown[] = [];
    copies.set(value, copy);
    const length = value.length;
    for (let index = 0; index < length; index += 1) {
      if (!(index in value)) throw new NotPlainData();
      // primitives inline: schemas hold long enum lists, and start-up runs this unoptimized
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null) copy.push(plainCopy(item, copies));
      else if (typeof item === 'function' || typeof item === 'symbol') throw new NotPlainData();
      else copy.push(item);
    }
    if (Object.keys(value).length !== length) throw new NotPlainData();
    return copy;
  }
  if (prototype !== Object.prototype && prototype !== null) throw new NotPlainData();
  const copy: Record<string, unknown> = {};
  copies.set(value, copy);
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'function' || typeof item === 'symbol') throw new NotPlainData();
    const next = typeof item === 'object' && item !== null ? plainCopy(item, copies) : item;
    // plain assignment but for `__proto__`, which would set the prototype (see setOwn)
    if (key === '__proto__') setOwn(copy, key, next);
    else copy[key] = next;
  }
  return copy;
}

/**
 * `structuredClone(schema)`, the fast way when the schema is plain data (see {@link plainCopy}).
 *
 * @throws what `structuredClone` throws.
 */
function copySchema(schema: JsonSchemaObject): Record<string, unknown> {
  try {
    return plainCopy(schema, new Map()) as Record<string, unknown>;
  } catch (error) {
    // not plain data, or nested too deeply for this copy: structuredClone decides
    if (!(error instanceof NotPlainData) && !(error instanceof RangeError)) throw error;
    return structuredClone(schema);
  }
}

/**
 * Compiles a tool's input schema once: Ajv 2020-12 with ajv-formats, non-strict (OpenAPI-derived
 * schemas carry `x-*`, `example`, `discriminator`). A schema declaring another `$schema`
 * (draft-07, 2019-09, ...) still compiles: the declaration is left out of the compiled copy only,
 * tuple `items` become `prefixItems`, and the published schema keeps the author's text.
 *
 * The returned `check(args)`:
 * 1. treats `undefined` as `{}`; leaves non-objects (arrays, strings, `null`) as they are, so
 *    validation reports `SCHEMA_TYPE_MISMATCH` at the root path `''`;
 * 2. when `normalizationEnabled`, normalizes the top-level keys (see `normalizeArguments`) into a
 *    new object; otherwise copies them. The caller's object is never mutated, and `__proto__`,
 *    `constructor`, `prototype` stay plain data keys;
 * 3. validates; on failure returns the sorted details (`VIOLATION_ORDER`), the first detail's
 *    code as `error_code`, its summary (plus ` (and N more)` when there are several) and the
 *    hints (`buildHints`). It never throws.
 *
 * @param name - the tool name.
 * @param inputSchema - the author's input schema (never mutated; deep-copied unless
 *   `options.schemaOwnership` is `'transfer'`).
 * @param options - the pipeline switches and the adapter's hint tables.
 * The Ajv validator is compiled on the first `check` unless `options.compile` is `'eager'`; at
 * creation the schema is checked against the 2020-12 meta-schema only (not even that with
 * `'deferred'`). A schema that passes the creation checks but still cannot be compiled (an
 * unresolvable `$ref`, say; with `'deferred'`, any invalid schema) makes that first `check`
 * throw the `TypeError` described below; `createEnvelopeServer` turns it into an `internal_error`
 * envelope and a log line, since it is the server's fault, not the caller's.
 *
 * @returns the compiled tool.
 * @throws TypeError when the schema is not a JSON object, cannot be copied as JSON, is not a
 *   valid JSON Schema, or its top-level `type` is not `"object"` (on the root, or on the target
 *   of the root's `$ref` when the root has no `type`). With lazy compilation, a compile failure
 *   is thrown by the first `check` instead; with `'deferred'`, any problem but the structural
 *   ones (not an object, not plain JSON, not `"object"`-typed) is.
 */
export function compileTool(name: string, inputSchema: JsonSchemaObject, options: ArgumentPipelineOptions): CompiledTool {
  if (!isSchemaNode(inputSchema)) throw new TypeError(`inputSchema of tool "${name}" must be a JSON Schema object`);
  let author: Record<string, unknown>;
  if (options.schemaOwnership === 'transfer') {
    // the caller hands the object over and vouches that it is plain JSON (see schemaOwnership);
    // nothing below changes it (preparation and publication copy on write)
    author = inputSchema;
  } else {
    try {
      author = copySchema(inputSchema);
    } catch (error) {
      throw new TypeError(`inputSchema of tool "${name}" must be plain JSON`, { cause: error });
    }
  }
  const shape = analyzeTopLevel(author);
  if (!shape.objectTyped || (shape.rootType !== undefined && shape.rootType !== 'object')) {
    throw new TypeError(`inputSchema of tool "${name}" must have the top-level type "object"`);
  }
  const injected = injectedKeyword(shape, options.strictUnknownFields);
  const published: Record<string, unknown> = { ...author };
  if (injected !== undefined) published[injected] = false;

  const prepare = (): PreparedSchema => prepareSchema(published, new Set<SchemaNode>([published, ...shape.layers]));
  // Ajv code generation costs milliseconds per realistic schema, so a server with hundreds of
  // tools would spend seconds at start-up compiling tools nobody calls. At creation only the
  // meta-schema check runs (tens of microseconds a schema, once the meta-schema itself is
  // compiled); the validator is compiled on the first call. In `deferred` mode even the check
  // and the preparation wait for the first call (Ajv meta-checks the schema as it compiles it).
  let prepared: PreparedSchema | undefined = options.compile === 'deferred' ? undefined : prepare();
  let compiled: { readonly validate: ValidateFunction; readonly context: ViolationContext } | undefined;
  const propertyOrder = new Map<string, number>();
  for (const info of shape.properties.values()) propertyOrder.set(info.name, info.order);
  const compile = (): { readonly validate: ValidateFunction; readonly context: ViolationContext } => {
    prepared ??= prepare();
    try {
      return { validate: compileValidator(prepared.schema), context: { collapsing: prepared.collapsing, propertyOrder } };
    } catch (error) {
      throw new TypeError(`inputSchema of tool "${name}" is ${error instanceof Error ? error.message : 'not a valid JSON Schema'}`, {
        cause: error,
      });
    }
  };
  if (options.compile === 'eager') {
    compiled = compile();
  } else if (prepared !== undefined) {
    let verdicts = definitionVerdicts.get(options);
    if (verdicts === undefined) {
      verdicts = new WeakMap();
      definitionVerdicts.set(options, verdicts);
    }
    const problem = creationProblem(prepared.schema, inputSchema['$defs'], verdicts);
    if (problem !== undefined) throw new TypeError(`inputSchema of tool "${name}" is not a valid JSON Schema: ${problem}`);
  }

  const propertyTable = Object.create(null) as Record<string, PropertyInfo | undefined>;
  for (const info of shape.properties.values()) propertyTable[info.name] = info;
  const outcome = unknownKeyOutcome(shape, injected);
  const index: NormalizationIndex = {
    properties: shape.properties,
    propertyTable,
    folded: shape.folded,
    patterns: shape.patterns,
    unknownKeyOutcome: outcome,
    keyRenames: options.hints?.keyRenames,
    matchCache: new Map(),
  };
  const normalizationEnabled = options.normalizationEnabled;
  const builder = new ObjectBuilder();
  const tables = options.hints;

  function failure(violations: readonly Violation[], events: readonly NormalizedEvent[], args: unknown, omitted = 0): ArgumentCheck {
    const first = violations[0] as Violation;
    const others = violations.length - 1 + omitted;
    const result = {
      ok: false as const,
      events,
      error_code: first.code,
      ...(first.code === SCHEMA_FALLBACK_CODE ? { validator: first.keyword } : {}),
      summary: others > 0 ? `${first.detail.issue} (and ${others} more)` : first.detail.issue,
      details: violations.map((violation) => violation.detail),
      hints: buildHints({ violations, args, shape, root: published, tables }),
    };
    return omitted > 0 ? { ...result, omittedDetails: omitted } : result;
  }

  function check(args: unknown): ArgumentCheck {
    compiled ??= compile();
    const { validate: validator, context } = compiled;
    let candidate: unknown = args === undefined ? {} : args;
    let events = NO_EVENTS;
    try {
      if (isJsonObject(candidate)) {
        if (normalizationEnabled) {
          const normalized = normalizeArguments(candidate, index, builder);
          candidate = normalized.args;
          events = normalized.events;
        } else {
          candidate = copyArguments(candidate, index.properties, builder);
        }
      }
      const valid = validator(candidate);
      // Ajv runs non-strict (OpenAPI keywords), which lets `Infinity` pass as a number; and no
      // schema keyword refuses a lone surrogate. Neither can be sent on, so both fail here.
      const unsendable = unsendableViolations(candidate, context);
      if (valid && unsendable.violations.length === 0) return { ok: true, args: candidate as Record<string, unknown>, events };
      const schemaViolations = valid ? undefined : collectViolations(validator.errors ?? [], context);
      const collected = schemaViolations === undefined ? unsendable : unsendable.violations.length === 0 ? schemaViolations : mergeViolations(schemaViolations, unsendable, context.propertyOrder);
      const { violations, omitted } = collected;
      return failure(violations.length > 0 ? violations : [abortedViolation(candidate)], events, candidate, omitted);
    } catch {
      try {
        return failure([abortedViolation(candidate)], events, candidate);
      } catch {
        return failure([abortedViolation(undefined)], events, undefined);
      }
    }
  }

  const normalizedKinds = normalizationEnabled ? possibleNormalizedKinds(shape, outcome) : new Set<NormalizedEventKind>();
  return { name, publishedInputSchema: published, normalizedKinds, check };
}
