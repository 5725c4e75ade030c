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
import { referenceStrings } from '../json-references.js';

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
  for (const reference of referenceStrings(value)) into.add(reference);
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

  /** A new object with the same own properties, in order (a fresh key for the collapsing table). */
  function shallowCopy(node: SchemaNode): Record<string, unknown> {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(node)) setOwn(copy, key, node[key]);
    return copy;
  }

  /** The map with each value transformed; the map itself when no value changed. */
  function transformMap(map: SchemaNode, keepArrays: boolean): SchemaNode {
    const names = Object.keys(map);
    let mapped: Record<string, unknown> | undefined;
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index] as string;
      const entry = map[name];
      const next = keepArrays && Array.isArray(entry) ? entry : transform(entry);
      if (mapped === undefined && next !== entry) {
        mapped = {};
        for (let before = 0; before < index; before += 1) setOwn(mapped, names[before] as string, map[names[before] as string]);
      }
      if (mapped !== undefined) setOwn(mapped, name, next);
    }
    return mapped ?? map;
  }

  /** The list with each schema transformed; the list itself when none changed, unless `fresh`. */
  function transformList(list: readonly unknown[], fresh: boolean): readonly unknown[] {
    let mapped: unknown[] | undefined = fresh ? list.slice(0, 0) : undefined;
    for (let index = 0; index < list.length; index += 1) {
      // a sparse list keeps its holes, as `map` keeps them
      if (!(index in list)) return list.map(transform);
      const entry = list[index];
      const next = transform(entry);
      if (mapped === undefined && next !== entry) mapped = list.slice(0, index);
      if (mapped !== undefined) mapped.push(next);
    }
    return mapped ?? list;
  }

  /**
   * The transformed value of one keyword (the value itself when nothing in it changes). The
   * values the collapsing table is keyed by (`anyOf`/`oneOf` lists, `propertyNames`/`contains`
   * schemas) are always new, so that each occurrence has its own key even when the author's
   * schema shares one value between several places.
   */
  function transformKeyword(key: string, value: unknown): unknown {
    if (SCHEMA_MAP_KEYWORDS.has(key) && isSchemaNode(value)) return transformMap(value, false);
    if (key === 'dependencies' && isSchemaNode(value)) return transformMap(value, true);
    if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) return transformList(value, key === 'anyOf' || key === 'oneOf');
    if (key === 'items' && Array.isArray(value)) return transformList(value, false);
    if (SCHEMA_VALUE_KEYWORDS.has(key)) {
      const next = transform(value);
      return (key === 'propertyNames' || key === 'contains') && next === value && isSchemaNode(value) ? shallowCopy(value) : next;
    }
    return value;
  }

  /**
   * One schema node, copied only when something in it changes (copy on write): the prepared
   * schema shares every unchanged subtree with the published one, which nothing mutates.
   */
  function transform(node: unknown): unknown {
    if (!isSchemaNode(node)) return node;
    const keys = Object.keys(node);
    let out: Record<string, unknown> | undefined;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const value = node[key];
      const next = transformKeyword(key, value);
      if (out === undefined && next !== value) {
        out = {};
        for (let before = 0; before < index; before += 1) setOwn(out, keys[before] as string, node[keys[before] as string]);
      }
      if (out !== undefined) setOwn(out, key, next);
    }
    const allOf = node['allOf'];
    const wrapsAllOf = Array.isArray(allOf) && allOf.length >= 2 && !transparentAllOf.has(node) && (!('anyOf' in node) || !('oneOf' in node));
    const rewrites = Array.isArray(node['items']) || typeof node['exclusiveMaximum'] === 'boolean' || typeof node['exclusiveMinimum'] === 'boolean' || wrapsAllOf;
    if (out === undefined) {
      if (!rewrites) return node;
      out = shallowCopy(node);
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

    const outAllOf = out['allOf'];
    if (Array.isArray(outAllOf) && Array.isArray(allOf) && outAllOf.length >= 2 && !transparentAllOf.has(node)) {
      const wrapperKeyword = !('anyOf' in out) ? 'anyOf' : !('oneOf' in out) ? 'oneOf' : undefined;
      if (wrapperKeyword !== undefined) {
        const wrapper = [{ allOf: outAllOf }];
        delete out['allOf'];
        out[wrapperKeyword] = wrapper;
        collapsing.set(wrapper, { kind: 'allOf', branchBase: '/0/allOf', references: reachableReferences(allOf) });
      }
    }
    return out;
  }

  const transformed = transform(root) as Record<string, unknown>;
  // the root is always a new object: `$schema` may be deleted from it below
  const schema = transformed === root ? shallowCopy(root) : transformed;
  if (typeof declared === 'string' && !DRAFT_2020_12_URIS.has(declared)) delete schema['$schema'];
  return { schema, collapsing };
}
