/**
 * What the release rehearsal does to its clone before release 1, so that it runs the same way
 * whatever state the repository is in: changesets pending, just after a "Version Packages" commit,
 * or after a real release was tagged. The clone's history starts with no release, the versions
 * to expect are derived from the clone's own package.json and pending changesets, and the
 * rehearsal opens a migration window of its own, so release 1 always emits `legacy_error_kind`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import getChangesets from '@changesets/read';
import type { VersionType } from '@changesets/types';
import semver from 'semver';

import { DEFAULT_LAYOUT, readPublishedPackages } from '../../src/release/workspace.js';
import { command, gitEnv } from './consumer.js';

/** The rehearsal's own reclassification: an unknown tool's envelope names its old kind too. */
export const REHEARSAL_MIGRATION = {
  id: 'rehearsal-unknown-tool-window',
  error_codes: ['TOOL_NOT_FOUND'],
  from_kind: 'mcp_input_validation',
  to_kind: 'tool_not_found',
  cutover_date: '2030-01-01',
} as const;

const SERVER_PACKAGES = ['@mcp-envelope/sp-adapter', '@mcp-envelope/ads-adapter'] as const;
const BUMP_ORDER: readonly VersionType[] = ['none', 'patch', 'minor', 'major'];

/** What {@link prepareFirstRelease} did and what release 1 must then produce. */
export interface FirstRelease {
  /** The tags the clone had copied from the repository, now deleted. */
  readonly deletedTags: readonly string[];
  /** The lockstep version of the clone's packages before release 1. */
  readonly from: string;
  /** The version release 1 must publish. */
  readonly version: string;
  /** Every id in the clone's migrations table: the windows release 1 opens. */
  readonly migrationIds: readonly string[];
}

async function git(clone: string, ...args: string[]): Promise<string> {
  const result = await command('git', args, clone, gitEnv());
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.output}`);
  return result.output;
}

/**
 * Deletes every tag of a clone: a clone copies the repository's release tags, and with them the
 * rehearsal's first release would be the repository's next one, refused for the windows the
 * repository's last release already closed.
 *
 * @returns the deleted tags, sorted.
 * @throws Error when git fails.
 */
export async function deleteTags(clone: string): Promise<string[]> {
  const tags = (await git(clone, 'tag', '--list'))
    .split('\n')
    .filter((line) => line !== '')
    .sort();
  if (tags.length > 0) await git(clone, 'tag', '--delete', ...tags);
  return tags;
}

/**
 * The one version every published package of a checkout has.
 *
 * @throws Error when there is no published package or two disagree.
 */
export function lockstepVersion(root: string): string {
  const versions = [...new Set(readPublishedPackages(root, DEFAULT_LAYOUT).map((entry) => entry.version))];
  const [version] = versions;
  if (version === undefined || versions.length > 1)
    throw new Error(`not one lockstep version under ${root}: ${versions.join(', ')}`);
  return version;
}

/** The highest of some bumps (`none` for none). */
export function highestBump(bumps: readonly VersionType[]): VersionType {
  return bumps.reduce<VersionType>(
    (highest, bump) => (BUMP_ORDER.indexOf(bump) > BUMP_ORDER.indexOf(highest) ? bump : highest),
    'none',
  );
}

/** The highest bump the pending changesets of a checkout ask for (`none` without any). */
export async function pendingBump(root: string): Promise<VersionType> {
  return highestBump(
    (await getChangesets(root)).flatMap((changeset) => changeset.releases.map((release) => release.type)),
  );
}

/**
 * The version a bump leads to, as `changeset version` computes it for a release.
 *
 * @throws Error when `version` is not a semver version.
 */
export function nextVersion(version: string, bump: VersionType): string {
  if (bump === 'none') return version;
  const next = semver.inc(version, bump);
  if (next === null) throw new Error(`"${version}" is not a semver version`);
  return next;
}

/** Puts the rehearsal's entry first in the table (the first open entry decides an envelope's legacy value). */
function addRehearsalMigration(clone: string, introducedIn: string): string[] {
  const file = join(clone, DEFAULT_LAYOUT.migrationsFile);
  const table = JSON.parse(readFileSync(file, 'utf8')) as { migrations: { id: string }[] };
  const migrations = [
    { ...REHEARSAL_MIGRATION, introduced_in: introducedIn },
    ...table.migrations.filter((entry) => entry.id !== REHEARSAL_MIGRATION.id),
  ];
  writeFileSync(file, `${JSON.stringify({ ...table, migrations }, null, 2)}\n`);
  return migrations.map((entry) => entry.id);
}

/** The changeset announcing the rehearsal's window, in the words the release check asks each server's notes for. */
function writeRehearsalChangeset(clone: string, opening: string): void {
  const { id, from_kind, to_kind, cutover_date } = REHEARSAL_MIGRATION;
  const front = ['@mcp-envelope/contract', ...SERVER_PACKAGES].map((name) => `'${name}': minor`).join('\n');
  const servers = SERVER_PACKAGES.map((name) => `\`${name}\``).join(' and ');
  const summary = `\`${id}\`: an unknown tool's envelope is ${to_kind} and carries legacy_error_kind ${from_kind}, in ${servers} alike; cutover date ${cutover_date}; the release after ${opening} drops \`legacy_error_kind\`.`;
  writeFileSync(join(clone, '.changeset', 'rehearsal-window.md'), `---\n${front}\n---\n\n${summary}\n`);
}

/**
 * Readies a fresh clone for release 1: deletes its copied tags, opens the rehearsal's migration
 * window (an entry first in the table and a minor changeset naming it for both servers), and
 * works out the version release 1 must publish from the clone's version and its pending
 * changesets. The fixtures still need regenerating (`pnpm fixtures:update`) to show the window.
 *
 * @throws Error when git fails or the packages are not in lockstep.
 */
export async function prepareFirstRelease(clone: string): Promise<FirstRelease> {
  const deletedTags = await deleteTags(clone);
  const from = lockstepVersion(clone);
  const version = nextVersion(from, highestBump([await pendingBump(clone), 'minor']));
  const migrationIds = addRehearsalMigration(clone, from);
  writeRehearsalChangeset(clone, version);
  return { deletedTags, from, version, migrationIds };
}
