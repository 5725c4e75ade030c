/**
 * The tool registry on its own: which tool lists it refuses, how `tools/list` pages through the
 * tools, which tools it shows, and how each protocol era sees an output schema.
 */
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../src/index.js';
import { validateTools } from '../src/tool-registry.js';
import { testRegistry } from './fixtures/call-path.js';
import { captureLog } from './fixtures/log-capture.js';

function tool(name: string, more: Partial<EnvelopeTool> = {}): EnvelopeTool {
  return { name, inputSchema: { type: 'object' }, handler: () => name, ...more };
}

describe('the tool registry', () => {
  it('refuses a tool list with an empty name, a missing handler or a name given twice', () => {
    expect(() => {
      validateTools([tool('')]);
    }).toThrow('every tool needs a non-empty string name');
    expect(() => {
      validateTools([{ name: 'idle', inputSchema: { type: 'object' } } as unknown as EnvelopeTool]);
    }).toThrow('tool "idle" has no handler function');
    expect(() => {
      validateTools([tool('twice'), tool('once'), tool('twice')]);
    }).toThrow('tool name "twice" is registered twice');
  });

  it('pages tools/list by pageSize, with a cursor only it issued', () => {
    const registry = testRegistry([tool('a'), tool('b'), tool('c')], captureLog().logger, { pageSize: 2 });
    const first = registry.list(undefined);
    expect(first?.tools.map((listed) => listed.name)).toEqual(['a', 'b']);
    expect(typeof first?.nextCursor).toBe('string');
    const second = registry.list(first?.nextCursor);
    expect(second).toEqual({ tools: [expect.objectContaining({ name: 'c' }) as unknown] });
    expect(registry.list('not-a-cursor')).toBeUndefined();
    expect(registry.names).toEqual(['a', 'b', 'c']);
  });

  it('lists only the listOnly tools, and still finds the others by name', () => {
    const registry = testRegistry([tool('shown'), tool('hidden')], captureLog().logger, {
      listOnly: new Set(['shown']),
    });
    expect(registry.list(undefined)?.tools.map((listed) => listed.name)).toEqual(['shown']);
    expect(registry.get('hidden')?.tool.name).toBe('hidden');
    expect(registry.get('absent')).toBeUndefined();
  });

  it('shows an array-root outputSchema to modern clients only, widened to admit the envelope', () => {
    const listing = testRegistry(
      [tool('rows', { outputSchema: { type: 'array', items: { type: 'string' } } })],
      captureLog().logger,
    );
    const legacy = listing.list(undefined, 'legacy')?.tools[0];
    const modern = listing.list(undefined, 'modern')?.tools[0];
    // strict unknown fields: the published input schema refuses keys it does not name
    expect(legacy).toEqual({ name: 'rows', inputSchema: { type: 'object', additionalProperties: false } });
    expect(modern?.outputSchema).toMatchObject({ anyOf: [{ type: 'array', items: { type: 'string' } }, {}] });
    expect(listing.get('rows')?.outputRoot).toBe('other');
  });
});
