/**
 * Every table a package exports is frozen all the way down. Servers and clients in one process
 * share these modules: a table one caller changed by mistake (a redaction pattern list emptied,
 * a region's token URL rewritten) would change what every later server does.
 */
import { describe, expect, it } from 'vitest';

/** The entry points users import, each with the exports the build gives them. */
const ENTRY_POINTS: Readonly<Record<string, () => Promise<Record<string, unknown>>>> = {
  '@mcp-envelope/contract': () => import('@mcp-envelope/contract'),
  '@mcp-envelope/core': () => import('@mcp-envelope/core'),
  '@mcp-envelope/core/adapter': () => import('@mcp-envelope/core/adapter'),
  '@mcp-envelope/core/openapi': () => import('@mcp-envelope/core/openapi'),
  '@mcp-envelope/testing': () => import('@mcp-envelope/testing'),
  '@mcp-envelope/amazon': () => import('@mcp-envelope/amazon'),
  '@mcp-envelope/amazon/testing': () => import('@mcp-envelope/amazon/testing'),
  '@mcp-envelope/sp-adapter': () => import('@mcp-envelope/sp-adapter'),
  '@mcp-envelope/ads-adapter': () => import('@mcp-envelope/ads-adapter'),
  '@mcp-envelope/conformance': () => import('../src/index.js'),
};

/** The paths under `value` (itself included) of objects that are not frozen; functions and classes are not tables. */
function mutablePaths(value: unknown, path: string, seen: Set<object>): string[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  const own = Object.isFrozen(value) ? [] : [path];
  if (value instanceof Map || value instanceof Set) return [...own, `${path} (a ${value.constructor.name})`];
  const members = Object.entries(Object.getOwnPropertyDescriptors(value)).flatMap(([key, descriptor]) =>
    'value' in descriptor ? mutablePaths(descriptor.value, `${path}.${key}`, seen) : [],
  );
  return [...own, ...members];
}

describe('exported tables', () => {
  for (const [entry, load] of Object.entries(ENTRY_POINTS)) {
    it(`of ${entry} are frozen, every level of them`, async () => {
      const exports = await load();
      const tables = Object.entries(exports).filter(([, value]) => typeof value === 'object' && value !== null);
      const mutable = tables.flatMap(([name, value]) => mutablePaths(value, name, new Set()));
      expect(mutable).toEqual([]);
    });
  }

  it('include the schema-code table that schemaCodeEntry hands out', async () => {
    const { schemaCodeEntry } = await import('@mcp-envelope/contract');
    const entries = ['type', 'required', 'additionalProperties', 'a-keyword-without-a-code'].map(schemaCodeEntry);
    expect(entries.flatMap((entry, index) => mutablePaths(entry, `entry${index}`, new Set()))).toEqual([]);
  });

  it('catch a table that is not frozen at some level', () => {
    const table = Object.freeze({ rows: Object.freeze([Object.freeze({ id: 1 }), { id: 2 }]) });
    expect(mutablePaths(table, 'TABLE', new Set())).toEqual(['TABLE.rows.1']);
    expect(mutablePaths(Object.freeze({ seen: new Set([1]) }), 'T', new Set())).toEqual(['T.seen', 'T.seen (a Set)']);
  });
});
