/**
 * What the release rehearsal does to its clone before release 1, so that it runs the same way
 * whatever state the repository is in: changesets pending, just after a "Version Packages" commit,
 * or after a real release was tagged. The clone's history starts with no release, the versions
 * to expect are derived from the clone's own package.json and pending changesets, and release 1
 * always runs the contract's real v2 window: the four v2 entries of the migrations table, put back
 * in the clone's table when the repository is already past their cutover.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import getChangesets from '@changesets/read';
import type { VersionType } from '@changesets/types';
import semver from 'semver';

import { DEFAULT_LAYOUT, readPublishedPackages } from '../../src/release/workspace.js';
import { command, gitEnv } from './consumer.js';

/** One entry of the v2 window as `contract/migrations.json` holds it (without `introduced_in`). */
export interface V2WindowEntry {
  readonly id: string;
  readonly contract_version: 2;
  readonly servers: readonly ['sp' | 'ads'];
  readonly from_kind: string;
  readonly to_kind: string;
  readonly cutover_date: string;
}

/** The cutover date of the contract's v2 window. */
export const V2_CUTOVER_DATE = '2027-03-01';

/**
 * The contract's v2 window: the vendor kinds of v1 become `upstream_http` / `upstream_client`, and
 * a v2 envelope of SP or Ads carries the v1 kind as `legacy_error_kind` for one release.
 */
export const V2_WINDOW: readonly V2WindowEntry[] = [
  v2Entry('sp', 'sp-api-http-to-upstream-http', 'sp_api_http', 'upstream_http'),
  v2Entry('sp', 'sp-api-client-to-upstream-client', 'sp_api_client', 'upstream_client'),
  v2Entry('ads', 'ads-api-http-to-upstream-http', 'ads_api_http', 'upstream_http'),
  v2Entry('ads', 'ads-api-client-to-upstream-client', 'ads_api_client', 'upstream_client'),
];

function v2Entry(server: 'sp' | 'ads', id: string, from_kind: string, to_kind: string): V2WindowEntry {
  return { id, contract_version: 2, servers: [server], from_kind, to_kind, cutover_date: V2_CUTOVER_DATE };
}

/** Server id -> its package, and the package of the other server. */
const SERVER_PACKAGES = {
  sp: { name: '@mcp-envelope/sp-adapter', other: '@mcp-envelope/ads-adapter' },
  ads: { name: '@mcp-envelope/ads-adapter', other: '@mcp-envelope/sp-adapter' },
} as const;
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
  /** The ids of {@link V2_WINDOW} the clone's table lacked and the preparation put back. */
  readonly restored: readonly string[];
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

/**
 * Puts back the v2 entries the clone's table lacks (a repository past the v2 cutover has deleted
 * them), opening at the clone's version, after the entries it holds.
 *
 * @returns every id of the table, and the ids put back.
 */
function restoreV2Window(clone: string, introducedIn: string): { ids: string[]; restored: string[] } {
  const file = join(clone, DEFAULT_LAYOUT.migrationsFile);
  const table = JSON.parse(readFileSync(file, 'utf8')) as { migrations: { id: string }[] };
  const missing = V2_WINDOW.filter((entry) => !table.migrations.some((held) => held.id === entry.id));
  const migrations = [...table.migrations, ...missing.map((entry) => ({ ...entry, introduced_in: introducedIn }))];
  writeFileSync(file, `${JSON.stringify({ ...table, migrations }, null, 2)}\n`);
  return { ids: migrations.map((entry) => entry.id), restored: missing.map((entry) => entry.id) };
}

/**
 * One changeset per server announcing its v2 window, in the words the release check asks each
 * server's notes for (the repository's own changesets may say it too; two notes do no harm).
 */
function writeV2WindowChangesets(clone: string, opening: string): void {
  for (const server of ['sp', 'ads'] as const) {
    const { name, other } = SERVER_PACKAGES[server];
    const own = V2_WINDOW.filter((entry) => entry.servers[0] === server);
    const ids = own.map((entry) => `\`${entry.id}\``).join(' and ');
    const legacy = own.map((entry) => `${entry.to_kind} carries legacy_error_kind ${entry.from_kind}`).join(', ');
    const summary = `${ids}: in v2 envelopes ${legacy}; cutover date ${V2_CUTOVER_DATE}; the release after ${opening} drops \`legacy_error_kind\`. The same window applies to \`${other}\`.`;
    const front = `'@mcp-envelope/contract': minor\n'${name}': minor`;
    writeFileSync(join(clone, '.changeset', `rehearsal-v2-window-${server}.md`), `---\n${front}\n---\n\n${summary}\n`);
  }
}

/**
 * Readies a fresh clone for release 1: deletes its copied tags, makes sure the table holds the
 * real v2 window ({@link V2_WINDOW}, put back when the repository is past its cutover), writes a
 * minor changeset per server naming it, and works out the version release 1 must publish from
 * the clone's version and its pending changesets. The fixtures still need regenerating
 * (`pnpm fixtures:update`) to show the window.
 *
 * @throws Error when git fails or the packages are not in lockstep.
 */
export async function prepareFirstRelease(clone: string): Promise<FirstRelease> {
  const deletedTags = await deleteTags(clone);
  const from = lockstepVersion(clone);
  const version = nextVersion(from, highestBump([await pendingBump(clone), 'minor']));
  const { ids, restored } = restoreV2Window(clone, from);
  writeV2WindowChangesets(clone, version);
  return { deletedTags, from, version, migrationIds: ids, restored };
}
