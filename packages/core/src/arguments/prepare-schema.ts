/**
 * Turns a tool's input schema into the copy Ajv compiles, without changing what it accepts:
 * - a `$schema` other than draft 2020-12 (draft-07, 2019-09, ...) is left out of the compiled
 *   copy (Ajv2020 knows no other meta-schema) and array-form `items` (tuples) become
 *   `prefixItems`, with `additionalItems` becoming `items`; boolean `exclusiveMaximum` /
 *   `exclusiveMinimum` (draft-04) become their numeric form. The published schema keeps the
 *   author's text;
 * - an `allOf` with two or more branches below the top level is wrapped in a one-branch `anyOf`
 *   (or `oneOf` when `anyOf` is taken), so that Ajv reports one error at the `allOf`'s instance
 *   path that can become `SCHEMA_ALL_OF_FAILED`. Top-level `allOf` (the arguments object
 *   assembled from parts) and single-branch `allOf` (a `$ref` wrapper) stay transparent: their
 *   inner errors keep their own codes.
 * It also records, for every combinator-like keyword, which `$ref` targets its branches reach, so
 * that branch errors Ajv reports under a `$defs` path can be told apart. Implements CONTRACT.md
 * "Schema validation codes" (combinators are reported at their parent path).
 *
 * @packageDocumentation
 */
import { setOwn } from './normalize.js';
import { isSchemaNode, resolveLocalReference } from './schema-shape.js';
import type { SchemaNode } from './schema-shape.js';

/** The `$schema` URIs treated as draft 2020-12 (kept when compiling). */
export const DRAFT_2020_12_URIS: ReadonlySet<string> = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

/** A keyword whose failing sub-schema errors are folded into one detail. */
export type CollapsingKind = 'anyOf' | 'oneOf' | 'allOf' | 'propertyNames' | 'contains';

/** What the validator needs to know about one collapsing keyword occurrence. */
export interface CollapsingInfo {
  readonly kind: CollapsingKind;
  /** Suffix after the error's `schemaPath` under which branch indexes start (`''` or `/0/allOf`). */
  readonly branchBase: string;
  /** `$ref` values reachable from the branches -> the first branch index that reaches them. */
  readonly references: ReadonlyMap<string, number>;
}

/** The compiled copy and the side tables built while producing it. */
export interface PreparedSchema {
  /** The schema handed to Ajv. */
  readonly schema: Record<string, unknown>;
  /**
   * Collapsing info keyed by the keyword's value in {@link schema} (the `anyOf`/`oneOf` array,
   * the `propertyNames`/`contains` sub-schema), which Ajv hands back as `error.schema`.
   */
  readonly collapsing: WeakMap<object, CollapsingInfo>;
}

const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_VALUE_KEYWORDS = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
  'items',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * Every `$ref` string found anywhere inside a value.
 *
 * @param value - a schema fragment.
 * @param into - the set to add to.
 */
function collectReferences(value: unknown, into: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
    } else if (isSchemaNode(current)) {
      for (const key of Object.keys(current)) {
        const item = current[key];
        if (key === '$ref' && typeof item === 'string') into.add(item);
        else stack.push(item);
      }
    }
  }
}

/**
 * Prepares a tool schema for Ajv. See the module description for what changes.
 *
 * @param root - a deep copy of the author's schema (not mutated).
 * @param transparentAllOf - schema nodes whose `allOf` is never wrapped (the top-level layers).
 * @returns the compiled copy and the collapsing table.
 */
export function prepareSchema(root: SchemaNode, transparentAllOf: ReadonlySet<SchemaNode>): PreparedSchema {
  const declared = root['$schema'];
  const collapsing = new WeakMap<object, CollapsingInfo>();
  const directReferences = new Map<string, Set<string>>();

  function referencesOf(reference: string): Set<string> {
    let found = directReferences.get(reference);
    if (found === undefined) {
      found = new Set();
      directReferences.set(reference, found);
      collectReferences(resolveLocalReference(root, reference), found);
    }
    return found;
  }

  function reachableReferences(branches: readonly unknown[]): Map<string, number> {
    const reached = new Map<string, number>();
    branches.forEach((branch, index) => {
      const direct = new Set<string>();
      collectReferences(branch, direct);
      const queue = [...direct];
      while (queue.length > 0) {
        const reference = queue.pop() as string;
        if (reached.has(reference)) continue;
        reached.set(reference, index);
        for (const next of referencesOf(reference)) if (!reached.has(next)) queue.push(next);
      }
    });
    return reached;
  }

  function transform(node: unknown): unknown {
    if (!isSchemaNode(node)) return node;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (SCHEMA_MAP_KEYWORDS.has(key) && isSchemaNode(value)) {
        const mapped: Record<string, unknown> = {};
        for (const name of Object.keys(value)) setOwn(mapped, name, transform(value[name]));
        out[key] = mapped;
      } else if (key === 'dependencies' && isSchemaNode(value)) {
        const mapped: Record<string, unknown> = {};
        for (const name of Object.keys(value)) {
          const entry = value[name];
          setOwn(mapped, name, Array.isArray(entry) ? entry : transform(entry));
        }
        out[key] = mapped;
      } else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
        out[key] = value.map(transform);
      } else if (key === 'items' && Array.isArray(value)) {
        out[key] = value.map(transform);
      } else if (SCHEMA_VALUE_KEYWORDS.has(key)) {
        out[key] = transform(value);
      } else {
        setOwn(out, key, value);
      }
    }

    // Tuple `items` (draft-07 and earlier, 2019-09) -> `prefixItems`; `additionalItems` -> `items`.
    const items = out['items'];
    if (Array.isArray(items)) {
      delete out['items'];
      if (!('prefixItems' in out)) out['prefixItems'] = items;
      if ('additionalItems' in out) {
        out['items'] = out['additionalItems'];
        delete out['additionalItems'];
      }
    }
    // Draft-04 boolean exclusive bounds -> numeric form.
    if (typeof out['exclusiveMaximum'] === 'boolean') {
      const bound = out['maximum'];
      if (out['exclusiveMaximum'] && typeof bound === 'number') {
        out['exclusiveMaximum'] = bound;
        delete out['maximum'];
      } else {
        delete out['exclusiveMaximum'];
      }
    }
    if (typeof out['exclusiveMinimum'] === 'boolean') {
      const bound = out['minimum'];
      if (out['exclusiveMinimum'] && typeof bound === 'number') {
        out['exclusiveMinimum'] = bound;
        delete out['minimum'];
      } else {
        delete out['exclusiveMinimum'];
      }
    }

    for (const kind of ['anyOf', 'oneOf'] as const) {
      const branches = out[kind];
      const original = node[kind];
      if (Array.isArray(branches) && Array.isArray(original)) {
        collapsing.set(branches, { kind, branchBase: '', references: reachableReferences(original) });
      }
    }
    for (const kind of ['propertyNames', 'contains'] as const) {
      const subSchema = out[kind];
      if (isSchemaNode(subSchema)) {
        collapsing.set(subSchema, { kind, branchBase: '', references: reachableReferences([node[kind]]) });
      }
    }

    const allOf = out['allOf'];
    const originalAllOf = node['allOf'];
    if (Array.isArray(allOf) && Array.isArray(originalAllOf) && allOf.length >= 2 && !transparentAllOf.has(node)) {
      const wrapperKeyword = !('anyOf' in out) ? 'anyOf' : !('oneOf' in out) ? 'oneOf' : undefined;
      if (wrapperKeyword !== undefined) {
        const wrapper = [{ allOf }];
        delete out['allOf'];
        out[wrapperKeyword] = wrapper;
        collapsing.set(wrapper, { kind: 'allOf', branchBase: '/0/allOf', references: reachableReferences(originalAllOf) });
      }
    }
    return out;
  }

  const schema = transform(root) as Record<string, unknown>;
  if (typeof declared === 'string' && !DRAFT_2020_12_URIS.has(declared)) delete schema['$schema'];
  return { schema, collapsing };
}
