/**
 * `pnpm bench` (`tsx bench/run.ts [--cold-runs N] [--client v1|v2] [--strict]`): start-up cost of
 * the reference SP server, measured through the SDK v1 client unless `--client v2` says otherwise.
 *
 * For the built-in catalog, and for every official model when `MODELS_DIR` is set (e.g.
 * `MODELS_DIR=<a folder of the official SP-API model files> pnpm bench`), it measures:
 * - load: reading the model files and converting their operations (`loadSpModels`);
 * - register: `createSpServer` (core copies and checks every tool's input schema here);
 * - tools/list: the first answer to an SDK client, all pages;
 * - start-up: load + register + tools/list (target < 300 ms);
 * - first call: a tool call through a local HTTP upstream (token fetch included), and a second one
 *   (in a fresh process, 250 ms after tools/list, as a client reads the list before it calls);
 * - compile: `compileTool` of the largest input schema alone.
 * Each is printed beside a baseline measured in the same run: a bare SDK low-level server that
 * publishes the same tools without compiling anything.
 *
 * With `MODELS_DIR`, fresh-process start-ups are measured twice: without the model cache (every
 * file parsed and converted: a first start, or a start after the models or the converter
 * changed) and with a hit in a model cache filled once beforehand in a temporary folder (every
 * later start of `mcp-envelope-sp --models DIR`, which caches by default).
 *
 * These run in this process, one after the other, so the models are measured after the catalog
 * has warmed the code they share. Start-up is therefore also measured in fresh processes
 * (`--cold-runs N`, default 5, medians), as a server starts: nothing compiled by V8 yet, Ajv's
 * meta-schema not compiled, Node's lazily loaded parts not loaded; the baseline there is the bare
 * SDK server in a fresh process too. Both are compared with the target.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { compileTool } from '@mcp-envelope/core/adapter';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/server';
import type { CallToolResult, Tool, Transport } from '@modelcontextprotocol/server';

import { writeModelSet } from './generate-models.js';
import { createSpServer, loadBuiltInCatalog, loadSpModels, SP_HINT_TABLES } from '../src/index.js';
import type { SpModel } from '../src/index.js';

const TARGET_STARTUP_MS = 300;
/** The official SP-API catalogue's size in operations, which the generated model set matches. */
const OFFICIAL_OPERATIONS = 370;
const CATALOG = 'catalog';
const silentLogger = { error: (): void => undefined, warn: (): void => undefined };

function milliseconds(start: number): number {
  return performance.now() - start;
}

function format(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function verdict(startup: number): string {
  return `target < ${TARGET_STARTUP_MS} ms  ${startup < TARGET_STARTUP_MS ? 'PASS' : 'FAIL'}`;
}

const TARGET_FIRST_CALL_SLOWER_MS = 20;
/** How long a fresh-process start-up stays idle between tools/list and its first call (as the core bench). */
const IDLE_AFTER_LIST_MS = 250;

function firstCallVerdict(slower: number): string {
  return `${format(slower)} slower, target <= ${TARGET_FIRST_CALL_SLOWER_MS} ms  ${slower <= TARGET_FIRST_CALL_SLOWER_MS ? 'PASS' : 'FAIL'}`;
}

function loader(source: string, cacheDirectory?: string): () => Promise<SpModel[]> {
  return source === CATALOG
    ? loadBuiltInCatalog
    : () => loadSpModels(source, cacheDirectory === undefined ? {} : { cacheDirectory });
}

/**
 * The SDK line of the client every measurement goes through (`--client v1|v2`, default v1). The v2
 * client does more work of its own on a large tool list (it parses the held list again on its
 * first tools/call), which the bare server's figures show beside ours.
 */
const CLIENT_LINE: 'v1' | 'v2' = ((): 'v1' | 'v2' => {
  const chosen = process.argv.includes('--client') ? process.argv[process.argv.indexOf('--client') + 1] : 'v1';
  if (chosen !== 'v1' && chosen !== 'v2') throw new Error('--client takes v1 or v2');
  return chosen;
})();

/** What the measurements use of a client, the same in both SDK lines. */
type BenchClient = Pick<Client, 'listTools' | 'callTool' | 'close'>;

async function connected(server: { connect(transport: Transport): Promise<void> }): Promise<BenchClient> {
  if (CLIENT_LINE === 'v2') {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'sp-bench', version: '0.0.0' });
    await client.connect(clientTransport);
    return client;
  }
  const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
  await server.connect(serverTransport);
  const client = new ClientV1({ name: 'sp-bench', version: '0.0.0' });
  await client.connect(clientTransport);
  return client as unknown as BenchClient;
}

async function listAll(client: BenchClient): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

/**
 * What a bare handler of {@link CALL} does: the token exchange on its first call, then the
 * operation's request, as plain `fetch` calls to `upstream` (no validation, no envelope).
 */
function bareCallHandler(upstream: string): () => Promise<CallToolResult> {
  let token: string | undefined;
  return async () => {
    if (token === undefined) {
      const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'Atzr|bench' });
      const answer = await fetch(`${upstream}/auth/o2/token`, { method: 'POST', body });
      token = ((await answer.json()) as { access_token: string }).access_token;
    }
    const answer = await fetch(`${upstream}/orders/v0/orders?MarketplaceIds=ATVPDKIKX0DER`, {
      headers: { 'x-amz-access-token': token },
    });
    const value = (await answer.json()) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  };
}

/**
 * The baseline: a bare SDK v2 server listing the same tools (raw schemas, nothing compiled); with
 * `upstream`, its `tools/call` does what {@link bareCallHandler} does, and {@link CALL} is timed
 * twice after the same idle pause as ours.
 */
async function baseline(models: readonly SpModel[], upstream?: string): Promise<Startup> {
  let start = performance.now();
  const tools: Tool[] = models.flatMap((model) =>
    model.operations.map((operation) => ({
      name: operation.toolName,
      inputSchema: operation.inputSchema as Tool['inputSchema'],
    })),
  );
  const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools }));
  if (upstream !== undefined) server.setRequestHandler('tools/call', bareCallHandler(upstream));
  const register = milliseconds(start);
  const client = await connected(server);
  start = performance.now();
  await listAll(client);
  const list = milliseconds(start);
  if (upstream === undefined) {
    await client.close();
    return { load: 0, register, list };
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_LIST_MS));
  const firstCall = await timedCall(client);
  const secondCall = await timedCall(client);
  await client.close();
  return { load: 0, register, list, firstCall, secondCall };
}

/** Phase times of one start-up, in milliseconds. */
interface Startup {
  readonly load: number;
  readonly register: number;
  readonly list: number;
  /** The first `ordersV0_getOrders` call after start-up (token exchange included), and the second (fresh processes only). */
  readonly firstCall?: number;
  readonly secondCall?: number;
}

const CALL = {
  name: 'ordersV0_getOrders',
  arguments: { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-04-01T00:00:00Z' },
};

/** LWA settings that send token requests to `upstream` (the local fake upstream). */
function benchEnv(upstream: string): Record<string, string> {
  return {
    LWA_CLIENT_ID: 'bench',
    LWA_CLIENT_SECRET: 'bench',
    LWA_REFRESH_TOKEN: 'Atzr|bench',
    LWA_TOKEN_URL: `${upstream}/auth/o2/token`,
  };
}

/** Wall-clock time of one call in ms; throws when the call does not succeed. */
async function timedCall(client: BenchClient): Promise<number> {
  const start = performance.now();
  const result = await client.callTool(CALL);
  if (result.isError === true) throw new Error(`the bench call failed: ${JSON.stringify(result.structuredContent)}`);
  return milliseconds(start);
}

/**
 * `--startup-child <catalog|DIR> [bare|cache=DIR]`: one start-up in this (fresh) process, printed
 * as JSON; with `bare`, the baseline's register and list after the same load; with `cache=DIR`,
 * the models are loaded through the model cache in DIR.
 */
async function startupChild(source: string, mode: string | undefined): Promise<Startup> {
  const bare = mode === 'bare';
  const cacheDirectory = mode?.startsWith('cache=') === true ? mode.slice('cache='.length) : undefined;
  let start = performance.now();
  const models = await loader(source, cacheDirectory)();
  const load = milliseconds(start);
  // started before the clock, as the real upstream is there before the server
  const upstream = await fakeUpstream();
  if (bare) {
    const measured = await baseline(models, upstream.url);
    await upstream.close();
    return { ...measured, load };
  }
  start = performance.now();
  const server = createSpServer({
    models,
    env: benchEnv(upstream.url),
    upstream: upstream.url,
    envelope: { logger: silentLogger },
  });
  const register = milliseconds(start);
  const client = await connected(server.envelope);
  start = performance.now();
  await listAll(client);
  const list = milliseconds(start);
  // A client reads the list before it calls a tool; the server warms up in that idle time.
  await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_LIST_MS));
  const firstCall = await timedCall(client);
  const secondCall = await timedCall(client);
  await client.close();
  await upstream.close();
  return { load, register, list, firstCall, secondCall };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Start-ups in fresh processes (this script again, with the same Node options, e.g. tsx's loader), alternating with the baseline. */
function coldStartups(source: string, runs: number, cacheDirectory?: string): { ours: Startup; bare: Startup } {
  const script = fileURLToPath(import.meta.url);
  const run = (mode: string | undefined): Startup => {
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        script,
        '--startup-child',
        source,
        ...(mode === undefined ? [] : [mode]),
        '--client',
        CLIENT_LINE,
      ],
      { encoding: 'utf8' },
    );
    if (child.status !== 0) throw new Error(`the start-up child failed: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as Startup;
  };
  const ours: Startup[] = [];
  const bare: Startup[] = [];
  for (let index = 0; index < runs; index += 1) {
    ours.push(run(cacheDirectory === undefined ? undefined : `cache=${cacheDirectory}`));
    bare.push(run('bare'));
  }
  const medians = (list: readonly Startup[]): Startup => ({
    load: median(list.map((entry) => entry.load)),
    register: median(list.map((entry) => entry.register)),
    list: median(list.map((entry) => entry.list)),
    firstCall: median(list.map((entry) => entry.firstCall ?? Number.NaN)),
    secondCall: median(list.map((entry) => entry.secondCall ?? Number.NaN)),
  });
  return { ours: medians(ours), bare: medians(bare) };
}

async function fakeUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const body =
        request.url?.startsWith('/auth/o2/token') === true
          ? { access_token: 'Atza|bench', expires_in: 3600 }
          : { payload: {} };
      response
        .writeHead(200, { 'content-type': 'application/json', 'x-amzn-RateLimit-Limit': '1' })
        .end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

interface Result {
  readonly label: string;
  readonly inProcess: number;
  readonly cold: number | undefined;
  /** Fresh process: how much slower the first call is than the second, in ms. */
  readonly coldFirstCallSlower: number | undefined;
  /** Fresh process with a model-cache hit (models folders only). */
  readonly cached: number | undefined;
}

/** Loads, registers, lists and calls in this process, prints the timings, and returns the start-up (ms). */
async function measureInProcess(label: string, source: string): Promise<number> {
  const upstream = await fakeUpstream();
  const env = benchEnv(upstream.url);

  let start = performance.now();
  const models = await loader(source)();
  const loadTime = milliseconds(start);
  const operations = models.flatMap((model) => model.operations);

  start = performance.now();
  const server = createSpServer({ models, env, upstream: upstream.url, envelope: { logger: silentLogger } });
  const registerTime = milliseconds(start);

  const client = await connected(server.envelope);
  start = performance.now();
  const listed = await listAll(client);
  const listTime = milliseconds(start);

  const firstCall = await timedCall(client);
  const secondCall = await timedCall(client);

  const largest = operations.reduce((best, operation) =>
    JSON.stringify(operation.inputSchema).length > JSON.stringify(best.inputSchema).length ? operation : best,
  );
  start = performance.now();
  compileTool(largest.toolName, largest.inputSchema, {
    normalizationEnabled: true,
    strictUnknownFields: true,
    hints: SP_HINT_TABLES,
  });
  const compileLargest = milliseconds(start);

  const base = await baseline(models);
  await client.close();
  await server.envelope.close();
  await upstream.close();

  const startup = loadTime + registerTime + listTime;
  console.log(`\n== ${label}: ${models.length} model files, ${operations.length} operations, ${listed} tools listed`);
  console.log('-- in this process');
  console.log(`load models (read + resolve + convert)  ${format(loadTime)}`);
  console.log(
    `register (createSpServer)               ${format(registerTime)}   baseline bare SDK server ${format(base.register)}`,
  );
  console.log(`tools/list, all pages                   ${format(listTime)}   baseline ${format(base.list)}`);
  console.log(`start-up = load + register + list       ${format(startup)}   ${verdict(startup)}`);
  console.log(`first call ${CALL.name.padEnd(28)} ${format(firstCall)}   second call ${format(secondCall)}`);
  console.log(
    `compileTool of the largest schema (${largest.toolName}, ${JSON.stringify(largest.inputSchema).length} chars)  ${format(compileLargest)}`,
  );
  return startup;
}

/** Start-up and first-call timings in fresh processes (median of `coldRuns`), printed. */
function measureCold(source: string, coldRuns: number): { coldStartup: number; coldFirstCallSlower: number } {
  const cold = coldStartups(source, coldRuns);
  const coldStartup = cold.ours.load + cold.ours.register + cold.ours.list;
  console.log(`-- in a fresh process, median of ${coldRuns}`);
  console.log(`load models (read + resolve + convert)  ${format(cold.ours.load)}`);
  console.log(
    `register (createSpServer)               ${format(cold.ours.register)}   baseline bare SDK server ${format(cold.bare.register)}`,
  );
  console.log(`tools/list, all pages                   ${format(cold.ours.list)}   baseline ${format(cold.bare.list)}`);
  console.log(`start-up = load + register + list       ${format(coldStartup)}   ${verdict(coldStartup)}`);
  const coldFirstCallSlower = (cold.ours.firstCall ?? Number.NaN) - (cold.ours.secondCall ?? Number.NaN);
  console.log(
    `first call ${CALL.name.padEnd(28)} ${format(cold.ours.firstCall ?? Number.NaN)}   second call ${format(cold.ours.secondCall ?? Number.NaN)}   ${firstCallVerdict(coldFirstCallSlower)}`,
  );
  // the same token exchange and request from a bare handler: what Node and the client pay anyway
  console.log(
    `  baseline bare SDK server, same exchange  first call ${format(cold.bare.firstCall ?? Number.NaN)}   second call ${format(cold.bare.secondCall ?? Number.NaN)}`,
  );
  return { coldStartup, coldFirstCallSlower };
}

/** Start-up in fresh processes after a model-cache hit (median of `coldRuns`), printed; returns it (ms). */
async function measureCached(source: string, coldRuns: number): Promise<number> {
  const cacheDirectory = mkdtempSync(join(tmpdir(), 'sp-bench-cache-'));
  try {
    await loader(source, cacheDirectory)();
    const cached = coldStartups(source, coldRuns, cacheDirectory);
    const cachedStartup = cached.ours.load + cached.ours.register + cached.ours.list;
    console.log(`-- in a fresh process with a model-cache hit, median of ${coldRuns}`);
    console.log(`load models (hash files + read the cache) ${format(cached.ours.load)}`);
    console.log(
      `register (createSpServer)               ${format(cached.ours.register)}   baseline bare SDK server ${format(cached.bare.register)}`,
    );
    console.log(
      `tools/list, all pages                   ${format(cached.ours.list)}   baseline ${format(cached.bare.list)}`,
    );
    console.log(`start-up = load + register + list       ${format(cachedStartup)}   ${verdict(cachedStartup)}`);
    return cachedStartup;
  } finally {
    rmSync(cacheDirectory, { recursive: true, force: true });
  }
}

async function measure(label: string, source: string, coldRuns: number): Promise<Result> {
  const startup = await measureInProcess(label, source);
  if (coldRuns < 1)
    return { label, inProcess: startup, cold: undefined, coldFirstCallSlower: undefined, cached: undefined };
  const { coldStartup, coldFirstCallSlower } = measureCold(source, coldRuns);
  if (source === CATALOG)
    return { label, inProcess: startup, cold: coldStartup, coldFirstCallSlower, cached: undefined };
  const cached = await measureCached(source, coldRuns);
  return { label, inProcess: startup, cold: coldStartup, coldFirstCallSlower, cached };
}

/** The fresh-process verdicts of one result, printed in the summary. */
function summaryLine(result: Result): string {
  const pass = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
  const cold =
    result.cold === undefined ? '' : `   fresh process ${format(result.cold)} ${pass(result.cold < TARGET_STARTUP_MS)}`;
  const firstCall =
    result.coldFirstCallSlower === undefined
      ? ''
      : `   first call ${format(result.coldFirstCallSlower)} slower than the second ${pass(result.coldFirstCallSlower <= TARGET_FIRST_CALL_SLOWER_MS)}`;
  const cached =
    result.cached === undefined
      ? ''
      : `   fresh process, cache hit ${format(result.cached)} ${pass(result.cached < TARGET_STARTUP_MS)}`;
  return `${result.label.padEnd(44)} in this process ${format(result.inProcess)} ${pass(result.inProcess < TARGET_STARTUP_MS)}${cold}${firstCall}${cached}`;
}

function failed(result: Result): boolean {
  return (
    result.inProcess >= TARGET_STARTUP_MS ||
    (result.cold !== undefined && result.cold >= TARGET_STARTUP_MS) ||
    (result.coldFirstCallSlower !== undefined && !(result.coldFirstCallSlower <= TARGET_FIRST_CALL_SLOWER_MS)) ||
    (result.cached !== undefined && result.cached >= TARGET_STARTUP_MS)
  );
}

const argv = process.argv.slice(2);
if (argv[0] === '--startup-child') {
  const mode = argv[2]?.startsWith('--') === true ? undefined : argv[2];
  console.log(JSON.stringify(await startupChild(argv[1] ?? CATALOG, mode)));
} else {
  const runsFlag = argv.indexOf('--cold-runs');
  const coldRuns = runsFlag === -1 ? (argv.includes('--quick') ? 3 : 7) : Number(argv[runsFlag + 1]);
  if (!Number.isInteger(coldRuns) || coldRuns < 0)
    throw new Error('--cold-runs takes a whole number (0 skips the fresh-process runs)');
  console.log(`SP server start-up, measured through the SDK ${CLIENT_LINE} client (--client v1|v2)`);
  const results = [await measure('built-in catalog', CATALOG, coldRuns)];
  const generated = writeModelSet(OFFICIAL_OPERATIONS);
  try {
    results.push(await measure(`${OFFICIAL_OPERATIONS} operations generated from the catalog`, generated, coldRuns));
  } finally {
    rmSync(generated, { recursive: true, force: true });
  }
  const modelsDirectory = process.env['MODELS_DIR'];
  if (modelsDirectory !== undefined && modelsDirectory !== '') {
    results.push(await measure(`models from ${modelsDirectory}`, modelsDirectory, coldRuns));
  } else {
    console.log('\n(set MODELS_DIR to a folder of official SP-API models to measure them too)');
  }
  console.log(`\n== start-up (load + register + tools/list) against the ${TARGET_STARTUP_MS} ms target`);
  for (const result of results) console.log(summaryLine(result));
  if (argv.includes('--strict') && results.some(failed)) process.exitCode = 1;
}
