/**
 * The contract's JSON documents (`schemas/`), embedded as modules so that browsers and edge
 * runtimes load them without a file system.
 *
 * @packageDocumentation
 */
import { errorEnvelopeSchemaV1Document } from './data/error-envelope-v1-schema.js';
import { errorEnvelopeSchemaV2Document } from './data/error-envelope-v2-schema.js';
import { schemaCodeTableDocument } from './data/jsonschema-error-codes.js';
import { deepFrozen } from './frozen.js';
import type { SchemaErrorCode, SchemaKeyword } from './taxonomy.js';

/**
 * The contract version 2 envelope JSON Schema (draft 2020-12), as parsed JSON. Same content as
 * `@mcp-envelope/contract/schemas/error-envelope-v2.schema.json`. Implements CONTRACT.md "The envelope".
 */
export const ERROR_ENVELOPE_SCHEMA_V2 = deepFrozen(errorEnvelopeSchemaV2Document as Readonly<Record<string, unknown>>);

/**
 * The contract version 1 envelope JSON Schema, unchanged since version 1 was published. Same
 * content as `@mcp-envelope/contract/schemas/error-envelope.schema.json`.
 */
export const ERROR_ENVELOPE_SCHEMA_V1 = deepFrozen(errorEnvelopeSchemaV1Document as Readonly<Record<string, unknown>>);

/** The schema of the version servers build envelopes in ({@link ERROR_ENVELOPE_SCHEMA_V2}). */
export const ERROR_ENVELOPE_SCHEMA = ERROR_ENVELOPE_SCHEMA_V2;

/** One entry of the keyword table: its code, a summary template and a hint template. */
export interface SchemaCodeEntry {
  readonly error_code: SchemaErrorCode;
  /** Template with `{path}` and keyword parameters such as `{limit}`, `{actual}`, `{allowed}`. */
  readonly summary_template: string;
  /** Template of the canonical hint for this code. */
  readonly hint: string;
}

/** The parsed `schemas/jsonschema-error-codes.json`. */
export interface SchemaCodeTable {
  readonly contract_version: 1;
  readonly error_kind: 'mcp_input_validation';
  readonly retryable: false;
  readonly path_rule: string;
  readonly mapping: Readonly<Record<SchemaKeyword, SchemaCodeEntry>>;
  readonly fallback: SchemaCodeEntry;
  readonly domain_codes: Readonly<
    Record<string, { readonly server: string; readonly summary_template: string; readonly hint: string }>
  >;
}

/**
 * The JSON Schema keyword -> `SCHEMA_*` table with summary and hint templates. Implements
 * CONTRACT.md "Schema validation codes".
 */
export const SCHEMA_CODE_TABLE: SchemaCodeTable = deepFrozen(schemaCodeTableDocument as SchemaCodeTable);

/**
 * Looks up the table entry for a JSON Schema keyword (an Ajv `ErrorObject.keyword`).
 *
 * @param keyword - the failing keyword, e.g. `maxItems`.
 * @returns the keyword's entry, or the fallback entry (`SCHEMA_VALIDATION_FAILED`) for any keyword
 *   without its own code (including `$ref` failures, `dependentRequired`, `if`, custom keywords).
 */
export function schemaCodeEntry(keyword: string): SchemaCodeEntry {
  return Object.hasOwn(SCHEMA_CODE_TABLE.mapping, keyword)
    ? SCHEMA_CODE_TABLE.mapping[keyword as SchemaKeyword]
    : SCHEMA_CODE_TABLE.fallback;
}

/**
 * Fills `{name}` placeholders in a template. Arrays are rendered as a comma-separated list,
 * other non-strings with `JSON.stringify`; a placeholder without a value stays as written.
 *
 * @param template - e.g. `"Send no more than {limit} items in {path}"`.
 * @param values - placeholder values by name.
 * @returns the filled string.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, unknown>>): string {
  const parts = template.split(PLACEHOLDER);
  let result = parts[0] as string;
  for (let index = 1; index < parts.length; index += 2) {
    const name = parts[index] as string;
    result +=
      (Object.hasOwn(values, name) ? renderTemplateValue(values[name]) : `{${name}}`) + (parts[index + 1] as string);
  }
  return result;
}

const PLACEHOLDER = /\{([a-z_]+)\}/;

function renderTemplateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  return JSON.stringify(value) ?? String(value);
}
