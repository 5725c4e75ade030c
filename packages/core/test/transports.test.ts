import { once } from 'node:events';
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';

import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import {
  Client as ClientV2,
  InMemoryTransport as InMemoryTransportV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeLogger } from '../src/index.js';
import type { StreamableHttpHandle } from '../src/index.js';
import { serveStdio } from '../src/stdio-host.js';
import { createTestServer, REPORT_NOT_FOUND } from './fixtures/test-server.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));

function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

describe('stdio: the end of the connection', () => {
  it('settles `closed` once stdin ends, not before, having answered what came first', async () => {
    const [stdin, stdout] = [new PassThrough(), new PassThrough()];
    let written = '';
    stdout.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const server = createTestServer({ logger: createEnvelopeLogger(new PassThrough()) });
    const handle = await serveStdio(
      (era) => server.createSdkServer(era),
      createEnvelopeLogger(new PassThrough()),
      {},
      stdin,
      stdout,
    );
    let closed = false;
    void handle.closed.then(() => (closed = true));
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    while (!written.includes('"id":1')) await once(stdout, 'data');
    expect(written).toContain('"serverInfo"');
    // still serving: it answers a ping after the initialize
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    while (!written.includes('"id":2')) await once(stdout, 'data');
    expect(closed).toBe(false);
    stdin.end();
    await handle.closed;
    expect(closed).toBe(true);
    await server.close();
  });
});

describe('stdio (SDK v1 client, server in a child process)', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';

  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', MCP_SCHEMA_KEY_NORMALIZATION_META: 'on' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'stdio-test', version: '0.0.1' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
  });

  it('reads the env switches of the child process and serves success and error results', async () => {
    expect(client.getServerCapabilities()?.experimental?.['openbridge_envelope']).toMatchObject({
      normalized_kinds: ['renamed', 'dropped_alias', 'coerced', 'unknown_field_rejected'],
    });
    await client.listTools();
    expect(structured(await client.callTool({ name: 'list_orders', arguments: { MarketplaceIds: ['A1'] } }))).toEqual({
      orders: [],
      marketplaceIds: ['A1'],
      status: 'any',
      _meta: {
        normalized: [{ kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' }],
        rate_limit: { limit_per_second: 0.5, remaining: 4 },
      },
    });
    const failed = await client.callTool({ name: 'report_summary', arguments: { fail: true } });
    expect(failed.isError).toBe(true);
    expect(structured(failed)).toEqual(REPORT_NOT_FOUND);
  });

  it('drops an own __proto__ argument, and answers arguments that are no object and a missing tool name with JSON-RPC -32602', async () => {
    const call = async (params: Record<string, unknown>): Promise<Record<string, unknown>> =>
      structured(await client.request({ method: 'tools/call', params }, CallToolResultSchema));
    // The SDK v2 server checks `params` against the MCP request schema before any handler runs:
    // `arguments` that is not an object (null included) is refused there, with no envelope.
    for (const sent of [null, [1], 'MarketplaceIds=A1']) {
      await expect(
        client.request(
          { method: 'tools/call', params: { name: 'list_orders', arguments: sent } },
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid tools/call request') as unknown,
      });
    }
    expect(await call({ name: 'list_orders', arguments: {} })).toMatchObject({
      error_code: 'SCHEMA_REQUIRED',
      details: [{ path: 'marketplaceIds', received_type: 'undefined' }],
    });
    // An own "__proto__" key in the JSON text does not survive the SDK's schema check of `params`:
    // the call runs without it (and no prototype changes).
    const prototypeKey = await call({
      name: 'list_orders',
      arguments: JSON.parse('{"__proto__":["A1"],"marketplaceIds":["A1"]}') as unknown,
    });
    expect(prototypeKey).toMatchObject({ marketplaceIds: ['A1'], orders: [] });
    expect(({} as Record<string, unknown>)['0']).toBeUndefined();
    // the SDK's schema check names the failing field
    for (const params of [{ name: 5 }, { arguments: {} }, undefined]) {
      await expect(
        client.request({ method: 'tools/call', ...(params === undefined ? {} : { params }) }, CallToolResultSchema),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(
          /^MCP error -32602: Invalid tools\/call request: [\s\S]*"(name|params)"/,
        ) as unknown,
      });
    }
  });

  it('logs internal errors to stderr, never stdout, with the correlation_id of the envelope', async () => {
    const envelope = structured(await client.callTool({ name: 'explode', arguments: {} }));
    const correlationId = (envelope['_meta'] as { correlation_id: string }).correlation_id;
    while (!stderr.includes(correlationId) && transport.stderr !== null) await once(transport.stderr, 'data');
    const line = stderr.split('\n').find((candidate) => candidate.includes(correlationId));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      level: 50,
      correlation_id: correlationId,
      tool: 'explode',
      msg: 'tool call failed with an unclassified error',
    });
  });
});

describe('Streamable HTTP on 127.0.0.1', () => {
  let handle: StreamableHttpHandle;

  beforeAll(async () => {
    handle = await createTestServer().serveStreamableHttp({ port: 0 });
  });

  afterAll(async () => {
    await handle.close();
  });

  it('listens on loopback with an ephemeral port at /mcp', () => {
    expect(handle.url.hostname).toBe('127.0.0.1');
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url.pathname).toBe('/mcp');
  });

  it('serves the SDK v1 client, sessions apart, with error results accepted on an outputSchema tool', async () => {
    const clients = [
      new Client({ name: 'http-a', version: '0.0.1' }),
      new Client({ name: 'http-b', version: '0.0.1' }),
    ];
    for (const client of clients) await client.connect(new StreamableHTTPClientTransport(handle.url));
    for (const client of clients) {
      await client.listTools();
      expect(structured(await client.callTool({ name: 'report_summary', arguments: {} }))).toEqual({
        total: 42,
        _meta: { rate_limit: { remaining: 9 } },
      });
      expect(structured(await client.callTool({ name: 'report_summary', arguments: { fail: true } }))).toEqual(
        REPORT_NOT_FOUND,
      );
      const unknown = await client.callTool({ name: 'nope', arguments: {} });
      expect(structured(unknown)['error_code']).toBe('TOOL_NOT_FOUND');
    }
    await Promise.all(clients.map((client) => client.close()));
  });

  it('refuses a request whose Host header is not loopback (DNS-rebinding protection)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: handle.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: `attacker.example:${handle.port}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(status).toBe(403);
  });

  it('refuses a request from a foreign Origin and accepts the loopback origin (MCP Origin validation)', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (origin: string): Promise<Response> =>
      fetch(handle.url, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize,
      });
    const foreign = await post('http://evil.example');
    expect(foreign.status).toBe(403);
    await foreign.body?.cancel();
    const own = await post(`http://127.0.0.1:${handle.port}`);
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('answers 404 for an unknown session and for another path', async () => {
    const unknownSession = await fetch(handle.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
      },
      body: '{}',
    });
    expect(unknownSession.status).toBe(404);
    expect(await unknownSession.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: null,
    });
    expect((await fetch(new URL('/other', handle.url))).status).toBe(404);
  });

  it('serves the v2 client (@modelcontextprotocol/client): error results arrive as results, not throws', async () => {
    const client = new ClientV2({ name: 'v2-http', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransportV2(handle.url));
    await client.listTools();
    const failed = await client.callTool({ name: 'report_summary', arguments: { fail: true } });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual(REPORT_NOT_FOUND);
    await client.close();
  });
});

describe('SDK v2 client over the in-memory transport', () => {
  it('receives every kind of error result without a throw, including on an outputSchema tool', async () => {
    const server = createTestServer();
    const [clientTransport, serverTransport] = InMemoryTransportV2.createLinkedPair();
    await server.connect(serverTransport);
    const client = new ClientV2({ name: 'v2-memory', version: '0.0.1' });
    await client.connect(clientTransport);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'report_summary')?.outputSchema?.['anyOf']).toHaveLength(2);

    const failed = await client.callTool({ name: 'report_summary', arguments: { fail: true } });
    expect(failed).toEqual({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(REPORT_NOT_FOUND) }],
      structuredContent: REPORT_NOT_FOUND,
      // the SDK v2 client passes the result's own _meta on: the server's statement of the contract
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: 1 } },
    });
    expect((await client.callTool({ name: 'report_summary', arguments: {} })).structuredContent).toEqual({
      total: 42,
      _meta: { rate_limit: { remaining: 9 } },
    });
    for (const [name, code] of [
      ['list_orders', 'SCHEMA_REQUIRED'],
      ['nope', 'TOOL_NOT_FOUND'],
      ['explode', 'INTERNAL_ERROR'],
      ['throttled', 'RATE_LIMITED'],
    ] as const) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error_code: string }).error_code).toBe(code);
      expect(validateEnvelope(result.structuredContent)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
    }
    await client.close();
    await server.close();
  });
});
