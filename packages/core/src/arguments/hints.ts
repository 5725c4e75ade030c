/**
 * Hints for a failed argument check, as plain strings in a fixed order: `missing_required`,
 * `case_mismatch`, `did_you_mean`, `enum_suggest`, then the code table's canonical hint for each
 * distinct `error_code`, then the adapter's extra hints by code. Deduplicated, uncapped (the
 * envelope builder caps them). Implements CONTRACT.md "Hints" (four categories, plain strings).
 *
 * @packageDocumentation
 */
import { fillTemplate, isRecord, schemaCodeEntry } from '@mcp-envelope/contract';

import type { AdapterHintTables } from '../hint-tables.js';
import { closestMatch, foldKey, orderByCloseness } from './did-you-mean.js';
import { describeType, isSchemaNode } from './schema-shape.js';
import type { SchemaNode, TopLevelShape } from './schema-shape.js';
import type { Violation } from './schema-validation.js';

/** At most this many allowed values are listed in one `enum_suggest` hint. */
export const ENUM_SUGGESTION_LIMIT = 10;

const RENDERED_VALUE_LIMIT = 80;
const INDEX_SEGMENT = /^(?:0|[1-9]\d*)$/;

/** What {@link buildHints} reads. */
export interface HintInput {
  /** The sorted violations of the failed check. */
  readonly violations: readonly Violation[];
  /** The arguments that were validated (after normalization). */
  readonly args: unknown;
  /** The schema's top-level view. */
  readonly shape: Pick<TopLevelShape, 'names' | 'properties' | 'folded'>;
  /** The whole schema (for local `$ref`s in type descriptions). */
  readonly root: SchemaNode;
  /** The adapter's tables, if any. */
  readonly tables: AdapterHintTables | undefined;
}

/**
 * Renders a received value for a hint: strings as written, anything else as JSON, cut to 80
 * characters.
 *
 * @param value - the value to show.
 * @returns a short string.
 */
export function renderValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > RENDERED_VALUE_LIMIT ? `${text.slice(0, RENDERED_VALUE_LIMIT - 1)}…` : text;
}

function ownEntry<Value>(table: Readonly<Record<string, Value>> | undefined, key: string): Value | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

function enumSuggestion(value: unknown, where: string, allowed: readonly unknown[]): string {
  const rendered = allowed.map(renderValue);
  const ordered = orderByCloseness(renderValue(value), rendered);
  const shown = ordered.slice(0, ENUM_SUGGESTION_LIMIT).join(', ');
  const more = ordered.length > ENUM_SUGGESTION_LIMIT ? ` and ${ordered.length - ENUM_SUGGESTION_LIMIT} more` : '';
  return `${renderValue(value)} is not valid for ${where}. Valid: ${shown}${more}.`;
}

/** The path without trailing array indexes (`orderStatuses/0` -> `orderStatuses`), `arguments` for the root. */
function propertyPath(segments: readonly string[]): string[] {
  let end = segments.length;
  while (end > 0 && INDEX_SEGMENT.test(segments[end - 1] as string)) end -= 1;
  return segments.slice(0, end);
}

function propertySchemaOf(violation: Violation, input: HintInput): unknown {
  const name = violation.segments[violation.segments.length - 1] as string;
  if (violation.segments.length === 1) {
    const info = input.shape.properties.get(name);
    if (info?.schema !== undefined) return info.schema;
  }
  const parent = violation.parentSchema;
  if (isSchemaNode(parent) && isSchemaNode(parent['properties']) && Object.hasOwn(parent['properties'], name)) {
    return parent['properties'][name];
  }
  return undefined;
}

/** At most this many unknown keys are matched against the properties for hints. */
const UNKNOWN_KEY_HINT_LIMIT = 20;

interface UnknownKey {
  readonly key: string;
  readonly candidates: readonly string[];
  readonly topLevel: boolean;
}

function unknownKeys(input: HintInput): UnknownKey[] {
  const found: UnknownKey[] = [];
  const seen = new Set<string>();
  for (const violation of input.violations) {
    if (violation.tableKeyword !== 'additionalProperties') continue;
    const key = String(violation.detail['extra']);
    const topLevel = violation.segments.length === 1;
    let candidates: readonly string[] = [];
    if (topLevel) candidates = input.shape.names;
    else if (isSchemaNode(violation.parentSchema) && isSchemaNode(violation.parentSchema['properties'])) {
      candidates = Object.keys(violation.parentSchema['properties']);
    }
    if (topLevel) seen.add(key);
    found.push({ key, candidates, topLevel });
  }
  if (isRecord(input.args)) {
    for (const key of Object.keys(input.args)) {
      // Hints are cut to MAX_HINTS anyway: past that many, more keys only cost edit distances.
      if (found.length >= UNKNOWN_KEY_HINT_LIMIT) break;
      if (!input.shape.properties.has(key) && !seen.has(key))
        found.push({ key, candidates: input.shape.names, topLevel: true });
    }
  }
  return found.length > UNKNOWN_KEY_HINT_LIMIT ? found.slice(0, UNKNOWN_KEY_HINT_LIMIT) : found;
}

/** Keywords whose violations always get a category hint, so their canonical hint is left out. */
const SPECIFIC_HINT_KEYWORDS: ReadonlySet<string> = new Set(['required', 'enum']);

/**
 * Builds the hints of a failed check. Categories, in this order:
 * - `missing_required`: `Add the required field <path> (<type>).` for every missing field;
 * - `case_mismatch`: `Use <property> instead of <key>.` for an unknown key that equals a
 *   property ignoring case and `_`, `-`, ` `, `.` (several candidates are joined with `or`), or
 *   that the adapter's `keyRenames` maps to a property;
 * - `did_you_mean`: `Did you mean <property>? Got <key>.` for an unknown key within edit distance
 *   of a property, and `Did you mean <value>? Got <sent>.` for an `enum` failure whose value is a
 *   known alias (`valueAliases`) or close to an allowed string;
 * - `enum_suggest`: `<sent> is not valid for <property>. Valid: <values>.`, closest values first,
 *   at most 10; also for the adapter's `curatedEnums`;
 * then the canonical hint of each distinct `error_code` (from the contract's code table, filled
 * with the first detail of that code; left out for `required` and `enum`, whose category hints
 * say the same more precisely), then the adapter's `extraHintsByCode`.
 *
 * @param input - the violations, the validated arguments, the schema view and the tables.
 * @returns the hints, deduplicated, in the order above.
 */
export function buildHints(input: HintInput): string[] {
  const names = keyHints(input);
  const values = enumHints(input);
  return [
    ...new Set([
      ...missingRequiredHints(input),
      ...names.caseMismatch,
      ...names.didYouMean,
      ...values.didYouMean,
      ...values.enumSuggest,
      ...curatedEnumHints(input, values.enumPaths),
      ...codeHints(input),
    ]),
  ];
}

/** One "Add the required field" hint per missing property, with its type when the schema says it. */
function missingRequiredHints(input: HintInput): string[] {
  const hints: string[] = [];
  for (const violation of input.violations) {
    const required = violation.keyword === 'required' ? [violation] : violation.foldedRequired;
    for (const missing of required) {
      const description = describeType(input.root, propertySchemaOf(missing, input));
      hints.push(`Add the required field ${missing.path}${description === undefined ? '' : ` (${description})`}.`);
    }
  }
  return hints;
}

/** Hints for unknown keys: a known rename or a case-only difference first, else the closest name. */
function keyHints(input: HintInput): { caseMismatch: string[]; didYouMean: string[] } {
  const caseMismatch: string[] = [];
  const didYouMean: string[] = [];
  for (const { key, candidates, topLevel } of unknownKeys(input)) {
    const renamed = topLevel ? ownEntry(input.tables?.keyRenames, key) : undefined;
    if (renamed !== undefined && candidates.includes(renamed)) {
      caseMismatch.push(`Use ${renamed} instead of ${key}.`);
      continue;
    }
    const folded = foldKey(key);
    const sameButCase = topLevel
      ? (input.shape.folded.get(folded) ?? [])
      : candidates.filter((name) => foldKey(name) === folded);
    if (sameButCase.length > 0) {
      caseMismatch.push(`Use ${sameButCase.join(' or ')} instead of ${key}.`);
      continue;
    }
    const closest = closestMatch(key, candidates);
    if (closest !== undefined) didYouMean.push(`Did you mean ${closest}? Got ${key}.`);
  }
  return { caseMismatch, didYouMean };
}

/** Hints for `enum` violations; `enumPaths` says which properties they already cover. */
function enumHints(input: HintInput): { didYouMean: string[]; enumSuggest: string[]; enumPaths: Set<string> } {
  const didYouMean: string[] = [];
  const enumSuggest: string[] = [];
  const enumPaths = new Set<string>();
  for (const violation of input.violations) {
    if (violation.keyword !== 'enum') continue;
    const allowed = Array.isArray(violation.detail['allowed']) ? (violation.detail['allowed'] as unknown[]) : [];
    const where = propertyPath(violation.segments);
    const property = where[where.length - 1];
    const value = violation.value;
    enumPaths.add(where.join('/'));
    if (typeof value === 'string') {
      const alias =
        property === undefined
          ? undefined
          : ownEntry(ownEntry(input.tables?.valueAliases, property), value.toLowerCase());
      const suggestion =
        alias ??
        closestMatch(
          value,
          allowed.filter((entry): entry is string => typeof entry === 'string' && entry !== value),
        );
      if (suggestion !== undefined) didYouMean.push(`Did you mean ${suggestion}? Got ${value}.`);
    }
    enumSuggest.push(enumSuggestion(value, where.length === 0 ? 'arguments' : where.join('/'), allowed));
  }
  return { didYouMean, enumSuggest, enumPaths };
}

/** Hints for values outside the adapter's curated enums, on properties no `enum` violation covers. */
function curatedEnumHints(input: HintInput, enumPaths: ReadonlySet<string>): string[] {
  const hints: string[] = [];
  const curated = input.tables?.curatedEnums;
  if (curated === undefined || !isRecord(input.args)) return hints;
  for (const property of Object.keys(curated)) {
    const allowed = curated[property];
    if (allowed === undefined || enumPaths.has(property) || !Object.hasOwn(input.args, property)) continue;
    const sent = input.args[property];
    const values =
      typeof sent === 'string' ? [sent] : Array.isArray(sent) ? sent.filter((item) => typeof item === 'string') : [];
    for (const value of values) if (!allowed.includes(value)) hints.push(enumSuggestion(value, property, allowed));
  }
  return hints;
}

/** The canonical hint of each violated code, then the adapter's extra hints for it. */
function codeHints(input: HintInput): string[] {
  const canonical: string[] = [];
  const extra: string[] = [];
  const codes = new Set<string>();
  for (const violation of input.violations) {
    if (codes.has(violation.code)) continue;
    codes.add(violation.code);
    // missing_required and enum_suggest already say, more precisely, what the canonical hint of
    // `required` and `enum` would: keep the hint list short enough to be read.
    if (!SPECIFIC_HINT_KEYWORDS.has(violation.tableKeyword))
      canonical.push(fillTemplate(schemaCodeEntry(violation.tableKeyword).hint, violation.templateValues));
    const more = ownEntry(input.tables?.extraHintsByCode, violation.code);
    if (more !== undefined) extra.push(...more);
  }
  return [...canonical, ...extra];
}
