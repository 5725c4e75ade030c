/**
 * The demo (`node conformance/dist/demo.js`, the root `demo` script): runs the CLI exactly as a
 * user would, twice.
 *
 * 1. `probe --stdio "GZIP_ALLOWED_DOMAINS=127.0.0.1 <node> <server-everything> stdio"
 *    --allow-nonconformant` against the MCP reference server `@modelcontextprotocol/server-everything`,
 *    which knows nothing of envelopes, so every probe row honestly says what arrived instead ("no
 *    envelope"). The allowed-domains setting keeps its gzip tool from fetching a public URL.
 * 2. `validate conformance/examples`, the package's own example envelopes and success fixtures.
 *
 * Between the two it shows, from the checked-in fixtures, a few envelopes of each reference
 * server as a client that reads version 2 gets them beside the version 1 form a client that
 * states no version gets, one line each.
 *
 * Reports go to `<repo>/reports/` (`probe-server-everything.json` / `.xml`,
 * `validate-examples.json` / `.xml`). Exit code: 0 when both commands ran and wrote their reports
 * and every example is valid; otherwise the first non-zero code (1 or 2).
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { runCli } from './cli-program.js';
import type { CliIo } from './cli-program.js';
import { isRecord } from '@mcp-envelope/contract';
import { serverEverythingCommandLine } from './server-everything.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const repositoryRoot = join(packageRoot, '..');
const reportsFolder = join(repositoryRoot, 'reports');

const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY,
};

function heading(title: string): void {
  process.stdout.write(`\n=== ${title} ${'='.repeat(Math.max(0, 74 - title.length))}\n\n`);
}

/** Counts the `got` values of the failing rows in the written probe report, e.g. `no envelope: 21`. */
function tallyOfProbeReport(path: string): string {
  if (!existsSync(path)) return 'No probe report was written.';
  const report: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const rows = isRecord(report) && Array.isArray(report['rows']) ? report['rows'].filter(isRecord) : [];
  const counts = new Map<string, number>();
  for (const entry of rows) {
    if (entry['result'] !== 'FAIL' || typeof entry['got'] !== 'string') continue;
    counts.set(entry['got'], (counts.get(entry['got']) ?? 0) + 1);
  }
  const parts = [...counts.entries()].map(([got, count]) => `${got}: ${count}`);
  return `server-everything does not implement the envelope contract; what its failing rows got instead: ${parts.join(', ') || 'nothing'}.`;
}

async function probeServerEverything(): Promise<number> {
  const commandLine = serverEverythingCommandLine();
  heading('probe: @modelcontextprotocol/server-everything over stdio');
  const start = performance.now();
  const code = await runCli(
    [
      'probe',
      '--stdio',
      commandLine,
      '--allow-nonconformant',
      '--json',
      join(reportsFolder, 'probe-server-everything.json'),
      '--junit',
      join(reportsFolder, 'probe-server-everything.xml'),
    ],
    io,
  );
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  process.stdout.write(`\nThe server-everything probe took ${seconds} s (start, handshake, battery and shutdown).\n`);
  process.stdout.write(`${tallyOfProbeReport(join(reportsFolder, 'probe-server-everything.json'))}\n`);
  return code;
}

/** The fixtures shown in both versions: an upstream HTTP error, a failure outside HTTP, a 429, an unknown tool. */
const TWIN_SCENARIOS = ['api-http-404', 'api-client-network', 'rate-limited-429', 'tool-not-found'] as const;

/** An envelope's verdict in one line: version, kind/code, and `upstream` or `legacy_error_kind` when present. */
function verdictOf(envelope: unknown): string {
  if (!isRecord(envelope)) return 'no envelope';
  const extras = [
    typeof envelope['upstream'] === 'string' ? `upstream=${envelope['upstream']}` : '',
    typeof envelope['legacy_error_kind'] === 'string' ? `legacy=${envelope['legacy_error_kind']}` : '',
  ].filter((part) => part !== '');
  return [
    `v${String(envelope['_envelope_version'])}`,
    `${String(envelope['error_kind'])}/${String(envelope['error_code'])}`,
    ...extras,
  ].join(' ');
}

function fixtureEnvelope(file: string): unknown {
  const path = join(packageRoot, 'fixtures', file);
  if (!existsSync(path)) return undefined;
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  return isRecord(value) ? value['envelope'] : undefined;
}

/** One line per fixture pair: what a reader of version 2 gets, beside what a reader of version 1 gets. */
function showBothVersions(): void {
  heading('one failure, two readers: v2 (states [1, 2]) beside v1 (states nothing)');
  for (const server of ['sp', 'ads'])
    for (const scenario of TWIN_SCENARIOS) {
      const v2 = verdictOf(fixtureEnvelope(`${server}/${scenario}.json`));
      const v1 = verdictOf(fixtureEnvelope(`v1/${server}/${scenario}.json`));
      process.stdout.write(`${server.padEnd(4)}${scenario.padEnd(20)}${v2.padEnd(62)}${v1}\n`);
    }
}

async function validateExamples(): Promise<number> {
  heading('validate: conformance/examples');
  return runCli(
    [
      'validate',
      relative(process.cwd(), join(packageRoot, 'examples')) || '.',
      '--json',
      join(reportsFolder, 'validate-examples.json'),
      '--junit',
      join(reportsFolder, 'validate-examples.xml'),
    ],
    io,
  );
}

async function main(): Promise<number> {
  const written = [
    'probe-server-everything.json',
    'probe-server-everything.xml',
    'validate-examples.json',
    'validate-examples.xml',
  ].map((name) => join(reportsFolder, name));
  // Reports of an earlier run must not pass for this run's.
  for (const path of written) rmSync(path, { force: true });
  const probeCode = await probeServerEverything();
  showBothVersions();
  const validateCode = await validateExamples();
  const missing = written.filter((path) => !existsSync(path));
  heading('reports');
  for (const path of written)
    process.stdout.write(`${existsSync(path) ? 'wrote  ' : 'MISSING'} ${relative(process.cwd(), path)}\n`);
  if (probeCode !== 0) process.stdout.write(`\nprobe exited with ${probeCode}\n`);
  if (validateCode !== 0)
    process.stdout.write(`\nvalidate exited with ${validateCode}: an example envelope is invalid\n`);
  if (missing.length > 0) return 2;
  return probeCode !== 0 ? probeCode : validateCode;
}

try {
  process.exit(await main());
} catch (error) {
  process.stderr.write(`demo crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
}
