/**
 * Strict JSON Schema validation of tool arguments with Ajv (draft 2020-12 + ajv-formats), and
 * the mapping of Ajv errors to `SCHEMA_*` details in a stable order. Implements CONTRACT.md
 * "Schema validation codes" (detail paths and keyword parameters).
 *
 * @packageDocumentation
 */
import { pointerSegments } from '@hyperjump/json-pointer';
import type { EnvelopeDetail, SchemaErrorCode } from '@mcp-envelope/contract';
import { fillTemplate, schemaCodeEntry } from '@mcp-envelope/contract';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

import { branchDetailsOf, branchSelectedBy, discriminatorDetail, nearestBranch } from './branch-details.js';
import { expectedOf, nearestValue, receivedValueKeys } from './corrections.js';
import { FirstInOrder } from './first-in-order.js';
import { jsonTypeOf } from './json-type.js';
import type { CollapsingInfo, PreparedSchema } from './prepare-schema.js';
import { fragmentSegments } from '../json-pointer.js';
import { resolveLocalReference } from './schema-shape.js';

const addFormats = formatsModule.default;

/**
 * The order in which violations are sorted, and so which one names the envelope's `error_code`:
 * 1. by category, in the order of this list (`required` first; every keyword not listed falls in
 *    the last category, `other`: `format`, `pattern`, lengths, bounds, item counts, uniqueness,
 *    `multipleOf` and every fallback keyword);
 * 2. then by path: the first segment in the document order of the schema's top-level properties
 *    (the root itself first, keys the schema does not define after all defined ones, in code-unit
 *    order), then the remaining segments (array indexes numerically, names in code-unit order),
 *    a parent before its children;
 * 3. then by the JSON Schema keyword name, in code-unit order.
 */
export const VIOLATION_ORDER = [
  { category: 'required', keywords: ['required'] },
  { category: 'unknown_key', keywords: ['additionalProperties', 'unevaluatedProperties'] },
  { category: 'type', keywords: ['type'] },
  { category: 'value', keywords: ['enum', 'const'] },
  { category: 'combinator', keywords: ['anyOf', 'oneOf', 'allOf'] },
  { category: 'other', keywords: [] },
] as const;

/** One category of {@link VIOLATION_ORDER}. */
export type ViolationCategory = (typeof VIOLATION_ORDER)[number]['category'];

const RANK_BY_KEYWORD: ReadonlyMap<string, number> = new Map(
  VIOLATION_ORDER.flatMap((entry, rank) => entry.keywords.map((keyword): [string, number] => [keyword, rank])),
);
const OTHER_RANK = VIOLATION_ORDER.length - 1;

/** One schema violation: the envelope detail plus what sorting and hints need. */
export interface Violation {
  /** The JSON Schema keyword that failed (`exclusiveMaximum`, `unevaluatedProperties`, `allOf`, ...). */
  readonly keyword: string;
  /** The key of the code table entry used (`maximum` for `exclusiveMaximum`, ...). */
  readonly tableKeyword: string;
  readonly code: SchemaErrorCode;
  /**
   * The detail's path (and `field`): JSON pointer without the leading slash, unescaped; `''` for
   * the root. For an unknown key, the path of the object that holds it (`extra` names the key).
   */
  readonly path: string;
  /**
   * Where the violation sits, as segments (`[]` for the root), for sorting and hints: the
   * detail's path, except that an unknown key's segments end with the key itself.
   */
  readonly segments: readonly string[];
  /** Position of the keyword's category in {@link VIOLATION_ORDER}. */
  readonly rank: number;
  /** The `details[]` entry. */
  readonly detail: EnvelopeDetail;
  /** Placeholder values for the code's summary and hint templates. */
  readonly templateValues: Readonly<Record<string, unknown>>;
  /** The value received at {@link path} (`undefined` when missing). */
  readonly value: unknown;
  /** The schema object holding the failing keyword, as Ajv reports it. */
  readonly parentSchema: unknown;
  /** `required` errors folded into an `allOf` detail (for `missing_required` hints). */
  readonly foldedRequired: readonly Violation[];
}

/**
 * `code.optimize: false` skips Ajv's pass over the generated code: it halves the time a tool's
 * validator takes to compile (a tool's first call, and the idle warm-up), and the validators it
 * builds check arguments as fast (`pnpm bench`, normalization + validation).
 */
const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  verbose: true,
  logger: false,
  code: { optimize: false },
} as const;

function newAjv(unicodeRegExp: boolean, ownProperties = false): Ajv2020 {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, unicodeRegExp, ownProperties });
  addFormats(ajv);
  return ajv;
}

const PROTOTYPE_MEMBER_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples', 'example']);

/**
 * Whether a schema names a property like an `Object.prototype` member (`toString`, `constructor`,
 * `valueOf`, ...) in `properties`, `required` or `dependentRequired`. Ajv reads such a property
 * through the prototype chain (an absent `toString` is a function) unless compiled with
 * `ownProperties`, which makes every property check about twice as slow; so only these schemas
 * pay for it.
 */
function namesPrototypeMember(node: unknown, seen: Set<unknown>): boolean {
  if (typeof node !== 'object' || node === null || seen.has(node)) return false;
  seen.add(node);
  if (Array.isArray(node)) return node.some((item) => namesPrototypeMember(item, seen));
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (DATA_KEYWORDS.has(key)) continue;
    if (
      key === 'properties' &&
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value).some((name) => PROTOTYPE_MEMBER_NAMES.has(name))
    )
      return true;
    if (
      key === 'required' &&
      Array.isArray(value) &&
      value.some((name) => typeof name === 'string' && PROTOTYPE_MEMBER_NAMES.has(name))
    )
      return true;
    if (key === 'dependentRequired' && typeof value === 'object' && value !== null) {
      for (const [name, needed] of Object.entries(value as Record<string, unknown>)) {
        if (
          PROTOTYPE_MEMBER_NAMES.has(name) ||
          (Array.isArray(needed) && needed.some((item) => typeof item === 'string' && PROTOTYPE_MEMBER_NAMES.has(item)))
        )
          return true;
      }
    }
    if (namesPrototypeMember(value, seen)) return true;
  }
  return false;
}

/**
 * The Ajv instances one server compiles its schemas with, created on first use. Owned per server
 * (see `createPipelineCaches`) so that servers in one process never share compiled state.
 */
export class SchemaCompiler {
  private sharedAjv: Ajv2020 | undefined;
  private sharedOwnPropertiesAjv: Ajv2020 | undefined;

  /**
   * Compiles a prepared schema with Ajv 2020-12 (`allErrors`, non-strict so that OpenAPI keywords
   * such as `x-*`, `example`, `discriminator` are ignored, every ajv-formats format). The shared
   * instance is used and the schema is removed from it afterwards (the compiled function keeps
   * working), so tools may reuse `$id`s. When that fails, a fresh instance is tried, then one
   * without the `u` flag on patterns (for OpenAPI patterns that are only valid without it). A
   * schema naming a property like an `Object.prototype` member is compiled with `ownProperties`.
   *
   * @param schema - the prepared schema.
   * @returns the validate function.
   * @throws TypeError when no attempt compiles (the message names Ajv's reason).
   */
  compile(schema: Record<string, unknown>): ValidateFunction {
    const ownProperties = namesPrototypeMember(schema, new Set());
    const shared = ownProperties
      ? (this.sharedOwnPropertiesAjv ??= newAjv(true, true))
      : (this.sharedAjv ??= newAjv(true));
    let firstError: unknown;
    try {
      return shared.compile(schema);
    } catch (error) {
      firstError = error;
    } finally {
      shared.removeSchema(schema);
    }
    return compileAgain(schema, ownProperties, firstError);
  }

  /**
   * Checks a prepared schema against the draft 2020-12 meta-schema without compiling it (a few
   * tens of microseconds, against milliseconds for compilation).
   *
   * @param schema - the prepared schema.
   * @returns `undefined` when the schema is meta-valid, else Ajv's description of the problem.
   */
  metaSchemaProblem(schema: Record<string, unknown>): string | undefined {
    const shared = (this.sharedAjv ??= newAjv(true));
    return shared.validateSchema(schema) === true ? undefined : shared.errorsText(shared.errors);
  }
}

/** The fallbacks of {@link SchemaCompiler.compile} after the shared instance failed. */
function compileAgain(schema: Record<string, unknown>, ownProperties: boolean, firstError: unknown): ValidateFunction {
  const message = firstError instanceof Error ? firstError.message : '';
  // A duplicate `$id` left over in the shared instance: a fresh one compiles it.
  if (message.includes('already exists')) {
    try {
      return newAjv(true, ownProperties).compile(schema);
    } catch (error) {
      firstError = error;
    }
  }
  // A pattern that is only valid without the `u` flag (common in OpenAPI documents).
  if (/regular expression/i.test(firstError instanceof Error ? firstError.message : '')) {
    try {
      return newAjv(false, ownProperties).compile(schema);
    } catch {
      // report the first reason below
    }
  }
  const reason = firstError instanceof Error ? firstError.message : String(firstError);
  throw new TypeError(`not a valid JSON Schema: ${reason}`);
}

/** The unescaped segments of an Ajv `instancePath` (always a well-formed JSON Pointer). */
function instanceSegments(instancePath: string): string[] {
  return [...pointerSegments(instancePath)];
}

function ownValue(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null) return undefined;
  return Object.getOwnPropertyDescriptor(container, key)?.value;
}

function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    length += 1;
  }
  return length;
}

function templatePathOf(segments: readonly string[]): string {
  return segments.length === 0 ? 'arguments' : segments.join('/');
}

interface Draft {
  keyword: string;
  tableKeyword: string;
  /** See {@link Violation.segments}. */
  segments: string[];
  /** The segments of the detail's `path` and of the templates' `{path}`. */
  pathSegments: string[];
  value: unknown;
  extras: Record<string, unknown>;
  templateExtras: Record<string, unknown>;
}

/** Builds the keyword-specific part of a detail from one Ajv error (not the collapsing ones). */
function draftFor(error: ErrorObject): Draft {
  const keyword = error.keyword;
  const params = error.params as Record<string, unknown>;
  const segments = instanceSegments(error.instancePath);
  const draft: Draft = {
    keyword,
    tableKeyword: keyword,
    segments,
    pathSegments: segments,
    value: error.data,
    extras: {},
    templateExtras: {},
  };
  switch (keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      draft.segments = [...segments, missing];
      draft.pathSegments = draft.segments;
      draft.value = undefined;
      draft.extras = { field: missing };
      break;
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = String(params[keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty']);
      draft.tableKeyword = 'additionalProperties';
      draft.segments = [...segments, extra];
      draft.value = ownValue(error.data, extra);
      draft.extras = { extra };
      break;
    }
    case 'dependentRequired': {
      const missing = String(params['missingProperty']);
      draft.segments = [...segments, missing];
      draft.pathSegments = draft.segments;
      draft.value = undefined;
      draft.extras = { keyword, field: missing, required_by: params['property'] };
      break;
    }
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      draft.tableKeyword = keyword === 'exclusiveMaximum' ? 'maximum' : 'minimum';
      draft.extras = { limit: params['limit'], exclusive: true };
      draft.templateExtras = { limit: `${String(params['limit'])} (exclusive)` };
      break;
    default:
      draft.extras = keywordExtras(keyword, params, error.data);
  }
  // Like Python jsonschema's absolute_path: an unknown key is reported at the object holding it.
  if (draft.tableKeyword === 'additionalProperties') draft.pathSegments = segments;
  return draft;
}

/** The detail fields of an Ajv error whose keyword keeps the error's own location. */
function keywordExtras(
  keyword: string,
  params: Readonly<Record<string, unknown>>,
  data: unknown,
): Record<string, unknown> {
  switch (keyword) {
    case 'type': {
      const expected = params['type'];
      return { expected_type: Array.isArray(expected) ? expected.map(String).join('|') : String(expected) };
    }
    case 'maxItems':
    case 'minItems':
      return { limit: params['limit'], actual: Array.isArray(data) ? data.length : undefined };
    case 'maxLength':
    case 'minLength':
      return { limit: params['limit'], actual: typeof data === 'string' ? codePointLength(data) : undefined };
    case 'maximum':
    case 'minimum':
      return { limit: params['limit'] };
    case 'enum':
      return { allowed: Array.isArray(params['allowedValues']) ? [...(params['allowedValues'] as unknown[])] : [] };
    case 'const':
      return { allowed: [params['allowedValue']] };
    case 'format':
      return { format: params['format'] };
    case 'pattern':
      return { pattern: params['pattern'] };
    case 'multipleOf':
      return { limit: params['multipleOf'] };
    case 'uniqueItems': {
      const first = Number(params['i']);
      const second = Number(params['j']);
      return { actual: [Math.min(first, second), Math.max(first, second)] };
    }
    default: {
      const extras: Record<string, unknown> = { keyword };
      if (typeof params['limit'] === 'number') extras['limit'] = params['limit'];
      return extras;
    }
  }
}

/**
 * Turns a draft into a violation: its code table entry, its detail (with the correction keys of
 * corrections.ts) and its template values.
 *
 * @param declared - the top-level property names, for an unknown top-level key whose schema
 *   object declares no `properties` of its own (they come from a `$ref` or an `allOf`).
 */
function finish(
  draft: Draft,
  parentSchema: unknown,
  foldedRequired: readonly Violation[] = [],
  declared?: readonly string[],
): Violation {
  const entry = schemaCodeEntry(draft.tableKeyword);
  const path = draft.pathSegments.join('/');
  const receivedType = receivedTypeOf(draft.value);
  const extras = draft.extras;
  // Object.assign rather than a spread followed by new keys, which Node 20 builds about ten times
  // slower (a microsecond per violation); the keys are this module's own, never a caller's.
  const templateValues: Record<string, unknown> = Object.assign({}, extras, draft.templateExtras, {
    path: templatePathOf(draft.pathSegments),
    received_type: receivedType,
  });
  // `field` repeats the path (the contract's name for it); a missing key's own `field` replaces it.
  const detail: Record<string, unknown> = {
    path,
    issue: fillTemplate(entry.summary_template, templateValues),
    received_type: receivedType,
    field: path,
    ...extras,
    ...correctionKeys(draft, parentSchema, declared),
  };
  return {
    keyword: draft.keyword,
    tableKeyword: draft.tableKeyword,
    code: entry.error_code,
    path,
    segments: draft.segments,
    rank: rankOf(draft.keyword, draft.tableKeyword),
    detail: detail as EnvelopeDetail,
    templateValues,
    value: draft.value,
    parentSchema,
    foldedRequired,
  };
}

/** `received_value`, `expected` and `did_you_mean` of a draft, each only when it has something to say. */
function correctionKeys(draft: Draft, parentSchema: unknown, declared: readonly string[] | undefined): object {
  const input = {
    tableKeyword: draft.tableKeyword,
    keyword: draft.keyword,
    value: draft.value,
    extras: draft.extras,
    parentSchema,
  };
  const keys: Record<string, unknown> = receivedValueKeys(draft.value);
  const expected = expectedOf(input);
  if (expected !== undefined) keys['expected'] = expected;
  const nearest = nearestValue(input, draft.segments.length === 1 ? declared : undefined);
  if (nearest !== undefined) keys['did_you_mean'] = nearest;
  return keys;
}

/**
 * The `received_type` of a value: its JSON type, except that a number JSON cannot carry names
 * itself (`Infinity`, `-Infinity`, `NaN`), since "should be number, not number" helps nobody.
 */
function receivedTypeOf(value: unknown): string {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : jsonTypeOf(value);
}

/**
 * A violation found outside Ajv, for a value at `segments`, reported like the Ajv keyword
 * `keyword` (its code, summary and hint templates).
 *
 * @param keyword - a keyword of the code table (`type`, `format`, ...).
 * @param segments - the value's path segments.
 * @param value - the value.
 * @param extras - the keyword's extra keys on the detail (`expected_type`, `format`, ...).
 * @param templateExtras - values that replace extras in the summary and hint texts only.
 * @returns the violation.
 */
export function valueViolation(
  keyword: string,
  segments: readonly string[],
  value: unknown,
  extras: Record<string, unknown>,
  templateExtras: Record<string, unknown> = {},
): Violation {
  return finish(
    {
      keyword,
      tableKeyword: keyword,
      segments: [...segments],
      pathSegments: [...segments],
      value,
      extras,
      templateExtras,
    },
    undefined,
  );
}

/**
 * Two sets of violations as one: duplicates dropped, sorted by {@link VIOLATION_ORDER}, cut to
 * `limit` (the cut ones counted in `omitted`).
 *
 * @param first - one set (kept on a duplicate).
 * @param second - the other.
 * @param propertyOrder - top-level property name -> document position.
 * @param limit - at most this many violations (default {@link VIOLATION_LIMIT}).
 * @returns the merged violations.
 */
export function mergeViolations(
  first: CollectedViolations,
  second: CollectedViolations,
  propertyOrder: ReadonlyMap<string, number>,
  limit: number = VIOLATION_LIMIT,
): CollectedViolations {
  const merged = sortViolations(dedupe([...first.violations, ...second.violations]), propertyOrder);
  return {
    violations: merged.slice(0, limit),
    omitted: first.omitted + second.omitted + Math.max(0, merged.length - limit),
  };
}

/**
 * The violation reported when validation itself could not finish (the validator threw, e.g. on
 * input nested deeper than the stack allows): `SCHEMA_VALIDATION_FAILED` at the root with
 * `keyword: 'validation_aborted'`. The exception's message is never exposed.
 *
 * @param value - the arguments that were being validated.
 * @returns the violation.
 */
export function abortedViolation(value: unknown): Violation {
  const keyword = 'validation_aborted';
  return finish(
    { keyword, tableKeyword: keyword, segments: [], pathSegments: [], value, extras: { keyword }, templateExtras: {} },
    undefined,
  );
}

function isAtOrBelow(instancePath: string, base: string): boolean {
  return base === '' || instancePath === base || instancePath.startsWith(`${base}/`);
}

function branchOf(
  error: ErrorObject,
  base: string,
  info: CollapsingInfo | undefined,
  targetOf: TargetOf | undefined,
): number | undefined {
  const schemaPath = error.schemaPath;
  const prefix = `${base}${info?.branchBase ?? ''}/`;
  if (schemaPath.startsWith(prefix)) {
    if (info?.kind === 'propertyNames' || info?.kind === 'contains') return 0;
    const index = Number.parseInt(schemaPath.slice(prefix.length), 10);
    return Number.isNaN(index) ? undefined : index;
  }
  if (info === undefined) return undefined;
  for (const [reference, index] of info.references) {
    if (schemaPath === reference || schemaPath.startsWith(`${reference}/`)) return index;
  }
  return targetOf === undefined ? undefined : branchOfSeparateFunction(error, info, targetOf);
}

/** A local reference's target in the prepared schema. */
type TargetOf = (reference: string) => unknown;

/**
 * {@link TargetOf} for one check, remembering each target it resolves: the errors of a failed
 * combinator ask for the same few targets many times.
 */
function targetResolver(root: Readonly<Record<string, unknown>> | undefined): TargetOf | undefined {
  if (root === undefined) return undefined;
  const resolved = new Map<string, unknown>();
  return (reference) => {
    if (!resolved.has(reference)) resolved.set(reference, resolveLocalReference(root, reference));
    return resolved.get(reference);
  };
}

/** The node at `segments` below `node` (array indexes as text), or `undefined`. */
function nodeAt(node: unknown, segments: readonly string[]): unknown {
  let current = node;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * The branch of an error raised inside a `$ref` target that Ajv compiled as a function of its own
 * (a target that holds `$ref`s itself): its `schemaPath` starts at that target (`#/anyOf`), not
 * at the document root. The target whose node at that path is the error's own parent schema
 * (the same object) is the one that raised it.
 */
function branchOfSeparateFunction(error: ErrorObject, info: CollapsingInfo, targetOf: TargetOf): number | undefined {
  const schemaPath = error.schemaPath;
  if (!schemaPath.startsWith('#/') || error.parentSchema === undefined) return undefined;
  const segments = fragmentSegments(schemaPath.slice(0, schemaPath.lastIndexOf('/')));
  if (segments === undefined) return undefined;
  for (const [reference, index] of info.references) {
    if (nodeAt(targetOf(reference), segments) === error.parentSchema) return index;
  }
  return undefined;
}

const COLLAPSING_KEYWORDS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'propertyNames', 'contains']);

/** Context for {@link collectViolations}. */
export interface ViolationContext {
  /** From {@link PreparedSchema.collapsing}. */
  readonly collapsing: PreparedSchema['collapsing'];
  /** Top-level property name -> document position, for sorting. */
  readonly propertyOrder: ReadonlyMap<string, number>;
  /** {@link PreparedSchema.schema}, to place errors raised in `$ref` targets compiled on their own. */
  readonly root?: Readonly<Record<string, unknown>>;
}

/** {@link ViolationContext} for one check, with its own memory of resolved `$ref` targets. */
interface WalkContext extends ViolationContext {
  readonly targetOf: TargetOf | undefined;
}

/**
 * Turns Ajv's errors into violations: one per error, except that
 * - a failing `anyOf`, `oneOf` or (wrapped, see prepare-schema.ts) `allOf` becomes one violation
 *   at its instance path (the combinator's parent path) with its branch errors folded into
 *   `branches: [{ branch, error_code, path }]` (at most 10); a `oneOf` that matched several
 *   branches also carries `passing: [indexes]`; the failures a caller corrects travel as full
 *   details in `branch_details` (with `nearest_branch`, and a `oneOf`'s `discriminator`: see
 *   branch-details.ts);
 * - `propertyNames` and `contains` fold their sub-schema errors the same way and report
 *   `SCHEMA_VALIDATION_FAILED` with `keyword` (and `extra`: the offending key name);
 * - `if` wrapper errors are dropped (the `then`/`else` errors stay);
 * - `additionalProperties` is reported at the path of the object holding the unknown key, with
 *   `extra` naming the key (one violation per key); `unevaluatedProperties` is reported the same
 *   way (`SCHEMA_ADDITIONAL_PROPERTIES`): the condition and the fix are the same;
 * - `exclusiveMaximum`/`exclusiveMinimum` report `SCHEMA_MAXIMUM`/`SCHEMA_MINIMUM` with
 *   `exclusive: true`, since the table has no code of their own and a caller fixes them the same way.
 * Duplicates (same code, keyword and path) are dropped. The result is sorted by
 * {@link VIOLATION_ORDER}.
 *
 * @param errors - `validate.errors` after a failed validation (`allErrors: true`, `verbose: true`).
 * @param context - the collapsing table and the property order.
 * @param limit - build at most this many violations, the first ones in {@link VIOLATION_ORDER}
 *   (default {@link VIOLATION_LIMIT}); the rest are only counted.
 * @returns the sorted violations (at least one when `errors` is not empty) and the count left out.
 */
export function collectViolations(
  errors: readonly ErrorObject[],
  context: ViolationContext,
  limit: number = VIOLATION_LIMIT,
): CollectedViolations {
  const walk: WalkContext = { ...context, targetOf: targetResolver(context.root) };
  const consumedBy = new Array<number | undefined>(errors.length);
  const directErrors = new Map<ErrorObject, ErrorObject[]>();
  const violations: Violation[] = [];
  for (let index = 0; index < errors.length; index += 1) {
    const error = errors[index] as ErrorObject;
    if (error.keyword === 'if') {
      consumedBy[index] ??= -1;
      continue;
    }
    if (!COLLAPSING_KEYWORDS.has(error.keyword)) continue;
    const info = collapsingInfoOf(error, context);
    // Branch errors sit directly before the combinator's own error; walk back over them.
    const direct: ErrorObject[] = [];
    for (let back = index - 1; back >= 0; back -= 1) {
      const inner = errors[back] as ErrorObject;
      if (!isAtOrBelow(inner.instancePath, error.instancePath)) break;
      if (branchOf(inner, error.schemaPath, info, walk.targetOf) === undefined) break;
      if (consumedBy[back] === undefined) {
        consumedBy[back] = index;
        direct.unshift(inner);
      }
    }
    directErrors.set(error, direct);
  }

  // Only the first `limit` standalone errors in VIOLATION_ORDER become violations: a huge argument
  // (100,000 wrong items) would otherwise cost seconds of CPU for details that are cut to
  // MAX_DETAILS anyway. Ranking by a draft is a fraction of the cost of a finished violation, and
  // keeping the first `limit` drafts (not sorting them all) keeps the cost linear in their number.
  const selection = new FirstInOrder<OrderKey>(limit, (left, right) =>
    compareViolations(left, right, context.propertyOrder),
  );
  for (let index = 0; index < errors.length; index += 1) {
    if (consumedBy[index] === undefined) selection.offer(orderKeyOf(errors[index] as ErrorObject, index, context));
  }
  const omitted = selection.dropped;
  const declared = [...context.propertyOrder.keys()];
  for (const entry of selection.entries()) {
    const error = errors[entry.index] as ErrorObject;
    violations.push(
      COLLAPSING_KEYWORDS.has(error.keyword)
        ? collapsedViolation(error, walk, directErrors)
        : finish(draftFor(error), error.parentSchema, [], declared),
    );
  }
  return { violations: sortViolations(dedupe(violations), context.propertyOrder), omitted };
}

/** What ordering needs of an error that becomes a violation of its own, without building the violation. */
interface OrderKey {
  readonly index: number;
  readonly rank: number;
  readonly segments: readonly string[];
  readonly keyword: string;
}

/** The property a keyword names below the error's instance path, as {@link draftFor} appends it to the path. */
const NAMED_PROPERTY_PARAMS: ReadonlyMap<string, string> = new Map([
  ['required', 'missingProperty'],
  ['dependentRequired', 'missingProperty'],
  ['additionalProperties', 'additionalProperty'],
  ['unevaluatedProperties', 'unevaluatedProperty'],
]);

/**
 * The rank, path and keyword {@link draftFor} or {@link collapsedViolation} would give an error,
 * at a fraction of the cost (no detail, no extras): enough to choose the first violations.
 */
function orderKeyOf(error: ErrorObject, index: number, context: ViolationContext): OrderKey {
  const segments = instanceSegments(error.instancePath);
  if (COLLAPSING_KEYWORDS.has(error.keyword)) {
    const kind = collapsingInfoOf(error, context)?.kind ?? error.keyword;
    return { index, rank: rankOf(kind, kind), segments, keyword: kind };
  }
  const keyword = error.keyword;
  const param = NAMED_PROPERTY_PARAMS.get(keyword);
  if (param !== undefined) segments.push(String((error.params as Record<string, unknown>)[param]));
  return {
    index,
    rank: rankOf(keyword, keyword === 'unevaluatedProperties' ? 'additionalProperties' : keyword),
    segments,
    keyword,
  };
}

/** At most this many violations are built per failed check (see {@link collectViolations}). */
export const VIOLATION_LIMIT = 200;

/** What {@link collectViolations} found. */
export interface CollectedViolations {
  /** The violations, sorted by {@link VIOLATION_ORDER}; at most the `limit` first. */
  readonly violations: Violation[];
  /** How many more violations there were beyond `limit` (not built). */
  readonly omitted: number;
}

/** The {@link VIOLATION_ORDER} rank of a violation (unevaluatedProperties ranks as an unknown key). */
function rankOf(keyword: string, tableKeyword: string): number {
  return RANK_BY_KEYWORD.get(tableKeyword === 'additionalProperties' ? 'additionalProperties' : keyword) ?? OTHER_RANK;
}

function collapsingInfoOf(error: ErrorObject, context: ViolationContext): CollapsingInfo | undefined {
  return typeof error.schema === 'object' && error.schema !== null ? context.collapsing.get(error.schema) : undefined;
}

function collapsedViolation(
  error: ErrorObject,
  context: WalkContext,
  directErrors: ReadonlyMap<ErrorObject, ErrorObject[]>,
): Violation {
  const info = collapsingInfoOf(error, context);
  const kind = info?.kind ?? (error.keyword as CollapsingInfo['kind']);
  const segments = instanceSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  let branchKeys: BranchKeys = { extras: {}, foldedRequired: [], suggestion: undefined };
  if (kind === 'propertyNames' || kind === 'contains') {
    branchKeys.extras['keyword'] = kind;
    if (kind === 'propertyNames') branchKeys.extras['extra'] = params['propertyName'];
  } else {
    const byBranch = branchViolations(error, info, context, directErrors);
    branchKeys = combinatorKeys(kind, error, info, byBranch);
  }
  const draft: Draft = {
    keyword: kind,
    tableKeyword: kind,
    segments,
    pathSegments: segments,
    value: error.data,
    extras: branchKeys.extras,
    templateExtras: {},
  };
  const violation = finish(draft, error.parentSchema, branchKeys.foldedRequired);
  return branchKeys.suggestion === undefined
    ? violation
    : { ...violation, detail: { ...violation.detail, did_you_mean: branchKeys.suggestion } };
}

/** The failures of each branch of a failed combinator, by branch index, in Ajv's order. */
function branchViolations(
  error: ErrorObject,
  info: CollapsingInfo | undefined,
  context: WalkContext,
  directErrors: ReadonlyMap<ErrorObject, ErrorObject[]>,
): Map<number, Violation[]> {
  const byBranch = new Map<number, Violation[]>();
  for (const inner of directErrors.get(error) ?? []) {
    if (inner.keyword === 'if') continue;
    const branch = branchOf(inner, error.schemaPath, info, context.targetOf);
    if (branch === undefined) continue;
    const innerViolation = COLLAPSING_KEYWORDS.has(inner.keyword)
      ? collapsedViolation(inner, context, directErrors)
      : finish(draftFor(inner), inner.parentSchema);
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), innerViolation]);
  }
  return byBranch;
}

/** What a failed `anyOf`, `oneOf` or `allOf` adds to its violation. */
interface BranchKeys {
  /** The detail's extra keys (`branches`, `passing`, `nearest_branch`, `branch_details`, `discriminator`). */
  readonly extras: Record<string, unknown>;
  /** See {@link Violation.foldedRequired}. */
  readonly foldedRequired: readonly Violation[];
  /** The combinator detail's own `did_you_mean`, when one branch gives it. */
  readonly suggestion: unknown;
}

/**
 * The extra keys of a failed combinator: `branches` (code and path of each branch failure, at
 * most 10), `passing` (a `oneOf` matched several times), the `discriminator` of a `oneOf`, and
 * `branch_details`: every part's failures for an `allOf`, the failures of `nearest_branch` for an
 * `anyOf`/`oneOf` that no branch matched (see branch-details.ts for the rule).
 */
function combinatorKeys(
  kind: 'anyOf' | 'oneOf' | 'allOf',
  error: ErrorObject,
  info: CollapsingInfo | undefined,
  byBranch: ReadonlyMap<number, readonly Violation[]>,
): BranchKeys {
  const path = instanceSegments(error.instancePath).join('/');
  const ordered = [...byBranch.keys()].sort((left, right) => left - right);
  const all = ordered.flatMap((branch) => byBranch.get(branch) ?? []);
  const extras: Record<string, unknown> = {
    branches: ordered
      .flatMap((branch) => (byBranch.get(branch) ?? []).map((failure) => ({ branch, failure })))
      .slice(0, 10)
      .map(({ branch, failure }) => ({ branch, error_code: failure.code, path: failure.path })),
  };
  if (kind === 'allOf') {
    extras['branch_details'] = branchDetailsOf(all);
    return { extras, foldedRequired: all.filter((failure) => failure.keyword === 'required'), suggestion: undefined };
  }
  const passing =
    kind === 'oneOf' && Array.isArray(error.params['passingSchemas']) ? error.params['passingSchemas'] : [];
  if (passing.length > 0) extras['passing'] = [...(passing as number[])];
  const discriminator = info?.discriminator;
  if (discriminator !== undefined) {
    const listed = passing.length > 0 ? (passing as number[]) : discriminator.values.map((_, index) => index);
    extras['discriminator'] = discriminatorDetail(discriminator, path, listed);
  }
  const selected = discriminator === undefined ? undefined : branchSelectedBy(discriminator, error.data);
  const nearest = passing.length > 0 ? undefined : nearestBranch(byBranch, path, selected);
  if (nearest !== undefined) {
    extras['nearest_branch'] = nearest;
    extras['branch_details'] = branchDetailsOf(byBranch.get(nearest) ?? []);
  }
  const suggestion = kind === 'anyOf' ? suggestionOfOneBranch(byBranch, path) : undefined;
  return { extras, foldedRequired: [], suggestion };
}

/**
 * For an `anyOf`: the nearest value of the first branch that failed on the value itself, once,
 * with a nearest value. Passing that one branch passes the `anyOf`. Not for a `oneOf`, where the
 * value would also have to fail every other branch, which nothing here checks.
 */
function suggestionOfOneBranch(byBranch: ReadonlyMap<number, readonly Violation[]>, path: string): unknown {
  for (const branch of [...byBranch.keys()].sort((left, right) => left - right)) {
    const failures = byBranch.get(branch) ?? [];
    const only = failures[0];
    if (failures.length === 1 && only !== undefined && only.path === path && only.detail['did_you_mean'] !== undefined)
      return only.detail['did_you_mean'];
  }
  return undefined;
}

function dedupe(violations: Violation[]): Violation[] {
  const seen = new Set<string>();
  return violations.filter((violation) => {
    const key = `${violation.code}\u0001${violation.keyword}\u0001${violation.segments.join('\u0000')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const INDEX_SEGMENT = /^(?:0|[1-9]\d*)$/;

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function compareSegment(left: string, right: string): number {
  const leftIsIndex = INDEX_SEGMENT.test(left);
  const rightIsIndex = INDEX_SEGMENT.test(right);
  if (leftIsIndex && rightIsIndex) return Number(left) - Number(right);
  if (leftIsIndex !== rightIsIndex) return leftIsIndex ? -1 : 1;
  return compareText(left, right);
}

/**
 * Sorts violations by {@link VIOLATION_ORDER} (category, then path, then keyword).
 *
 * @param violations - the violations (not mutated).
 * @param propertyOrder - top-level property name -> document position.
 * @returns a new, sorted array.
 */
export function sortViolations<Entry extends Pick<Violation, 'rank' | 'segments' | 'keyword'>>(
  violations: readonly Entry[],
  propertyOrder: ReadonlyMap<string, number>,
): Entry[] {
  return [...violations].sort((left, right) => compareViolations(left, right, propertyOrder));
}

/**
 * The {@link VIOLATION_ORDER} comparison of two violations (or of what ordering needs of them).
 *
 * @param left - one violation.
 * @param right - the other.
 * @param propertyOrder - top-level property name -> document position.
 * @returns negative when `left` comes first, positive when `right` does, 0 when they tie.
 */
export function compareViolations(
  left: Pick<Violation, 'rank' | 'segments' | 'keyword'>,
  right: Pick<Violation, 'rank' | 'segments' | 'keyword'>,
  propertyOrder: ReadonlyMap<string, number>,
): number {
  if (left.rank !== right.rank) return left.rank - right.rank;
  const leftSegments = left.segments;
  const rightSegments = right.segments;
  if (leftSegments.length === 0 || rightSegments.length === 0) {
    if (leftSegments.length !== rightSegments.length) return leftSegments.length - rightSegments.length;
  } else {
    const leftHead = leftSegments[0] as string;
    const rightHead = rightSegments[0] as string;
    const leftOrder = propertyOrder.get(leftHead) ?? Number.POSITIVE_INFINITY;
    const rightOrder = propertyOrder.get(rightHead) ?? Number.POSITIVE_INFINITY;
    if (leftOrder !== rightOrder) return leftOrder < rightOrder ? -1 : 1;
    const head = compareText(leftHead, rightHead);
    if (head !== 0) return head;
    const shared = Math.min(leftSegments.length, rightSegments.length);
    for (let position = 1; position < shared; position += 1) {
      const segment = compareSegment(leftSegments[position] as string, rightSegments[position] as string);
      if (segment !== 0) return segment;
    }
    if (leftSegments.length !== rightSegments.length) return leftSegments.length - rightSegments.length;
  }
  return compareText(left.keyword, right.keyword);
}
