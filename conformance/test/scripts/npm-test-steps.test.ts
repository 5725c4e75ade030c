// `npm test` on a machine without its prerequisites stops in its first seconds naming what to
// install, and a red run names every step and how it ended. The step runner is driven through a
// stand-in `pnpm` on PATH: running the real steps here would run this suite inside itself.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { packageRoot } from '../helpers/cli-runner.js';

const scripts = join(packageRoot, '..', 'scripts');
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A folder holding `node` and the given shell scripts, to be the whole PATH of a run. */
function pathWith(programs: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'npm-test-path-'));
  folders.push(folder);
  symlinkSync(process.execPath, join(folder, 'node'));
  for (const [name, body] of Object.entries(programs)) {
    writeFileSync(join(folder, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(folder, name), 0o755);
  }
  return folder;
}

function run(script: string, path: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(scripts, script)], {
    env: { PATH: path },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('prerequisites', () => {
  it('names redis-server and how to install it when it is not on PATH', () => {
    const result = run('prerequisites.mjs', pathWith({}));
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'missing prerequisite: redis-server is needed on PATH (the rate limiter tests start a real one on 127.0.0.1): Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis.',
    ]);
  });

  it('passes silently when redis-server answers --version', () => {
    const result = run('prerequisites.mjs', pathWith({ 'redis-server': 'echo "Redis server v=7.0.15"' }));
    expect(result).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});

/** The steps a run started, from the stand-in pnpm's `ran <step>` lines (each prefixed with its step). */
function stepsRan(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((line) => /^\S+ +\| ran (\S+)$/.exec(line)?.[1])
    .filter((step) => step !== undefined);
}

/** A stand-in pnpm that fails `pnpm run -s <failing>` and passes every other script. */
function pnpmFailing(failing: string): string {
  return pathWith({ pnpm: `echo "ran $3"; if [ "$3" = "${failing}" ]; then exit 3; fi; exit 0` });
}

describe('the steps of npm test', () => {
  it('runs every step after a failed one and names each in the summary', () => {
    const result = run('test-steps.mjs', pnpmFailing('test:all'));
    expect(result.status).toBe(1);
    const ran = stepsRan(result.stdout);
    // the build first; then two lanes side by side, each in its order
    expect(ran[0]).toBe('build');
    expect(ran.filter((step) => ['lint', 'typecheck', 'test:all'].includes(step))).toEqual([
      'lint',
      'typecheck',
      'test:all',
    ]);
    expect(
      ran.filter((step) => ['conformance', 'conformance:mcp', 'release:check', 'test:registry'].includes(step)),
    ).toEqual(['conformance', 'conformance:mcp', 'release:check', 'test:registry']);
    expect(ran).toHaveLength(8);
    // each line a step prints carries its name, so the two lanes' lines stay apart
    expect(result.stdout).toContain('test:all        | ran test:all\n');
    expect(result.stdout).toMatch(/ {2}test:all {9}FAILED \(exit 3\) {2}\d+ s\n/);
    expect(result.stdout).toMatch(/ {2}test:registry {4}passed {2}\d+ s\n/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('steps: 7 passed, 1 failed');
  });

  it('reports a red step of the second lane while the first lane passes, and still runs the rest of that lane', () => {
    const result = run('test-steps.mjs', pnpmFailing('conformance:mcp'));
    expect(result.status).toBe(1);
    expect(stepsRan(result.stdout)).toHaveLength(8);
    expect(result.stdout).toMatch(/ {2}conformance:mcp {2}FAILED \(exit 3\) {2}\d+ s\n/);
    expect(result.stdout).toMatch(/ {2}test:registry {4}passed {2}\d+ s\n/);
    expect(result.stdout).toMatch(/ {2}release:check {4}passed {2}\d+ s\n/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('steps: 7 passed, 1 failed');
  });

  it('names every step a failed build leaves not run', () => {
    const result = run('test-steps.mjs', pnpmFailing('build'));
    expect(result.status).toBe(1);
    expect(stepsRan(result.stdout)).toEqual(['build']);
    const notRun = result.stdout.split('\n').filter((line) => line.endsWith('not run (build failed)'));
    expect(notRun.map((line) => line.trim().split(/\s+/)[0])).toEqual([
      'lint',
      'typecheck',
      'test:all',
      'conformance',
      'conformance:mcp',
      'release:check',
      'test:registry',
    ]);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('steps: 0 passed, 1 failed, 7 skipped');
  });

  it('says a step was killed by a signal', () => {
    const result = run(
      'test-steps.mjs',
      pathWith({ pnpm: 'if [ "$3" = "typecheck" ]; then kill -TERM $$; fi; exit 0' }),
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/ {2}typecheck +FAILED \(killed by SIGTERM\) {2}\d+ s\n/);
  });

  it('passes when every step passes', () => {
    const result = run('test-steps.mjs', pnpmFailing('none'));
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('steps: 8 passed, 0 failed');
  });
});

/** Whether a process runs: it exists and is no zombie waiting for its parent to reap it. */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  // the state follows the command name, which ends at the last ')'
  const state = readFileSync(stat, 'utf8').split(')').at(-1)?.trim()[0];
  return state !== 'Z';
}

describe('npm test stopped by a signal', () => {
  it('passes the signal to the running steps, leaves no process behind and still prints the summary', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'npm-test-signal-'));
    folders.push(folder);
    // lint starts a long child of its own (as vitest starts workers) and writes its pid; every other step passes
    const path = pathWith({
      pnpm: `echo "ran $3"; if [ "$3" = "lint" ]; then /bin/sleep 300 & echo $! > ${folder}/child; echo "lint waits"; wait; fi; exit 0`,
    });
    const runner = spawn(process.execPath, [join(scripts, 'test-steps.mjs')], { env: { PATH: path } });
    let stdout = '';
    // lint is waiting and the other lane has finished: the signal then cuts exactly one step
    const ready = new Promise<void>((resolve) => {
      runner.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('| lint waits\n') && stdout.includes('=== npm test: test:registry passed')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => {
      runner.on('close', (code) => {
        resolve(code);
      });
    });
    await ready;
    const child = Number(readFileSync(join(folder, 'child'), 'utf8'));
    try {
      runner.kill('SIGTERM');
      expect(await exited).toBe(1);
      expect(running(child)).toBe(false);
      expect(stdout).toMatch(/ {2}lint +FAILED \(killed by SIGTERM\) {2}\d+ s\n/);
      for (const step of ['typecheck', 'test:all'])
        expect(stdout).toMatch(new RegExp(` {2}${step} +not run \\(stopped by SIGTERM\\)\n`));
      expect(stdout.trimEnd().split('\n').at(-1)).toBe('steps: 5 passed, 1 failed, 2 skipped');
    } finally {
      if (running(child)) process.kill(child, 'SIGKILL');
    }
  });
});
