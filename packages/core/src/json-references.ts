/**
 * Finding `$ref` strings inside JSON Schema fragments: one walk shared by the OpenAPI converter
 * (which definitions a converted schema uses), the schema preparation (which `$ref` targets a
 * combinator's branches reach) and the creation checks (local references, dangling ones).
 *
 * @packageDocumentation
 */

/**
 * Every `$ref` string anywhere inside a value, under any key and at any depth, in the order a
 * depth-first walk meets them (last child first); each object or array is visited once, so
 * shared and circular structures are fine. Repeats are kept.
 *
 * @param value - any value (a schema, a fragment, an array of them).
 * @returns the `$ref` values, not resolved.
 */
export function referenceStrings(value: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [value];
  const visited = new Set<object>();
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null || visited.has(current)) continue;
    visited.add(current);
    if (Array.isArray(current)) {
      for (const item of current) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    const record = current as Readonly<Record<string, unknown>>;
    const reference = record['$ref'];
    if (typeof reference === 'string') found.push(reference);
    for (const item of Object.values(record)) if (typeof item === 'object' && item !== null) stack.push(item);
  }
  return found;
}
