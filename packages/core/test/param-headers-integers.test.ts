/**
 * An `integer` property mirrored into an `Mcp-Param-*` header, over real Streamable HTTP on
 * 127.0.0.1: past 2^53 JSON numbers are rounded, so a body of 9007199254740993 would reach the
 * tool as 9007199254740992 while the header (or its absence) was checked against the rounded
 * value. The SDK v2 client records an honest call; raw replays then change the body and header.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeTool, StreamableHttpHandle } from '../src/index.js';

import { captureLog } from './fixtures/log-capture.js';
import { rawPost } from './fixtures/raw-post.js';
import { testAdapter } from './fixtures/test-adapter.js';

const SHARD_TOOL: EnvelopeTool = {
  name: 'shard_report',
  description: 'Returns the report of one shard.',
  inputSchema: {
    type: 'object',
    properties: { shard: { type: 'integer', 'x-mcp-header': 'Shard' } },
    required: ['shard'],
  },
  handler: (args) => ({ shard: args['shard'] }),
};

const log = captureLog();
let handle: StreamableHttpHandle;
let recorded: { headers: Record<string, string>; body: string };

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'param-header-integers', version: '0.0.1' },
    adapter: testAdapter,
    tools: [SHARD_TOOL],
    options: { env: {}, logger: log.logger },
  });
  handle = await server.serveStreamableHttp();
  const sent: { headers: Record<string, string>; body: string }[] = [];
  const fetchAndRecord = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const outgoing = new Request(input, init);
    const headers: Record<string, string> = {};
    outgoing.headers.forEach((value, name) => {
      if (name !== 'mcp-param-shard' && name !== 'content-length') headers[name] = value;
    });
    sent.push({ headers, body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(outgoing);
  };
  const client = new ClientV2(
    { name: 'param-header-integers', version: '0.0.1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(handle.url, { fetch: fetchAndRecord }));
  const honest = await client.callTool({ name: 'shard_report', arguments: { shard: 7 } });
  await client.close();
  expect(honest.structuredContent).toEqual({ shard: 7 });
  const call = sent.find((entry) => entry.body.includes('"tools/call"'));
  if (call === undefined) throw new Error('the client sent no tools/call');
  recorded = call;
});

afterAll(async () => {
  await handle.close();
});

describe('Mcp-Param-* on an integer property', () => {
  it('admits a safe integer with its header', async () => {
    const body = recorded.body.replace('"shard":7', '"shard":9007199254740991');
    const { status, json } = await rawPost(
      handle.port,
      { ...recorded.headers, 'Mcp-Param-Shard': '9007199254740991' },
      body,
    );
    expect(status).toBe(200);
    expect((json['result'] as Record<string, unknown>)['structuredContent']).toEqual({ shard: 9007199254740991 });
  });

  it.each([
    ['a header rounded to the same double', { 'Mcp-Param-Shard': '9007199254740992' }],
    ['a small header', { 'Mcp-Param-Shard': '1' }],
    ['no header', {}],
  ])('refuses a body above 2^53 with %s: 400, -32020, param-header-unsafe-integer', async (_label, extra) => {
    const body = recorded.body.replace('"shard":7', '"shard":9007199254740993');
    expect(body).toContain('9007199254740993');
    const { status, json } = await rawPost(handle.port, { ...recorded.headers, ...extra }, body);
    expect(status).toBe(400);
    expect(json['error']).toMatchObject({
      code: -32020,
      data: { rule: 'param-header-unsafe-integer', mismatch: { header: 'Mcp-Param-Shard' } },
    });
  });

  it('refuses a header above 2^53 whatever the body: the header alone names no exact value', async () => {
    const { status, json } = await rawPost(
      handle.port,
      { ...recorded.headers, 'Mcp-Param-Shard': '-9007199254740993' },
      recorded.body,
    );
    expect(status).toBe(400);
    expect(json['error']).toMatchObject({ code: -32020, data: { rule: 'param-header-unsafe-integer' } });
  });
});
