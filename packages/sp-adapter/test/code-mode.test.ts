/**
 * Code Mode on the SP reference server with a model set the size of the official catalogue
 * (370 operations), through the real SDK clients (v1 and v2) over Streamable HTTP on 127.0.0.1,
 * against a loopback replay of SP-API: find an operation with search_tools, call it from code,
 * branch on a validation envelope and on a 429's rate_limited envelope returned as values.
 */
import { rmSync } from 'node:fs';

import { validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import type { StreamableHttpHandle } from '@mcp-envelope/core';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { writeModelSet } from '../bench/generate-models.js';
import { createSpServer, loadSpModels } from '../src/index.js';
import { lwaEnv, startSpUpstream } from './helpers/sp-client.js';

interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  close(): Promise<void>;
}

type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };

const silentLogger = { error: (): void => undefined, warn: (): void => undefined };

let upstream: UpstreamReplay;
let handle: StreamableHttpHandle;
let modelFolder: string;
let operationCount = 0;

beforeAll(async () => {
  upstream = await startSpUpstream();
  modelFolder = writeModelSet(370);
  const models = await loadSpModels(modelFolder);
  operationCount = models.reduce((count, model) => count + model.operations.length, 0);
  const server = createSpServer({
    models,
    upstream: upstream.url,
    env: { ...lwaEnv(upstream), CODE_MODE: 'true' },
    envelope: { logger: silentLogger },
  });
  handle = await server.envelope.serveStreamableHttp({ port: 0 });
}, 60_000);

afterAll(async () => {
  await handle.close();
  await upstream.close();
  rmSync(modelFolder, { recursive: true, force: true });
});

beforeEach(() => {
  upstream.reset();
});

async function connect(sdk: 'v1' | 'v2'): Promise<ToolCaller> {
  if (sdk === 'v1') {
    const client = new ClientV1({ name: 'sp-code-mode-v1', version: '0.0.1' });
    await client.connect(new TransportV1(handle.url));
    return client;
  }
  const client = new ClientV2({ name: 'sp-code-mode-v2', version: '0.0.1' });
  await client.connect(new TransportV2(handle.url));
  return client;
}

async function execute(client: ToolCaller, code: string): Promise<Result> {
  return (await client.callTool({ name: 'execute_code', arguments: { code } })) as Result;
}

describe.each(['v1', 'v2'] as const)('SP server with CODE_MODE=true, SDK %s client', (sdk) => {
  let client: ToolCaller;

  beforeAll(async () => {
    client = await connect(sdk);
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists four tools instead of the whole model set, and search_tools finds getOrders among them', async () => {
    expect(operationCount).toBe(370);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'get_envelope_contract',
      'search_tools',
      'get_tool_schema',
      'execute_code',
    ]);
    const found = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'get orders', limit: 50 },
    })) as Result;
    const names = (found.structuredContent?.['tools'] as { name: string }[]).map((hit) => hit.name);
    // the generated set repeats each operation under copies of its model, so getOrders has equals
    expect(names[0]).toMatch(/OrdersV0_getOrders(R\d+)?$/i);
    expect(names).toContain('ordersV0_getOrders');
    expect(names).toHaveLength(50);
  });

  it('calls the operation from code against the replay upstream, with its rate_limit in execute_code _meta', async () => {
    const before = upstream.requests.length;
    upstream.respond({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-amzn-RateLimit-Limit': '0.0167' },
      body: { payload: { Orders: [{ AmazonOrderId: '114-2847193-5521067' }] } },
    });
    const result = await execute(
      client,
      `const reply = await callTool('ordersV0_getOrders', { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-01-01' });
if (reply._envelope_version === 1) return { failed: reply.error_code };
return reply.payload.Orders.map((order) => order.AmazonOrderId);`,
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      result: ['114-2847193-5521067'],
      _meta: { rate_limit: { limit_per_second: 0.0167 } },
    });
    expect(validateMeta(result.structuredContent?.['_meta']).valid).toBe(true);
    expect(upstream.requests.slice(before).map((request) => request.path)).toEqual(['/orders/v0/orders']);
  });

  it('a validation failure comes back as the SCHEMA_* envelope value, the code branches on it, nothing goes upstream', async () => {
    const before = upstream.requests.length;
    const result = await execute(
      client,
      `const reply = await callTool('ordersV0_getOrders', { CreatedAfter: '2026-01-01' });
if (reply._envelope_version === 1 && reply.error_kind === 'mcp_input_validation')
  return { branch: 'fix arguments', code: reply.error_code, field: reply.details[0].path, envelope: reply };
return { branch: 'success' };`,
    );
    const value = result.structuredContent?.['result'] as Record<string, unknown>;
    expect(value).toMatchObject({ branch: 'fix arguments', code: 'SCHEMA_REQUIRED', field: 'MarketplaceIds' });
    expect(validateEnvelope(value['envelope'])).toEqual({ valid: true, version: 1 });
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('an upstream 429 comes back as a rate_limited envelope value; its retry_after_seconds reaches _meta', async () => {
    upstream.respond({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '3', 'x-amzn-RateLimit-Limit': '0.0167' },
      body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] },
    });
    const result = await execute(
      client,
      `const reply = await callTool('ordersV0_getOrders', { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-01-01' });
if (reply._envelope_version === 1 && reply.error_kind === 'rate_limited')
  return { branch: 'wait', seconds: reply._meta.retry_after_seconds, retryable: reply.retryable, code: reply.error_code };
return { branch: 'other', reply };`,
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      result: { branch: 'wait', seconds: 3, retryable: true, code: 'RATE_LIMITED' },
      _meta: { rate_limit: { limit_per_second: 0.0167 }, retry_after_seconds: 3 },
    });
  });
});
