/**
 * Tools whose `outputSchema` has a root other than `type: "object"` (array, string, integer,
 * boolean, null), through real clients over Streamable HTTP on 127.0.0.1. A 2026-07-28 client
 * (SDK v2) sees `{ anyOf: [schema, envelope] }` and gets the value as `structuredContent`, which
 * its own output validation accepts; a 2025-11-25 client (SDK v2 and v1), whose `outputSchema`
 * must have an object root, sees the tool without one and gets the value as text. Failures are
 * envelopes in both eras, and a value that breaks the schema is an `internal_error` in both.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeTool, StreamableHttpHandle } from '../src/index.js';
import { embeddedEnvelopeSchema } from '../src/output-schema.js';

import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

/** name, own outputSchema, the value it returns, that value's JSON text. */
const ROOTS = [
  ['list_tags', { type: 'array', items: { type: 'string' } }, ['red', 'green'], '["red","green"]'],
  ['order_status', { type: 'string', enum: ['open', 'closed'] }, 'open', 'open'],
  ['count_orders', { type: 'integer', minimum: 0 }, 3, '3'],
  ['is_ready', { type: 'boolean' }, true, 'true'],
  ['no_value', { type: 'null' }, null, 'null'],
] as const;

function rootTool([name, outputSchema, value]: (typeof ROOTS)[number]): EnvelopeTool {
  return {
    name,
    inputSchema: {
      type: 'object',
      properties: { fail: { type: 'boolean' }, off_schema: { type: 'boolean' } },
      additionalProperties: false,
    },
    outputSchema,
    handler: (args) => {
      if (args['fail'] === true) throw new Error('the upstream went away');
      // a value of the wrong type for every one of these schemas
      if (args['off_schema'] === true) return name === 'count_orders' ? -1 : { unexpected: 1 };
      return value;
    },
  };
}

/** An object-root tool beside them, whose schema every era keeps seeing. */
const OBJECT_ROOT: EnvelopeTool = {
  name: 'order_total',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
  handler: () => ({ total: 42 }),
};

const log = captureLog();
let handle: StreamableHttpHandle;

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'output-roots', version: '0.0.1' },
    adapter: testAdapter,
    tools: [...ROOTS.map(rootTool), OBJECT_ROOT],
    options: { env: {}, logger: log.logger },
  });
  handle = await server.serveStreamableHttp();
});

afterAll(async () => {
  await handle.close();
});

/** What the clients of this file have in common. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function connect(kind: 'v2 modern' | 'v2 legacy' | 'v1'): Promise<AnyClient> {
  if (kind === 'v1') {
    const client = new Client({ name: 'roots-v1', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    return client;
  }
  const client = new ClientV2(
    { name: `roots-${kind}`, version: '0.0.1' },
    kind === 'v2 modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new TransportV2(handle.url));
  expect(client.getNegotiatedProtocolVersion()).toBe(kind === 'v2 modern' ? '2026-07-28' : '2025-11-25');
  return client;
}

function errorCodeOf(result: Record<string, unknown>): string {
  expect(result['isError']).toBe(true);
  expect(validateEnvelope(result['structuredContent'])).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
  const envelope = result['structuredContent'] as { error_code: string };
  expect(result['content']).toEqual([{ type: 'text', text: JSON.stringify(envelope) }]);
  return envelope.error_code;
}

describe.each(['v2 modern', 'v2 legacy', 'v1'] as const)('a non-object outputSchema, %s client', (kind) => {
  const modern = kind === 'v2 modern';
  let client: AnyClient;

  beforeAll(async () => {
    client = await connect(kind);
  });

  afterAll(async () => {
    await client.close();
  });

  it(
    modern
      ? 'lists { anyOf: [schema, envelope] } for each such tool'
      : 'lists such tools without an outputSchema, and keeps the object one',
    async () => {
      const { tools } = await client.listTools();
      for (const [name, outputSchema] of ROOTS) {
        const listed = tools.find((tool) => tool.name === name);
        expect(listed?.outputSchema).toEqual(modern ? { anyOf: [outputSchema, embeddedEnvelopeSchema()] } : undefined);
      }
      expect(tools.find((tool) => tool.name === 'order_total')?.outputSchema).toMatchObject({
        type: 'object',
        anyOf: [{ type: 'object', properties: { total: { type: 'number' } }, required: ['total'] }, {}],
      });
    },
  );

  it(modern ? 'sends each value as structuredContent and as text' : 'sends each value as text only', async () => {
    for (const [name, , value, text] of ROOTS) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result['content']).toEqual([{ type: 'text', text }]);
      expect(result['structuredContent']).toEqual(modern ? value : undefined);
      expect(result['isError']).toBeUndefined();
    }
    expect((await client.callTool({ name: 'order_total', arguments: {} }))['structuredContent']).toEqual({
      total: 42,
    });
  });

  it('answers a failure with the envelope, and a value off the schema with internal_error', async () => {
    for (const [name] of ROOTS) {
      expect(errorCodeOf(await client.callTool({ name, arguments: { fail: true } }))).toBe('INTERNAL_ERROR');
      expect(errorCodeOf(await client.callTool({ name, arguments: { off_schema: true } }))).toBe('INTERNAL_ERROR');
      expect(errorCodeOf(await client.callTool({ name, arguments: { extra: 1 } }))).toBe(
        'SCHEMA_ADDITIONAL_PROPERTIES',
      );
    }
  });
});
