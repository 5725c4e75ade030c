// The conformance CLI installs and runs without any adapter package: the conformance, contract,
// core and testing packages are packed with pnpm (as they are published) and unpacked into a
// fresh node_modules beside nothing else of ours; their third-party dependencies are linked from
// this checkout's install (a registry install is the release rehearsal's job, minutes long), so
// no registry is asked and nothing leaves 127.0.0.1. From there
// `validate` checks a shipped example, `probe` says CONFORMANT for a small server, and `gate`
// stops at once, naming the server packages it would need.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fixtureServer, packageRoot, PROBE_SLACK } from './helpers/cli-runner.js';

const run = promisify(execFile);
const REPOSITORY = resolve(packageRoot, '..');
const PNPM = join(REPOSITORY, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');
/** Our packages the CLI may need, by folder; no adapter and no Amazon package among them. */
const OURS: Readonly<Record<string, string>> = {
  '@mcp-envelope/conformance': packageRoot,
  '@mcp-envelope/contract': join(REPOSITORY, 'contract'),
  '@mcp-envelope/core': join(REPOSITORY, 'packages', 'core'),
  '@mcp-envelope/testing': join(REPOSITORY, 'packages', 'testing'),
};

interface Manifest {
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly bin?: Record<string, string>;
}

let consumer: string;
let cli: string;
let packed: Manifest;

/** Packs one of our packages with pnpm (workspace versions written out) into `node_modules/<name>`. */
async function install(name: string, folder: string, tarballs: string): Promise<void> {
  const before = new Set(readdirSync(tarballs));
  await run(process.execPath, [PNPM, 'pack', '--pack-destination', tarballs], { cwd: folder });
  const tarball = readdirSync(tarballs).find((file) => !before.has(file));
  if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${name}`);
  const target = join(consumer, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  await run('tar', ['--extract', '--gzip', '--file', join(tarballs, tarball), '--strip-components=1'], {
    cwd: target,
  });
}

/**
 * Links the third-party dependencies of each of our packages where a flat npm install puts them:
 * at the top of node_modules, or beside the package when the top already holds another version.
 * Their own dependencies resolve from where they really are (this checkout's pnpm store).
 */
function linkThirdParty(): void {
  const top = new Map<string, string>();
  for (const [ours, folder] of Object.entries(OURS)) {
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (name in OURS) continue;
      const real = realpathSync(join(folder, 'node_modules', name));
      const beside = top.has(name) && top.get(name) !== real;
      if (top.get(name) === real) continue;
      const target = join(consumer, 'node_modules', ...(beside ? [ours, 'node_modules'] : []), name);
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(real, target, 'dir');
      if (!beside) top.set(name, real);
    }
  }
}

function runCli(args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: consumer, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: stdout + stderr });
      },
    );
  });
}

beforeAll(async () => {
  consumer = mkdtempSync(join(tmpdir(), 'conformance-alone-'));
  const tarballs = join(consumer, 'tarballs');
  mkdirSync(tarballs);
  for (const [name, folder] of Object.entries(OURS)) await install(name, folder, tarballs);
  linkThirdParty();
  const root = join(consumer, 'node_modules', '@mcp-envelope', 'conformance');
  packed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  cli = join(root, packed.bin?.['mcp-envelope-conformance'] ?? 'missing');
}, 120_000);

afterAll(() => {
  rmSync(consumer, { recursive: true, force: true });
});

describe('the conformance package installed without any adapter', () => {
  it('depends on no adapter and no Amazon package', () => {
    const ours = Object.keys({ ...packed.dependencies, ...packed.peerDependencies }).filter((name) =>
      name.startsWith('@mcp-envelope/'),
    );
    expect(ours.sort()).toEqual(['@mcp-envelope/contract', '@mcp-envelope/core', '@mcp-envelope/testing']);
  });

  it('validate checks a shipped example', async () => {
    const result = await runCli(['validate', join(dirname(cli), '..', 'examples', 'sp-rate-limited-429.json')]);
    expect(result.output).toContain('1 passed, 0 failed');
    expect(result.code).toBe(0);
  });

  it('probe says CONFORMANT for a small server', async () => {
    const result = await runCli([
      'probe',
      '--stdio',
      `${process.execPath} ${fixtureServer} conformant`,
      ...PROBE_SLACK,
    ]);
    expect(result.output).toContain('verdict: CONFORMANT');
    expect(result.code).toBe(0);
  }, 60_000);

  it('gate names the server packages it needs and starts nothing', async () => {
    const result = await runCli(['gate', '--no-probe']);
    expect(result.output).toContain(
      'the gate runs servers from packages that are not installed: @mcp-envelope/sp-adapter, @mcp-envelope/ads-adapter',
    );
    expect(result.code).toBe(2);
  });
});
