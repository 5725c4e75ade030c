/**
 * The public shapes of the argument pipeline (normalization + strict validation + hints).
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail, NormalizedEvent, NormalizedEventKind, SchemaErrorCode } from '@mcp-envelope/contract';

import type { AdapterHintTables } from '../hint-tables.js';
import type { JsonSchemaObject } from '../types.js';

import type { SchemaCompiler } from './schema-validation.js';

/**
 * The switches of the argument pipeline, already resolved from the environment and the server's
 * options. Implements CONTRACT.md "Configuration".
 */
export interface ArgumentPipelineOptions {
  /** `MCP_SCHEMA_KEY_NORMALIZATION_ENABLED`: run pre-flight normalization before validation. */
  readonly normalizationEnabled: boolean;
  /** `MCP_STRICT_UNKNOWN_FIELDS`: reject top-level keys the schema does not define when it is silent. */
  readonly strictUnknownFields: boolean;
  /** The adapter's hint tables (renames, value aliases, curated enums, extra hints). */
  readonly hints?: AdapterHintTables;
  /**
   * When the schema is checked and the Ajv validator compiled:
   * - `'lazy'` (default): the schema is checked against the 2020-12 meta-schema (and for
   *   dangling local `$ref`s) at creation, which throws on a problem; the validator is compiled
   *   on the first `check`;
   * - `'eager'`: the validator is compiled at creation;
   * - `'deferred'`: nothing beyond the cheap structural checks (a plain JSON object whose
   *   top-level type is `"object"`) runs at creation; preparing, the meta-schema check (Ajv's own,
   *   while compiling) and compiling all happen on the first `check`, which throws a `TypeError`
   *   when the schema is broken. Only for schemas whose validity a generator guarantees and tests
   *   prove (`createEnvelopeServer` uses it for tools declaring `inputSchemaCheck: 'first-call'`);
   *   it spares a server with hundreds of generated tools the meta-schema's compilation and a walk
   *   of every schema at start-up.
   */
  readonly compile?: 'lazy' | 'eager' | 'deferred';
  /**
   * Who owns the input schema object after `compileTool`:
   * - `'copy'` (default): the tool keeps a deep copy taken at creation, so later changes to the
   *   caller's object never reach it, and a value that is not plain JSON is refused;
   * - `'transfer'`: the tool keeps the caller's object (and every object inside it) as it is. The
   *   caller must never change it afterwards and guarantees it is plain JSON. For schemas built
   *   fresh by a generator for this tool; it spares the copy, about a third of registering a
   *   large generated schema.
   */
  readonly schemaOwnership?: 'copy' | 'transfer';
  /**
   * What a server's tools share while they are compiled: its Ajv instances and what the creation
   * checks already found for `$defs` entries (tools generated from one API description repeat the
   * same definitions). The caller owns it, one per server (`createPipelineCaches`); without it
   * each tool gets its own, which is correct but slower.
   */
  readonly caches?: PipelineCaches;
}

/** See {@link ArgumentPipelineOptions.caches}. */
export interface PipelineCaches {
  /** The Ajv instances schemas are checked and compiled with. */
  readonly compiler: SchemaCompiler;
  /** `$defs` verdicts by the author's entry object. */
  readonly definitionVerdicts: DefinitionVerdicts;
}

/** What the creation checks found for one prepared `$defs` entry, checked as a schema of its own. */
export interface DefinitionVerdict {
  /** The prepared entry this verdict is for. */
  readonly prepared: Readonly<Record<string, unknown>>;
  /** Ajv's meta-schema problem with it, or `undefined`. */
  readonly problem: string | undefined;
  /** The local references inside it (each tool resolves them against its own schema). */
  readonly localReferences: readonly string[];
}

/**
 * Verdicts filed under the author's `$defs` entry object; one is reused only for an entry whose
 * prepared form has the same content as the one it was found for.
 */
export type DefinitionVerdicts = WeakMap<object, DefinitionVerdict>;

export type { JsonSchemaObject } from '../types.js';

/**
 * The outcome of one {@link CompiledTool.check}:
 * - `ok: true` with the normalized arguments to hand to the tool and the normalization events;
 * - `ok: false` with the parts of a `mcp_input_validation` envelope: the `SCHEMA_*` code of the
 *   first violation in `VIOLATION_ORDER` (schema-validation.ts), a summary (`(and N more)` counts
 *   every other violation), the violations as details (sorted in that order; the first 200 at
 *   most, `omittedDetails` counting the rest, so that a huge invalid argument costs bounded work)
 *   and the hints (deduplicated, uncapped), plus the events that happened before validation
 *   failed.
 */
export type ArgumentCheck =
  | { readonly ok: true; readonly args: Record<string, unknown>; readonly events: readonly NormalizedEvent[] }
  | {
      readonly ok: false;
      readonly events: readonly NormalizedEvent[];
      readonly error_code: SchemaErrorCode;
      /** The JSON Schema keyword that failed, when `error_code` is the fallback `SCHEMA_VALIDATION_FAILED` (for `_meta.validator`). */
      readonly validator?: string;
      readonly summary: string;
      readonly details: readonly EnvelopeDetail[];
      readonly hints: readonly string[];
      /** Violations found beyond those in `details` (absent when none): add them to the envelope's omitted count. */
      readonly omittedDetails?: number;
    };

/** A tool whose input schema has been compiled once, ready to check calls. */
export interface CompiledTool {
  /** The tool name, as registered. */
  readonly name: string;
  /**
   * The schema to publish in `tools/list`: the author's schema with every keyword kept, plus a
   * top-level `additionalProperties: false` (or `unevaluatedProperties: false` when the
   * properties come from a top-level `$ref` or `allOf`) injected only when strict mode is on and
   * the schema states no intent of its own. A deep copy: the author's object is never mutated.
   */
  readonly publishedInputSchema: JsonSchemaObject;
  /**
   * The normalization event kinds some call of this tool can record: none when normalization is
   * off; otherwise `renamed` and `dropped_alias` when the schema has top-level properties,
   * `coerced` when one of them is array-typed and refuses some scalar, and the one unknown-key
   * kind its schema and strict mode lead to.
   */
  readonly normalizedKinds: ReadonlySet<NormalizedEventKind>;
  /**
   * Normalizes (never mutating `args`) then validates. `undefined` counts as `{}`. Never throws:
   * an unexpected failure becomes a `SCHEMA_VALIDATION_FAILED` result at the root path.
   */
  check(args: unknown): ArgumentCheck;
}
