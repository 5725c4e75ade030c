/**
 * The release rehearsal's preparation of release 1 on clones of this repository in the states a
 * release goes through: as it is (changesets pending), and right after a "Version Packages"
 * commit that a real release tagged. The full registry flow runs in `pnpm test:registry`; here
 * only what makes it durable: the copied tags go, the versions follow from the clone, and the
 * release check the workflow runs first passes on the prepared clone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import semver from 'semver';
import { describe, expect, it, onTestFinished } from 'vitest';

import { readReleases, runReleaseCheck, writeReleaseSnapshot } from '../../src/release/index.js';
import { gitEnv } from '../registry/consumer.js';
import { V2_WINDOW, highestBump, lockstepVersion, nextVersion, prepareFirstRelease } from '../registry/preparation.js';
import { PACKAGES } from './release-repo.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const NAMES = PACKAGES.map(([, name]) => name);
const V2_IDS = V2_WINDOW.map((entry) => entry.id);

interface Table {
  migrations: { id: string; introduced_in: string; contract_version?: number; servers?: string[] }[];
}

function readTable(root: string): Table {
  return JSON.parse(readFileSync(join(root, 'contract', 'migrations.json'), 'utf8')) as Table;
}

/** The v2 window's ids the repository's own table lacks (all of them once it is past the cutover). */
function missingFromRepository(): string[] {
  const held = new Set(readTable(ROOT).migrations.map((entry) => entry.id));
  return V2_IDS.filter((id) => !held.has(id));
}

const changesetBin = join(dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')), 'bin.js');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' });
}

/** A clone of this repository's committed HEAD, sharing its installed node_modules (for the changelog module); removed after the test. */
function cloneRepository(): string {
  const folder = mkdtempSync(join(tmpdir(), 'rehearsal-preparation-'));
  onTestFinished(() => {
    rmSync(folder, { recursive: true, force: true });
  });
  const clone = join(folder, 'repo');
  git(ROOT, 'clone', '--quiet', ROOT, clone);
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  return clone;
}

/**
 * What the release workflow leaves behind once the "Version Packages" pull request is merged and
 * published: `changeset version` consumed the changesets (one more is added, so there is always
 * something to release), the snapshot is written, and `changeset publish` tagged every package.
 * A `v<version>` tag and a pre-release tag stand for tags the release history must not count.
 */
function simulateVersionPackages(clone: string): string {
  writeFileSync(
    join(clone, '.changeset', 'simulated-release.md'),
    "---\n'@mcp-envelope/core': patch\n---\n\nA release before the rehearsal.\n",
  );
  execFileSync(process.execPath, [changesetBin, 'version'], { cwd: clone, env: gitEnv(), encoding: 'utf8' });
  const version = lockstepVersion(clone);
  writeReleaseSnapshot(clone);
  git(clone, 'add', '-A');
  git(clone, 'commit', '--quiet', '-m', 'Version Packages');
  for (const name of NAMES) git(clone, 'tag', `${name}@${version}`);
  git(clone, 'tag', `v${version}`);
  git(clone, 'tag', `@mcp-envelope/contract@${nextVersion(version, 'minor')}-next.0`);
  return version;
}

describe('the release rehearsal prepares release 1 from its clone', () => {
  it('after a tagged Version Packages commit: the tags go, release 1 is the next minor, and release:check passes', async () => {
    const clone = cloneRepository();
    const before = lockstepVersion(clone);
    const released = simulateVersionPackages(clone);
    expect(semver.gt(released, before)).toBe(true);
    expect(
      readdirSync(join(clone, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md'),
    ).toEqual([]);
    expect(await readReleases(clone, NAMES)).toEqual([
      { version: released, tag: `@mcp-envelope/contract@${released}` },
    ]);

    const first = await prepareFirstRelease(clone);
    expect(first.deletedTags).toEqual(
      [
        ...NAMES.map((name) => `${name}@${released}`),
        `@mcp-envelope/contract@${nextVersion(released, 'minor')}-next.0`,
        `v${released}`,
      ].sort(),
    );
    expect(git(clone, 'tag', '--list')).toBe('');
    expect(await readReleases(clone, NAMES)).toEqual([]);
    expect([first.from, first.version]).toEqual([released, semver.inc(released, 'minor')]);
    expect(first.migrationIds).toEqual(expect.arrayContaining(V2_IDS));
    expect(first.restored).toEqual(missingFromRepository());

    const check = await runReleaseCheck({ root: clone });
    expect(check.findings).toEqual([]);
    expect([check.ok, check.currentVersion, check.targetVersion, check.releases]).toEqual([
      true,
      released,
      first.version,
      [],
    ]);
  });

  it('on the repository as it is: release 1 is the version the pending changesets and its own lead to, and release:check passes', async () => {
    const clone = cloneRepository();
    const first = await prepareFirstRelease(clone);
    expect(first.deletedTags).toEqual(
      git(ROOT, 'tag', '--list')
        .split('\n')
        .filter((line) => line !== '')
        .sort(),
    );
    expect(first.from).toBe(lockstepVersion(ROOT));
    const check = await runReleaseCheck({ root: clone });
    expect(check.findings).toEqual([]);
    expect([check.ok, check.currentVersion, check.targetVersion]).toEqual([true, first.from, first.version]);
    expect(semver.diff(first.from, first.version)).toMatch(/^(minor|major)$/);
  });
});

describe('the rehearsal runs the real v2 window', () => {
  it("puts the v2 entries back, opening at the clone's version, when the repository is past their cutover", async () => {
    const clone = cloneRepository();
    const table = readTable(clone);
    const others = table.migrations.filter((entry) => !V2_IDS.includes(entry.id));
    writeFileSync(
      join(clone, 'contract', 'migrations.json'),
      `${JSON.stringify({ ...table, migrations: others }, null, 2)}\n`,
    );
    git(clone, 'commit', '--quiet', '--allow-empty', '-am', 'cutover of the v2 window');
    const first = await prepareFirstRelease(clone);
    expect(first.restored).toEqual(V2_IDS);
    const after = readTable(clone).migrations;
    expect(after.slice(0, others.length)).toEqual(others);
    expect(after.slice(others.length)).toEqual(
      V2_WINDOW.map((entry) => ({ ...entry, servers: [...entry.servers], introduced_in: first.from })),
    );
    expect(readFileSync(join(clone, '.changeset', 'rehearsal-v2-window-sp.md'), 'utf8')).toBe(
      [
        '---',
        "'@mcp-envelope/contract': minor",
        "'@mcp-envelope/sp-adapter': minor",
        '---',
        '',
        `\`sp-api-http-to-upstream-http\` and \`sp-api-client-to-upstream-client\`: in v2 envelopes upstream_http carries legacy_error_kind sp_api_http, upstream_client carries legacy_error_kind sp_api_client; cutover date 2027-03-01; the release after ${first.version} drops \`legacy_error_kind\`. The same window applies to \`@mcp-envelope/ads-adapter\`.`,
        '',
      ].join('\n'),
    );
  });
});

describe('version arithmetic of the rehearsal', () => {
  it('applies the highest bump as changeset version does, 0.x included', () => {
    expect(highestBump(['patch', 'minor', 'none'])).toBe('minor');
    expect(highestBump([])).toBe('none');
    expect(['0.1.0', '0.9.0', '1.4.2'].map((version) => nextVersion(version, 'minor'))).toEqual([
      '0.2.0',
      '0.10.0',
      '1.5.0',
    ]);
    expect([nextVersion('0.2.0', 'patch'), nextVersion('0.2.0', 'major'), nextVersion('0.2.0', 'none')]).toEqual([
      '0.2.1',
      '1.0.0',
      '0.2.0',
    ]);
    expect(() => nextVersion('next', 'patch')).toThrow('"next" is not a semver version');
  });
});
