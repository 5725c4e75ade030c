/**
 * Widening a tool's `outputSchema` so error results validate against it. The SDK v1 client checks
 * `structuredContent` against the tool's `outputSchema` even when `isError` is true, and throws;
 * publishing `{ type: "object", anyOf: [<author schema>, <envelope schemas>] }` lets v1 and v2
 * clients accept both outcomes; the envelope branch admits contract versions 2 and 1 (whichever the
 * client was answered in). A schema of another root type (protocol revision 2026-07-28 admits
 * any JSON value as `structuredContent`) is published as `{ anyOf: [<author>, <envelope>] }`.
 *
 * Both branches are embedded with their internal references re-rooted: a `$ref` of `#/...` in the
 * author schema becomes `#/anyOf/0/...`, and in the envelope schemas `#/anyOf/1/anyOf/<n>/...`, so every
 * `$defs` keeps resolving without adding any `$id` (clients compile the schema again on every
 * `tools/list`; a repeated `$id` would make Ajv refuse it).
 *
 * @packageDocumentation
 */
import { ERROR_ENVELOPE_SCHEMA_V1, ERROR_ENVELOPE_SCHEMA_V2, isRecord } from '@mcp-envelope/contract';

import { SchemaCompiler } from './arguments/schema-validation.js';

/** A JSON Schema object. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Where the envelope branch sits in a published output schema. */
const ENVELOPE_BRANCH = '#/anyOf/1';

/** The contract's `_meta` schema (version 2, whose `rate_limit` also admits every v1 one) inside a published output schema. */
const META_REF = `${ENVELOPE_BRANCH}/anyOf/0/$defs/meta`;

/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples', 'example']);

function rebase(node: unknown, prefix: string, isRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rebase(item, prefix, false));
  if (!isRecord(node)) return node;
  // A nested schema resource resolves its own references against its `$id`.
  if (!isRoot && typeof node['$id'] === 'string') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    let next: unknown;
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && value.startsWith('#')) {
      next = value === '#' ? prefix : value.startsWith('#/') ? `${prefix}${value.slice(1)}` : value;
    } else if (DATA_KEYWORDS.has(key)) {
      next = value;
    } else {
      next = rebase(value, prefix, false);
    }
    Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Re-roots a schema for embedding at `pointer` of another document: drops its root `$schema` and
 * `$id`, and rewrites its `#`-relative references to start with `pointer`.
 *
 * @param schema - the schema to embed.
 * @param pointer - e.g. `#/anyOf/0`.
 * @returns a new schema object.
 */
export function embedSchema(schema: JsonSchema, pointer: string): JsonSchema {
  const rest: Record<string, unknown> = { ...schema };
  delete rest['$schema'];
  delete rest['$id'];
  return rebase(rest, pointer, true) as JsonSchema;
}

// computed once at load: a constant of this module, never changed. Both versions: a reader of
// contract version 1 gets v1 envelopes, and the SDK v1 client checks them against this schema too.
const EMBEDDED_ENVELOPE: JsonSchema = {
  anyOf: [
    embedSchema(ERROR_ENVELOPE_SCHEMA_V2, `${ENVELOPE_BRANCH}/anyOf/0`),
    embedSchema(ERROR_ENVELOPE_SCHEMA_V1, `${ENVELOPE_BRANCH}/anyOf/1`),
  ],
};

/**
 * The contract's envelope schemas (version 2, then version 1, as `anyOf`), ready to sit at
 * `#/anyOf/1` of a published output schema.
 *
 * @returns the embedded schema (the same object on every call).
 */
export function embeddedEnvelopeSchema(): JsonSchema {
  return EMBEDDED_ENVELOPE;
}

/**
 * Whether a tool's own output schema has an object root (`type: "object"`), the only root a
 * 2025-11-25 client accepts; any other root (an array, string, number, boolean or `null` value, a
 * union of types) can be published to 2026-07-28 clients only.
 *
 * @param authorSchema - the tool's own `outputSchema`.
 * @returns `true` for `type: "object"` at the root.
 */
export function hasObjectRoot(authorSchema: JsonSchema): boolean {
  return isRecord(authorSchema) && authorSchema['type'] === 'object';
}

/**
 * Builds the published output schema of a tool.
 *
 * @param authorSchema - the tool's own `outputSchema`: a JSON Schema object of any root type.
 * @returns for an object root, `{ type: "object", anyOf: [author, envelope] }`; for any other
 *   root, `{ anyOf: [author, envelope] }` (published to 2026-07-28 clients only, see
 *   {@link hasObjectRoot}). The author's `$schema` (if any) is kept at the root. When an object
 *   root is closed (`additionalProperties: false` or `unevaluatedProperties: false`) and has no
 *   `_meta` property, a `_meta` property referring to the contract's `_meta` schema is added,
 *   since success results carry `_meta`.
 * @throws TypeError when `authorSchema` is not a JSON Schema object.
 */
export function widenOutputSchema(authorSchema: JsonSchema): JsonSchema {
  if (!isRecord(authorSchema)) throw new TypeError('outputSchema must be a JSON Schema object');
  const root = typeof authorSchema['$schema'] === 'string' ? { $schema: authorSchema['$schema'] } : {};
  let author = embedSchema(authorSchema, '#/anyOf/0');
  if (!hasObjectRoot(authorSchema)) return { ...root, anyOf: [author, embeddedEnvelopeSchema()] };
  // Success results carry `_meta`; a closed author schema must admit it.
  const closed = author['additionalProperties'] === false || author['unevaluatedProperties'] === false;
  const properties = isRecord(author['properties']) ? author['properties'] : {};
  if (closed && !Object.hasOwn(properties, '_meta')) {
    author = { ...author, properties: { ...properties, _meta: { $ref: META_REF } } };
  }
  return { ...root, type: 'object', anyOf: [author, embeddedEnvelopeSchema()] };
}

/** The outcome of checking a success result against a tool's published output schema. */
export type OutputCheckResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * A checker of success results against a tool's published (widened) output schema, compiled with
 * Ajv on its first use. MCP requires structured results to conform to the tool's `outputSchema`,
 * and the SDK v1 client throws on one that does not; checking on the server turns that into an
 * `internal_error` envelope the caller can handle. A schema Ajv cannot compile (a `$schema` it
 * does not know, say) is reported once to `onUncompilable` and not checked: `check` then always
 * passes.
 *
 * @param published - the output schema as published in `tools/list`.
 * @param onUncompilable - called once, with Ajv's reason, when the schema does not compile.
 * @param compiler - the server's schema compiler (a new one when not given).
 * @returns `check(structuredContent)`.
 */
export function createOutputChecker(
  published: JsonSchema,
  onUncompilable: (reason: string) => void,
  compiler: SchemaCompiler = new SchemaCompiler(),
): { readonly check: (structured: unknown) => OutputCheckResult } {
  let validate:
    | (((value: unknown) => boolean) & { errors?: readonly { instancePath: string; message?: string }[] | null })
    | undefined;
  let compiled = false;
  const check = (structured: unknown): OutputCheckResult => {
    if (!compiled) {
      compiled = true;
      try {
        validate = compiler.compile(published);
      } catch (error) {
        onUncompilable(error instanceof Error ? error.message : String(error));
      }
    }
    if (validate === undefined || validate(structured)) return { ok: true };
    const first = validate.errors?.[0];
    return {
      ok: false,
      reason:
        first === undefined
          ? 'does not match'
          : `${first.instancePath === '' ? '(root)' : first.instancePath} ${first.message ?? 'is invalid'}`,
    };
  };
  return { check };
}
