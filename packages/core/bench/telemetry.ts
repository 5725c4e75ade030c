/**
 * What core's OpenTelemetry costs a `tools/call` (the 20-property success call of the hot paths,
 * in-memory transport, v2 client), against the same server with `telemetry: false`, which runs
 * none of its code: with no SDK registered (the spans and counters go to the API's no-ops), and
 * with the real SDK registered (every span recorded by a simple processor into an in-memory
 * exporter, every counter into a meter provider).
 *
 * As in hot-paths.ts, each mode runs alone in a fresh process, in alternating order, and a
 * sample is the per-call CPU time of a batch. Run directly as `telemetry.ts --telemetry-child
 * MODE`, it is that child and prints the per-call CPU time of MODE as JSON.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

import { observeCall } from '../dist/telemetry/call-span.js';
import { benchServer, connectInMemory } from './bench-server.js';
import { twentyPropertyTool, twentyPropertyValue } from './generate-tools.js';
import { cpuClock, median, quantile } from './stats.js';

/** `off`: `telemetry: false`; `noSdk`: on, nothing registered; `sdk`: on, the real SDK registered. */
export const TELEMETRY_MODES = ['off', 'noSdk', 'sdk'] as const;
/** One of {@link TELEMETRY_MODES}. */
export type TelemetryMode = (typeof TELEMETRY_MODES)[number];

const BATCH = 25;
const BATCHES_PER_ROUND = 200;

/** A reader collected by no one: the meter provider aggregates, as it would for a periodic export. */
class IdleReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers the SDK; returns the exporter, emptied between batches so memory stays flat. */
function registerSdk(): InMemorySpanExporter {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new IdleReader()] }));
  return exporter;
}

/** `--telemetry-child MODE`: the per-call CPU time of MODE in ms (20th percentile of batches, median of rounds). */
async function telemetryChild(mode: TelemetryMode, warmUpCalls: number, subRounds: number): Promise<number> {
  const exporter = mode === 'sdk' ? registerSdk() : undefined;
  const { schema, validArgs } = twentyPropertyTool();
  const tool = { name: 'bench', inputSchema: schema, handler: twentyPropertyValue };
  const client = await connectInMemory(benchServer('envelope', [tool], { telemetry: mode !== 'off' }));
  const call = (): Promise<unknown> => client.callTool({ name: 'bench', arguments: validArgs });
  for (let index = 0; index < warmUpCalls; index += 1) await call();
  if (mode === 'sdk' && exporter?.getFinishedSpans().length !== warmUpCalls)
    throw new Error('the sdk mode recorded no span per call');
  const rounds: number[] = [];
  for (let round = 0; round < subRounds; round += 1) {
    const batches: number[] = [];
    for (let batch = 0; batch < BATCHES_PER_ROUND; batch += 1) {
      exporter?.reset();
      const started = cpuClock();
      for (let index = 0; index < BATCH; index += 1) await call();
      batches.push((cpuClock() - started) / BATCH);
    }
    rounds.push(quantile(batches, 0.2));
  }
  return median(rounds);
}

/** Per-call CPU time in ms of each mode, one entry per round. */
export type TelemetryRounds = Readonly<Record<TelemetryMode, readonly number[]>>;

/**
 * Runs `rounds` rounds; each spawns one fresh process per mode (in reversed order every other
 * round) and records its per-call time.
 *
 * @param quick - fewer calls per process (`pnpm bench --quick`).
 */
export function measureTelemetry(rounds: number, quick: boolean): TelemetryRounds {
  const script = fileURLToPath(import.meta.url);
  const times: Record<TelemetryMode, number[]> = { off: [], noSdk: [], sdk: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const mode of round % 2 === 0 ? TELEMETRY_MODES : [...TELEMETRY_MODES].reverse()) {
      const flags = ['--telemetry-child', mode, ...(quick ? ['--quick'] : [])];
      const ran = spawnSync(process.execPath, [...process.execArgv, script, ...flags], { encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`the ${mode} telemetry process failed: ${ran.stderr}`);
      times[mode].push(JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '') as number);
    }
  }
  return times;
}

/**
 * The CPU time `observeCall` adds to an answer that does nothing, with no SDK registered, in
 * microseconds per call: the median over `rounds` of the difference between `calls` bare answers
 * and `calls` observed ones. This is the whole of what a call pays for OpenTelemetry when nobody
 * traces, without the variance between processes the end-to-end ratio carries.
 *
 * @param calls - calls per round.
 * @param rounds - rounds.
 */
export async function measureNoSdkWrapper(calls: number, rounds: number): Promise<number> {
  const request = { mcpReq: { id: 1 } } as Parameters<typeof observeCall>[0];
  const result = { content: [] };
  const answer = (): Promise<{ content: never[] }> => Promise.resolve(result);
  const extra: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let started = cpuClock();
    for (let index = 0; index < calls; index += 1) await answer();
    const bare = cpuClock() - started;
    started = cpuClock();
    for (let index = 0; index < calls; index += 1) await observeCall(request, 'bench', answer);
    extra.push(((cpuClock() - started - bare) * 1000) / calls);
  }
  return median(extra);
}

if (process.argv.includes('--telemetry-child')) {
  const mode = process.argv[process.argv.indexOf('--telemetry-child') + 1] as TelemetryMode;
  if (!TELEMETRY_MODES.includes(mode)) throw new Error(`unknown telemetry mode ${mode}`);
  const quick = process.argv.includes('--quick');
  console.log(JSON.stringify(await telemetryChild(mode, quick ? 5_000 : 20_000, quick ? 3 : 5)));
}
