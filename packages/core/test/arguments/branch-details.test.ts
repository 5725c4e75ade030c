/**
 * A failed `anyOf`/`oneOf`/`allOf` detail carries what a caller needs to correct the value from
 * the envelope alone: the nearest branch and its failures as ordinary details, every `allOf`
 * part's failures, and for a `oneOf` the `const`/`enum` property that tells its branches apart.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool, JsonSchemaObject } from '../../src/index.js';
import { useTestSession } from '../fixtures/session.js';
import { failed, passed, tool } from './fixtures.js';

/** A shipment option: a parcel or a pallet, told apart by `mode`, both written as `$ref`s. */
const SHIPPING_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    option: { oneOf: [{ $ref: '#/$defs/Parcel' }, { $ref: '#/$defs/Pallet' }] },
  },
  $defs: {
    Parcel: {
      type: 'object',
      properties: { mode: { const: 'parcel' }, weightKg: { type: 'number', maximum: 30 } },
      required: ['weightKg'],
    },
    Pallet: {
      allOf: [
        { $ref: '#/$defs/Freight' },
        { properties: { mode: { enum: ['pallet', 'half-pallet'] }, count: { type: 'integer', minimum: 1 } } },
      ],
    },
    Freight: { type: 'object', properties: { carrier: { type: 'string' } }, required: ['carrier'] },
  },
};

const shipping = tool(SHIPPING_SCHEMA);

describe('a oneOf with a discriminator', () => {
  it('names the branches that matched and the property that tells them apart, with its values', () => {
    const result = failed(shipping.check({ option: { weightKg: 5, carrier: 'DHL' } }));
    expect(result.error_code).toBe('SCHEMA_ONE_OF_FAILED');
    expect(result.details).toEqual([
      {
        path: 'option',
        issue: "option must match exactly one of the schema's alternatives and does not.",
        received_type: 'object',
        field: 'option',
        branches: [],
        passing: [0, 1],
        discriminator: {
          path: 'option/mode',
          allowed: ['parcel', 'pallet', 'half-pallet'],
          branches: [
            { branch: 0, allowed: ['parcel'] },
            { branch: 1, allowed: ['pallet', 'half-pallet'] },
          ],
        },
        received_value: { weightKg: 5, carrier: 'DHL' },
        expected: 'a value matching exactly one of the 2 alternatives',
      },
    ]);
    // the discriminator's value picks one branch: the call passes
    passed(shipping.check({ option: { mode: 'pallet', weightKg: 5, carrier: 'DHL' } }));
  });

  it('takes the branch the value selects as the nearest, though it fails no less', () => {
    // the parcel branch fails once (mode), the pallet branch once (its two parts, folded)
    const result = failed(shipping.check({ option: { mode: 'pallet', weightKg: 5, count: 0 } }));
    expect(result.details).toHaveLength(1);
    expect(result.details[0]).toMatchObject({
      path: 'option',
      branches: [
        { branch: 0, error_code: 'SCHEMA_CONST_MISMATCH', path: 'option/mode' },
        { branch: 1, error_code: 'SCHEMA_ALL_OF_FAILED', path: 'option' },
      ],
      nearest_branch: 1,
      branch_details: [
        {
          path: 'option',
          issue: 'option breaks one of the constraints it must meet together.',
          branches: [
            { branch: 0, error_code: 'SCHEMA_REQUIRED', path: 'option/carrier' },
            { branch: 1, error_code: 'SCHEMA_MINIMUM', path: 'option/count' },
          ],
          branch_details: [
            {
              path: 'option/carrier',
              issue: 'option/carrier is required and was not sent.',
              received_type: 'undefined',
              field: 'carrier',
              expected: 'a value of type string',
            },
            {
              path: 'option/count',
              issue: 'option/count is below its minimum of 1.',
              received_type: 'integer',
              field: 'option/count',
              limit: 1,
              received_value: 0,
              expected: 'a number no smaller than 1',
              did_you_mean: 1,
            },
          ],
        },
      ],
    });
  });

  it('takes the branch with the fewest failures when the value selects none', () => {
    const result = failed(shipping.check({ option: { weightKg: 50 } }));
    expect(result.details[0]).toMatchObject({
      nearest_branch: 0,
      branch_details: [
        {
          path: 'option/weightKg',
          issue: 'option/weightKg is above its maximum of 30.',
          received_type: 'integer',
          field: 'option/weightKg',
          limit: 30,
          received_value: 50,
          expected: 'a number no greater than 30',
          did_you_mean: 30,
        },
      ],
    });
  });
});

describe('no discriminator', () => {
  it('when a value is allowed by two branches, or a branch does not declare the property', () => {
    const overlapping = tool({
      type: 'object',
      properties: {
        pet: {
          oneOf: [
            { type: 'object', properties: { kind: { enum: ['cat', 'lynx'] } } },
            { type: 'object', properties: { kind: { enum: ['lynx', 'dog'] } } },
          ],
        },
        box: {
          oneOf: [
            { type: 'object', properties: { size: { const: 'S' } } },
            { type: 'object', properties: { colour: { const: 'red' } } },
          ],
        },
      },
    });
    const pet = failed(overlapping.check({ pet: {} })).details[0];
    expect(pet).toMatchObject({ path: 'pet', passing: [0, 1] });
    expect(Object.keys(pet ?? {})).not.toContain('discriminator');
    const box = failed(overlapping.check({ box: {} })).details[0];
    expect(box).toMatchObject({ path: 'box', passing: [0, 1] });
    expect(Object.keys(box ?? {})).not.toContain('discriminator');
  });
});

describe('the nearest branch without a discriminator', () => {
  const quantity = tool({
    type: 'object',
    properties: {
      quantity: {
        anyOf: [
          { type: 'integer', minimum: 1, maximum: 10 },
          { type: 'string', pattern: '^[0-9]+ units$' },
        ],
      },
    },
  });

  it('prefers a branch that takes the value’s type over one that fails fewer times', () => {
    const result = failed(quantity.check({ quantity: 12 }));
    expect(result.details).toEqual([
      {
        path: 'quantity',
        issue: "quantity matches none of the schema's alternatives.",
        received_type: 'integer',
        field: 'quantity',
        branches: [
          { branch: 0, error_code: 'SCHEMA_MAXIMUM', path: 'quantity' },
          { branch: 1, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'quantity' },
        ],
        nearest_branch: 0,
        branch_details: [
          {
            path: 'quantity',
            issue: 'quantity is above its maximum of 10.',
            received_type: 'integer',
            field: 'quantity',
            limit: 10,
            received_value: 12,
            expected: 'a number no greater than 10',
            did_you_mean: 10,
          },
        ],
        received_value: 12,
        expected: 'a value matching at least one of the 2 alternatives',
        did_you_mean: 10,
      },
    ]);
  });

  it('names no nearest branch when several branches of a oneOf matched', () => {
    const overlap = tool({
      type: 'object',
      properties: {
        code: {
          oneOf: [
            { type: 'string', maxLength: 4 },
            { type: 'string', minLength: 2 },
          ],
        },
      },
    });
    const detail = failed(overlap.check({ code: 'abc' })).details[0];
    expect(detail).toMatchObject({ passing: [0, 1], branches: [] });
    expect(Object.keys(detail ?? {})).not.toContain('nearest_branch');
    expect(Object.keys(detail ?? {})).not.toContain('discriminator');
  });
});

describe('an allOf', () => {
  it('carries the failures of every part, each once', () => {
    const limits = tool({
      type: 'object',
      properties: {
        limits: {
          allOf: [
            { type: 'object', required: ['low'], properties: { low: { type: 'integer' } } },
            { type: 'object', required: ['high'], properties: { high: { type: 'integer' } } },
          ],
        },
      },
    });
    const result = failed(limits.check({ limits: { low: '1', high: '9' } }));
    expect(result.error_code).toBe('SCHEMA_ALL_OF_FAILED');
    expect(result.details[0]).toMatchObject({
      branches: [
        { branch: 0, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'limits/low' },
        { branch: 1, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'limits/high' },
      ],
      branch_details: [
        { path: 'limits/low', expected_type: 'integer', did_you_mean: 1 },
        { path: 'limits/high', expected_type: 'integer', did_you_mean: 9 },
      ],
    });
    expect(Object.keys(result.details[0] ?? {})).not.toContain('nearest_branch');
    // both parts want an object: one detail, not two
    const text = failed(limits.check({ limits: '{"low":1,"high":9}' }));
    expect(text.details[0]?.['branch_details']).toEqual([
      {
        path: 'limits',
        issue: 'limits should be object, not string.',
        received_type: 'string',
        field: 'limits',
        expected_type: 'object',
        received_value: '{"low":1,"high":9}',
        expected: 'a value of type object',
        did_you_mean: { low: 1, high: 9 },
      },
    ]);
  });
});

const session = useTestSession();

const SIGN_IN_TOOL: EnvelopeTool = {
  name: 'sign_in',
  inputSchema: {
    type: 'object',
    properties: {
      credential: {
        anyOf: [
          { type: 'object', properties: { apiKey: { type: 'string', minLength: 50 } }, required: ['apiKey'] },
          { type: 'null' },
        ],
      },
    },
  },
  handler: () => ({ ok: true }),
};

describe('secrets in branch details', () => {
  it('are hidden like those of any other detail', async () => {
    const { client } = await session.start({}, [SIGN_IN_TOOL]);
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const result = await client.callTool({ name: 'sign_in', arguments: { credential: { apiKey: token } } });
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(validateEnvelope(envelope).valid).toBe(true);
    expect((envelope['details'] as Record<string, unknown>[])[0]?.['branch_details']).toEqual([
      {
        path: 'credential/apiKey',
        issue: 'credential/apiKey is 40 characters long; at least 50 are needed.',
        received_type: 'string',
        field: 'credential/apiKey',
        limit: 50,
        actual: 40,
        received_value: '[REDACTED]',
        expected: 'at least 50 characters',
      },
    ]);
    expect(JSON.stringify(result)).not.toContain('0123456789abcdefghij');
  });
});

/** A tree of nodes: a leaf number, or an object holding one child node. */
const TREE_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { tree: { $ref: '#/$defs/Node' } },
  $defs: {
    Node: {
      oneOf: [
        { type: 'integer' },
        {
          type: 'object',
          properties: { child: { $ref: '#/$defs/Node' } },
          required: ['child'],
          additionalProperties: false,
        },
      ],
    },
  },
};

/** How many levels of `branch_details` a detail holds, its own counted. */
function nesting(detail: unknown): number {
  const nested = (detail as Record<string, unknown>)['branch_details'];
  if (!Array.isArray(nested)) return 0;
  return 1 + Math.max(0, ...nested.map(nesting));
}

describe('a combinator nested in its own branches', () => {
  it('nests branch_details three levels deep at most, however deep the value goes', () => {
    let tree: unknown = 'leaf';
    for (let level = 0; level < 300; level += 1) tree = { child: tree };
    const result = failed(tool(TREE_SCHEMA).check({ tree }));
    const detail = result.details[0] as Record<string, unknown>;
    expect([detail['path'], detail['nearest_branch'], nesting(detail)]).toEqual(['tree', 1, 3]);
    // the third level still says where the failure goes on: its branches and nearest branch
    const third = (
      (
        (detail['branch_details'] as Record<string, unknown>[])[0]?.['branch_details'] as Record<string, unknown>[]
      )[0]?.['branch_details'] as Record<string, unknown>[]
    )[0];
    expect(third).toMatchObject({
      path: 'tree/child/child/child',
      nearest_branch: 1,
      branches: [
        { branch: 0, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'tree/child/child/child' },
        { branch: 1, error_code: 'SCHEMA_ONE_OF_FAILED', path: 'tree/child/child/child/child' },
      ],
    });
    expect(third).not.toHaveProperty('branch_details');
    // a reply of a few kilobytes, not one that grows with the square of the depth
    expect(JSON.stringify(result.details).length).toBeLessThan(4_000);
  });

  it('keeps every level of a shallow one', () => {
    const result = failed(tool(TREE_SCHEMA).check({ tree: { child: { child: 'leaf' } } }));
    expect(nesting(result.details[0])).toBe(3);
    const deepest = (
      (
        (result.details[0]?.['branch_details'] as Record<string, unknown>[])[0]?.['branch_details'] as Record<
          string,
          unknown
        >[]
      )[0]?.['branch_details'] as Record<string, unknown>[]
    )[0];
    expect(deepest).toMatchObject({ path: 'tree/child/child', received_value: 'leaf', expected_type: 'integer' });
  });
});
