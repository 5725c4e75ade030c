/**
 * The `mcp-envelope-conformance` command line: `validate` and `probe`, as a function that returns
 * the exit code so that it runs the same way from the binary, the demo and the tests.
 *
 * @packageDocumentation
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

import { Command, CommanderError, InvalidArgumentError } from 'commander';

import { CommandLineError } from './command-line.js';
import { gateCases } from './gate/cases.js';
import { loadGateServers } from './gate/descriptor.js';
import { startGateEnvironment } from './gate/environment.js';
import { fixtureFile, generateFixtures, writeFixtures } from './gate/fixtures.js';
import { runGate } from './gate/gate.js';
import { renderGateReport } from './gate/gate-report.js';
import type { ServerId } from './gate/reference-servers.js';
import { GATE_SERVER_PACKAGES } from './gate/servers.js';
import { runOfficialSuites } from './mcp-suite/official-suite.js';
import { SUITE_LINE_IDS, SUITE_LINES } from './mcp-suite/suite-lines.js';
import type { SuiteLineId } from './mcp-suite/suite-lines.js';
import { renderSuiteReport } from './mcp-suite/render.js';
import { ServerUnreachableError } from './connect.js';
import type { ProbeTarget } from './connect.js';
import { toJUnit } from './junit.js';
import { DEFAULT_MAX_TOOLS, DEFAULT_TIMEOUT_MS, probeServer } from './probe.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, parseFaultArguments } from './probe-faults/index.js';
import type { UpstreamFaultOptions } from './probe-faults/index.js';
import { createProgressReporter } from './progress.js';
import { readServerToolLocks, toolLockProblems, writeServerToolLocks } from './tools-lock/index.js';
import { renderProbeReport, renderValidateReport } from './render.js';
import type { ConformanceReport } from './report-types.js';
import { validatePaths } from './validate-files.js';

/** Exit codes of the CLI. */
export const EXIT_CODES = Object.freeze({
  /** Everything passed (or `--allow-nonconformant` was given). */
  ok: 0,
  /** A file failed validation, or the server is not conformant. */
  failed: 1,
  /** Usage error, the server cannot be reached, or a report cannot be written. */
  usage: 2,
} as const);

/** Where the CLI writes. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (the progress indicator is shown by default only then). */
  readonly stderrIsTTY: boolean;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTTY: process.stderr.isTTY,
  };
}

interface ReportOptions {
  readonly json?: string;
  readonly junit?: string;
}

interface ProbeCliOptions extends ReportOptions {
  readonly stdio?: string;
  readonly url?: string;
  readonly header: readonly string[];
  readonly maxTools: number;
  readonly timeoutMs: number;
  readonly progress?: boolean;
  readonly allowNonconformant?: boolean;
  readonly upstreamFaults?: boolean;
  readonly faultTool?: string;
  readonly faultArguments?: string;
  readonly upstreamTimeoutMs: number;
  readonly upstreamEnv?: string;
}

function integerOption(minimum: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < minimum) {
      throw new InvalidArgumentError(`expected an integer >= ${minimum}, got "${value}"`);
    }
    return parsed;
  };
}

function collect(value: string, previous: readonly string[]): readonly string[] {
  return [...previous, value];
}

function collectServerCommand(value: string, previous: readonly string[]): readonly string[] {
  if (!/^[a-z0-9][a-z0-9-]*=\S/.test(value)) throw new InvalidArgumentError('expected <server id>=<command line>');
  return [...previous, value];
}

const SERVER_COMMAND_HELP = 'start the server with this id with this command line instead of its bin (repeatable)';

async function writeReports(report: ConformanceReport, options: ReportOptions, io: CliIo): Promise<boolean> {
  const outputs: [string | undefined, () => string][] = [
    [options.json, () => `${JSON.stringify(report, null, 2)}\n`],
    [options.junit, () => toJUnit(report)],
  ];
  for (const [file, render] of outputs) {
    if (file === undefined) continue;
    try {
      const path = resolve(file);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, render(), 'utf8');
    } catch (error) {
      io.stderr(`error: cannot write report ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
      return false;
    }
  }
  return true;
}

async function runValidate(paths: readonly string[], options: ReportOptions, io: CliIo): Promise<number> {
  const report = await validatePaths(paths);
  io.stdout(renderValidateReport(report));
  if (!(await writeReports(report, options, io))) return EXIT_CODES.usage;
  return report.summary.failed > 0 ? EXIT_CODES.failed : EXIT_CODES.ok;
}

function parseHeaders(headers: readonly string[]): Record<string, string> | string {
  const parsed: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(':');
    if (colon <= 0) return `--header must look like "Name: value", got a value without a name`;
    parsed[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return parsed;
}

function probeTarget(options: ProbeCliOptions): ProbeTarget | string {
  if ((options.stdio === undefined) === (options.url === undefined))
    return 'give exactly one of --stdio "<command line>" and --url <url>';
  if (options.stdio !== undefined)
    return options.header.length > 0
      ? '--header applies to --url only'
      : { transport: 'stdio', commandLine: options.stdio };
  const headers = parseHeaders(options.header);
  if (typeof headers === 'string') return headers;
  return { transport: 'http', url: options.url ?? '', ...(options.header.length === 0 ? {} : { headers }) };
}

function probeFailureMessage(error: unknown): string {
  if (error instanceof ServerUnreachableError) return `cannot reach the server: ${error.message}`;
  if (error instanceof CommandLineError) return `--stdio: ${error.message}`;
  return `probe failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The fault battery's options, `undefined` without `--upstream-faults`, or why they cannot be used. */
function faultOptions(options: ProbeCliOptions): UpstreamFaultOptions | undefined | string {
  const faultOnly = [options.faultTool, options.faultArguments, options.upstreamEnv].some(
    (value) => value !== undefined,
  );
  if (options.upstreamFaults !== true)
    return faultOnly ? '--fault-tool, --fault-arguments and --upstream-env apply to --upstream-faults only' : undefined;
  if (options.stdio === undefined) return '--upstream-faults needs a server the probe starts (--stdio)';
  if (options.faultArguments !== undefined && options.faultTool === undefined)
    return '--fault-arguments needs --fault-tool';
  const args = options.faultArguments === undefined ? undefined : parseFaultArguments(options.faultArguments);
  if (typeof args === 'string') return args;
  return {
    upstreamTimeoutMs: options.upstreamTimeoutMs,
    ...(options.faultTool === undefined ? {} : { tool: options.faultTool }),
    ...(args === undefined ? {} : { arguments: args }),
    ...(options.upstreamEnv === undefined ? {} : { upstreamEnv: options.upstreamEnv }),
  };
}

async function runProbe(options: ProbeCliOptions, io: CliIo): Promise<number> {
  const target = probeTarget(options);
  const faults = faultOptions(options);
  const usage = typeof target === 'string' ? target : typeof faults === 'string' ? faults : undefined;
  if (usage !== undefined || typeof target === 'string' || typeof faults === 'string') {
    io.stderr(`error: ${usage ?? 'invalid options'}\n`);
    return EXIT_CODES.usage;
  }
  const progress =
    options.progress === true || io.stderrIsTTY
      ? createProgressReporter({ write: io.stderr, isTTY: io.stderrIsTTY })
      : undefined;
  let report;
  try {
    report = await probeServer({
      target,
      maxTools: options.maxTools,
      timeoutMs: options.timeoutMs,
      ...(faults === undefined ? {} : { upstreamFaults: faults }),
      ...(progress === undefined ? {} : { onProgress: progress.report }),
    });
  } catch (error) {
    progress?.finish();
    io.stderr(`error: ${probeFailureMessage(error)}\n`);
    return EXIT_CODES.usage;
  }
  progress?.finish();
  io.stdout(renderProbeReport(report));
  if (!(await writeReports(report, options, io))) return EXIT_CODES.usage;
  return report.conformant || options.allowNonconformant === true ? EXIT_CODES.ok : EXIT_CODES.failed;
}

interface ServerCommandOptions {
  readonly spCommand?: string;
  readonly adsCommand?: string;
  /** `<id>=<command line>` entries of `--server-command`. */
  readonly serverCommand: readonly string[];
}

interface GateCliOptions extends ReportOptions, ServerCommandOptions {
  readonly cases?: string;
  readonly fixtures?: string;
  readonly timeoutMs: number;
  readonly probe: boolean;
}

interface FixturesCliOptions extends ServerCommandOptions {
  readonly write: string;
  readonly cases?: string;
}

interface SuiteCliOptions extends ReportOptions, ServerCommandOptions {
  readonly suite: SuiteLineId | 'all';
  readonly expectedFailures?: string;
  readonly nextExpectedFailures?: string;
  readonly server?: ServerId;
  readonly scenario: readonly string[];
}

function serverCommands(options: ServerCommandOptions): Partial<Record<ServerId, string>> {
  const named = options.serverCommand.map((entry): [ServerId, string] => [
    entry.slice(0, entry.indexOf('=')),
    entry.slice(entry.indexOf('=') + 1),
  ]);
  return {
    ...Object.fromEntries(named),
    ...(options.spCommand === undefined ? {} : { sp: options.spCommand }),
    ...(options.adsCommand === undefined ? {} : { ads: options.adsCommand }),
  };
}

function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runGateCommand(options: GateCliOptions, io: CliIo): Promise<number> {
  let report;
  try {
    report = await runGate({
      ...(options.cases === undefined ? {} : { casesFolder: resolve(options.cases) }),
      ...(options.fixtures === undefined ? {} : { fixturesFolder: resolve(options.fixtures) }),
      commands: serverCommands(options),
      timeoutMs: options.timeoutMs,
      skipProbe: !options.probe,
      onProgress: (line) => {
        io.stderr(`gate: ${line}\n`);
      },
    });
  } catch (error) {
    io.stderr(`error: the gate could not run: ${failureText(error)}\n`);
    return EXIT_CODES.usage;
  }
  io.stdout(renderGateReport(report));
  if (!(await writeReports(report, options, io))) return EXIT_CODES.usage;
  return report.conformant ? EXIT_CODES.ok : EXIT_CODES.failed;
}

async function runFixturesCommand(options: FixturesCliOptions, io: CliIo): Promise<number> {
  let environment;
  try {
    const servers = loadGateServers(GATE_SERVER_PACKAGES);
    const cases = gateCases(servers, options.cases === undefined ? undefined : resolve(options.cases));
    environment = await startGateEnvironment({ servers, commands: serverCommands(options) });
    const fixtures = await generateFixtures(environment, new Map(cases.map((entry) => [entry.id, entry])));
    const problems = fixtures.filter((fixture) => fixture.problems.length > 0);
    for (const fixture of problems) io.stderr(`error: ${fixtureFile(fixture)}: ${fixture.problems.join('; ')}\n`);
    if (problems.length > 0) return EXIT_CODES.failed;
    const written = writeFixtures(resolve(options.write), fixtures);
    const perServer = [2, 1]
      .flatMap((version) =>
        servers
          .map(({ id: server }) => server)
          .map(
            (server) =>
              `${fixtures.filter((fixture) => fixture.server === server && fixture.version === version).length} ${server} v${version}`,
          ),
      )
      .join(', ');
    io.stdout(`wrote ${written.length} fixtures to ${options.write} (${perServer})\n`);
    return EXIT_CODES.ok;
  } catch (error) {
    io.stderr(`error: fixtures could not be generated: ${failureText(error)}\n`);
    return EXIT_CODES.usage;
  } finally {
    await environment?.close();
  }
}

async function runSuiteCommand(options: SuiteCliOptions, io: CliIo): Promise<number> {
  let report;
  try {
    report = await runOfficialSuites({
      lines: options.suite === 'all' ? SUITE_LINE_IDS : [options.suite],
      expectedFailuresFiles: {
        ...(options.expectedFailures === undefined ? {} : { pinned: resolve(options.expectedFailures) }),
        ...(options.nextExpectedFailures === undefined ? {} : { next: resolve(options.nextExpectedFailures) }),
      },
      ...(options.server === undefined ? {} : { servers: [options.server] }),
      ...(options.scenario.length === 0 ? {} : { scenarios: options.scenario }),
      commands: serverCommands(options),
      onProgress: (line) => {
        io.stderr(`mcp-suite: ${line}\n`);
      },
    });
  } catch (error) {
    io.stderr(`error: the official suite could not run: ${failureText(error)}\n`);
    return EXIT_CODES.usage;
  }
  io.stdout(renderSuiteReport(report));
  if (!(await writeReports(report, options, io))) return EXIT_CODES.usage;
  return report.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
}

function suiteLine(value: string): SuiteLineId | 'all' {
  if (value === 'all' || value === 'pinned' || value === 'next') return value;
  throw new InvalidArgumentError('expected pinned, next or all');
}

function serverId(value: string): ServerId {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(value)) throw new InvalidArgumentError('expected a server id such as sp or ads');
  return value;
}

function addValidateCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('validate')
    .description('validate envelope files and fixtures (folders are searched recursively for *.json)')
    .argument('<paths...>', 'files or folders')
    .option('--json <file>', 'write a machine-readable report')
    .option('--junit <file>', 'write a JUnit XML report')
    .action(async (paths: string[], options: ReportOptions) => {
      setExitCode(await runValidate(paths, options, io));
    });
}

function addProbeCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('probe')
    .description('probe a live MCP server with the conformance battery')
    .option('--stdio <command line>', 'start the server with this command line (split shell-style) and talk over stdio')
    .option('--url <url>', 'connect to a Streamable HTTP endpoint')
    .option('--header <name: value>', 'HTTP header for --url (repeatable; values are never printed)', collect, [])
    .option('--max-tools <n>', 'probe at most this many tools', integerOption(0), DEFAULT_MAX_TOOLS)
    .option(
      '--timeout-ms <ms>',
      'timeout in milliseconds of each request, the initialize handshake (server start included) among them',
      integerOption(1),
      DEFAULT_TIMEOUT_MS,
    )
    .option('--json <file>', 'write a machine-readable report')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--progress', 'show progress on stderr even when it is not a terminal')
    .option('--allow-nonconformant', 'exit 0 after printing the report even when the server is not conformant')
    .option(
      '--upstream-faults',
      'start a loopback fault upstream, put its URL in place of {upstream} (and its token endpoint in place of {token_url}) in the --stdio command line, and check how one tool answers a success, HTTP 404, 503, an HTML 500, 403, broken and cut-off bodies, a timeout, 429 and rate-limit 403s',
    )
    .option(
      '--fault-tool <name>',
      'the tool the fault rounds call (default: the first listed tool whose call reaches the upstream)',
    )
    .option(
      '--fault-arguments <json>',
      "the --fault-tool's arguments as a JSON object (default: built from its inputSchema)",
    )
    .option(
      '--upstream-timeout-ms <ms>',
      'how long the server waits for its upstream before giving up: the timeout round waits that long plus --timeout-ms (tell the server the same, e.g. with its own timeout setting)',
      integerOption(1),
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .option('--upstream-env <name>', "also set this environment variable of the server to the fault upstream's URL")
    .action(async (options: ProbeCliOptions) => {
      setExitCode(await runProbe(options, io));
    });
}

function addGateCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('gate')
    .description(
      'run the whole conformance gate on the gated servers (each package describes itself: SP and Ads) against the upstream replay server',
    )
    .option('--json <file>', 'write a machine-readable report')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--cases <dir>', "recorded upstream cases of every server (default: each server descriptor's cases folder)")
    .option('--fixtures <dir>', "checked-in fixtures to compare with (default: the package's fixtures/)")
    .option('--sp-command <command line>', 'start the SP server with this command instead of the built mcp-envelope-sp')
    .option(
      '--ads-command <command line>',
      'start the Ads server with this command instead of the built mcp-envelope-ads',
    )
    .option('--server-command <id=command line>', SERVER_COMMAND_HELP, collectServerCommand, [])
    .option('--timeout-ms <ms>', 'timeout of each request in milliseconds', integerOption(1), 15_000)
    .option('--no-probe', 'leave out the probe battery')
    .action(async (options: GateCliOptions) => {
      setExitCode(await runGateCommand(options, io));
    });
}

function addFixturesCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('fixtures')
    .description('regenerate the conformance fixtures from the running reference servers')
    .requiredOption(
      '--write <dir>',
      'write <dir>/<server>/*.json and <dir>/v1/<server>/*.json (other *.json files there are removed)',
    )
    .option('--cases <dir>', "recorded upstream cases of every server (default: each server descriptor's cases folder)")
    .option('--sp-command <command line>', 'start the SP server with this command')
    .option('--ads-command <command line>', 'start the Ads server with this command')
    .option('--server-command <id=command line>', SERVER_COMMAND_HELP, collectServerCommand, [])
    .action(async (options: FixturesCliOptions) => {
      setExitCode(await runFixturesCommand(options, io));
    });
}

function addMcpSuiteCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('mcp-suite')
    .description(
      'run the official MCP conformance suite (Node 22) against both reference servers over Streamable HTTP: the pinned release and the newest 0.2.0 alpha at 2026-07-28',
    )
    .option(
      '--suite <line>',
      `which suite line: pinned (${SUITE_LINES.pinned.version}), next (${SUITE_LINES.next.version}) or all`,
      suiteLine,
      'all',
    )
    .option(
      '--expected-failures <file>',
      `the pinned line's expected-failures YAML (a reason comment per entry; default ${SUITE_LINES.pinned.expectedFailuresFile})`,
    )
    .option(
      '--next-expected-failures <file>',
      `the next line's expected-failures YAML (default ${SUITE_LINES.next.expectedFailuresFile})`,
    )
    .option('--server <id>', 'only this server (sp or ads)', serverId)
    .option('--scenario <name>', 'only this scenario (repeatable)', collect, [])
    .option('--sp-command <command line>', 'start the SP server with this command')
    .option('--ads-command <command line>', 'start the Ads server with this command')
    .option('--server-command <id=command line>', SERVER_COMMAND_HELP, collectServerCommand, [])
    .option('--json <file>', 'write a machine-readable report')
    .option('--junit <file>', 'write a JUnit XML report')
    .action(async (options: SuiteCliOptions) => {
      setExitCode(await runSuiteCommand(options, io));
    });
}

/**
 * `tools-lock`: lists each gated server's tools and, with `--write`, refreshes its lockfile;
 * otherwise checks that the checked-in lockfiles are up to date (exit 1 when not).
 */
async function runToolsLockCommand(options: { write?: boolean }, io: CliIo): Promise<number> {
  let locks;
  try {
    locks = await readServerToolLocks();
  } catch (error) {
    io.stderr(`error: the tools could not be listed: ${failureText(error)}\n`);
    return EXIT_CODES.usage;
  }
  if (options.write === true) {
    for (const entry of writeServerToolLocks(locks))
      io.stdout(
        `${entry.written ? 'wrote' : 'unchanged'} ${entry.file} (${entry.tools} tools, ${entry.bytes} bytes)\n`,
      );
    return EXIT_CODES.ok;
  }
  const problems = locks.flatMap((lock) => toolLockProblems(lock).map((line) => `${lock.server.id}: ${line}`));
  for (const line of problems) io.stderr(`error: ${line}\n`);
  if (problems.length > 0) {
    io.stderr('The tool lockfiles are out of date: run `pnpm tools:lock`.\n');
    return EXIT_CODES.failed;
  }
  io.stdout(`tool lockfiles up to date (${locks.map((lock) => lock.server.id).join(', ')})\n`);
  return EXIT_CODES.ok;
}

function addToolsLockCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('tools-lock')
    .description("Check (or with --write refresh) each gated server's tools.lock.json from its tools/list.")
    .option('--write', 'write the lockfiles instead of checking them')
    .action(async (options: { write?: boolean }) => {
      setExitCode(await runToolsLockCommand(options, io));
    });
}

function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('mcp-envelope-conformance')
    .description('Check MCP error envelopes: validate envelope files, or probe a live MCP server.')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  addValidateCommand(program, io, setExitCode);
  addProbeCommand(program, io, setExitCode);
  addGateCommand(program, io, setExitCode);
  addFixturesCommand(program, io, setExitCode);
  addMcpSuiteCommand(program, io, setExitCode);
  addToolsLockCommand(program, io, setExitCode);
  return program;
}

/**
 * Runs the CLI with the given arguments (without the `node` and script words).
 *
 * - `validate <paths...> [--json FILE] [--junit FILE]`: exit 0 when every file passes, 1 otherwise.
 * - `probe (--stdio "<command line>" | --url <url>) [--header "Name: value"]... [--max-tools N]
 *   [--timeout-ms MS] [--json FILE] [--junit FILE] [--progress] [--allow-nonconformant]
 *   [--upstream-faults [--fault-tool NAME [--fault-arguments JSON]] [--upstream-timeout-ms MS]
 *   [--upstream-env NAME]]`: exit 0 when the server is conformant (or `--allow-nonconformant`),
 *   1 otherwise (a failing fault round fails the probe like any other row).
 * - `tools-lock [--write]`: checks (exit 1 when out of date) or refreshes the gated servers' tool
 *   lockfiles (CONTRACT.md "Tool contracts and the lockfile").
 * - Exit 2 for usage errors, an unreachable server, or a report that cannot be written.
 *
 * @param argv - the arguments, e.g. `['validate', 'examples']`.
 * @param io - where to write (defaults to the process's streams).
 * @returns the exit code (see {@link EXIT_CODES}).
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode: number = EXIT_CODES.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_CODES.usage;
  }
  return exitCode;
}
