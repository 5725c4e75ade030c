import { describe, expect, it } from 'vitest';

import { referenceStrings, walkSchemaTree } from '../src/json-references.js';

describe('referenceStrings', () => {
  it('finds every $ref on a schema object, in document order (prefixItems when their node is met), repeats kept', () => {
    const schema = {
      $ref: '#/$defs/Root',
      properties: {
        a: { $ref: '#/$defs/A' },
        b: { type: 'array', items: { $ref: '#/$defs/B' }, prefixItems: [{ $ref: '#/$defs/P0' }, true] },
        c: { anyOf: [{ $ref: '#/$defs/A' }, { not: { $ref: '#/$defs/N' } }] },
      },
      $defs: { A: { additionalProperties: { $ref: 'other.json#/X' } }, 'a/b': { $ref: '#/$defs/A' } },
      'x-vendor': { $ref: '#/$defs/Vendor' },
    };
    expect(referenceStrings(schema)).toEqual([
      '#/$defs/Root',
      '#/$defs/A',
      '#/$defs/P0',
      '#/$defs/B',
      '#/$defs/A',
      '#/$defs/N',
      'other.json#/X',
      '#/$defs/A',
      '#/$defs/Vendor',
    ]);
  });

  it('leaves data alone: a $ref inside default, const, enum or examples is not a reference', () => {
    const schema = {
      type: 'object',
      default: { $ref: '#/d' },
      const: { $ref: '#/c' },
      enum: [{ $ref: '#/e' }],
      examples: [{ $ref: '#/x' }],
      properties: { ok: { $ref: '#/$defs/Ok' } },
    };
    expect(referenceStrings(schema)).toEqual(['#/$defs/Ok']);
  });

  it('walks each schema of an array and has none for anything else', () => {
    expect(referenceStrings([{ $ref: '#/a' }, { items: { $ref: '#/b' } }, 'x'])).toEqual(['#/a', '#/b']);
    expect(referenceStrings('#/a')).toEqual([]);
    expect(referenceStrings(undefined)).toEqual([]);
    expect(referenceStrings({ $ref: 7 })).toEqual([]);
  });
});

describe('walkSchemaTree', () => {
  it('reports each schema object with its pointer, its parent and the keyword it sits under', () => {
    const seen: string[] = [];
    walkSchemaTree(
      { properties: { 'a/b': { prefixItems: [{ type: 'string' }] } }, $defs: { D: { items: { type: 'null' } } } },
      (_node, pointer, parentPointer, parentKeyword, key) =>
        seen.push(`${pointer} < ${String(parentPointer)} ${String(parentKeyword)} ${String(key)}`),
    );
    expect(seen).toEqual([
      ' < undefined undefined undefined',
      '/properties/a~1b <  properties a/b',
      '/properties/a~1b/prefixItems/0 < undefined undefined undefined',
      '/$defs/D <  $defs D',
      '/$defs/D/items < /$defs/D items undefined',
    ]);
  });
});
