import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SchemaConverter } from '../../src/openapi/index.js';
import { capText } from '../../src/upstream-body/parse.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe('SchemaConverter', () => {
  const converter = new SchemaConverter();

  it.each([
    [
      { type: 'string', format: 'date-time' },
      { type: 'string', format: 'date-time' },
    ],
    [{ type: 'string', format: 'PDF' }, { type: 'string' }],
    [
      { type: 'integer', format: 'int64', maximum: 9, exclusiveMaximum: true },
      { type: 'integer', format: 'int64', exclusiveMaximum: 9 },
    ],
    [
      { type: 'number', minimum: 1, exclusiveMinimum: 0.5 },
      { type: 'number', exclusiveMinimum: 0.5, minimum: 1 },
    ],
    [
      { type: 'string', nullable: true, enum: ['a'] },
      { type: ['string', 'null'], enum: ['a', null] },
    ],
    [{ type: ['integer', 'null'], nullable: true }, { type: ['integer', 'null'] }],
    [{ type: 'file' }, { format: 'binary', type: 'string' }],
    [
      { example: 3, type: 'integer' },
      { type: 'integer', examples: [3] },
    ],
    [
      { examples: [1, 2], example: 3, type: 'integer' },
      { type: 'integer', examples: [1, 2] },
    ],
    [
      { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    ],
    [
      { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, maxItems: 1 },
      { type: 'array', minItems: 1, maxItems: 1, prefixItems: [{ type: 'string' }] },
    ],
    [{ type: 'array', prefixItems: [{ type: 'string' }] }, { type: 'array' }],
    [{ type: 'array', items: [] }, { type: 'array' }],
    [
      { type: 'array', maxLength: 5, maxItems: 2, items: { type: 'string' } },
      { type: 'array', maxItems: 2, items: { type: 'string' } },
    ],
    [{ maxLength: 4 }, { maxLength: 4, type: 'string' }],
    [{ minimum: 0 }, { minimum: 0, type: 'number' }],
    [{ items: { type: 'string' } }, { items: { type: 'string' }, type: 'array' }],
    [
      { minimum: 0, maxLength: 3 },
      { minimum: 0, maxLength: 3, type: ['string', 'number'] },
    ],
    [
      { type: 'object', additionalProperties: { type: 'integer', 'x-unit': 'cm' } },
      { type: 'object', additionalProperties: { type: 'integer' } },
    ],
    [
      { type: 'object', patternProperties: { '^a': { type: 'string' }, '(': { type: 'string' } } },
      { type: 'object', patternProperties: { '^a': { type: 'string' } } },
    ],
    [
      { type: 'object', discriminator: { propertyName: 'kind' }, xml: { name: 'x' }, externalDocs: { url: 'u' } },
      { type: 'object' },
    ],
    [
      { type: 'string', const: 'only', default: 'only', title: 'One' },
      { type: 'string', title: 'One', const: 'only', default: 'only' },
    ],
    [
      { type: 'object', required: ['a', 'a', 7] },
      { type: 'object', required: ['a'], properties: { a: {} } },
    ],
    [{ format: 'date-time' }, { format: 'date-time', type: 'string' }],
    [{ format: 'int64' }, { format: 'int64', type: 'number' }],
    [{ type: 'string', enum: [] }, { type: 'string' }],
    [
      { type: 'string', enum: ['a', 'a', 'b'] },
      { type: 'string', enum: ['a', 'b'] },
    ],
    [{ type: 'integer', multipleOf: 0, maximum: Infinity }, { type: 'integer' }],
    [{ type: 'string', maxLength: -1, minLength: 1.5 }, { type: 'string' }],
    [{ type: 'mystery' }, {}],
    [{ type: [], items: 'string', nullable: true }, { type: ['null'] }],
    [{ type: ['string', 'integer', 'string'] }, { type: ['string', 'integer'] }],
    [
      { type: 'object', dependentRequired: { a: ['b'] } },
      { type: 'object', dependentRequired: { a: ['b'] } },
    ],
    [
      { type: 'object', dependentRequired: { a: ['b', 'b', 3], c: 'd', e: [] } },
      { type: 'object', dependentRequired: { a: ['b'], e: [] } },
    ],
    [true, true],
    [false, false],
    ['text', {}],
    [null, {}],
  ])('%j -> %j', (input, expected) => {
    expect(converter.convert(input)).toEqual(expected);
  });

  it.each([
    [{ type: 'object', if: {} }, { type: 'object' }],
    [{ type: 'object', then: { required: ['a'] } }, { type: 'object' }],
    [{ type: 'object', else: true, then: {} }, { type: 'object' }],
    [
      { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } },
      {
        type: 'object',
        if: { required: ['a'], properties: { a: {} }, type: 'object' },
        then: { required: ['b'], properties: { b: {} }, type: 'object' },
      },
    ],
    [
      { type: 'object', if: { required: ['a'] }, else: false },
      { type: 'object', if: { required: ['a'], properties: { a: {} }, type: 'object' }, else: false },
    ],
  ])('leaves out a conditional that checks nothing: %j -> %j', (input, expected) => {
    expect(converter.convert(input)).toEqual(expected);
    const ajv = new Ajv2020({ strict: true });
    expect(() => ajv.compile(converter.convert(input) as object)).not.toThrow();
  });

  it('memoizes a definition used many times and shares the converted object', () => {
    const money = { type: 'object', properties: { amount: { type: 'number' } } };
    const definitions: Record<string, unknown> = { Money: money };
    let lookups = 0;
    const shared = new SchemaConverter({
      resolveReference: (reference) => {
        lookups += 1;
        return definitions[reference.replace('#/definitions/', '')];
      },
    });
    const first = shared.convert({ $ref: '#/definitions/Money' });
    const second = shared.convert({ $ref: '#/definitions/Money', description: 'Total.' });
    expect(lookups).toBe(1);
    expect(second).toEqual({ type: 'object', properties: { amount: { type: 'number' } }, description: 'Total.' });
    expect(shared.convert({ $ref: '#/definitions/Money' })).toBe(first);
  });

  it('keeps properties named __proto__ and constructor as own data properties', () => {
    const input = JSON.parse(
      '{"type":"object","required":["__proto__","hasOwnProperty"],"properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}',
    ) as unknown;
    const output = new SchemaConverter().convert(input) as Record<string, unknown>;
    const properties = output['properties'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['__proto__', 'constructor', 'hasOwnProperty']);
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')).toEqual({
      value: { type: 'string' },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(JSON.stringify(output)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"},"hasOwnProperty":{}},"required":["__proto__","hasOwnProperty"]}',
    );
  });

  it('caps descriptions exactly as capText does, whitespace of every kind included', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', ' ', ' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '.'),
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 30 }), (input, limit) => {
        const expected = capText(input, limit);
        expect(new SchemaConverter({ descriptionLimit: limit }).description(input)).toBe(
          expected === '' ? undefined : expected,
        );
      }),
      { numRuns: 2000 },
    );
    // long texts, cut after collapsing only a prefix (runs of whitespace, astral characters)
    const long = fc.string({
      unit: fc.constantFrom('a', ' ', '  ', '\n\t ', '\u3000', '\ud83d\ude00', '.'),
      minLength: 20,
      maxLength: 300,
    });
    fc.assert(
      fc.property(long, fc.integer({ min: 1, max: 60 }), (input, limit) => {
        const expected = capText(input, limit);
        expect(new SchemaConverter({ descriptionLimit: limit }).description(input)).toBe(
          expected === '' ? undefined : expected,
        );
      }),
      { numRuns: 2000 },
    );
    expect(new SchemaConverter({ descriptionLimit: 5 }).description(`ab${' '.repeat(30)}cd efgh`)).toBe('ab c…');
    expect(new SchemaConverter({ descriptionLimit: 5 }).description('abcdefghijklmnop')).toBe('abcd…');
    expect(new SchemaConverter().description('One sentence, single spaces.')).toBe('One sentence, single spaces.');
    expect(new SchemaConverter().description(' Padded\tand  doubled. ')).toBe('Padded and doubled.');
  });

  it('reads inherited keywords of a schema object that is not plain data', () => {
    const inherited = Object.assign(
      Object.create({ maxLength: 5, title: 'Code', not: { const: 'x' } }) as Record<string, unknown>,
      { type: 'string' },
    );
    expect(new SchemaConverter().convert(inherited)).toEqual({
      type: 'string',
      title: 'Code',
      maxLength: 5,
      not: { const: 'x' },
    });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { type: 'string', minLength: 2 });
    expect(new SchemaConverter().convert(bare)).toEqual({ type: 'string', minLength: 2 });
  });

  it('names an unresolved reference by its last pointer token, percent-decoded before unescaping (RFC 6901 section 6)', () => {
    const converter = new SchemaConverter({ resolveReference: () => undefined });
    expect(converter.convert({ $ref: 'other.json#/definitions/a%7E1b' })).toEqual({
      description: 'a/b (reference not resolved: not checked)',
    });
    expect(converter.convert({ $ref: 'other.json#/definitions/x~01' })).toEqual({
      description: 'x~1 (reference not resolved: not checked)',
    });
  });

  it('treats a throwing resolver as an unresolved reference', () => {
    const failing = new SchemaConverter({
      resolveReference: () => {
        throw new Error('missing file');
      },
    });
    expect(failing.convert({ $ref: 'other.json#/definitions/Thing' })).toEqual({
      description: 'Thing (reference not resolved: not checked)',
    });
  });

  it('never throws on any JSON value and always yields a schema a strict validator compiles', () => {
    const ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true, allowMatchingProperties: true }));
    const keywordValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(
        'string',
        'integer',
        'array',
        'object',
        'date-time',
        '^[a-z]+$',
        true,
        false,
        3,
        ['string', 'string'],
        ['a', 'a'],
        { a: ['b', 'b'] },
        { a: 'b' },
      ),
    );
    const schemaLike = fc.dictionary(
      fc.constantFrom(
        'type',
        'format',
        'items',
        'properties',
        'required',
        'enum',
        'nullable',
        'minimum',
        'exclusiveMinimum',
        'maxLength',
        'pattern',
        'x-extra',
        'example',
        'allOf',
        'additionalProperties',
        'dependentRequired',
        'if',
        'then',
        'else',
      ),
      keywordValue,
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(fc.oneof(schemaLike, fc.jsonValue({ maxDepth: 3 })), (input) => {
        const output = new SchemaConverter().convert(input);
        if (typeof output === 'boolean') return;
        expect(() => ajv.compile(output)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
