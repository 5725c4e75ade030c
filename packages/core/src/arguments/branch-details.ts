/**
 * What a failed `anyOf`, `oneOf` or `allOf` detail says about its branches, so that a caller can
 * correct the value from the envelope alone, the way it corrects a failure outside a combinator:
 * the nearest branch's own failures (or, for `allOf`, every part's) travel as ordinary details in
 * `branch_details`, and a `oneOf` whose branches carry a `const`/`enum` property that tells them
 * apart names that property and its values in `discriminator`. Ajv finds the failures; this
 * module only chooses among them and reads `const`/`enum` from the schema. Implements CONTRACT.md
 * "Schema validation codes" (combinators).
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail } from '@mcp-envelope/contract';

import { dereference, isSchemaNode, topLevelLayers } from './schema-shape.js';
import type { SchemaNode } from './schema-shape.js';

/** At most this many details travel in one combinator detail's `branch_details`. */
export const BRANCH_DETAIL_LIMIT = 10;

/**
 * At most this many levels of `branch_details` in one detail, its own counted. A schema that
 * refers to itself (a tree of nodes) nests one failed combinator per level of the value, and
 * each level repeats its longer path: without a bound the caller's value of a few kilobytes
 * would bring back megabytes. A deeper combinator keeps `branches` and `nearest_branch`.
 */
export const BRANCH_DETAIL_DEPTH = 3;

/** What the nearest-branch rule and `branch_details` read of one branch failure. */
export interface BranchFailure {
  /** The JSON Schema keyword that failed (`type`, `required`, `anyOf`, ...). */
  readonly keyword: string;
  /** Its `SCHEMA_*` code. */
  readonly code: string;
  /** The failure's detail path. */
  readonly path: string;
  /** The failure's ordinary detail. */
  readonly detail: EnvelopeDetail;
}

/**
 * A property whose `const`/`enum` tells the branches of a `oneOf` apart: every branch (with its
 * `$ref` chain and `allOf` parts) declares it with a `const` or an `enum`, and no value is
 * allowed by two branches.
 */
export interface Discriminator {
  /** The property's name, on the object the `oneOf` applies to. */
  readonly property: string;
  /** The values each branch allows for it, by branch index. */
  readonly values: readonly (readonly unknown[])[];
}

/**
 * The branch of a failed `anyOf`/`oneOf` nearest to passing, by this rule: the branch the value's
 * discriminator value selects, if any; otherwise branches that accept the value's JSON type (no
 * `type` failure at the combinator's own path) before those that do not, then the fewest
 * failures, then the lowest index. The type comes first because fixing fields inside an object
 * keeps what the caller sent, where a branch of another type would have it start over.
 *
 * @param byBranch - the failures of each branch that failed, by branch index.
 * @param path - the combinator's detail path.
 * @param selected - the branch a discriminator value selects, if any.
 * @returns the branch index, or `undefined` when no branch failed.
 */
export function nearestBranch(
  byBranch: ReadonlyMap<number, readonly Pick<BranchFailure, 'keyword' | 'path'>[]>,
  path: string,
  selected: number | undefined,
): number | undefined {
  if (selected !== undefined && byBranch.has(selected)) return selected;
  let best: readonly [number, number, number] | undefined;
  for (const [branch, failures] of byBranch) {
    const typeMiss = failures.some((failure) => failure.keyword === 'type' && failure.path === path) ? 1 : 0;
    const key = [typeMiss, failures.length, branch] as const;
    if (best === undefined || compareKeys(key, best) < 0) best = key;
  }
  return best?.[2];
}

function compareKeys(left: readonly number[], right: readonly number[]): number {
  for (let index = 0; index < left.length; index += 1) {
    const difference = (left[index] as number) - (right[index] as number);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The `branch_details` of a combinator detail: the given failures' details, in order, without a
 * repeat of the same code at the same path for the same unknown key (two `allOf` parts may both
 * require an object), at most {@link BRANCH_DETAIL_LIMIT}, nested at most
 * {@link BRANCH_DETAIL_DEPTH} levels deep (counting the combinator detail's own).
 *
 * @param failures - the nearest branch's failures, or every `allOf` part's in part order.
 * @returns the details.
 */
export function branchDetailsOf(failures: readonly Pick<BranchFailure, 'code' | 'detail'>[]): EnvelopeDetail[] {
  const seen = new Set<string>();
  const details: EnvelopeDetail[] = [];
  for (const { code, detail } of failures) {
    const extra = typeof detail['extra'] === 'string' ? detail['extra'] : '';
    const key = `${code}\u0000${detail.path}\u0000${extra}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(withNestingAtMost(detail, BRANCH_DETAIL_DEPTH - 1));
    if (details.length === BRANCH_DETAIL_LIMIT) break;
  }
  return details;
}

/** `detail` holding at most `levels` levels of `branch_details`; the same object when it does. */
function withNestingAtMost(detail: EnvelopeDetail, levels: number): EnvelopeDetail {
  const nested = detail['branch_details'];
  if (!Array.isArray(nested)) return detail;
  if (levels <= 0) {
    return Object.fromEntries(Object.entries(detail).filter(([key]) => key !== 'branch_details')) as EnvelopeDetail;
  }
  const kept = (nested as EnvelopeDetail[]).map((inner) => withNestingAtMost(inner, levels - 1));
  return kept.every((inner, index) => inner === nested[index]) ? detail : { ...detail, branch_details: kept };
}

/**
 * The discriminator of a `oneOf`'s branches, when one exists (see {@link Discriminator}); the
 * first such property in the first branch's document order.
 *
 * @param root - the tool's input schema, for local `$ref`s.
 * @param branches - the `oneOf` branches as the author wrote them.
 * @returns the discriminator, or `undefined`.
 */
export function discriminatorOf(root: SchemaNode, branches: readonly unknown[]): Discriminator | undefined {
  if (branches.length < 2) return undefined;
  const perBranch: Map<string, unknown[]>[] = [];
  for (const branch of branches) {
    if (!isSchemaNode(branch)) return undefined;
    perBranch.push(declaredValues(root, branch));
  }
  for (const property of (perBranch[0] as Map<string, unknown[]>).keys()) {
    const values = perBranch.map((declared) => declared.get(property));
    if (values.every((entry): entry is unknown[] => entry !== undefined) && disjoint(values))
      return { property, values };
  }
  return undefined;
}

/** Property name -> the values its `const` or `enum` allows, over a branch's layers. */
function declaredValues(root: SchemaNode, branch: SchemaNode): Map<string, unknown[]> {
  const found = new Map<string, unknown[]>();
  for (const layer of topLevelLayers(root, branch).core) {
    const properties = layer['properties'];
    if (!isSchemaNode(properties)) continue;
    for (const name of Object.keys(properties)) {
      const schema = dereference(root, properties[name]);
      if (found.has(name) || !isSchemaNode(schema)) continue;
      if (Object.hasOwn(schema, 'const')) found.set(name, [schema['const']]);
      else if (Array.isArray(schema['enum'])) found.set(name, [...(schema['enum'] as unknown[])]);
    }
  }
  return found;
}

function disjoint(values: readonly (readonly unknown[])[]): boolean {
  const seen = new Set<string>();
  for (const allowed of values) {
    const own = new Set(allowed.map((value) => JSON.stringify(value)));
    for (const text of own) if (seen.has(text)) return false;
    for (const text of own) seen.add(text);
  }
  return true;
}

/**
 * The branch whose discriminator values hold the value's own discriminator property.
 *
 * @param discriminator - the `oneOf`'s discriminator.
 * @param value - the value the `oneOf` applies to.
 * @returns the branch index, or `undefined` when the value is no object, lacks the property, or
 *   holds a value no branch allows.
 */
export function branchSelectedBy(discriminator: Discriminator, value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, discriminator.property)) return undefined;
  const text = JSON.stringify((value as Record<string, unknown>)[discriminator.property]);
  const index = discriminator.values.findIndex((allowed) => allowed.some((entry) => JSON.stringify(entry) === text));
  return index === -1 ? undefined : index;
}

/**
 * The `discriminator` key of a `oneOf` detail: the property's path, the values that select one
 * of the listed branches, and which branch each selects.
 *
 * @param discriminator - the `oneOf`'s discriminator.
 * @param path - the `oneOf`'s detail path.
 * @param branches - the branches to list: those that matched when several did, else all.
 * @returns `{ path, allowed, branches: [{ branch, allowed }] }`.
 */
export function discriminatorDetail(
  discriminator: Discriminator,
  path: string,
  branches: readonly number[],
): Record<string, unknown> {
  const listed = branches
    .filter((branch) => branch >= 0 && branch < discriminator.values.length)
    .map((branch) => ({ branch, allowed: [...(discriminator.values[branch] as readonly unknown[])] }));
  return {
    path: path === '' ? discriminator.property : `${path}/${discriminator.property}`,
    allowed: listed.flatMap((entry) => entry.allowed),
    branches: listed,
  };
}
