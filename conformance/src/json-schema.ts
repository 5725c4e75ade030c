/**
 * Small, defensive readers for the JSON Schemas that MCP servers publish as tool `inputSchema`.
 * Every function accepts `unknown` and never throws: a server can send anything.
 *
 * @packageDocumentation
 */

import { pointerSegments } from '@hyperjump/json-pointer';
import { isRecord } from '@mcp-envelope/contract';

/** A JSON value, as it travels in tool arguments. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object, as tool arguments are. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** The simple JSON Schema `type` names the probes can replace with a value of another type. */
export type SimpleType = 'string' | 'integer' | 'number' | 'boolean';

const SIMPLE_TYPES: readonly string[] = ['string', 'integer', 'number', 'boolean'];

/** How many `$ref` hops a lookup follows before it gives up (guards against `$ref` cycles). */
const MAX_REF_HOPS = 32;

/**
 * A shallow copy of an object without some keys.
 *
 * @param record - the object.
 * @param keys - the keys to leave out.
 * @returns a new object with the other own enumerable keys.
 */
export function withoutKeys<T>(record: Readonly<Record<string, T>>, keys: readonly string[]): Record<string, T> {
  const copy: Record<string, T> = {};
  for (const [key, value] of Object.entries(record)) if (!keys.includes(key)) copy[key] = value;
  return copy;
}

/**
 * Looks up a local `$ref` (`#/$defs/Name`, `#/definitions/Name`, or any other JSON pointer into
 * the same document).
 *
 * @param root - the document the reference points into (the tool's whole `inputSchema`).
 * @param ref - the reference string.
 * @returns the referenced schema (an object or a boolean schema), or `undefined` when the reference
 *   is not local or does not resolve.
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // A malformed %-escape is taken literally.
  }
  let tokens: string[];
  try {
    tokens = [...pointerSegments(fragment)];
  } catch {
    return undefined; // not a JSON Pointer (`#anchor`, a `~` not followed by 0 or 1)
  }
  let node: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isRecord(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** The result of {@link derefSchema}. */
export type DerefResult =
  | { readonly ok: true; readonly schema: Readonly<Record<string, unknown>> | boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * Follows `$ref` chains until a schema without `$ref` is reached. Keywords written beside a
 * `$ref` (allowed since draft 2019-09) are kept and win over the referenced schema's keywords.
 *
 * @param root - the whole document (for local references).
 * @param schema - the schema to resolve.
 * @returns the resolved schema, or a reason (non-local or broken reference, reference cycle).
 */
export function derefSchema(root: unknown, schema: unknown): DerefResult {
  let current: unknown = schema;
  let siblings: Record<string, unknown> = {};
  for (let hop = 0; hop < MAX_REF_HOPS; hop += 1) {
    if (typeof current === 'boolean') return { ok: true, schema: current };
    if (!isRecord(current)) return { ok: false, reason: 'schema is not an object' };
    const ref = current['$ref'];
    if (typeof ref !== 'string') return { ok: true, schema: { ...current, ...siblings } };
    siblings = { ...withoutKeys(current, ['$ref']), ...siblings };
    const target = resolveLocalRef(root, ref);
    if (target === undefined)
      return { ok: false, reason: `cannot resolve $ref "${ref}" (only local references are followed)` };
    current = target;
  }
  return { ok: false, reason: `more than ${MAX_REF_HOPS} $ref hops (reference cycle?)` };
}

/**
 * Resolves a schema's `$ref` chain, giving an empty object (the "accept anything" schema) for
 * anything that cannot be resolved or is a boolean schema.
 *
 * @param root - the whole document.
 * @param schema - the schema to resolve.
 * @returns the resolved schema object.
 */
export function resolvedObject(root: unknown, schema: unknown): Readonly<Record<string, unknown>> {
  const result = derefSchema(root, schema);
  return result.ok && isRecord(result.schema) ? result.schema : {};
}

/**
 * The top-level properties of an object schema, in declaration order, with `$ref` resolved and the
 * `properties` of `allOf` members merged in (first declaration wins).
 *
 * @param root - the whole document.
 * @param schema - an object schema (typically the tool's `inputSchema`).
 * @returns property name -> resolved property schema.
 */
export function objectProperties(
  root: unknown,
  schema: unknown,
): ReadonlyMap<string, Readonly<Record<string, unknown>>> {
  const properties = new Map<string, Readonly<Record<string, unknown>>>();
  const visit = (node: unknown, depth: number): void => {
    const resolved = resolvedObject(root, node);
    const declared = resolved['properties'];
    if (isRecord(declared)) {
      for (const [name, propertySchema] of Object.entries(declared)) {
        if (!properties.has(name)) properties.set(name, resolvedObject(root, propertySchema));
      }
    }
    const allOf = resolved['allOf'];
    if (Array.isArray(allOf) && depth < 8) for (const member of allOf) visit(member, depth + 1);
  };
  visit(schema, 0);
  return properties;
}

/**
 * The `required` property names of an object schema (including those of `allOf` members), in
 * declaration order, without repeats. Non-string entries are ignored.
 *
 * @param root - the whole document.
 * @param schema - an object schema.
 * @returns the required names.
 */
export function requiredProperties(root: unknown, schema: unknown): readonly string[] {
  const names: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    const resolved = resolvedObject(root, node);
    const required = resolved['required'];
    if (Array.isArray(required)) {
      for (const name of required) if (typeof name === 'string' && !names.includes(name)) names.push(name);
    }
    const allOf = resolved['allOf'];
    if (Array.isArray(allOf) && depth < 8) for (const member of allOf) visit(member, depth + 1);
  };
  visit(schema, 0);
  return names;
}

/**
 * The single simple `type` of a schema: `string`, `integer`, `number` or `boolean` when `type` is
 * exactly that one name (or a one-item list of it) and no `anyOf`/`oneOf` widens it.
 *
 * @param schema - a resolved schema.
 * @returns the type name, or `undefined`.
 */
export function singleSimpleType(schema: Readonly<Record<string, unknown>>): SimpleType | undefined {
  if (schema['anyOf'] !== undefined || schema['oneOf'] !== undefined) return undefined;
  const type = schema['type'];
  const only: unknown = Array.isArray(type) && type.length === 1 ? type[0] : type;
  return typeof only === 'string' && SIMPLE_TYPES.includes(only) ? (only as SimpleType) : undefined;
}

/**
 * The string values of a schema's `enum`, when the `enum` is a non-empty list of strings only.
 *
 * @param schema - a resolved schema.
 * @returns the values, or `undefined`.
 */
export function stringEnum(schema: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const values: unknown = schema['enum'];
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const strings = values.filter((value): value is string => typeof value === 'string');
  return strings.length === values.length ? strings : undefined;
}

/**
 * Names the JSON type of a value the way envelopes do (`string`, `integer`, `number`, `boolean`,
 * `array`, `object`, `null`).
 *
 * @param value - any value.
 * @returns the type name.
 */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
