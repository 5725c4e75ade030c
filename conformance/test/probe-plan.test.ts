import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { caseChangedName, planToolProbes } from '../src/probe-plan.js';
import type { PlannedProbe } from '../src/probe-plan.js';

function plan(inputSchema: unknown): readonly PlannedProbe[] {
  const result = planToolProbes({ name: 'tool', inputSchema });
  if (!result.ok) throw new Error(result.reason);
  return result.probes;
}

function summary(probes: readonly PlannedProbe[]): [string, string][] {
  return probes.map((probe) => [
    probe.probe,
    probe.status === 'skip' ? `skip: ${probe.reason}` : `${probe.expected.code}: ${probe.change}`,
  ]);
}

describe('caseChangedName', () => {
  it.each([
    ['marketplaceIds', 'MarketplaceIds'],
    ['MarketplaceIds', 'marketplaceIds'],
    ['_sku', '_Sku'],
    ['123abc', '123Abc'],
    ['étatCampagne', 'ÉtatCampagne'],
    ['_1', undefined],
  ])('%s -> %s', (name, changed) => {
    expect(caseChangedName(name)).toBe(changed);
  });
});

describe('planToolProbes', () => {
  const ordersSchema = {
    type: 'object',
    properties: {
      marketplaceIds: { type: 'array', items: { type: 'string' } },
      orderStatus: { type: 'string', enum: ['Pending', 'Shipped'] },
      createdAfter: { type: 'string', format: 'date-time' },
      maxResults: { type: 'integer', minimum: 1 },
    },
    required: ['marketplaceIds', 'createdAfter'],
  };

  it('plans all five probes from a valid baseline', () => {
    expect(summary(plan(ordersSchema))).toEqual([
      ['missing-required', 'SCHEMA_REQUIRED: dropped required "marketplaceIds"'],
      ['wrong-type', 'SCHEMA_TYPE_MISMATCH: "createdAfter" (string) set to 12345'],
      ['unknown-extra', 'SCHEMA_ADDITIONAL_PROPERTIES: added "zz_conformance_unknown_field"'],
      ['enum-mismatch', 'SCHEMA_ENUM_MISMATCH: "orderStatus" set to "zz_conformance_not_in_enum"'],
      ['wrong-case', 'SCHEMA_ADDITIONAL_PROPERTIES: "marketplaceIds" sent as "MarketplaceIds"'],
    ]);
    const wrongCase = plan(ordersSchema)[4];
    expect(wrongCase?.status === 'run' ? wrongCase.arguments : undefined).toEqual({
      MarketplaceIds: ['conformance'],
      createdAfter: '2026-01-15T10:30:00Z',
    });
  });

  it('prefers integer over boolean and never picks arrays for the wrong type', () => {
    const probes = plan({
      type: 'object',
      properties: { tags: { type: 'array' }, dryRun: { type: 'boolean' }, profileId: { type: 'integer' } },
    });
    expect(summary(probes)[1]).toEqual([
      'wrong-type',
      'SCHEMA_TYPE_MISMATCH: "profileId" (integer) set to "not-a-number"',
    ]);
    expect(summary(plan({ type: 'object', properties: { dryRun: { type: 'boolean' } } }))[1]).toEqual([
      'wrong-type',
      'SCHEMA_TYPE_MISMATCH: "dryRun" (boolean) set to "not-a-boolean"',
    ]);
  });

  it('skips what the schema makes impossible, with the reason', () => {
    expect(
      summary(
        plan({
          type: 'object',
          properties: { Id: { type: 'array' }, id: { type: 'array' } },
          additionalProperties: true,
        }),
      ),
    ).toEqual([
      ['missing-required', 'skip: schema has no required property'],
      ['wrong-type', 'skip: schema has no property with a single simple type (string, integer, number, boolean)'],
      ['unknown-extra', 'skip: schema sets additionalProperties: true'],
      ['enum-mismatch', 'skip: schema has no property with a string enum'],
      [
        'wrong-case',
        'skip: schema has no property whose name changes under a case change without colliding with another property',
      ],
    ]);
    expect(summary(plan({ type: 'object', additionalProperties: { type: 'string' } }))[2]).toEqual([
      'unknown-extra',
      'skip: schema gives additionalProperties a schema',
    ]);
    expect(summary(plan({ type: 'object', patternProperties: { '^zz_': {} } }))[2]).toEqual([
      'unknown-extra',
      'skip: patternProperties "^zz_" admits the key',
    ]);
  });

  it('adds an optional property with a valid value for the wrong-case probe when no required one fits', () => {
    const probes = plan({
      type: 'object',
      properties: {
        _1: { type: 'string' },
        reportType: { type: 'string', enum: ['GET_FLAT_FILE_OPEN_LISTINGS_DATA'] },
      },
      required: ['_1'],
    });
    const wrongCase = probes[4];
    expect(wrongCase).toMatchObject({
      status: 'run',
      arguments: { _1: 'conformance', ReportType: 'GET_FLAT_FILE_OPEN_LISTINGS_DATA' },
      wrongCase: {
        key: 'ReportType',
        canonical: 'reportType',
        optional: true,
        reference: { _1: 'conformance', reportType: 'GET_FLAT_FILE_OPEN_LISTINGS_DATA' },
      },
    });
  });

  it('resolves $ref properties and reports an impossible baseline', () => {
    const probes = plan({
      type: 'object',
      properties: { state: { $ref: '#/definitions/State' } },
      definitions: { State: { type: 'string', enum: ['enabled', 'paused'] } },
    });
    expect(summary(probes)[3]).toEqual([
      'enum-mismatch',
      'SCHEMA_ENUM_MISMATCH: "state" set to "zz_conformance_not_in_enum"',
    ]);
    expect(
      planToolProbes({
        name: 'broken',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'integer', minimum: 2, maximum: 1 } },
          required: ['a'],
        },
      }),
    ).toEqual({
      ok: false,
      reason: 'no valid baseline arguments: a: no integer within [2, 1]',
    });
  });

  it('treats a missing inputSchema as an empty object schema', () => {
    const result = planToolProbes({ name: 'ping' });
    expect(result.ok && result.baseline).toEqual({});
  });
});

describe('planToolProbes on hostile schemas', () => {
  it('reports oversized constraints instead of building them', () => {
    expect(
      planToolProbes({
        name: 'big',
        inputSchema: { type: 'object', properties: { s: { type: 'string', minLength: 1e12 } }, required: ['s'] },
      }),
    ).toEqual({
      ok: false,
      reason: 'no valid baseline arguments: s: minLength 1000000000000 is larger than 10000',
    });
    expect(
      planToolProbes({
        name: 'many',
        inputSchema: { type: 'object', properties: { a: { type: 'array', minItems: 5e6 } }, required: ['a'] },
      }),
    ).toEqual({
      ok: false,
      reason: 'no valid baseline arguments: a: minItems 5000000 is larger than 1000',
    });
  });

  it('takes a malformed %-escape in a $ref literally', () => {
    const result = planToolProbes({
      name: 'escape',
      inputSchema: {
        type: 'object',
        properties: { a: { $ref: '#/$defs/%E0%A4%A' } },
        required: ['a'],
        $defs: { '%E0%A4%A': { type: 'integer' } },
      },
    });
    expect(result.ok && result.baseline).toEqual({ a: 1 });
  });

  it('handles any JSON a server sends as inputSchema without reaching the safety net', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (inputSchema) => {
        const result = planToolProbes({ name: 'fuzz', inputSchema });
        expect(result.ok ? '' : result.reason).not.toMatch(/^cannot plan probes/);
      }),
      { numRuns: 500 },
    );
  });

  it('handles schema-shaped random input without reaching the safety net', () => {
    const keyword = fc.constantFrom(
      'type',
      'properties',
      'required',
      'enum',
      'const',
      '$ref',
      'items',
      'anyOf',
      'allOf',
      'minLength',
      'pattern',
      'additionalProperties',
      'minimum',
    );
    const schema = fc.letrec((tie) => ({
      node: fc.oneof(
        { maxDepth: 4 },
        fc.boolean(),
        fc.dictionary(
          keyword,
          fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            fc.constantFrom('object', 'string', '#/$defs/x', '#', '^[a-'),
            tie('node'),
          ),
          { maxKeys: 5 },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(schema, (inputSchema) => {
        const result = planToolProbes({ name: 'fuzz', inputSchema });
        expect(result.ok ? '' : result.reason).not.toMatch(/^cannot plan probes/);
      }),
      { numRuns: 500 },
    );
  });
});
