/**
 * Runs the compiled CLI (`node dist/cli.js`) as a child process. Vitest's global setup builds the
 * package first when `dist/` is missing or older than `src/`; the test files only check it.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { quote } from 'shell-quote';

export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliPath = join(packageRoot, 'dist', 'cli.js');
export const fixtureServer = join(packageRoot, 'test', 'fixtures', 'envelope-server.mjs');

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function newestSourceTime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceTime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isBuilt(): boolean {
  try {
    return statSync(cliPath).mtimeMs >= newestSourceTime(join(packageRoot, 'src'));
  } catch {
    return false;
  }
}

/** Runs a program with this process's environment plus `env` (NO_COLOR set); never rejects. */
export function run(
  file: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  env: Readonly<Record<string, string>> = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Builds `dist/` with `tsc -p tsconfig.build.json` unless it is up to date. Vitest's global setup
 * runs it once before any test file starts, so parallel workers never race to build.
 *
 * @throws Error when the build fails.
 */
export async function buildIfStale(): Promise<void> {
  if (isBuilt()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], packageRoot, 120_000);
  if (result.code !== 0) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Resolves when `dist/` is up to date (the global setup built it).
 *
 * @throws Error (a rejection) when `dist/` is missing or older than `src/`: the test file ran without
 *   the package's vitest configuration, or `src/` changed during the run.
 */
export function ensureBuilt(): Promise<void> {
  if (isBuilt()) return Promise.resolve();
  return Promise.reject(
    new Error(`dist/ is missing or older than src/ in ${packageRoot}: run the tests with its vitest.config.ts`),
  );
}

/** Runs `node dist/cli.js <args>` in `cwd` (default: the package folder), `env` added to this process's environment. */
export function runCliProcess(
  args: readonly string[],
  cwd: string = packageRoot,
  timeoutMs = 120_000,
  env: Readonly<Record<string, string>> = {},
): Promise<CliRun> {
  return run(process.execPath, [cliPath, ...args], cwd, timeoutMs, env);
}

/**
 * The `--timeout-ms` of a probe whose deadline is not under test. Each request must answer within
 * it, the initialize handshake among them, and over --stdio that handshake includes starting the
 * server's Node process, which took more than the default 10 s on a loaded two-core machine. The
 * servers these probes start answer every call, so the slack costs nothing on an idle machine.
 */
export const PROBE_SLACK: readonly string[] = ['--timeout-ms', '30000'];

/**
 * The `--timeout-ms` of a gate run whose deadline is not under test, and the same in ms for
 * `runGate`. The gate starts nine server processes at once, each within it, which took more than
 * the default 15 s on a loaded two-core machine; a passing gate never waits it out.
 */
export const GATE_SLACK_MS = 60_000;
/** {@link GATE_SLACK_MS} as the gate command's flag. */
export const GATE_SLACK: readonly string[] = ['--timeout-ms', String(GATE_SLACK_MS)];

/** Quotes a path for a `--stdio` command line, with the library the CLI splits it with. */
export function shellQuote(word: string): string {
  return quote([word]);
}

/** The fixture server's modes (see the comment at the top of `test/fixtures/envelope-server.mjs`). */
export type FixtureMode =
  'conformant' | 'mixed' | 'cursor-loop' | 'pattern' | 'silent' | 'optional' | 'empty-cursor' | 'null-cursor' | 'open';

/** The `--stdio` command line that starts the fixture server in a mode, with flags that break or reconfigure it. */
export function fixtureCommand(mode: FixtureMode, ...flags: readonly string[]): string {
  return [shellQuote(process.execPath), shellQuote(fixtureServer), mode, ...flags].join(' ');
}
