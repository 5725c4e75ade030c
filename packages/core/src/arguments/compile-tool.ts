/**
 * `compileTool`: everything about a tool's input schema computed once (property index, the
 * published schema with strict-mode injection, the Ajv validator), and the per-call `check`.
 * Implements CONTRACT.md "Pre-flight normalization", "Strict unknown fields", "Schema validation
 * codes" and "Hints".
 *
 * @packageDocumentation
 */
import { isRecord, SCHEMA_FALLBACK_CODE } from '@mcp-envelope/contract';
import type { NormalizedEvent, NormalizedEventKind } from '@mcp-envelope/contract';
import type { ValidateFunction } from 'ajv';
import { dequal } from 'dequal';

import { referenceStrings } from '../json-references.js';

import { buildHints } from './hints.js';
import { copyArguments, normalizeArguments, setOwn } from './normalize.js';
import type { NormalizationIndex, UnknownKeyOutcome } from './normalize.js';
import { prepareSchema } from './prepare-schema.js';
import type { PreparedSchema } from './prepare-schema.js';
import { analyzeTopLevel, isSchemaNode, resolveLocalReference } from './schema-shape.js';
import type { SchemaNode, TopLevelShape } from './schema-shape.js';
import { SchemaCompiler, abortedViolation, collectViolations, mergeViolations } from './schema-validation.js';
import type { Violation, ViolationContext } from './schema-validation.js';
import type {
  ArgumentCheck,
  ArgumentPipelineOptions,
  CompiledTool,
  DefinitionVerdict,
  JsonSchemaObject,
  PipelineCaches,
} from './types.js';
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
    if (resolveLocalReference(schema, reference) === undefined) return `can't resolve reference ${reference}`;
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
 * @param caches - the server's compiler and the verdicts known so far.
 * @returns the problem, or `undefined`.
 */
function creationProblem(
  schema: Record<string, unknown>,
  authorDefinitions: unknown,
  caches: PipelineCaches,
): string | undefined {
  const metaSchemaProblem = (node: Record<string, unknown>): string | undefined =>
    caches.compiler.metaSchemaProblem(node);
  const verdicts = caches.definitionVerdicts;
  const definitions = schema['$defs'];
  if (!isSchemaNode(definitions) || !isSchemaNode(authorDefinitions))
    return metaSchemaProblem(schema) ?? danglingLocalReference(schema);
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
    if (verdict === undefined || !dequal(verdict.prepared, prepared)) {
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
      if (resolveLocalReference(schema, reference) === undefined)
        return danglingLocalReference(schema) ?? `can't resolve reference ${reference}`;
      resolved.add(reference);
    }
  }
  return undefined;
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
export function compileTool(
  name: string,
  inputSchema: JsonSchemaObject,
  options: ArgumentPipelineOptions,
): CompiledTool {
  const author = ownedSchema(name, inputSchema, options);
  const shape = analyzeTopLevel(author);
  if (!shape.objectTyped || (shape.rootType !== undefined && shape.rootType !== 'object')) {
    throw new TypeError(`inputSchema of tool "${name}" must have the top-level type "object"`);
  }
  const injected = injectedKeyword(shape, options.strictUnknownFields);
  const published: Record<string, unknown> = { ...author };
  if (injected !== undefined) published[injected] = false;
  const validator = validatorFor(name, published, shape, options, inputSchema['$defs']);
  const outcome = unknownKeyOutcome(shape, injected);
  const index: NormalizationIndex = {
    properties: shape.properties,
    folded: shape.folded,
    patterns: shape.patterns,
    unknownKeyOutcome: outcome,
    keyRenames: options.hints?.keyRenames,
    matchCache: new Map(),
  };
  const check = checkerFor({ validator, index, shape, published, options });
  const normalizedKinds = options.normalizationEnabled
    ? possibleNormalizedKinds(shape, outcome)
    : new Set<NormalizedEventKind>();
  return { name, publishedInputSchema: published, normalizedKinds, check };
}

/**
 * New, empty caches for `ArgumentPipelineOptions.caches`, one set per server.
 *
 * @returns a schema compiler without instances yet and no `$defs` verdicts.
 */
export function createPipelineCaches(): PipelineCaches {
  return { compiler: new SchemaCompiler(), definitionVerdicts: new WeakMap() };
}

/**
 * The schema object the tool keeps: a deep copy, or the caller's own object when ownership is
 * transferred (the caller vouches that it is plain JSON; nothing here changes it, since
 * preparation and publication copy on write).
 *
 * @throws TypeError when the schema is not a JSON object or cannot be copied.
 */
function ownedSchema(
  name: string,
  inputSchema: JsonSchemaObject,
  options: ArgumentPipelineOptions,
): Record<string, unknown> {
  if (!isSchemaNode(inputSchema)) throw new TypeError(`inputSchema of tool "${name}" must be a JSON Schema object`);
  if (options.schemaOwnership === 'transfer') return inputSchema;
  try {
    return structuredClone(inputSchema);
  } catch (error) {
    throw new TypeError(`inputSchema of tool "${name}" must be plain JSON`, { cause: error });
  }
}

/** A compiled validator and what turning its errors into violations needs. */
interface CompiledValidator {
  readonly validate: ValidateFunction;
  readonly context: ViolationContext;
}

/**
 * Runs the creation checks the compile mode asks for and returns the validator, compiled on the
 * first use unless the mode is `'eager'`.
 *
 * Why lazy: Ajv code generation costs milliseconds per realistic schema, so a server with
 * hundreds of tools would spend seconds at start-up compiling tools nobody calls. At creation
 * only the meta-schema check runs; in `deferred` mode even the check and the preparation wait
 * for the first call (Ajv meta-checks the schema as it compiles it).
 *
 * @param authorDefinitions - the caller's own `$defs` object (verdicts are filed under its entries).
 * @throws TypeError on a schema problem found now.
 */
function validatorFor(
  name: string,
  published: Record<string, unknown>,
  shape: TopLevelShape,
  options: ArgumentPipelineOptions,
  authorDefinitions: unknown,
): () => CompiledValidator {
  const caches = options.caches ?? createPipelineCaches();
  const prepare = (): PreparedSchema => prepareSchema(published, new Set<SchemaNode>([published, ...shape.layers]));
  let prepared: PreparedSchema | undefined = options.compile === 'deferred' ? undefined : prepare();
  const propertyOrder = new Map<string, number>();
  for (const info of shape.properties.values()) propertyOrder.set(info.name, info.order);
  const compile = (): CompiledValidator => {
    prepared ??= prepare();
    try {
      return {
        validate: caches.compiler.compile(prepared.schema),
        context: { collapsing: prepared.collapsing, propertyOrder, root: prepared.schema },
      };
    } catch (error) {
      throw new TypeError(
        `inputSchema of tool "${name}" is ${error instanceof Error ? error.message : 'not a valid JSON Schema'}`,
        {
          cause: error,
        },
      );
    }
  };
  let compiled: CompiledValidator | undefined;
  if (options.compile === 'eager') {
    compiled = compile();
  } else if (prepared !== undefined) {
    const problem = creationProblem(prepared.schema, authorDefinitions, caches);
    if (problem !== undefined)
      throw new TypeError(`inputSchema of tool "${name}" is not a valid JSON Schema: ${problem}`);
  }
  return () => (compiled ??= compile());
}

/** At most this many fields are named in the summary's closing instruction. */
const NAMED_FIELDS_LIMIT = 3;

/**
 * The one instruction a summary ends with: the fields to correct, by path (an unknown key by its
 * own path, the root as `arguments`), then call again. An agent reads the details for how.
 */
function correctionInstruction(violations: readonly Violation[]): string {
  const fields = [
    ...new Set(
      violations.map((violation) => (violation.segments.length === 0 ? 'arguments' : violation.segments.join('/'))),
    ),
  ];
  const named = fields.slice(0, NAMED_FIELDS_LIMIT);
  // past the first few, a count would miss the violations only counted, never built
  if (fields.length > named.length)
    return `Correct ${named.join(', ')} and the other fields in details, then call again.`;
  if (named.length === 1) return `Correct ${named[0] as string} and call again.`;
  return `Correct ${named.slice(0, -1).join(', ')} and ${named.at(-1) as string}, then call again.`;
}

/** What the per-call check of one tool needs. */
interface CheckerParts {
  readonly validator: () => CompiledValidator;
  readonly index: NormalizationIndex;
  readonly shape: TopLevelShape;
  readonly published: Record<string, unknown>;
  readonly options: ArgumentPipelineOptions;
}

/**
 * The per-call `check` of a compiled tool (see {@link compileTool}).
 *
 * @returns a function that never throws.
 */
function checkerFor({ validator, index, shape, published, options }: CheckerParts): (args: unknown) => ArgumentCheck {
  const tables = options.hints;
  const failure = (
    violations: readonly Violation[],
    events: readonly NormalizedEvent[],
    args: unknown,
    omitted = 0,
  ): ArgumentCheck => {
    const first = violations[0] as Violation;
    const others = violations.length - 1 + omitted;
    const result = {
      ok: false as const,
      events,
      error_code: first.code,
      ...(first.code === SCHEMA_FALLBACK_CODE ? { validator: first.keyword } : {}),
      summary: `${others > 0 ? `${first.detail.issue} (and ${others} more)` : first.detail.issue} ${correctionInstruction(violations)}`,
      details: violations.map((violation) => violation.detail),
      hints: buildHints({ violations, args, shape, root: published, tables }),
    };
    return omitted > 0 ? { ...result, omittedDetails: omitted } : result;
  };
  return (args: unknown): ArgumentCheck => {
    const { validate, context } = validator();
    let candidate: unknown = args === undefined ? {} : args;
    let events = NO_EVENTS;
    try {
      if (isRecord(candidate)) {
        if (options.normalizationEnabled) {
          const normalized = normalizeArguments(candidate, index);
          candidate = normalized.args;
          events = normalized.events;
        } else {
          candidate = copyArguments(candidate);
        }
      }
      const valid = validate(candidate);
      // Ajv runs non-strict (OpenAPI keywords), which lets `Infinity` pass as a number; and no
      // schema keyword refuses a lone surrogate. Neither can be sent on, so both fail here.
      const unsendable = unsendableViolations(candidate, context);
      if (valid && unsendable.violations.length === 0)
        return { ok: true, args: candidate as Record<string, unknown>, events };
      const schemaViolations = valid ? undefined : collectViolations(validate.errors ?? [], context);
      const collected =
        schemaViolations === undefined
          ? unsendable
          : unsendable.violations.length === 0
            ? schemaViolations
            : mergeViolations(schemaViolations, unsendable, context.propertyOrder);
      const { violations, omitted } = collected;
      return failure(violations.length > 0 ? violations : [abortedViolation(candidate)], events, candidate, omitted);
    } catch {
      try {
        return failure([abortedViolation(candidate)], events, candidate);
      } catch {
        return failure([abortedViolation(undefined)], events, undefined);
      }
    }
  };
}
