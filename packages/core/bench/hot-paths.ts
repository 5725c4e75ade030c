/**
 * The hot paths of `pnpm bench`: a successful and a failing `tools/call` on an envelope server
 * against the same call on a bare SDK v2 server, over the in-memory transport with the v2 client.
 *
 * Each server is measured alone in a fresh process. Both servers run the same SDK code, and in
 * one process whichever ran first left that code's JIT state tuned to its own calls: ratios
 * measured side by side moved from 0.8 to 1.5 between processes. A real deployment runs one
 * server per process, which is what is measured here. Rounds spawn one process per server, in
 * alternating order, so load from other processes weighs on both sides of a round's ratio.
 *
 * Run directly as `hot-paths.ts --hot-child MODE`, it is that child: it prints the per-call CPU
 * time of MODE as JSON.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { bareServer, benchServer, connectInMemory } from './bench-server.js';
import { twentyPropertyTool, twentyPropertyValue, twentyPropertyValueAsync } from './generate-tools.js';
import { cpuClock, median, quantile } from './stats.js';

/** The servers and calls measured, one per child process. */
export const HOT_MODES = ['bare', 'envelope', 'validationError', 'bareAsync', 'envelopeAsync'] as const;
/** One of {@link HOT_MODES}. */
export type HotMode = (typeof HOT_MODES)[number];

/** Calls per sample: one sample is the CPU time of a batch, divided by its size. */
const BATCH = 25;
const BATCHES_PER_ROUND = 200;

/** What {@link measureHotPaths} measured, per mode: per-call CPU time in ms, one entry per round. */
export type HotPathRounds = Readonly<Record<HotMode, readonly number[]>>;

function callFor(mode: HotMode): () => Promise<unknown> {
  const { schema, validArgs, invalidArgs } = twentyPropertyTool();
  const handler = mode.endsWith('Async') ? twentyPropertyValueAsync : twentyPropertyValue;
  const tool = { name: 'bench', inputSchema: schema, handler };
  const server = mode.startsWith('bare') ? bareServer(handler, [tool]) : benchServer('envelope', [tool]);
  const args = mode === 'validationError' ? invalidArgs : validArgs;
  const connected = connectInMemory(server);
  return async () => (await connected).callTool({ name: 'bench', arguments: args });
}

/**
 * `--hot-child MODE`: the per-call CPU time of MODE's call in ms, after a warm-up: in each of
 * `subRounds` rounds, the 20th percentile of {@link BATCHES_PER_ROUND} batch times (other
 * processes only ever add time, so a low quantile tracks the work itself), then the median of
 * the rounds.
 */
async function hotPathChild(mode: HotMode, warmUpCalls: number, subRounds: number): Promise<number> {
  const call = callFor(mode);
  const probe = (await call()) as { isError?: boolean };
  if ((probe.isError === true) !== (mode === 'validationError'))
    throw new Error(`${mode}: the call had the wrong outcome`);
  for (let index = 0; index < warmUpCalls; index += 1) await call();
  const rounds: number[] = [];
  for (let round = 0; round < subRounds; round += 1) {
    const batches: number[] = [];
    for (let batch = 0; batch < BATCHES_PER_ROUND; batch += 1) {
      const started = cpuClock();
      for (let index = 0; index < BATCH; index += 1) await call();
      batches.push((cpuClock() - started) / BATCH);
    }
    rounds.push(quantile(batches, 0.2));
  }
  return median(rounds);
}

/**
 * Runs `rounds` rounds; each spawns one fresh process per mode (in reversed order every other
 * round) and records its per-call time.
 *
 * @param quick - fewer calls per process (`pnpm bench --quick`).
 */
export function measureHotPaths(rounds: number, quick: boolean): HotPathRounds {
  const script = fileURLToPath(import.meta.url);
  const times: Record<HotMode, number[]> = {
    bare: [],
    envelope: [],
    validationError: [],
    bareAsync: [],
    envelopeAsync: [],
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const mode of round % 2 === 0 ? HOT_MODES : [...HOT_MODES].reverse()) {
      const flags = ['--hot-child', mode, ...(quick ? ['--quick'] : [])];
      const ran = spawnSync(process.execPath, [...process.execArgv, script, ...flags], { encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`the ${mode} hot-path process failed: ${ran.stderr}`);
      times[mode].push(JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '') as number);
    }
  }
  return times;
}

/**
 * The median over rounds of `task`'s time divided by `baseline`'s time in the same round.
 *
 * @param task - per-round times.
 * @param baseline - per-round times of the baseline, same length.
 */
export function pairedRatio(task: readonly number[], baseline: readonly number[]): number {
  return median(task.map((time, round) => time / (baseline[round] as number)));
}

if (process.argv.includes('--hot-child')) {
  const mode = process.argv[process.argv.indexOf('--hot-child') + 1] as HotMode;
  if (!HOT_MODES.includes(mode)) throw new Error(`unknown hot-path mode ${mode}`);
  const quick = process.argv.includes('--quick');
  console.log(JSON.stringify(await hotPathChild(mode, quick ? 5_000 : 20_000, quick ? 3 : 5)));
}
