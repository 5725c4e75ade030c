/**
 * Plans the per-tool probes: from a tool's `inputSchema` and a valid baseline, the one-change
 * argument objects and the envelope each one must produce.
 *
 * @packageDocumentation
 */
import { isRecord, SCHEMA_KEYWORD_CODES } from '@mcp-envelope/contract';

import { synthesizeBaseline, synthesizeProperty } from './baseline.js';
import { objectProperties, requiredProperties, singleSimpleType, stringEnum, withoutKeys } from './json-schema.js';
import type { JsonObject, JsonValue, SimpleType } from './json-schema.js';
import type { ToolProbeName } from './report-types.js';

/** The key the `unknown-extra` probe adds. */
export const UNKNOWN_FIELD_KEY = 'zz_conformance_unknown_field';

/** The value the `enum-mismatch` probe sends (never in a real enum). */
export const NOT_IN_ENUM_VALUE = 'zz_conformance_not_in_enum';

/** The `error_kind` and `error_code` a probe expects. */
export interface ExpectedFailure {
  readonly kind: string;
  readonly code: string;
}

/** The kind every schema probe expects. */
const INPUT_VALIDATION = 'mcp_input_validation';

/** One planned probe. */
export type PlannedProbe =
  | { readonly probe: ToolProbeName; readonly status: 'skip'; readonly reason: string }
  | {
      readonly probe: ToolProbeName;
      readonly status: 'run';
      readonly arguments: JsonObject;
      readonly expected: ExpectedFailure;
      /** What the probe changed, for the report's note. */
      readonly change: string;
      /** `wrong-case` only: the key sent and the same arguments with the correct key. */
      readonly wrongCase?: {
        readonly key: string;
        readonly canonical: string;
        readonly optional: boolean;
        readonly reference: JsonObject;
        /** How the schema treats the wrong-case key as an undeclared key (it may pass through unrenamed). */
        readonly unknownKeys: UnknownKeyPolicy;
      };
      /**
       * `unknown-extra` only, when the schema says nothing about `additionalProperties`: the
       * baseline without the key, for judging a server that reports strict unknown fields off.
       */
      readonly passThrough?: { readonly key: string; readonly reference: JsonObject };
    };

/** A tool as `tools/list` lists it (only the fields the planner reads). */
export interface ToolDescription {
  readonly name: string;
  readonly inputSchema?: unknown;
  /**
   * Whether `tools/list` annotates the tool as idempotent (`readOnlyHint` or `idempotentHint`
   * true): the fault battery then expects its timeouts and 500s retryable (CONTRACT.md "Safe retries").
   */
  readonly idempotent?: boolean;
}

interface PlanContext {
  readonly schema: unknown;
  readonly baseline: JsonObject;
  readonly properties: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  readonly required: readonly string[];
}

const TYPE_RANK: Readonly<Record<SimpleType, number>> = { string: 0, integer: 1, number: 1, boolean: 2 };

/** A value of another type for each simple type. */
const WRONG_TYPE_VALUES: Readonly<Record<SimpleType, JsonValue>> = {
  string: 12345,
  integer: 'not-a-number',
  number: 'not-a-number',
  boolean: 'not-a-boolean',
};

function skip(probe: ToolProbeName, reason: string): PlannedProbe {
  return { probe, status: 'skip', reason };
}

function withProperty(base: JsonObject, name: string, value: JsonValue): JsonObject {
  return { ...base, [name]: value };
}

function planMissingRequired(context: PlanContext): PlannedProbe {
  const dropped = context.required.find((name) => Object.hasOwn(context.baseline, name));
  if (dropped === undefined) return skip('missing-required', 'schema has no required property');
  const rest = withoutKeys(context.baseline, [dropped]);
  return {
    probe: 'missing-required',
    status: 'run',
    arguments: rest,
    expected: { kind: INPUT_VALIDATION, code: SCHEMA_KEYWORD_CODES.required },
    change: `dropped required "${dropped}"`,
  };
}

function planWrongType(context: PlanContext): PlannedProbe {
  const candidates = [...context.properties.entries()]
    .map(([name, schema], order) => ({ name, schema, order, type: singleSimpleType(schema) }))
    .filter((candidate): candidate is typeof candidate & { type: SimpleType } => candidate.type !== undefined)
    .map((candidate) => ({
      ...candidate,
      rank: [
        TYPE_RANK[candidate.type],
        stringEnum(candidate.schema) !== undefined || Object.hasOwn(candidate.schema, 'const') ? 1 : 0,
        context.required.includes(candidate.name) ? 0 : 1,
        candidate.order,
      ],
    }))
    .sort((left, right) =>
      left.rank.reduce((difference, value, index) => difference || value - (right.rank[index] ?? 0), 0),
    );
  const chosen = candidates[0];
  if (chosen === undefined)
    return skip('wrong-type', 'schema has no property with a single simple type (string, integer, number, boolean)');
  const value = WRONG_TYPE_VALUES[chosen.type];
  return {
    probe: 'wrong-type',
    status: 'run',
    arguments: withProperty(context.baseline, chosen.name, value),
    expected: { kind: INPUT_VALIDATION, code: SCHEMA_KEYWORD_CODES.type },
    change: `"${chosen.name}" (${chosen.type}) set to ${JSON.stringify(value)}`,
  };
}

/** Why the schema admits `key` although it declares no such property, or `undefined` when it does not. */
function admitsUnknownKey(schema: unknown, key: string): string | undefined {
  if (!isRecord(schema)) return undefined;
  const additional = schema['additionalProperties'];
  if (additional === true) return 'schema sets additionalProperties: true';
  if (isRecord(additional)) return 'schema gives additionalProperties a schema';
  const patterns = schema['patternProperties'];
  if (isRecord(patterns)) {
    for (const pattern of Object.keys(patterns)) {
      try {
        if (new RegExp(pattern, 'u').test(key)) return `patternProperties "${pattern}" admits the key`;
      } catch {
        // An invalid pattern admits nothing.
      }
    }
  }
  return undefined;
}

/**
 * How the schema treats a key it does not declare: `admitted` (its own `additionalProperties` or a
 * pattern lets it in), `silent` (nothing said: the strict unknown fields switch decides) or
 * `forbidden` (`additionalProperties: false`).
 */
export type UnknownKeyPolicy = 'admitted' | 'silent' | 'forbidden';

function unknownKeyPolicy(schema: unknown, key: string): UnknownKeyPolicy {
  if (admitsUnknownKey(schema, key) !== undefined) return 'admitted';
  return isRecord(schema) && schema['additionalProperties'] === undefined ? 'silent' : 'forbidden';
}

function planUnknownExtra(context: PlanContext): PlannedProbe {
  const admitted = admitsUnknownKey(context.schema, UNKNOWN_FIELD_KEY);
  if (admitted !== undefined) return skip('unknown-extra', admitted);
  if (context.properties.has(UNKNOWN_FIELD_KEY)) return skip('unknown-extra', `schema declares "${UNKNOWN_FIELD_KEY}"`);
  const silent = isRecord(context.schema) && context.schema['additionalProperties'] === undefined;
  return {
    probe: 'unknown-extra',
    status: 'run',
    arguments: withProperty(context.baseline, UNKNOWN_FIELD_KEY, 'conformance'),
    expected: { kind: INPUT_VALIDATION, code: SCHEMA_KEYWORD_CODES.additionalProperties },
    change: `added "${UNKNOWN_FIELD_KEY}"`,
    ...(silent ? { passThrough: { key: UNKNOWN_FIELD_KEY, reference: context.baseline } } : {}),
  };
}

function planEnumMismatch(context: PlanContext): PlannedProbe {
  for (const [name, schema] of context.properties) {
    const values = stringEnum(schema);
    if (values === undefined || values.includes(NOT_IN_ENUM_VALUE)) continue;
    return {
      probe: 'enum-mismatch',
      status: 'run',
      arguments: withProperty(context.baseline, name, NOT_IN_ENUM_VALUE),
      expected: { kind: INPUT_VALIDATION, code: SCHEMA_KEYWORD_CODES.enum },
      change: `"${name}" set to "${NOT_IN_ENUM_VALUE}"`,
    };
  }
  return skip('enum-mismatch', 'schema has no property with a string enum');
}

/**
 * Changes the case of a property name: the first cased letter flips (`marketplaceIds` ->
 * `MarketplaceIds`, `Query` -> `query`).
 *
 * @param name - a property name.
 * @returns the case-changed name, or `undefined` when no letter changes under a case change.
 */
export function caseChangedName(name: string): string | undefined {
  let offset = 0;
  for (const character of name) {
    const upper = character.toUpperCase();
    const lower = character.toLowerCase();
    if (upper !== lower)
      return name.slice(0, offset) + (character === upper ? lower : upper) + name.slice(offset + character.length);
    offset += character.length;
  }
  return undefined;
}

function wrongCaseCandidate(context: PlanContext): { name: string; key: string; reference: JsonObject } | undefined {
  const lowerNames = [...context.properties.keys()].map((name) => name.toLowerCase());
  const eligible = (name: string): string | undefined => {
    const key = caseChangedName(name);
    if (key === undefined) return undefined;
    const clashes =
      lowerNames.filter((lower) => lower === key.toLowerCase()).length > 1 ||
      context.properties.has(key) ||
      Object.hasOwn(context.baseline, key);
    return clashes ? undefined : key;
  };
  for (const name of Object.keys(context.baseline)) {
    const key = eligible(name);
    if (key !== undefined) return { name, key, reference: context.baseline };
  }
  for (const [name, schema] of context.properties) {
    if (Object.hasOwn(context.baseline, name)) continue;
    const key = eligible(name);
    const value = key === undefined ? undefined : synthesizeProperty(context.schema, schema);
    if (key !== undefined && value?.ok === true)
      return { name, key, reference: withProperty(context.baseline, name, value.value) };
  }
  return undefined;
}

function planWrongCase(context: PlanContext): PlannedProbe {
  const candidate = wrongCaseCandidate(context);
  if (candidate === undefined)
    return skip(
      'wrong-case',
      'schema has no property whose name changes under a case change without colliding with another property',
    );
  const renamed: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(candidate.reference))
    renamed[name === candidate.name ? candidate.key : name] = value;
  return {
    probe: 'wrong-case',
    status: 'run',
    arguments: renamed,
    expected: { kind: INPUT_VALIDATION, code: SCHEMA_KEYWORD_CODES.additionalProperties },
    change: `"${candidate.name}" sent as "${candidate.key}"`,
    wrongCase: {
      key: candidate.key,
      canonical: candidate.name,
      optional: !context.required.includes(candidate.name),
      reference: candidate.reference,
      unknownKeys: unknownKeyPolicy(context.schema, candidate.key),
    },
  };
}

/** The planner's result for one tool. */
export type ToolPlan =
  | {
      readonly ok: true;
      readonly baseline: JsonObject;
      readonly notes: readonly string[];
      readonly probes: readonly PlannedProbe[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Plans the five per-tool probes (`missing-required`, `wrong-type`, `unknown-extra`,
 * `enum-mismatch`, `wrong-case`) from the tool's `inputSchema`, each a one-change variation of a
 * valid baseline built by {@link synthesizeBaseline}. A probe the schema makes impossible is planned
 * as a skip with the reason. Implements the `SCHEMA_*` codes of CONTRACT.md "Schema validation
 * codes" and the normalization rules of "Pre-flight normalization".
 *
 * @param tool - the tool as listed.
 * @returns the baseline and the probes, or `{ ok: false, reason }` when no valid baseline exists
 *   (never throws, whatever the schema).
 */
export function planToolProbes(tool: ToolDescription): ToolPlan {
  try {
    return planUnsafe(tool);
  } catch (error) {
    return {
      ok: false,
      reason: `cannot plan probes for this inputSchema: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function planUnsafe(tool: ToolDescription): ToolPlan {
  const schema = tool.inputSchema ?? { type: 'object' };
  const baseline = synthesizeBaseline(schema);
  if (!baseline.ok) return { ok: false, reason: `no valid baseline arguments: ${baseline.reason}` };
  const context: PlanContext = {
    schema,
    baseline: baseline.value,
    properties: objectProperties(schema, schema),
    required: requiredProperties(schema, schema),
  };
  return {
    ok: true,
    baseline: baseline.value,
    notes: baseline.notes,
    probes: [
      planMissingRequired(context),
      planWrongType(context),
      planUnknownExtra(context),
      planEnumMismatch(context),
      planWrongCase(context),
    ],
  };
}
