/**
 * Runs the compiled CLI (`node dist/cli.js`) as a child process, building the package first when
 * `dist/` is missing or older than `src/`. Test files run in parallel workers, so the build is
 * guarded by a lock folder; the others wait for it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
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

const sleep = (milliseconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Builds `dist/` with `tsc -p tsconfig.build.json` unless it is up to date. */
export async function ensureBuilt(): Promise<void> {
  const lock = join(
    tmpdir(),
    `mcp-envelope-conformance-build-${createHash('sha256').update(packageRoot).digest('hex').slice(0, 12)}.lock`,
  );
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (isBuilt()) return;
    try {
      mkdirSync(lock);
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // The holder removed it meanwhile.
      }
      await sleep(200);
      continue;
    }
    try {
      if (isBuilt()) return;
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], packageRoot, 120_000);
      if (result.code !== 0) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  throw new Error('timed out waiting for the build lock');
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
