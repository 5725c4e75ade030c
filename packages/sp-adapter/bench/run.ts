/**
 * `pnpm bench` (`tsx bench/run.ts`): start-up cost of the reference SP server.
 *
 * For the built-in catalog, and for every official model when `MODELS_DIR` is set (e.g.
 * `MODELS_DIR=<a folder of the official SP-API model files> pnpm bench`), it measures:
 * - load: reading the model files and converting their operations (`loadSpModels`);
 * - register: `createSpServer` (core compiles every tool's input schema here);
 * - tools/list: the first answer to an SDK client, all pages;
 * - start-up: load + register + tools/list (target < 300 ms);
 * - first call: a tool call through a local HTTP upstream (token fetch included), and a second one;
 * - compile: `compileTool` of the largest input schema alone.
 * Each is printed beside a baseline measured in the same run: a bare SDK low-level server that
 * publishes the same tools without compiling anything.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { compileTool } from '@mcp-envelope/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import { createSpServer, loadBuiltInCatalog, loadSpModels, SP_HINT_TABLES } from '../src/index.js';
import type { SpModel } from '../src/index.js';

const TARGET_STARTUP_MS = 300;
const silentLogger = { error: (): void => undefined, warn: (): void => undefined };

function milliseconds(start: number): number {
  return performance.now() - start;
}

function format(value: number): string {
  return `${value.toFixed(1)} ms`;
}

async function connected(server: { connect(transport: InMemoryTransport): Promise<void> }): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'sp-bench', version: '0.0.0' });
  await client.connect(clientTransport);
  return client;
}

async function listAll(client: Client): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

/** The baseline: a bare SDK server listing the same tools (raw schemas, nothing compiled). */
async function baseline(models: readonly SpModel[]): Promise<{ register: number; list: number }> {
  let start = performance.now();
  const tools: Tool[] = models.flatMap((model) => model.operations.map((operation) => ({ name: operation.toolName, inputSchema: operation.inputSchema as Tool['inputSchema'] })));
  const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  const register = milliseconds(start);
  const client = await connected(server);
  start = performance.now();
  await listAll(client);
  const list = milliseconds(start);
  await client.close();
  return { register, list };
}

async function fakeUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const body = request.url?.startsWith('/auth/o2/token') === true ? { access_token: 'Atza|bench', expires_in: 3600 } : { payload: {} };
      response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-RateLimit-Limit': '1' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => { resolve(); })) };
}

async function measure(label: string, load: () => Promise<SpModel[]>, callTool: string, callArguments: Record<string, unknown>): Promise<boolean> {
  const upstream = await fakeUpstream();
  const env = { LWA_CLIENT_ID: 'bench', LWA_CLIENT_SECRET: 'bench', LWA_REFRESH_TOKEN: 'Atzr|bench', LWA_TOKEN_URL: `${upstream.url}/auth/o2/token` };

  let start = performance.now();
  const models = await load();
  const loadTime = milliseconds(start);
  const operations = models.flatMap((model) => model.operations);

  start = performance.now();
  const server = createSpServer({ models, env, upstream: upstream.url, envelope: { logger: silentLogger } });
  const registerTime = milliseconds(start);

  const client = await connected(server.envelope);
  start = performance.now();
  const listed = await listAll(client);
  const listTime = milliseconds(start);

  start = performance.now();
  await client.callTool({ name: callTool, arguments: callArguments });
  const firstCall = milliseconds(start);
  start = performance.now();
  await client.callTool({ name: callTool, arguments: callArguments });
  const secondCall = milliseconds(start);

  const largest = operations.reduce((best, operation) => (JSON.stringify(operation.inputSchema).length > JSON.stringify(best.inputSchema).length ? operation : best));
  start = performance.now();
  compileTool(largest.toolName, largest.inputSchema, { normalizationEnabled: true, strictUnknownFields: true, hints: SP_HINT_TABLES });
  const compileLargest = milliseconds(start);

  const base = await baseline(models);
  await client.close();
  await server.envelope.close();
  await upstream.close();

  const startup = loadTime + registerTime + listTime;
  const pass = startup < TARGET_STARTUP_MS;
  console.log(`\n== ${label}: ${models.length} model files, ${operations.length} operations, ${listed} tools listed`);
  console.log(`load models (read + resolve + convert)  ${format(loadTime)}`);
  console.log(`register (createSpServer)               ${format(registerTime)}   baseline bare SDK server ${format(base.register)}`);
  console.log(`tools/list, all pages                   ${format(listTime)}   baseline ${format(base.list)}`);
  console.log(`start-up = load + register + list       ${format(startup)}   target < ${TARGET_STARTUP_MS} ms  ${pass ? 'PASS' : 'FAIL'}`);
  console.log(`first call ${callTool.padEnd(28)} ${format(firstCall)}   second call ${format(secondCall)}`);
  console.log(`compileTool of the largest schema (${largest.toolName}, ${JSON.stringify(largest.inputSchema).length} chars)  ${format(compileLargest)}`);
  return pass;
}

const results = [await measure('built-in catalog', loadBuiltInCatalog, 'ordersV0_getOrders', { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-04-01T00:00:00Z' })];
const modelsDirectory = process.env['MODELS_DIR'];
if (modelsDirectory !== undefined && modelsDirectory !== '') {
  results.push(await measure(`models from ${modelsDirectory}`, () => loadSpModels(modelsDirectory), 'ordersV0_getOrders', { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-04-01T00:00:00Z' }));
} else {
  console.log('\n(set MODELS_DIR to a folder of official SP-API models to measure them too)');
}
if (process.argv.includes('--strict') && results.includes(false)) process.exitCode = 1;
