import { describe, expect, it } from 'vitest';

import { createToolSearch, oneLine } from '../../src/code-mode/search.js';

const TOOLS = [
  {
    name: 'getOrders',
    description:
      'Returns orders created or updated during the time frame indicated by the specified parameters.\nMore text.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        MarketplaceIds: { type: 'array', description: 'A list of MarketplaceId values.' },
        CreatedAfter: { type: 'string' },
      },
    },
  },
  {
    name: 'getInventorySummaries',
    description: 'Returns a list of inventory summaries.',
    inputSchema: { type: 'object' as const, properties: { granularityType: { type: 'string' } } },
  },
  {
    name: 'create_report',
    description: 'Creates a report.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        reportType: { type: 'string', description: 'The report type, e.g. GET_FLAT_FILE_OPEN_LISTINGS_DATA.' },
      },
    },
  },
];

describe('createToolSearch', () => {
  const search = createToolSearch(TOOLS);

  it('finds a tool by words of its camelCase name, best first, with a one-line description', () => {
    expect(search.search('inventory summaries', 10)).toEqual([
      { name: 'getInventorySummaries', description: 'Returns a list of inventory summaries.' },
    ]);
    expect(search.search('orders', 10)[0]).toEqual({
      name: 'getOrders',
      description: 'Returns orders created or updated during the time frame indicated by the specified parameters.',
    });
  });

  it('finds a tool by a parameter name or a parameter description', () => {
    expect(search.search('marketplace', 10).map((hit) => hit.name)).toEqual(['getOrders']);
    expect(search.search('listings', 10).map((hit) => hit.name)).toEqual(['create_report']);
  });

  it('matches prefixes and small typos, and bounds the number of hits', () => {
    expect(search.search('invent', 10).map((hit) => hit.name)).toEqual(['getInventorySummaries']);
    expect(search.search('reprt', 10).map((hit) => hit.name)).toEqual(['create_report']);
    expect(search.search('orders report inventory', 2)).toHaveLength(2);
  });

  it('searches the first 16 distinct words of a query only, repeats not counted', () => {
    const filler = Array.from({ length: 16 }, (_, index) => `zq${String.fromCharCode(97 + index)}`).join(' ');
    expect(search.search(`${filler} inventory`, 10)).toEqual([]);
    expect(search.search(`${'inventory '.repeat(40)}${filler}`, 10).map((hit) => hit.name)).toEqual([
      'getInventorySummaries',
    ]);
  });

  it('answers an empty list when nothing matches', () => {
    expect(search.search('zzzzqqq', 10)).toEqual([]);
  });
});

describe('oneLine', () => {
  it('keeps the first sentence of the first line, at most 200 characters', () => {
    expect(oneLine('First. Second.')).toBe('First.');
    expect(oneLine('Line one\nline two')).toBe('Line one');
    expect(oneLine(undefined)).toBe('');
    expect(oneLine('x'.repeat(300))).toBe(`${'x'.repeat(197)}...`);
  });
});
