import { validateEnvelope } from '@mcp-envelope/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { createTestServer } from './fixtures/test-server.js';

const echo = (args: Record<string, unknown>): Record<string, unknown> => ({ received: Object.keys(args).length });

const TOOLS: EnvelopeTool[] = [
  {
    name: 'flat',
    inputSchema: {
      type: 'object',
      properties: {
        marketplaceIds: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 5 },
        status: { type: 'string', enum: ['pending', 'shipped'] },
        limit: { type: 'integer', minimum: 1, maximum: 50 },
        createdAfter: { type: 'string', format: 'date-time' },
      },
      required: ['marketplaceIds'],
    },
    handler: echo,
  },
  {
    name: 'nested',
    inputSchema: {
      type: 'object',
      properties: {
        filters: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, value: { type: ['string', 'number'] } },
            required: ['field'],
            additionalProperties: false,
          },
        },
        mode: { oneOf: [{ const: 'fast' }, { type: 'integer', multipleOf: 5 }] },
      },
      $defs: { unused: { type: 'string' } },
    },
    handler: echo,
  },
  {
    name: 'open',
    inputSchema: {
      type: 'object',
      properties: { note: { type: 'string', maxLength: 10 } },
      additionalProperties: true,
    },
    handler: (args) => (Object.hasOwn(args, 'crash') ? Promise.reject(new Error('boom')) : args),
  },
];

const KEYS = [
  'marketplaceIds',
  'MarketplaceIds',
  'marketplace_ids',
  'status',
  'limit',
  'createdAfter',
  'filters',
  'mode',
  'note',
  'crash',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
];

const argumentsArbitrary = fc.dictionary(
  fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 6, noNullPrototype: true },
);

let connections: Connected[];

beforeAll(async () => {
  connections = await Promise.all([
    connectInMemory(createTestServer({}, TOOLS)),
    connectInMemory(
      createTestServer(
        { env: { MCP_STRICT_UNKNOWN_FIELDS: 'false', MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' } },
        TOOLS,
      ),
    ),
    connectInMemory(createTestServer({ env: { MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'false' } }, TOOLS)),
  ]);
});

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
});

describe('the whole server under random arguments', () => {
  it('always answers a success or a schema-valid envelope, never throws, never mutates the arguments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 2),
        fc.constantFrom('flat', 'nested', 'open', 'missing'),
        argumentsArbitrary,
        async (server, name, args) => {
          const snapshot = JSON.stringify(args);
          const result = await connections[server]!.client.callTool({ name, arguments: args });
          expect(JSON.stringify(args)).toBe(snapshot);
          if (result.isError === true) {
            expect(validateEnvelope(result.structuredContent)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
            expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
            const kind = (result.structuredContent as { error_kind: string }).error_kind;
            expect(['mcp_input_validation', 'tool_not_found', 'internal_error']).toContain(kind);
          } else {
            expect(typeof result.structuredContent).toBe('object');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps constructor and prototype keys as data and lets no __proto__ key reach a prototype', async () => {
    // The SDK v2 server hands the handler its schema-checked copy of `params`, in which an own
    // `__proto__` key of the JSON text is gone: it never reaches normalization, nor a prototype.
    const args = JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","prototype":1}') as Record<
      string,
      unknown
    >;
    const result = await connections[1]!.client.callTool({ name: 'open', arguments: args });
    const text = (result.content as { text: string }[])[0]!.text;
    // the schema admits extra keys, so each one passes through with its event
    const events = ['constructor', 'prototype'].map((field) => ({
      kind: 'unknown_field_passed_through',
      field,
      reason: 'no_schema_match',
    }));
    expect(text).toBe(`{"constructor":"c","prototype":1,"_meta":${JSON.stringify({ normalized: events })}}`);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
