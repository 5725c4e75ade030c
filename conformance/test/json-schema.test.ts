import { describe, expect, it } from 'vitest';

import { derefSchema, resolveLocalRef } from '../src/json-schema.js';

describe('resolveLocalRef', () => {
  const root = {
    $defs: { 'a/b': { type: 'string' }, 'a~1': { type: 'integer' }, '100%': { type: 'boolean' } },
    prefixItems: [{ type: 'null' }],
  };

  it('follows escaped, percent-encoded and array tokens', () => {
    expect(resolveLocalRef(root, '#/$defs/a~1b')).toEqual({ type: 'string' });
    expect(resolveLocalRef(root, '#/$defs/a%7E1b')).toEqual({ type: 'string' });
    expect(resolveLocalRef(root, '#/$defs/a~01')).toEqual({ type: 'integer' });
    expect(resolveLocalRef(root, '#/prefixItems/0')).toEqual({ type: 'null' });
    expect(resolveLocalRef(root, '#')).toBe(root);
  });

  it('takes a malformed %-escape literally', () => {
    expect(resolveLocalRef(root, '#/$defs/100%')).toEqual({ type: 'boolean' });
  });

  it('gives undefined for non-local, dangling and malformed references', () => {
    expect(resolveLocalRef(root, 'other.json#/$defs/a~1b')).toBeUndefined();
    expect(resolveLocalRef(root, '#/$defs/missing')).toBeUndefined();
    expect(resolveLocalRef(root, '#/$defs/a~2')).toBeUndefined();
    expect(resolveLocalRef(root, '#anchor')).toBeUndefined();
  });

  it('lets derefSchema follow an escaped reference and keep the keywords beside it', () => {
    expect(derefSchema(root, { $ref: '#/$defs/a~1b', maxLength: 3 })).toEqual({
      ok: true,
      schema: { type: 'string', maxLength: 3 },
    });
  });
});
