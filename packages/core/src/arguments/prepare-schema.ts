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

import { discriminatorOf } from './branch-details.js';
import type { Discriminator } from './branch-details.js';
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
  /** For a `oneOf`: the `const`/`enum` property that tells its branches apart, when one does. */
  readonly discriminator?: Discriminator;
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

const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
const SCHEMA_VALUE_KEYWORDS: ReadonlySet<string> = new Set([
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
const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

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
  const preparer = new SchemaPreparer(root, transparentAllOf);
  const transformed = preparer.transform(root) as Record<string, unknown>;
  // the root is always a new object: `$schema` may be deleted from it below
  const schema = transformed === root ? shallowCopy(root) : transformed;
  if (typeof declared === 'string' && !DRAFT_2020_12_URIS.has(declared)) delete schema['$schema'];
  return { schema, collapsing: preparer.collapsing };
}

/** A new object with the same own properties, in order (a fresh key for the collapsing table). */
function shallowCopy(node: SchemaNode): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(node)) setOwn(copy, key, node[key]);
  return copy;
}

/** Tuple `items` (draft-07 and earlier, 2019-09) -> `prefixItems`; `additionalItems` -> `items`. */
function rewriteTupleItems(out: Record<string, unknown>): void {
  const items = out['items'];
  if (!Array.isArray(items)) return;
  delete out['items'];
  if (!('prefixItems' in out)) out['prefixItems'] = items;
  if ('additionalItems' in out) {
    out['items'] = out['additionalItems'];
    delete out['additionalItems'];
  }
}

/** Draft-04 boolean exclusive bounds -> numeric form. */
function rewriteExclusiveBound(
  out: Record<string, unknown>,
  exclusive: 'exclusiveMaximum' | 'exclusiveMinimum',
  inclusive: 'maximum' | 'minimum',
): void {
  if (typeof out[exclusive] !== 'boolean') return;
  const bound = out[inclusive];
  if (out[exclusive] && typeof bound === 'number') {
    out[exclusive] = bound;
    Reflect.deleteProperty(out, inclusive);
  } else {
    Reflect.deleteProperty(out, exclusive);
  }
}

/** The walk of one schema's preparation, with what it learns along the way. */
class SchemaPreparer {
  /** The collapsing table being filled (see {@link PreparedSchema}). */
  readonly collapsing = new WeakMap<object, CollapsingInfo>();
  private readonly directReferences = new Map<string, Set<string>>();

  constructor(
    private readonly root: SchemaNode,
    private readonly transparentAllOf: ReadonlySet<SchemaNode>,
  ) {}

  private referencesOf(reference: string): Set<string> {
    let found = this.directReferences.get(reference);
    if (found === undefined) {
      found = new Set();
      this.directReferences.set(reference, found);
      collectReferences(resolveLocalReference(this.root, reference), found);
    }
    return found;
  }

  private reachableReferences(branches: readonly unknown[]): Map<string, number> {
    const reached = new Map<string, number>();
    branches.forEach((branch, index) => {
      const direct = new Set<string>();
      collectReferences(branch, direct);
      const queue = [...direct];
      while (queue.length > 0) {
        const reference = queue.pop() as string;
        if (reached.has(reference)) continue;
        reached.set(reference, index);
        for (const next of this.referencesOf(reference)) if (!reached.has(next)) queue.push(next);
      }
    });
    return reached;
  }

  /** The map with each value transformed; the map itself when no value changed. */
  private transformMap(map: SchemaNode, keepArrays: boolean): SchemaNode {
    const names = Object.keys(map);
    let mapped: Record<string, unknown> | undefined;
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index] as string;
      const entry = map[name];
      const next = keepArrays && Array.isArray(entry) ? entry : this.transform(entry);
      if (mapped === undefined && next !== entry) {
        mapped = {};
        for (let before = 0; before < index; before += 1)
          setOwn(mapped, names[before] as string, map[names[before] as string]);
      }
      if (mapped !== undefined) setOwn(mapped, name, next);
    }
    return mapped ?? map;
  }

  /** The list with each schema transformed; the list itself when none changed, unless `fresh`. */
  private transformList(list: readonly unknown[], fresh: boolean): readonly unknown[] {
    let mapped: unknown[] | undefined = fresh ? list.slice(0, 0) : undefined;
    for (let index = 0; index < list.length; index += 1) {
      // a sparse list keeps its holes, as `map` keeps them
      if (!(index in list)) return list.map((entry) => this.transform(entry));
      const entry = list[index];
      const next = this.transform(entry);
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
  private transformKeyword(key: string, value: unknown): unknown {
    if (SCHEMA_MAP_KEYWORDS.has(key) && isSchemaNode(value)) return this.transformMap(value, false);
    if (key === 'dependencies' && isSchemaNode(value)) return this.transformMap(value, true);
    if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value))
      return this.transformList(value, key === 'anyOf' || key === 'oneOf');
    if (key === 'items' && Array.isArray(value)) return this.transformList(value, false);
    if (SCHEMA_VALUE_KEYWORDS.has(key)) {
      const next = this.transform(value);
      return (key === 'propertyNames' || key === 'contains') && next === value && isSchemaNode(value)
        ? shallowCopy(value)
        : next;
    }
    return value;
  }

  /**
   * One schema node, copied only when something in it changes (copy on write): the prepared
   * schema shares every unchanged subtree with the published one, which nothing mutates.
   */
  transform(node: unknown): unknown {
    if (!isSchemaNode(node)) return node;
    const keys = Object.keys(node);
    let out: Record<string, unknown> | undefined;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const value = node[key];
      const next = this.transformKeyword(key, value);
      if (out === undefined && next !== value) {
        out = {};
        for (let before = 0; before < index; before += 1)
          setOwn(out, keys[before] as string, node[keys[before] as string]);
      }
      if (out !== undefined) setOwn(out, key, next);
    }
    const allOf = node['allOf'];
    const wrapsAllOf =
      Array.isArray(allOf) &&
      allOf.length >= 2 &&
      !this.transparentAllOf.has(node) &&
      (!('anyOf' in node) || !('oneOf' in node));
    const rewrites =
      Array.isArray(node['items']) ||
      typeof node['exclusiveMaximum'] === 'boolean' ||
      typeof node['exclusiveMinimum'] === 'boolean' ||
      wrapsAllOf;
    if (out === undefined) {
      if (!rewrites) return node;
      out = shallowCopy(node);
    }
    rewriteTupleItems(out);
    rewriteExclusiveBound(out, 'exclusiveMaximum', 'maximum');
    rewriteExclusiveBound(out, 'exclusiveMinimum', 'minimum');
    this.recordCollapsing(node, out);
    this.wrapAllOf(node, out);
    return out;
  }

  /** Files the `anyOf`/`oneOf` lists and `propertyNames`/`contains` schemas of `out`. */
  private recordCollapsing(node: SchemaNode, out: Record<string, unknown>): void {
    for (const kind of ['anyOf', 'oneOf'] as const) {
      const branches = out[kind];
      const original = node[kind];
      if (Array.isArray(branches) && Array.isArray(original)) {
        const discriminator = kind === 'oneOf' ? discriminatorOf(this.root, original) : undefined;
        this.collapsing.set(branches, {
          kind,
          branchBase: '',
          references: this.reachableReferences(original),
          ...(discriminator === undefined ? {} : { discriminator }),
        });
      }
    }
    for (const kind of ['propertyNames', 'contains'] as const) {
      const subSchema = out[kind];
      if (isSchemaNode(subSchema)) {
        this.collapsing.set(subSchema, { kind, branchBase: '', references: this.reachableReferences([node[kind]]) });
      }
    }
  }

  /** Wraps an `allOf` of two or more branches in a free `anyOf` (or `oneOf`) of one branch. */
  private wrapAllOf(node: SchemaNode, out: Record<string, unknown>): void {
    const allOf = node['allOf'];
    const outAllOf = out['allOf'];
    if (!Array.isArray(outAllOf) || !Array.isArray(allOf) || outAllOf.length < 2 || this.transparentAllOf.has(node))
      return;
    const wrapperKeyword = !('anyOf' in out) ? 'anyOf' : !('oneOf' in out) ? 'oneOf' : undefined;
    if (wrapperKeyword === undefined) return;
    const wrapper = [{ allOf: outAllOf }];
    delete out['allOf'];
    out[wrapperKeyword] = wrapper;
    this.collapsing.set(wrapper, {
      kind: 'allOf',
      branchBase: '/0/allOf',
      references: this.reachableReferences(allOf),
    });
  }
}
