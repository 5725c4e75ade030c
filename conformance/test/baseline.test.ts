import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { synthesizeBaseline, synthesizeValue } from '../src/baseline.js';

function value(schema: unknown): unknown {
  const result = synthesizeValue(schema);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

describe('synthesizeValue', () => {
  it.each([
    [{ const: 'A1PA6795UKMFR9' }, 'A1PA6795UKMFR9'],
    [{ type: 'string', enum: ['DAILY', 'LIFETIME'] }, 'DAILY'],
    [{ type: 'integer', default: 50, minimum: 1 }, 50],
    [{ type: 'string', examples: ['B0CHX3QBCH'] }, 'B0CHX3QBCH'],
    [{ type: 'string' }, 'conformance'],
    [{ type: 'string', format: 'date-time' }, '2026-01-15T10:30:00Z'],
    [{ type: 'string', format: 'date' }, '2026-01-15'],
    [{ type: 'string', format: 'email' }, 'conformance@example.com'],
    [{ type: 'string', format: 'uuid' }, '3f2b8c1e-5d4a-4c6b-9e7f-1a2b3c4d5e6f'],
    [{ type: 'string', minLength: 15 }, 'conformancexxxx'],
    [{ type: 'string', maxLength: 4 }, 'conf'],
    [{ type: 'string', pattern: '^[A-Z0-9]{13}$' }, 'ATVPDKIKX0DER'],
    [{ type: 'integer' }, 1],
    [{ type: 'integer', minimum: 10, maximum: 20 }, 10],
    [{ type: 'integer', maximum: -5 }, -5],
    [{ type: 'integer', exclusiveMinimum: 1 }, 2],
    [{ type: 'integer', minimum: 0, exclusiveMinimum: true }, 1],
    [{ type: 'integer', minimum: 7, multipleOf: 5 }, 10],
    [{ type: 'number', minimum: 0.25, maximum: 0.75 }, 0.75],
    [{ type: 'boolean' }, true],
    [{ type: 'null' }, null],
    [{ type: ['null', 'string'] }, 'conformance'],
    [{ type: 'array', items: { type: 'string' } }, ['conformance']],
    [{ type: 'array', items: { type: 'integer' }, minItems: 3, uniqueItems: true }, [1, 2, 3]],
    [{ type: 'array', items: { type: 'string' }, maxItems: 0 }, []],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] }, ['conformance', 1]],
    [{ anyOf: [{ type: 'null' }, { type: 'integer', minimum: 3 }] }, 3],
    [{ oneOf: [{ type: 'string', format: 'date' }, { type: 'integer' }] }, '2026-01-15'],
    [
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'integer' } }, required: ['b'] },
        ],
      },
      { a: 'conformance', b: 1 },
    ],
    [{}, 'conformance'],
    [true, 'conformance'],
  ])('gives a valid value for %j', (schema, expected) => {
    expect(value(schema)).toEqual(expected);
  });

  it('follows local $ref to $defs and definitions, with sibling keywords winning', () => {
    const schema = {
      type: 'object',
      properties: {
        status: { $ref: '#/$defs/Status' },
        window: { $ref: '#/definitions/Window', description: 'time window' },
      },
      required: ['status', 'window'],
      $defs: { Status: { type: 'string', enum: ['Pending', 'Shipped'] } },
      definitions: {
        Window: { type: 'object', properties: { start: { type: 'string', format: 'date-time' } }, required: ['start'] },
      },
    };
    expect(value(schema)).toEqual({ status: 'Pending', window: { start: '2026-01-15T10:30:00Z' } });
  });

  it('names the part it cannot satisfy', () => {
    expect(
      synthesizeValue({
        type: 'object',
        properties: { a: { $ref: 'https://example.com/other.json' } },
        required: ['a'],
      }),
    ).toEqual({
      ok: false,
      reason: 'a: cannot resolve $ref "https://example.com/other.json" (only local references are followed)',
    });
    expect(synthesizeValue({ type: 'integer', minimum: 5, maximum: 4 })).toEqual({
      ok: false,
      reason: 'no integer within [5, 4]',
    });
    expect(synthesizeValue(false)).toEqual({ ok: false, reason: 'schema is false: no value is valid' });
    expect(synthesizeValue({ $ref: '#/$defs/Loop', $defs: { Loop: { $ref: '#/$defs/Loop' } } })).toEqual({
      ok: false,
      reason: 'more than 32 $ref hops (reference cycle?)',
    });
  });

  it('stops on a schema that requires itself recursively', () => {
    const schema = {
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } }, required: ['child'] } },
      $ref: '#/$defs/Node',
    };
    const result = synthesizeValue(schema);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(
      /^(child\/)+child: schema nests deeper than 24 levels \(recursive \$ref\?\)$/,
    );
  });

  it('notes a pattern it cannot satisfy instead of failing', () => {
    expect(synthesizeValue({ type: 'string', pattern: '^zz-[0-9]{4}$' })).toEqual({
      ok: true,
      value: 'conformance',
      notes: ['(root): no value found for pattern /^zz-[0-9]{4}$/; sent "conformance"'],
    });
  });

  it('keeps integers within any inclusive bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 500 }), (minimum, width) => {
        const result = synthesizeValue({ type: 'integer', minimum, maximum: minimum + width });
        expect(result.ok).toBe(true);
        const synthesized = result.ok ? result.value : Number.NaN;
        expect(Number.isInteger(synthesized)).toBe(true);
        expect(synthesized as number).toBeGreaterThanOrEqual(minimum);
        expect(synthesized as number).toBeLessThanOrEqual(minimum + width);
      }),
    );
  });

  it('respects string length bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (minLength, extra) => {
        const result = synthesizeValue({ type: 'string', minLength, maxLength: minLength + extra });
        const text = result.ok && typeof result.value === 'string' ? result.value : '';
        expect(text.length).toBeGreaterThanOrEqual(minLength);
        expect(text.length).toBeLessThanOrEqual(minLength + extra);
      }),
    );
  });
});

describe('synthesizeBaseline', () => {
  it('fills the required properties only', () => {
    const schema = {
      type: 'object',
      properties: {
        marketplaceIds: { type: 'array', items: { type: 'string' }, examples: [['A1F83G8C2ARO7P']] },
        createdAfter: { type: 'string', format: 'date-time' },
        maxResults: { type: 'integer', minimum: 1, maximum: 100 },
      },
      required: ['marketplaceIds', 'createdAfter'],
      additionalProperties: false,
    };
    expect(synthesizeBaseline(schema)).toEqual({
      ok: true,
      value: { marketplaceIds: ['A1F83G8C2ARO7P'], createdAfter: '2026-01-15T10:30:00Z' },
      notes: [],
    });
  });

  it('adds optional properties to reach minProperties', () => {
    expect(
      synthesizeBaseline({
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'boolean' } },
        minProperties: 1,
      }),
    ).toEqual({
      ok: true,
      value: { a: 'conformance' },
      notes: [],
    });
  });

  it('gives {} for a schema without required properties and refuses a non-object schema', () => {
    expect(synthesizeBaseline({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({
      ok: true,
      value: {},
      notes: [],
    });
    expect(synthesizeBaseline({ type: 'array' })).toEqual({
      ok: false,
      reason: 'inputSchema type is "array", not "object"',
    });
  });
});
