/**
 * Walking JSON Schema trees: one walk, on `json-schema-traverse`, shared by the tool admission
 * checks (where `x-mcp-header` annotations sit), the OpenAPI converter (which definitions a
 * converted schema uses), the schema preparation (which `$ref` targets a combinator's branches
 * reach) and the creation checks (local references, dangling ones).
 *
 * @packageDocumentation
 */

import traverse from 'json-schema-traverse';
import { isRecord } from '@mcp-envelope/contract';

import type { JsonSchemaObject } from './types.js';

/**
 * What {@link walkSchemaTree} calls for each schema object.
 *
 * @param node - the schema object.
 * @param pointer - its JSON Pointer from the walk's root (`''` for the root).
 * @param parentPointer - the pointer of the schema holding it (`undefined` for the root).
 * @param parentKeyword - the keyword it sits under in that schema (`properties`, `items`, ...).
 * @param key - its property name or array index under that keyword, when there is one.
 */
export type SchemaVisit = (
  node: JsonSchemaObject,
  pointer: string,
  parentPointer: string | undefined,
  parentKeyword: string | undefined,
  key: string | number | undefined,
) => void;

/**
 * Calls `visit` for every schema object in a tree, root first, in document order:
 * `json-schema-traverse` over all keys (nested `properties`, `items`, `oneOf`/`anyOf`/`allOf`,
 * `$defs` and `definitions`, `not`/`if`/`then`/`else` and unknown keywords holding an object),
 * plus `prefixItems`, an array of schemas the library does not know. Values of `default`,
 * `const`, `enum` and other non-schema keywords are data and never walked.
 *
 * @param schema - the root schema object.
 * @param visit - called once per schema object.
 * @param base - a pointer prefix for every reported pointer (`''` for the tree's own root).
 */
export function walkSchemaTree(schema: JsonSchemaObject, visit: SchemaVisit, base = ''): void {
  traverse(schema, { allKeys: true }, (node, pointer, _root, parentPointer, parentKeyword, _parent, key) => {
    const absolute = base + pointer;
    visit(node, absolute, parentPointer === undefined ? undefined : base + parentPointer, parentKeyword, key);
    const prefixItems: unknown = node['prefixItems'];
    if (!Array.isArray(prefixItems)) return;
    prefixItems.forEach((item: unknown, index) => {
      if (isRecord(item)) walkSchemaTree(item, visit, `${absolute}/prefixItems/${String(index)}`);
    });
  });
}

/**
 * Every `$ref` string on a schema object inside a value, in the order {@link walkSchemaTree}
 * meets them (document order). Repeats are kept.
 *
 * @param value - a schema, a fragment, or an array of them (anything else has none).
 * @returns the `$ref` values, not resolved.
 */
export function referenceStrings(value: unknown): string[] {
  const found: string[] = [];
  const collect = (node: JsonSchemaObject): void => {
    const reference = node['$ref'];
    if (typeof reference === 'string') found.push(reference);
  };
  for (const root of Array.isArray(value) ? (value as unknown[]) : [value])
    if (isRecord(root)) walkSchemaTree(root, collect);
  return found;
}
