// The steps of `npm test`, run one after another with a summary at the end that names every step
// and how it ended: passed, failed, or not run and why. A chain of `&&` stopped at the first red
// step and hid the steps after it; here a failed step stops only what cannot run without it (the
// build), so one red run shows everything that is red. Exits 1 when any step failed.
import { spawnSync } from 'node:child_process';

/** The workspace scripts `npm test` runs, in order. `needed` steps stop the run when they fail. */
const STEPS = [
  { name: 'build', needed: true },
  { name: 'lint' },
  { name: 'typecheck' },
  { name: 'test:all' },
  { name: 'conformance' },
  { name: 'conformance:mcp' },
  { name: 'release:check' },
  { name: 'test:registry' },
];

/** Runs one workspace script with the terminal attached: its exit status, how it ended, and its seconds. */
function runStep(name) {
  const started = performance.now();
  const result = spawnSync('pnpm', ['run', '-s', name], { stdio: 'inherit' });
  const seconds = (performance.now() - started) / 1000;
  if (result.error !== undefined) console.error(`npm test: could not start pnpm for ${name}: ${result.error.message}`);
  const status = result.error === undefined ? (result.status ?? 1) : 1;
  const how = result.signal === null ? `exit ${status}` : `killed by ${result.signal}`;
  return { status, how, seconds };
}

/** Runs every step; a failed needed step marks the rest not run. */
function runAll() {
  const rows = [];
  let stoppedBy;
  for (const [index, step] of STEPS.entries()) {
    if (stoppedBy !== undefined) {
      rows.push({ name: step.name, outcome: `not run (${stoppedBy} failed)` });
      continue;
    }
    console.log(`\n=== npm test: step ${index + 1} of ${STEPS.length}: ${step.name} ===`);
    const { status, how, seconds } = runStep(step.name);
    rows.push({ name: step.name, outcome: status === 0 ? 'passed' : `FAILED (${how})`, seconds });
    if (status !== 0 && step.needed) stoppedBy = step.name;
  }
  return rows;
}

function printSummary(rows) {
  const width = Math.max(...rows.map((row) => row.name.length));
  console.log('\n=== npm test: summary ===');
  for (const row of rows) {
    const time = row.seconds === undefined ? '' : `  ${row.seconds.toFixed(0)} s`;
    console.log(`  ${row.name.padEnd(width)}  ${row.outcome}${time}`);
  }
  const passed = rows.filter((row) => row.outcome === 'passed').length;
  const failed = rows.filter((row) => row.outcome.startsWith('FAILED')).length;
  const skipped = rows.length - passed - failed;
  console.log(`steps: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return failed + skipped === 0;
}

const rows = runAll();
process.exit(printSummary(rows) ? 0 : 1);
