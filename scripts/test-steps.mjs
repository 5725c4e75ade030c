// The steps of `npm test`, with a summary at the end that names every step and how it ended:
// passed, failed, or not run and why. A chain of `&&` stopped at the first red step and hid the
// steps after it; here a failed step stops only what cannot run without it (the build), so one red
// run shows everything that is red. Exits 1 when any step failed.
//
// After the build, the steps run in two lanes side by side: lint, the type check and the package
// suites in one; the conformance gate, the official MCP suite, the release check and the release
// rehearsal in the other. The second lane spends most of its time waiting on child processes and
// the loopback registry, so on a two-core machine it fits beside the suites instead of after them;
// the gate and the release check are short and went there because the first lane is the longer
// one. (Moving the type check to the second lane was measured slower: beside lint, both compete
// for the type checker's CPU.) Each line a step prints is prefixed with the step's name.
//
// Each step runs in a process group of its own, and a SIGINT, SIGTERM or SIGHUP this runner gets
// (Ctrl-C, or npm passing on its own) goes to every running step's whole group: otherwise the
// suites and servers a step started keep running after the runner is gone. The steps not started
// yet are then not run, and the summary still names how each one ended.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The build: every other step reads its output, so a failed build stops the rest. */
const BUILD = 'build';

/** The workspace scripts `npm test` runs after the build: each lane in order, the lanes at once. */
const LANES = [
  ['lint', 'typecheck', 'test:all'],
  ['conformance', 'conformance:mcp', 'release:check', 'test:registry'],
];

/** The order of the summary, which is also the order the steps ran in when they ran one by one. */
const SUMMARY_ORDER = [
  BUILD,
  'lint',
  'typecheck',
  'test:all',
  'conformance',
  'conformance:mcp',
  'release:check',
  'test:registry',
];

/** Copies each line of a child's stream to ours, prefixed so that two lanes' lines stay apart. */
function relayLines(stream, target, prefix) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    target.write(`${prefix}${line}\n`);
  });
}

/**
 * Runs one workspace script, its output prefixed with its name: resolves to its exit status, how it
 * ended, and its seconds. Never rejects: a pnpm that cannot start is a failed step. The child is in
 * `stop.running` while it runs.
 */
function runStep(name, prefix, stop) {
  const started = performance.now();
  return new Promise((resolve) => {
    // its own process group, so that a signal reaches every process the step started
    const child = spawn('pnpm', ['run', '-s', name], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    stop.running.add(child);
    relayLines(child.stdout, process.stdout, prefix);
    relayLines(child.stderr, process.stderr, prefix);
    const state = { failedToStart: false };
    child.on('error', (error) => {
      state.failedToStart = true;
      console.error(`npm test: could not start pnpm for ${name}: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      stop.running.delete(child);
      const seconds = (performance.now() - started) / 1000;
      const status = state.failedToStart ? 1 : (code ?? 1);
      const how = signal === null ? `exit ${status}` : `killed by ${signal}`;
      resolve({ status, how, seconds });
    });
  });
}

/**
 * Passes SIGINT, SIGTERM and SIGHUP on to the running steps' process groups, and records the
 * first, so that no further step starts. Returns what the steps share: the running children and
 * the signal.
 */
function forwardSignals() {
  const stop = { running: new Set(), signal: undefined };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stop.signal ??= signal;
      for (const child of stop.running) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // the group has just ended
        }
      }
    });
  }
  return stop;
}

/** Runs one step with a start line and an end line, and records its row; none once a signal stopped the run. */
async function runAnnounced(name, rows, width, stop) {
  if (stop.signal !== undefined) {
    rows.set(name, { name, outcome: `not run (stopped by ${stop.signal})` });
    return;
  }
  console.log(`=== npm test: ${name} started ===`);
  const { status, how, seconds } = await runStep(name, `${name.padEnd(width)} | `, stop);
  const outcome = status === 0 ? 'passed' : `FAILED (${how})`;
  console.log(`=== npm test: ${name} ${outcome} in ${seconds.toFixed(0)} s ===`);
  rows.set(name, { name, outcome, seconds });
}

/** Runs the build, then the lanes at once; a failed build marks every other step not run. */
async function runAll() {
  const width = Math.max(...SUMMARY_ORDER.map((name) => name.length));
  const rows = new Map();
  const stop = forwardSignals();
  await runAnnounced(BUILD, rows, width, stop);
  if (rows.get(BUILD).outcome !== 'passed') {
    for (const name of SUMMARY_ORDER.slice(1)) rows.set(name, { name, outcome: `not run (${BUILD} failed)` });
  } else {
    await Promise.all(
      LANES.map(async (lane) => {
        for (const name of lane) await runAnnounced(name, rows, width, stop);
      }),
    );
  }
  return SUMMARY_ORDER.map((name) => rows.get(name));
}

function printSummary(rows, seconds) {
  const width = Math.max(...rows.map((row) => row.name.length));
  console.log('\n=== npm test: summary ===');
  for (const row of rows) {
    const time = row.seconds === undefined ? '' : `  ${row.seconds.toFixed(0)} s`;
    console.log(`  ${row.name.padEnd(width)}  ${row.outcome}${time}`);
  }
  const passed = rows.filter((row) => row.outcome === 'passed').length;
  const failed = rows.filter((row) => row.outcome.startsWith('FAILED')).length;
  const skipped = rows.length - passed - failed;
  console.log(`npm test took ${seconds.toFixed(0)} s (after the build, two lanes side by side)`);
  console.log(`steps: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return failed + skipped === 0;
}

const started = performance.now();
const rows = await runAll();
process.exit(printSummary(rows, (performance.now() - started) / 1000) ? 0 : 1);
