/**
 * Registering tools generated from an API description: `compileTool` copies each input schema
 * (a plain-data copy, with `structuredClone` for anything else) and checks it at creation, each
 * `$defs` entry shared by several tools once (again when it has changed).
 */
import { describe, expect, it } from 'vitest';

import { compileTool } from '../src/adapter-entry.js';
import { convertOperations } from '../src/openapi/index.js';

const OPTIONS = { normalizationEnabled: true, strictUnknownFields: false } as const;

function published(schema: Record<string, unknown>): Record<string, unknown> {
  return compileTool('copy_check', schema, OPTIONS).publishedInputSchema;
}

describe('tools generated from an API description', () => {
  it('publishes copies of converted schemas: equal, sharing nothing with the converter, shared definitions kept shared', () => {
    const document = {
      swagger: '2.0',
      paths: {
        '/parts': {
          get: {
            operationId: 'listParts',
            parameters: [{ name: 'kind', in: 'query', type: 'string', enum: ['bolt', 'nut'] }],
          },
          post: {
            operationId: 'createPart',
            parameters: [
              {
                name: 'body',
                in: 'body',
                schema: {
                  type: 'object',
                  properties: { size: { $ref: '#/definitions/Size' }, spare: { $ref: '#/definitions/Size' } },
                },
              },
            ],
          },
        },
      },
      definitions: { Size: { type: 'object', properties: { mm: { type: 'number' } } } },
    };
    const operations = convertOperations(document, {
      resolveReference: (reference) => (reference === '#/definitions/Size' ? document.definitions.Size : undefined),
      referenceMode: 'defs',
    });
    for (const operation of operations) {
      const copy = published(operation.inputSchema);
      expect(copy).toEqual(operation.inputSchema);
      expect(copy['properties']).not.toBe(operation.inputSchema['properties']);
    }
    const create = published(operations[1]!.inputSchema);
    expect(create['$defs']).toEqual({ Size: { type: 'object', properties: { mm: { type: 'number' } } } });
    expect(create['$defs']).not.toBe(operations[1]!.inputSchema['$defs']);

    const part = { type: 'string', maxLength: 8 };
    const twice = published({ type: 'object', properties: { a: part, b: part } });
    const properties = twice['properties'] as Record<string, unknown>;
    expect(properties['a']).toBe(properties['b']);
    expect(properties['a']).not.toBe(part);
  });

  it('copies property names that are Object.prototype members as own data', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}',
    ) as Record<string, unknown>;
    const properties = published(schema)['properties'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'string' });
  });

  it('copies what is not plain JSON the way structuredClone does', () => {
    const when = new Date(Date.UTC(2026, 0, 2));
    const holes: unknown[] = ['a'];
    holes[2] = 'c'; // index 1 is a hole
    const extra = Object.assign(['x'], { note: 'kept' });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { type: 'integer' });
    const withGetter = Object.defineProperty({ type: 'string' }, 'default', {
      get: () => 'computed',
      enumerable: true,
    });
    const copy = published({
      type: 'object',
      properties: {
        when: { type: 'string', default: when },
        holes: { examples: holes },
        extra: { examples: extra },
        bare,
        withGetter,
      },
    });
    const properties = copy['properties'] as Record<string, Record<string, unknown>>;
    expect(properties['when']!['default']).toBeInstanceOf(Date);
    expect(properties['when']!['default']).not.toBe(when);
    expect((properties['when']!['default'] as Date).toISOString()).toBe('2026-01-02T00:00:00.000Z');
    const copiedHoles = properties['holes']!['examples'] as unknown[];
    expect([copiedHoles.length, 1 in copiedHoles, copiedHoles[2]]).toEqual([3, false, 'c']);
    expect((properties['extra']!['examples'] as { note: string }).note).toBe('kept');
    expect(Object.getPrototypeOf(properties['bare'])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(properties['withGetter'], 'default')).toEqual({
      value: 'computed',
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });

  it('still refuses what structuredClone refuses', () => {
    for (const bad of [
      { type: 'object', properties: { a: { default: () => 1 } } },
      { type: 'object', properties: { a: { default: Symbol('s') } } },
      { type: 'object', properties: { a: { examples: ['x', () => 1] } } },
      { type: 'object', properties: { a: { enum: ['x', Symbol('s')] } } },
      { type: 'object', properties: new Proxy({}, {}) },
    ]) {
      expect(() => compileTool('unclonable', bad, OPTIONS)).toThrow(
        new TypeError('inputSchema of tool "unclonable" must be plain JSON'),
      );
    }
  });

  it('rejects every tool that carries a bad shared definition, with the whole-schema message', () => {
    const options = { ...OPTIONS };
    const definitions = { Good: { type: 'string' }, Bad: { type: 'objekt' } };
    const message =
      'data/$defs/Bad/type must be equal to one of the allowed values, data/$defs/Bad/type must be array, data/$defs/Bad/type must match a schema in anyOf';
    for (const name of ['first', 'second', 'third']) {
      expect(() =>
        compileTool(
          name,
          {
            type: 'object',
            properties: { a: { $ref: '#/$defs/Good' }, b: { $ref: '#/$defs/Bad' } },
            $defs: definitions,
          },
          options,
        ),
      ).toThrow(new TypeError(`inputSchema of tool "${name}" is not a valid JSON Schema: ${message}`));
    }
  });

  it('checks a shared definition again once it has changed, and resolves its references against each tool', () => {
    const options = { ...OPTIONS };
    const shared: Record<string, unknown> = { type: 'object', properties: { size: { $ref: '#/$defs/Size' } } };
    const withSize = (name: string): void => {
      compileTool(
        name,
        {
          type: 'object',
          properties: { part: { $ref: '#/$defs/Part' } },
          $defs: { Part: shared, Size: { type: 'integer' } },
        },
        options,
      );
    };
    withSize('one');
    withSize('two');
    // the same definition in a tool that lacks what it refers to
    expect(() =>
      compileTool(
        'three',
        { type: 'object', properties: { part: { $ref: '#/$defs/Part' } }, $defs: { Part: shared } },
        options,
      ),
    ).toThrow('inputSchema of tool "three" is not a valid JSON Schema: can\'t resolve reference #/$defs/Size');
    // mutated between two tools compiled with the same options: no stale verdict
    shared['minProperties'] = -1;
    expect(() => {
      withSize('four');
    }).toThrow('inputSchema of tool "four" is not a valid JSON Schema: data/$defs/Part/minProperties must be >= 0');
    delete shared['minProperties'];
    shared['properties'] = { size: { $ref: '#/$defs/Missing' } };
    expect(() => {
      withSize('five');
    }).toThrow("can't resolve reference #/$defs/Missing");
  });

  it('checks a definition that declares its own $schema in place', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/Old' } },
      $defs: { Old: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' } },
    };
    const options = { ...OPTIONS };
    expect(compileTool('own_schema', schema, options).check({ a: 'x' }).ok).toBe(true);
    expect(compileTool('own_schema_again', schema, options).check({ a: 1 }).ok).toBe(false);
  });

  it('prepares the compiled copy without touching the published schema, rewrites included', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        ratio: { type: 'number', maximum: 1, exclusiveMaximum: true },
        both: { allOf: [{ required: ['a'] }, { required: ['b'] }] },
        plain: { type: 'string', enum: ['x', 'y'] },
      },
    };
    const tool = compileTool('rewrites', schema, { ...OPTIONS, strictUnknownFields: true });
    const before = JSON.stringify(tool.publishedInputSchema);
    expect(before).toBe(JSON.stringify({ ...schema, additionalProperties: false }));
    const failure = tool.check({ pair: ['a', 1, 2], ratio: 1, both: { a: 1 }, plain: 'z' });
    expect(failure.ok ? '' : failure.details.map((detail) => detail.path).sort()).toEqual([
      'both',
      'pair',
      'plain',
      'ratio',
    ]);
    expect(JSON.stringify(tool.publishedInputSchema)).toBe(before);
  });

  it('reports combinators the same whether the author shares their lists between places or not', () => {
    const branches = [{ type: 'string' }, { type: 'integer' }];
    const shared = {
      type: 'object',
      properties: {
        a: { anyOf: branches },
        b: { oneOf: branches },
        c: { allOf: branches },
        d: { propertyNames: branches[0] },
        e: { contains: branches[0] },
      },
    };
    const separate = JSON.parse(JSON.stringify(shared)) as Record<string, unknown>;
    const args = { a: true, b: 1.5, c: 'x', d: { 1: 1 }, e: [true] };
    const sharedResult = compileTool('shared', shared, OPTIONS).check(args);
    expect(sharedResult.ok).toBe(false);
    expect(sharedResult).toEqual(compileTool('shared', separate, OPTIONS).check(args));
  });

  it('checks every local reference once per schema, escaped ones included, and names a dangling one', () => {
    const defs = { 'a b': { type: 'string' }, 'c/d': { type: 'integer' } };
    const many = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [
        `p${index}`,
        { $ref: index % 2 === 0 ? '#/$defs/a%20b' : '#/$defs/c~1d' },
      ]),
    );
    expect(
      compileTool('escaped', { type: 'object', properties: many, $defs: defs }, OPTIONS).check({ p0: 'x', p1: 2 }).ok,
    ).toBe(true);
    expect(() =>
      compileTool(
        'dangling',
        { type: 'object', properties: { ...many, late: { $ref: '#/$defs/Missing' } }, $defs: defs },
        OPTIONS,
      ),
    ).toThrow('inputSchema of tool "dangling" is not a valid JSON Schema: can\'t resolve reference #/$defs/Missing');
  });
});
