/**
 * `pnpm bench`: the performance targets of @mcp-envelope/core, each measured against a baseline
 * measured in the same run. Prints the figure, the ratio and PASS/FAIL per target; exits non-zero
 * on a FAIL only with `--strict`. Run under `node --expose-gc --import tsx` (the package script
 * does) so the heap figure is measured after full collections.
 */
import { Writable } from 'node:stream';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Bench } from 'tinybench';
import { z } from 'zod';

import { compileTool, createEnvelopeLogger, createEnvelopeServer } from '../dist/index.js';
import { htmlSummary } from '../dist/upstream-body/index.js';
import type { EnvelopeAdapter, EnvelopeServer, EnvelopeTool } from '../dist/index.js';
import { realisticTools, twentyPropertyTool } from './generate-tools.js';

const strict = process.argv.includes('--strict');
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 15;
const ROUND_TIME_MS = quick ? 200 : 400;

const silentLogger = createEnvelopeLogger(
  new Writable({
    write: (_chunk, _encoding, callback) => {
      callback();
    },
  }),
);

const benchAdapter: EnvelopeAdapter = {
  id: 'bench',
  errorKinds: [],
  classify: () => ({
    error_kind: 'internal_error',
    error_code: 'INTERNAL_ERROR',
    retryable: false,
    summary: 'unused',
    details: [],
    hints: [],
  }),
  parseResponseMeta: () => ({}),
};

interface Outcome {
  readonly name: string;
  readonly figure: string;
  readonly target: string;
  readonly pass: boolean;
}
const outcomes: Outcome[] = [];

function report(outcome: Outcome): void {
  outcomes.push(outcome);
  console.log(`${outcome.pass ? 'PASS' : 'FAIL'}  ${outcome.name}: ${outcome.figure} (target ${outcome.target})`);
}

const { schema, validArgs, invalidArgs, builtArgs } = twentyPropertyTool();
const handlerValue = (args: Record<string, unknown>): Record<string, unknown> => ({
  ok: true,
  name: args['name0'],
  ids: args['ids2'],
  count: 2,
});
/** The same tool as an `async` function (as handlers that call an upstream are). */
const asyncHandlerValue = async (args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  await Promise.resolve();
  return handlerValue(args);
};

async function connect(server: { connect(transport: InMemoryTransport): Promise<void> }): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench-client', version: '0.0.0' });
  await client.connect(clientTransport);
  return client;
}

/** The baseline: a bare low-level SDK server with the same tool, returning the same value. */
function bareServer(): Server {
  const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'bench', inputSchema: schema as { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    if (request.params.name !== 'bench') throw new McpError(-32602, 'unknown tool');
    const value = handlerValue(request.params.arguments ?? {});
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  return server;
}

/**
 * A second baseline: the bare server with its tools/call handler registered the way core registers
 * its own (through Protocol, with a request schema that takes `params` as sent), so it skips the
 * SDK Server's two extra request parses and its result parse. Against it, the ratio is core's own
 * work per call (lookup, normalization, validation, context, result checks) and nothing else.
 */
function bareSingleParseServer(): Server {
  const server = new Server({ name: 'bare-single-parse', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'bench', inputSchema: schema as { type: 'object' } }],
  }));
  const request = z.object({
    method: z.literal('tools/call'),
    params: z.object({ name: z.string(), arguments: z.unknown() }),
  });
  Protocol.prototype.setRequestHandler.call(server, request, (call: z.infer<typeof request>): CallToolResult => {
    if (call.params.name !== 'bench') throw new McpError(-32602, 'unknown tool');
    const value = handlerValue((call.params.arguments ?? {}) as Record<string, unknown>);
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  return server;
}

/** The async baseline: the same bare server awaiting {@link asyncHandlerValue}. */
function bareAsyncServer(): Server {
  const server = new Server({ name: 'bare-async', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'bench', inputSchema: schema as { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    if (request.params.name !== 'bench') throw new McpError(-32602, 'unknown tool');
    const value = await asyncHandlerValue(request.params.arguments ?? {});
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  return server;
}

function envelopeServer(tools: readonly EnvelopeTool[]): EnvelopeServer {
  return createEnvelopeServer({
    info: { name: 'envelope', version: '0.0.0' },
    adapter: benchAdapter,
    tools,
    options: { env: {}, logger: silentLogger },
  });
}

/**
 * The process's CPU time in milliseconds (user + system, all threads). On a shared machine,
 * wall-clock time also counts the time other processes hold the CPU, which swamps a 10 % ratio;
 * CPU time counts only this process's own work.
 */
function cpuClock(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Calls per benchmark iteration: one sample is the CPU time of a batch, divided by its size. */
const BATCH = 25;

/**
 * A low quantile (the 20th percentile) of a round's per-call batch times in ms. Other processes
 * on a shared machine only ever add time (descheduling, cache and frequency effects), so a low
 * quantile tracks the work itself better than the mean or the median.
 */
function lowQuantileLatency(bench: Bench, name: string): number {
  const task = bench.getTask(name);
  const result = task?.result;
  if (result === undefined || !('latency' in result)) throw new Error(`benchmark "${name}" did not complete`);
  const samples = result.latency.samples;
  if (samples === undefined) throw new Error(`benchmark "${name}" kept no samples`);
  return (samples[Math.floor(samples.length * 0.2)] as number) / BATCH;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

/**
 * Runs the tasks in many short rounds, alternating their order, and compares each task with the
 * baseline task of the same round. Each iteration runs {@link BATCH} calls; the process CPU clock
 * times it. Returns, per task, the median over rounds of its low-quantile per-call time and of
 * its per-round ratio to the baseline, so load from other processes, which comes and goes,
 * weighs on both sides of each ratio alike.
 */
interface Measured {
  /** Median over rounds of the low-quantile per-call time, in milliseconds. */
  readonly mean: number;
  /** Median over rounds of the per-round ratio to the baseline. */
  readonly ratio: number;
  /** The per-round times, for ratios against another task ({@link pairedRatio}). */
  readonly rounds: readonly number[];
}

/** Median over rounds of `task`'s time divided by `against`'s time in the same round. */
function pairedRatio(task: Measured, against: Measured): number {
  return median(task.rounds.map((time, round) => time / (against.rounds[round] as number)));
}

async function measure(
  baseline: string,
  tasks: Readonly<Record<string, () => Promise<unknown>>>,
): Promise<Record<string, Measured>> {
  const times: Record<string, number[]> = {};
  const ratios: Record<string, number[]> = {};
  const names = Object.keys(tasks);
  for (let round = 0; round < ROUNDS; round += 1) {
    const bench = new Bench({ time: ROUND_TIME_MS, warmupTime: 100, now: cpuClock, retainSamples: true });
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const call = tasks[name] as () => Promise<unknown>;
      bench.add(
        name,
        async () => {
          for (let index = 0; index < BATCH; index += 1) await call();
        },
        {
          // Let the event loop turn before each task, so timers and immediates of the previous
          // task (such as an idle AsyncLocalStorage being switched off) do not land in this one.
          beforeAll: () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))),
        },
      );
    }
    await bench.run();
    const base = lowQuantileLatency(bench, baseline);
    for (const name of names) {
      const time = lowQuantileLatency(bench, name);
      (times[name] ??= []).push(time);
      (ratios[name] ??= []).push(time / base);
    }
  }
  const summary: Record<string, Measured> = {};
  for (const name of names)
    summary[name] = { mean: median(times[name] ?? []), ratio: median(ratios[name] ?? []), rounds: times[name] ?? [] };
  return summary;
}

function microseconds(milliseconds: number): string {
  return `${(milliseconds * 1000).toFixed(1)} µs`;
}

async function hotPaths(): Promise<void> {
  const bare = await connect(bareServer());
  const bareSingleParse = await connect(bareSingleParseServer());
  const envelope = await connect(envelopeServer([{ name: 'bench', inputSchema: schema, handler: handlerValue }]));
  const bareAsync = await connect(bareAsyncServer());
  const envelopeAsync = await connect(
    envelopeServer([{ name: 'bench', inputSchema: schema, handler: asyncHandlerValue }]),
  );
  const check = (await envelope.callTool({ name: 'bench', arguments: invalidArgs })).isError;
  if (check !== true) throw new Error('the invalid arguments did not fail validation');
  const times = await measure('bare', {
    bare: () => bare.callTool({ name: 'bench', arguments: validArgs }),
    bareSingleParse: () => bareSingleParse.callTool({ name: 'bench', arguments: validArgs }),
    envelope: () => envelope.callTool({ name: 'bench', arguments: validArgs }),
    validationError: () => envelope.callTool({ name: 'bench', arguments: invalidArgs }),
    bareAsync: () => bareAsync.callTool({ name: 'bench', arguments: validArgs }),
    envelopeAsync: () => envelopeAsync.callTool({ name: 'bench', arguments: validArgs }),
  });
  const bareTime = times['bare']!.mean;
  const success = times['envelope']!;
  const validation = times['validationError']!;
  report({
    name: 'success path vs bare SDK Server (20-property schema, in-memory)',
    figure: `${microseconds(success.mean)} vs ${microseconds(bareTime)} per call, ratio ${success.ratio.toFixed(3)}x (median of ${ROUNDS} paired rounds)`,
    target: '<= 1.10x',
    pass: success.ratio <= 1.1,
  });
  // core registers tools/call through Protocol and parses each request once (see server.ts), where
  // the bare server pays the SDK Server's three parses: against a bare server that does the same,
  // the ratio is core's own cost.
  const single = times['bareSingleParse']!;
  console.log(
    `info  success path vs a bare server with core's one-parse tools/call registration: ${microseconds(success.mean)} vs ${microseconds(single.mean)} per call, ratio ${pairedRatio(success, single).toFixed(3)}x; validation-error path against it: ${pairedRatio(validation, single).toFixed(3)}x (medians of paired rounds)`,
  );
  // The async envelope call against the async bare call of the same round.
  const asyncRatio = pairedRatio(times['envelopeAsync']!, times['bareAsync']!);
  console.log(
    `info  async handler: ${microseconds(times['envelopeAsync']!.mean)} vs bare async ${microseconds(times['bareAsync']!.mean)} per call, ratio ${asyncRatio.toFixed(3)}x on Node ${process.versions.node}`,
  );
  report({
    name: 'validation-error path vs bare success call',
    figure: `${microseconds(validation.mean)} vs ${microseconds(bareTime)} per call, ratio ${validation.ratio.toFixed(3)}x (median of ${ROUNDS} paired rounds)`,
    target: '<= 1.5x',
    pass: validation.ratio <= 1.5,
  });
  await bare.close();
  await bareSingleParse.close();
  await envelope.close();
  await bareAsync.close();
  await envelopeAsync.close();
}

function checkThroughput(): void {
  const tool = compileTool('bench', schema, { normalizationEnabled: true, strictUnknownFields: true });
  // validArgs are parsed from JSON text, as the server receives them from stdio and Streamable HTTP
  // (core passes them on as the transport parsed them, see server.ts).
  const renamedArgs = JSON.parse(JSON.stringify(validArgs).replace('"name0"', '"Name0"')) as Record<string, unknown>;
  const measureCalls = (args: Record<string, unknown>): number => {
    if (!tool.check(args).ok) throw new Error('benchmark arguments must pass');
    for (let index = 0; index < 100_000; index += 1) tool.check(args);
    const calls = quick ? 300_000 : 1_000_000;
    // CPU time, like the paired rounds: time other processes (and the hypervisor) take the CPU
    // away is not this code's cost.
    const started = cpuClock();
    for (let index = 0; index < calls; index += 1) tool.check(args);
    return calls / ((cpuClock() - started) / 1000);
  };
  const canonical = measureCalls(validArgs);
  const renamed = measureCalls(renamedArgs);
  // An object built key by key with 20 keys (as an in-process caller may pass one over the
  // in-memory transport) is in V8's dictionary mode: listing and reading its keys is slower.
  const built = measureCalls(builtArgs);
  report({
    name: 'normalization + validation alone (compileTool(...).check, 20 properties, canonical keys, arguments parsed from JSON)',
    figure: `${Math.round(canonical).toLocaleString('en')} calls/s (with one renamed key: ${Math.round(renamed).toLocaleString('en')} calls/s; arguments built key by key: ${Math.round(built).toLocaleString('en')} calls/s)`,
    target: '>= 500,000 calls/s',
    pass: canonical >= 500_000,
  });
}

async function largeCatalog(): Promise<void> {
  const runs: number[] = [];
  let listed = 0;
  for (let round = 0; round < 3; round += 1) {
    const tools = realisticTools(370).map((tool) => ({ ...tool, name: `${tool.name}_r${round}` }));
    const started = performance.now();
    const client = await connect(envelopeServer(tools));
    let cursor: string | undefined;
    listed = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      listed += page.tools.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    runs.push(performance.now() - started);
    await client.close();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  const median = sorted[1] as number;
  report({
    name: `370 generated tools registered + tools/list answered (${listed} listed incl. get_envelope_contract, 4 pages)`,
    figure: `${median.toFixed(0)} ms median of 3 (runs: ${runs.map((run) => run.toFixed(0)).join(', ')} ms)`,
    target: '< 300 ms',
    pass: median < 300,
  });
}

async function heapGrowth(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) {
    report({
      name: 'heap growth over 100k calls',
      figure: 'not measured: run under node --expose-gc',
      target: '< 10 MB',
      pass: false,
    });
    return;
  }
  const client = await connect(envelopeServer([{ name: 'bench', inputSchema: schema, handler: handlerValue }]));
  const batch = async (count: number): Promise<void> => {
    for (let done = 0; done < count; done += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          client.callTool({
            name: index % 4 === 3 ? 'missing' : 'bench',
            arguments: index % 2 === 1 ? invalidArgs : validArgs,
          }),
        ),
      );
    }
  };
  const total = quick ? 20_000 : 100_000;
  await batch(5_000);
  collect();
  collect();
  const before = process.memoryUsage().heapUsed;
  await batch(total);
  collect();
  collect();
  const growth = (process.memoryUsage().heapUsed - before) / (1024 * 1024);
  report({
    name: `heap growth over ${total.toLocaleString('en')} calls (success, validation errors, unknown tools)`,
    figure: `${growth.toFixed(2)} MB`,
    target: '< 10 MB',
    pass: growth < 10,
  });
  await client.close();
}

/** The lowest CPU time of `runs` runs of `task`, in ms (the lowest is the least disturbed by other processes). */
function bestCpuTime(task: () => unknown, runs: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = cpuClock();
    task();
    best = Math.min(best, cpuClock() - started);
  }
  return best;
}

/**
 * A huge invalid argument (every item of a list the wrong type) must cost time linear in its size:
 * 1,000,000 wrong items against ten times the cost of 100,000, and against parsing the argument's
 * JSON text (what any server pays to read it).
 */
function hugeInvalidArgument(): void {
  const tool = compileTool(
    'bench_ids',
    { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } },
    { normalizationEnabled: true, strictUnknownFields: true },
  );
  const text = (count: number): string => JSON.stringify({ ids: Array.from({ length: count }, () => 'x') });
  const small = JSON.parse(text(100_000)) as Record<string, unknown>;
  const largeText = text(1_000_000);
  const large = JSON.parse(largeText) as Record<string, unknown>;
  const outcome = tool.check(large);
  if (outcome.ok || outcome.details.length !== 200) throw new Error('the huge argument must fail with 200 details');
  const runs = quick ? 2 : 4;
  const smallTime = bestCpuTime(() => tool.check(small), runs);
  const largeTime = bestCpuTime(() => tool.check(large), runs);
  const parseTime = bestCpuTime(() => JSON.parse(largeText), runs);
  const linearity = largeTime / (10 * smallTime);
  report({
    name: `validation of a ${(largeText.length / 1e6).toFixed(1)} MB argument of 1,000,000 wrong items (200 details kept)`,
    figure: `${largeTime.toFixed(0)} ms, ${(largeTime / parseTime).toFixed(1)}x its JSON.parse (${parseTime.toFixed(0)} ms); ${linearity.toFixed(2)}x ten times 100,000 items (${smallTime.toFixed(0)} ms)`,
    target: '<= 30x its JSON.parse',
    pass: largeTime / parseTime <= 30,
  });
}

/** The HTML summary of hostile markup (unclosed tags) against an ordinary page of the same size without a title. */
function hostileHtml(): void {
  const size = 64 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  // no title and no heading: the summary reads the whole page, as it does for the hostile ones
  const ordinary = `<html><body>${fill('<p>The server is <b>busy</b>, try again later.</p>')}</body></html>`;
  const hostile = {
    'unclosed <title': fill('<title'),
    'unclosed <h1>': fill('<h1>x'),
    'unclosed <script>': fill('<script>'),
    'unclosed <!--': fill('<!--x'),
  };
  const runs = quick ? 5 : 20;
  const baseline = bestCpuTime(() => htmlSummary(ordinary), runs);
  const ratios = Object.entries(hostile).map(([label, page]) => ({
    label,
    time: bestCpuTime(() => htmlSummary(page), runs),
  }));
  const worst = ratios.reduce((left, right) => (right.time > left.time ? right : left));
  report({
    name: 'HTML summary of a 64 KiB page of unclosed tags vs an ordinary 64 KiB page',
    figure: `worst ${worst.label}: ${worst.time.toFixed(2)} ms vs ${baseline.toFixed(2)} ms, ratio ${(worst.time / baseline).toFixed(2)}x (${ratios.map((entry) => `${entry.label} ${entry.time.toFixed(2)} ms`).join(', ')})`,
    target: '<= 15x (linear: the same work per character)',
    pass: worst.time / baseline <= 15,
  });
}

/**
 * Over real HTTP on 127.0.0.1: how long one session's small call waits while another session
 * sends a 0.6 MB invalid argument, against the same small call alone. The server runs on one
 * event loop, so the big call's CPU time is every other session's wait.
 */
async function httpStall(): Promise<void> {
  const tool = {
    name: 'bench_ids',
    inputSchema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } },
    handler: () => ({ ok: true }),
  };
  const handle = await envelopeServer([tool]).serveStreamableHttp({ port: 0 });
  const [big, small] = [new Client({ name: 'big', version: '0' }), new Client({ name: 'small', version: '0' })];
  await big.connect(new StreamableHTTPClientTransport(handle.url));
  await small.connect(new StreamableHTTPClientTransport(handle.url));
  const hugeArgs = { ids: Array.from({ length: 150_000 }, () => 'x') };
  const timed = async (call: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  const smallCall = (): Promise<unknown> => small.callTool({ name: 'bench_ids', arguments: { ids: [1] } });
  const runs = quick ? 3 : 7;
  const alone: number[] = [];
  const stalled: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    alone.push(await timed(smallCall));
    const bigCall = big.callTool({ name: 'bench_ids', arguments: hugeArgs }, undefined, { timeout: 120_000 });
    // sent just after the big call, so it queues behind the big call's validation
    await new Promise((resolve) => setTimeout(resolve, 5));
    stalled.push(await timed(smallCall));
    await bigCall;
  }
  await big.close();
  await small.close();
  await handle.close();
  const stall = median(stalled);
  const base = median(alone);
  report({
    name: `HTTP: another session's small call while one session sends ${(JSON.stringify(hugeArgs).length / 1e6).toFixed(1)} MB of 150,000 wrong items`,
    figure: `${stall.toFixed(0)} ms vs ${base.toFixed(1)} ms alone (medians of ${runs})`,
    target: '< 1000 ms',
    pass: stall < 1000,
  });
}

console.log(`@mcp-envelope/core benchmarks on Node ${process.version}${quick ? ' (quick)' : ''}`);
// `--only=NAME[,NAME]` runs only the named groups (hot-paths, throughput, catalog, heap, hostile-input).
const only = process.argv
  .find((argument) => argument.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const groups: readonly (readonly [string, () => unknown])[] = [
  ['hot-paths', hotPaths],
  ['throughput', checkThroughput],
  ['catalog', largeCatalog],
  ['heap', heapGrowth],
  [
    'hostile-input',
    async () => {
      hugeInvalidArgument();
      hostileHtml();
      await httpStall();
    },
  ],
];
for (const [name, run] of groups) if (only === undefined || only.includes(name)) await run();
const failed = outcomes.filter((outcome) => !outcome.pass).length;
console.log(`${outcomes.length - failed} of ${outcomes.length} targets met`);
if (strict && failed > 0) process.exitCode = 1;
