/**
 * The compiled CLI (`node dist/cli.js`) that the tests start as a child process. Starting it from
 * `dist/` instead of through tsx saves most of each start's CPU (tsx transforms and resolves every
 * module on the way in); vitest's global setup builds `dist/` first when it is missing or older
 * than `src/`, so a test run alone tests the source as it is.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package folder: the children's working folder, where `test/fixtures/...` paths resolve. */
export const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));

/** The node arguments that start `mcp-envelope-sp`; the CLI's own arguments follow them. */
export const CLI: readonly string[] = [join(PACKAGE, 'dist', 'cli.js')];

function newestTime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestTime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isBuilt(): boolean {
  try {
    return statSync(join(PACKAGE, 'dist', 'cli.js')).mtimeMs >= newestTime(join(PACKAGE, 'src'));
  } catch {
    return false;
  }
}

/**
 * Builds `dist/` with `tsc -p tsconfig.build.json` unless it is newer than every file in `src/`.
 * Vitest's global setup runs it once, before the workers start, so no two workers build at once.
 *
 * @throws Error (a rejection) naming tsc's output when the build fails.
 */
export async function buildIfStale(): Promise<void> {
  if (isBuilt()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: PACKAGE }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`building dist/ for the CLI tests failed:\n${stdout}${stderr}`));
    });
  });
}
