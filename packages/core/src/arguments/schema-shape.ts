/**
 * Reading a tool's input schema: local `$ref` resolution, the top-level property index that
 * normalization and hints use, and short type descriptions for hints.
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';

import { foldKey } from './did-you-mean.js';
import { fragmentSegments } from '../json-pointer.js';

/** One JSON Schema node (an object; `true`/`false` schemas are handled by the callers). */
export type SchemaNode = Readonly<Record<string, unknown>>;

/**
 * Whether a value is a schema object (not a boolean schema, not an array).
 *
 * @param value - any value found in a schema.
 * @returns `true` for plain JSON objects.
 */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return isRecord(value);
}

const MAX_REF_HOPS = 32;

/**
 * Resolves a local reference (`#`, `#/$defs/Name`, `#/definitions/Name`, any JSON pointer
 * fragment, percent-encoded or not) inside `root`.
 *
 * @param root - the whole schema document.
 * @param reference - the `$ref` value.
 * @returns the referenced value, or `undefined` for a non-local or dangling reference.
 */
export function resolveLocalReference(root: SchemaNode, reference: string): unknown {
  const segments = reference.startsWith('#') ? fragmentSegments(reference) : undefined;
  if (segments === undefined) return undefined;
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current)) current = current[Number(segment)];
    else if (isSchemaNode(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/**
 * Follows a node's `$ref` chain through local references.
 *
 * @param root - the whole schema document.
 * @param node - the node to start from.
 * @returns every node of the chain after `node` (the targets, in order), without cycles.
 */
export function referenceTargets(root: SchemaNode, node: SchemaNode): SchemaNode[] {
  const targets: SchemaNode[] = [];
  let current = node;
  for (let hop = 0; hop < MAX_REF_HOPS; hop += 1) {
    const reference = current['$ref'];
    if (typeof reference !== 'string') break;
    const target = resolveLocalReference(root, reference);
    if (!isSchemaNode(target) || target === node || targets.includes(target)) break;
    targets.push(target);
    current = target;
  }
  return targets;
}

/**
 * A node with its local `$ref` chain resolved: the last target, or the node itself.
 *
 * @param root - the whole schema document.
 * @param node - a schema node (or a boolean schema, returned as is).
 * @returns the node the chain ends at.
 */
export function dereference(root: SchemaNode, node: unknown): unknown {
  if (!isSchemaNode(node)) return node;
  const targets = referenceTargets(root, node);
  return targets.length === 0 ? node : targets[targets.length - 1];
}

/** The schema nodes that describe the top level of a tool's arguments. */
export interface TopLevelLayers {
  /**
   * The root, the targets of its `$ref` chain, and the branches of `allOf` found on any of those
   * (recursively, through their own `$ref`s), in document order: every one of them applies.
   */
  readonly core: readonly SchemaNode[];
  /** Branches of `anyOf`/`oneOf` on a core layer (and their `$ref` targets): they may apply. */
  readonly alternatives: readonly SchemaNode[];
}

/**
 * Collects the layers that make up the top level of a tool schema, or of one node inside it.
 *
 * @param root - the tool's input schema (the document local `$ref`s resolve in).
 * @param start - the node whose layers to collect; the root by default.
 * @returns the core layers (`start` first) and the alternative layers.
 */
export function topLevelLayers(root: SchemaNode, start: SchemaNode = root): TopLevelLayers {
  const core: SchemaNode[] = [];
  const queue: SchemaNode[] = [start];
  while (queue.length > 0 && core.length < 64) {
    const node = queue.shift() as SchemaNode;
    if (core.includes(node)) continue;
    core.push(node);
    const next: SchemaNode[] = [];
    const reference = node['$ref'];
    if (typeof reference === 'string') {
      const target = resolveLocalReference(root, reference);
      if (isSchemaNode(target)) next.push(target);
    }
    const allOf = node['allOf'];
    if (Array.isArray(allOf)) for (const branch of allOf) if (isSchemaNode(branch)) next.push(branch);
    queue.unshift(...next);
  }
  const alternatives: SchemaNode[] = [];
  for (const layer of core) {
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = layer[keyword];
      if (!Array.isArray(branches)) continue;
      for (const branch of branches) {
        if (!isSchemaNode(branch)) continue;
        for (const node of [branch, ...referenceTargets(root, branch)]) {
          if (!core.includes(node) && !alternatives.includes(node)) alternatives.push(node);
        }
      }
    }
  }
  return { core, alternatives };
}

/** How a schema layer set treats keys it does not define. */
export type ExtraKeyIntent = 'absent' | 'forbids' | 'allows';

function intentOf(value: unknown): ExtraKeyIntent {
  if (value === undefined) return 'absent';
  return value === false ? 'forbids' : 'allows';
}

/** What normalization knows about one top-level property. */
export interface PropertyInfo {
  /** The property name as the schema writes it. */
  readonly name: string;
  /** Its position among the top-level properties in document order (0-based). */
  readonly order: number;
  /** The property's schema (after following local `$ref`s), or `undefined` when it is `true`/`false`. */
  readonly schema: SchemaNode | undefined;
  /**
   * JSON types the property accepts when its `type` is or includes `array`, or when it is an
   * `anyOf`/`oneOf` whose branches all name types and one of them is `array`; `undefined` when
   * the property is not array-typed. A scalar whose type is not in this set is wrapped in an array.
   */
  readonly arrayAcceptedTypes: ReadonlySet<string> | undefined;
}

/** The precomputed view of a schema's top level. */
export interface TopLevelShape {
  /** Top-level properties by exact name, in document order (root first, then `$ref`/`allOf` layers). */
  readonly properties: ReadonlyMap<string, PropertyInfo>;
  /** Property names in document order. */
  readonly names: readonly string[];
  /** {@link foldKey} form -> the property names with that form. */
  readonly folded: ReadonlyMap<string, readonly string[]>;
  /** `patternProperties` of every core layer, compiled. */
  readonly patterns: readonly RegExp[];
  /** The first declared `additionalProperties` intent (root first, then the other layers). */
  readonly additionalIntent: ExtraKeyIntent;
  /** The first declared `unevaluatedProperties` intent. */
  readonly unevaluatedIntent: ExtraKeyIntent;
  /**
   * `true` when some property is defined outside the root's own `properties` (in a `$ref`
   * target or an `allOf`, `anyOf` or `oneOf` branch): a top-level `additionalProperties: false`
   * would then reject valid keys, so strict mode injects `unevaluatedProperties: false` instead.
   */
  readonly composed: boolean;
  /** The core layers (see {@link topLevelLayers}). */
  readonly layers: readonly SchemaNode[];
  /** `true` when the root, or the target of its `$ref` chain, has `type: "object"`. */
  readonly objectTyped: boolean;
  /** The root's own `type` keyword, as written. */
  readonly rootType: unknown;
}

/**
 * Compiles a `patternProperties` key the way Ajv does (with the `u` flag), falling back to a
 * plain regular expression, and to nothing when the pattern is not valid either way.
 *
 * @param pattern - the pattern source.
 * @returns the regular expression, or `undefined`.
 */
export function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

/** The JSON types a `type` keyword names (`undefined` when it is absent or names none). */
function typesOf(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (!Array.isArray(type)) return undefined;
  const types = type.filter((entry): entry is string => typeof entry === 'string');
  return types.length === 0 ? undefined : types;
}

/**
 * The types of a property's schema: its own `type`, else the union of the types of its
 * `anyOf`/`oneOf` branches when every branch names one (`Optional[List[str]]` as Pydantic and
 * FastMCP write it: `anyOf: [{type: "array", ...}, {type: "null"}]`).
 */
function acceptedTypes(root: SchemaNode, schema: SchemaNode): string[] | undefined {
  const own = typesOf(schema['type']);
  if (own !== undefined) return own;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const union: string[] = [];
    for (const branch of branches) {
      const resolved = dereference(root, branch);
      const types = isSchemaNode(resolved) ? typesOf(resolved['type']) : undefined;
      // a branch that names no type may accept a scalar as it is: never wrap
      if (types === undefined) return undefined;
      union.push(...types);
    }
    return union;
  }
  return undefined;
}

function arrayAcceptedTypes(root: SchemaNode, schema: SchemaNode | undefined): ReadonlySet<string> | undefined {
  if (schema === undefined) return undefined;
  const types = acceptedTypes(root, schema);
  if (types === undefined || !types.includes('array')) return undefined;
  const accepted = new Set(types);
  if (accepted.has('number')) accepted.add('integer');
  return accepted;
}

/**
 * Builds the top-level view of a tool's input schema: properties merged over the root, its
 * `$ref` chain and its `allOf` branches (then the `anyOf`/`oneOf` branches, which may apply);
 * folded names; pattern properties; declared intents (core layers only, the root first).
 *
 * @param root - the tool's input schema (not mutated).
 * @returns the precomputed shape.
 */
export function analyzeTopLevel(root: SchemaNode): TopLevelShape {
  const { core, alternatives } = topLevelLayers(root);
  const properties = new Map<string, PropertyInfo>();
  const patterns: RegExp[] = [];
  let additionalIntent: ExtraKeyIntent = 'absent';
  let unevaluatedIntent: ExtraKeyIntent = 'absent';
  let composed = false;
  for (const layer of [...core, ...alternatives]) {
    const isCore = core.includes(layer);
    const layerProperties = layer['properties'];
    if (isSchemaNode(layerProperties)) {
      for (const name of Object.keys(layerProperties)) {
        // Ajv never treats a property named `__proto__` as defined; neither does normalization.
        if (properties.has(name) || name === '__proto__') continue;
        if (layer !== root) composed = true;
        const resolved = dereference(root, layerProperties[name]);
        const schema = isSchemaNode(resolved) ? resolved : undefined;
        properties.set(name, {
          name,
          order: properties.size,
          schema,
          arrayAcceptedTypes: arrayAcceptedTypes(root, schema),
        });
      }
    }
    if (!isCore) continue;
    const layerPatterns = layer['patternProperties'];
    if (isSchemaNode(layerPatterns)) {
      for (const pattern of Object.keys(layerPatterns)) {
        const compiled = compilePattern(pattern);
        if (compiled !== undefined) patterns.push(compiled);
      }
    }
    if (additionalIntent === 'absent') additionalIntent = intentOf(layer['additionalProperties']);
    if (unevaluatedIntent === 'absent') unevaluatedIntent = intentOf(layer['unevaluatedProperties']);
  }
  const folded = new Map<string, string[]>();
  for (const name of properties.keys()) {
    const key = foldKey(name);
    const list = folded.get(key);
    if (list === undefined) folded.set(key, [name]);
    else list.push(name);
  }
  const refTargets = referenceTargets(root, root);
  const objectTyped = root['type'] === 'object' || refTargets.some((target) => target['type'] === 'object');
  return {
    properties,
    names: [...properties.keys()],
    folded,
    patterns,
    additionalIntent,
    unevaluatedIntent,
    composed,
    layers: core,
    objectTyped,
    rootType: root['type'],
  };
}

/**
 * A short description of the type a schema expects, for `missing_required` hints:
 * `string`, `array of string`, `string or null`, `integer or string`.
 *
 * @param root - the whole schema document (for local `$ref`s).
 * @param schema - the property's schema.
 * @returns the description, or `undefined` when the schema names no type.
 */
export function describeType(root: SchemaNode, schema: unknown, depth = 0): string | undefined {
  const node = dereference(root, schema);
  if (!isSchemaNode(node) || depth > 4) return undefined;
  const describeOne = (type: unknown): string | undefined => {
    if (typeof type !== 'string') return undefined;
    if (type !== 'array') return type;
    const items = describeType(root, node['items'], depth + 1);
    return items === undefined ? 'array' : `array of ${items}`;
  };
  const type = node['type'];
  if (typeof type === 'string') return describeOne(type);
  if (Array.isArray(type)) {
    const parts = type.map(describeOne).filter((part): part is string => part !== undefined);
    return parts.length === 0 ? undefined : parts.join(' or ');
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.length > 0) {
      const parts = branches.map((branch) => describeType(root, branch, depth + 1));
      if (parts.every((part): part is string => part !== undefined)) return [...new Set(parts)].join(' or ');
    }
  }
  return undefined;
}
