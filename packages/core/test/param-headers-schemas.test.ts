/**
 * The `Mcp-Param-*` check of an integer past 2^53 holds whatever the mirrored property's schema
 * says: a type list or `anyOf` was compared as a string, for which an unsafe integer expected no
 * header at all, so `9007199254740993` with header `1`, or none, was admitted.
 */
import { describe, expect, it } from 'vitest';

import { checkParamHeaders, paramHeaderDeclarations } from '../src/param-headers.js';

/** What JSON text `9007199254740993` parses to. */
const UNSAFE = 2 ** 53;

function refusalFor(property: Record<string, unknown>, headers: Record<string, string[]>): string | undefined {
  const declarations = paramHeaderDeclarations({
    type: 'object',
    properties: { shard: { ...property, 'x-mcp-header': 'Shard' } },
  });
  return checkParamHeaders(declarations, { shard: UNSAFE }, headers)?.rule;
}

describe('an unsafe integer in a mirrored property', () => {
  const schemas: [string, Record<string, unknown>][] = [
    ['integer', { type: 'integer' }],
    ['a type list', { type: ['integer', 'null'] }],
    ['anyOf', { anyOf: [{ type: 'integer' }, { type: 'string' }] }],
    ['number', { type: 'number' }],
    ['no type', {}],
  ];
  for (const [label, schema] of schemas)
    it(`is refused for ${label}, with the header 1 and with none`, () => {
      expect(refusalFor(schema, { 'mcp-param-shard': ['1'] })).toBe('param-header-unsafe-integer');
      expect(refusalFor(schema, {})).toBe('param-header-unsafe-integer');
    });

  it('leaves a string property alone, whose value and header are compared as text', () => {
    const declarations = paramHeaderDeclarations({
      type: 'object',
      properties: { shard: { type: ['string', 'null'], 'x-mcp-header': 'Shard' } },
    });
    expect(
      checkParamHeaders(declarations, { shard: '9007199254740993' }, { 'mcp-param-shard': ['9007199254740993'] }),
    ).toBeUndefined();
  });

  it('compares a number of a type list numerically, as an integer property is', () => {
    const declarations = paramHeaderDeclarations({
      type: 'object',
      properties: { shard: { type: ['integer', 'null'], 'x-mcp-header': 'Shard' } },
    });
    expect(declarations).toEqual([{ property: 'shard', header: 'Mcp-Param-Shard', type: 'integer' }]);
    expect(checkParamHeaders(declarations, { shard: 42 }, { 'mcp-param-shard': ['42.0'] })).toBeUndefined();
  });
});

describe('a numeric header compared with its body value', () => {
  const declarations = paramHeaderDeclarations({
    type: 'object',
    properties: {
      count: { type: 'integer', 'x-mcp-header': 'Count' },
      ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
    },
  });
  const check = (args: Record<string, unknown>, headers: Record<string, string>): string | undefined =>
    checkParamHeaders(
      declarations,
      args,
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    )?.rule;

  it('admits the number as written, with or without a fraction of zeros', () => {
    expect(check({ count: 42 }, { 'mcp-param-count': '42' })).toBeUndefined();
    expect(check({ count: 42 }, { 'mcp-param-count': '42.0' })).toBeUndefined();
    expect(check({ ratio: 0.1 }, { 'mcp-param-ratio': '0.1' })).toBeUndefined();
    expect(check({ ratio: -2.5 }, { 'mcp-param-ratio': '-2.5' })).toBeUndefined();
  });

  it('refuses a header text that only parses to the same number', () => {
    // each parsed to the body's number, and a gateway reading the text would route on another value
    expect(check({ count: 9007199254740990 }, { 'mcp-param-count': '9007199254740990.5' })).toBe(
      'param-header-mismatch',
    );
    expect(check({ count: 1 }, { 'mcp-param-count': '01' })).toBe('param-header-mismatch');
    expect(check({ ratio: 0.1 }, { 'mcp-param-ratio': '0.1000000000000000001' })).toBe('param-header-mismatch');
  });
});
