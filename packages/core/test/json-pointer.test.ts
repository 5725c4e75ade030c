import { describe, expect, it } from 'vitest';

import { resolveLocalReference } from '../src/arguments/schema-shape.js';
import { fragmentSegments } from '../src/json-pointer.js';

describe('fragmentSegments', () => {
  it.each([
    ['#', []],
    ['#/$defs/a~1b', ['$defs', 'a/b']],
    ['#/$defs/a~01', ['$defs', 'a~1']],
    ['#/$defs/a%7E1b', ['$defs', 'a/b']],
    ['#/$defs/a%20b', ['$defs', 'a b']],
    ['other.json#/definitions/Thing', ['definitions', 'Thing']],
    ['#/', ['']],
  ])('decodes %j', (reference, segments) => {
    expect(fragmentSegments(reference)).toEqual(segments);
  });

  it.each(['Thing.json', '#anchor', '#/a~2', '#/a%E0%A4%A'])('refuses %j', (reference) => {
    expect(fragmentSegments(reference)).toBeUndefined();
  });
});

describe('resolveLocalReference', () => {
  const root = { $defs: { 'a/b': { type: 'string' }, 'a~1': { type: 'integer' } }, items: [{ type: 'null' }] };

  it('follows escaped, percent-encoded and array tokens', () => {
    expect(resolveLocalReference(root, '#/$defs/a~1b')).toEqual({ type: 'string' });
    expect(resolveLocalReference(root, '#/$defs/a%7E1b')).toEqual({ type: 'string' });
    expect(resolveLocalReference(root, '#/$defs/a~01')).toEqual({ type: 'integer' });
    expect(resolveLocalReference(root, '#/items/0')).toEqual({ type: 'null' });
    expect(resolveLocalReference(root, '#')).toBe(root);
  });

  it('gives undefined for non-local, dangling and malformed references', () => {
    expect(resolveLocalReference(root, 'other.json#/$defs/a~1b')).toBeUndefined();
    expect(resolveLocalReference(root, '#/$defs/missing')).toBeUndefined();
    expect(resolveLocalReference(root, '#/$defs/a~2')).toBeUndefined();
  });
});
