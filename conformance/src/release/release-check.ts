/**
 * `release:check`: the contract's versioning rules, enforced by machine. Run in CI and before
 * `changeset version` and `changeset publish`. Implements CONTRACT.md "Lockstep releases and
 * migration windows".
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import getReleasePlan from '@changesets/get-release-plan';
import getChangesets from '@changesets/read';
import type { NewChangeset, VersionType } from '@changesets/types';
import { isMigrationOpen } from '@mcp-envelope/contract';
import semver from 'semver';

import { toolLockProblems } from '../tools-lock/live.js';
import type { ServerToolsLock } from '../tools-lock/live.js';
import { fileAt, firstCommit, readReleases, shippedMigrationEntries, versionAt } from './history.js';
import type { Release, ShippedMigration } from './history.js';
import { checkedInLocks, unannouncedBreakingChanges } from './tool-contracts.js';
import {
  DEFAULT_LAYOUT,
  changedFiles,
  readChangelog,
  readFixtureEnvelopes,
  readLatestSnapshot,
  entryVersion,
  readMigrations,
  readPublishedPackages,
  snapshotKinds,
  v1TwinOf,
} from './workspace.js';
import type {
  FixtureEnvelope,
  PublishedPackage,
  ReleaseMigrationEntry,
  ReleaseSnapshot,
  WorkspaceLayout,
} from './workspace.js';

/** The rules, in the order they run. */
export const RELEASE_RULES = [
  'lockstep',
  'fixture-layout',
  'expired-migrations',
  'window-required',
  'snapshot-drift',
  'changeset-required',
  'migration-changelog',
  'tool-lock-fresh',
  'tool-contracts',
] as const;

/** One rule's name. */
export type ReleaseRule = (typeof RELEASE_RULES)[number];

/** One finding: what is wrong and exactly what to do. */
export interface ReleaseFinding {
  readonly rule: ReleaseRule;
  readonly message: string;
  readonly fix: string;
}

/** The result of {@link runReleaseCheck}. */
export interface ReleaseCheckResult {
  readonly ok: boolean;
  /** The version the published packages have now. */
  readonly currentVersion: string;
  /** The version about to be released: the pending changesets' new version, else the current one. */
  readonly targetVersion: string;
  /** The versions released so far, from the `<package>@<version>` git tags, oldest first. */
  readonly releases: readonly string[];
  readonly findings: readonly ReleaseFinding[];
  /** Rules that could not run, with the reason (e.g. no released snapshot yet). */
  readonly skipped: readonly { readonly rule: ReleaseRule; readonly reason: string }[];
}

/** Options of {@link runReleaseCheck}. */
export interface ReleaseCheckOptions {
  /** The checkout to check. */
  readonly root: string;
  /**
   * Git ref to diff against for `changeset-required` (a PR's base, e.g. `origin/main`). Without
   * it: the tag of the last release, else the repository's first commit.
   */
  readonly since?: string;
  readonly layout?: WorkspaceLayout;
  /**
   * Lists the servers' tools now, for `tool-lock-fresh` (the CLI starts the gated servers whose
   * packages lie in the checkout); without it the rule does not run.
   */
  readonly liveToolLocks?: () => Promise<readonly ServerToolsLock[]>;
}

/** What every rule reads, gathered once. */
interface CheckContext {
  readonly root: string;
  readonly layout: WorkspaceLayout;
  readonly packages: readonly PublishedPackage[];
  readonly currentVersion: string;
  readonly targetVersion: string;
  /** The pending changesets' highest bump, `none` without any. */
  readonly pendingBump: VersionType;
  readonly changesets: readonly NewChangeset[];
  readonly migrations: readonly ReleaseMigrationEntry[];
  readonly fixtures: readonly FixtureEnvelope[];
  readonly releases: readonly Release[];
  /** Migration id -> the first release whose table held it. */
  readonly shipped: ReadonlyMap<string, Release>;
  /** The entries the releases shipped, as they shipped them. */
  readonly shippedEntries: readonly ShippedMigration[];
}

type Report = (finding: ReleaseFinding) => void;
type Skip = (rule: ReleaseRule, reason: string) => void;

const BUMP_RANK: Readonly<Record<VersionType, number>> = { none: 0, patch: 1, minor: 2, major: 3 };

/** The fixture facts an entry is matched against. */
type Covered = Pick<FixtureEnvelope, 'server' | 'error_code' | 'version'>;

/**
 * Whether an entry explains `from -> to` for a fixture: same envelope version, a listed server (an
 * entry without `servers` covers none: a server must never inherit a window that predates it), and
 * a listed code or no `error_codes` at all.
 */
function covers(entry: ReleaseMigrationEntry, fixture: Covered, from: string, to: string): boolean {
  return (
    entryVersion(entry) === fixture.version &&
    (entry.error_codes === undefined || entry.error_codes.includes(fixture.error_code)) &&
    entry.servers?.includes(fixture.server) === true &&
    entry.from_kind === from &&
    entry.to_kind === to
  );
}

/** The entries whose window is open at `version` (the contract's own rule). */
function openAt(version: string, entries: readonly ReleaseMigrationEntry[]): ReleaseMigrationEntry[] {
  return entries.filter((entry) => isMigrationOpen(entry, version));
}

/** The semver bump that leads from `before` to `after` (`none` when equal or lower). */
function bumpBetween(before: string, after: string): VersionType {
  if (semver.lte(after, before)) return 'none';
  const difference = semver.diff(before, after);
  // a pre-release step counts as the bump it leads to
  if (difference === 'major' || difference === 'premajor') return 'major';
  return difference === 'minor' || difference === 'preminor' ? 'minor' : 'patch';
}

async function gatherContext(root: string, layout: WorkspaceLayout, report: Report): Promise<CheckContext> {
  const packages = readPublishedPackages(root, layout);
  const first = packages[0];
  if (first === undefined) throw new Error(`no published package found under ${root}`);
  const currentVersion = first.version;
  if (new Set(packages.map((entry) => entry.version)).size > 1) {
    report({
      rule: 'lockstep',
      message: `published packages have different versions: ${packages.map((entry) => `${entry.name}@${entry.version}`).join(', ')}`,
      fix: 'Put every package in the one `fixed` group of .changeset/config.json and set them all to the same version.',
    });
  }
  const hasChangesetFolder = existsSync(join(root, '.changeset', 'config.json'));
  const plan = hasChangesetFolder ? await getReleasePlan(root) : { changesets: [] as NewChangeset[], releases: [] };
  const ours = plan.releases.filter((release) => packages.some((entry) => entry.name === release.name));
  if (
    ours.length > 0 &&
    (ours.length !== packages.length || new Set(ours.map((release) => release.newVersion)).size > 1)
  ) {
    report({
      rule: 'lockstep',
      message: `the pending release does not move every package to one version: ${ours.map((release) => `${release.name}@${release.newVersion}`).join(', ')}`,
      fix: 'List every published package in the one `fixed` group of .changeset/config.json.',
    });
  }
  const releases = await readReleases(
    root,
    packages.map((entry) => entry.name),
  );
  const shippedEntries = await shippedMigrationEntries(root, releases, layout.migrationsFile);
  return {
    root,
    layout,
    packages,
    currentVersion,
    targetVersion:
      ours
        .map((release) => release.newVersion)
        .sort(semver.compare)
        .at(-1) ?? currentVersion,
    pendingBump: ours.reduce<VersionType>(
      (highest, release) => (BUMP_RANK[release.type] > BUMP_RANK[highest] ? release.type : highest),
      'none',
    ),
    changesets: hasChangesetFolder ? await getChangesets(root) : [],
    migrations: readMigrations(root, layout),
    fixtures: readFixtureEnvelopes(root, layout),
    releases,
    shipped: new Map(shippedEntries.map(({ entry, release }) => [entry.id, release])),
    shippedEntries,
  };
}

/**
 * Runs every rule against a checkout.
 *
 * Rules: `lockstep` (every published package has one version, and the pending release moves them
 * together); `fixture-layout` (a fixture's `_envelope_version` is its folder's: v2 under
 * `fixtures/<server>/`, v1 under `fixtures/v1/<server>/`); `expired-migrations` (every entry names
 * its `servers`; no entry that an earlier release already shipped, whatever the bump since: a
 * window is one release long ("keeps it late"); no entry with `removed_in` <= the target version;
 * no fixture carrying a `legacy_error_kind` that no open window of its envelope version and server
 * explains); `window-required` ("drops it early": until a release has shipped a v2 kind for a
 * server and code, or an entry covering the move, a v2 fixture whose v1 twin has another kind carries the twin's kind as
 * `legacy_error_kind` from an open v2 entry); `snapshot-drift` (each error code's kind per server
 * and envelope version equals the last release's snapshot, unless a migration entry covers the
 * change); `changeset-required` (a change to the taxonomy, the schemas, the migrations
 * table or a fixture since the last release needs a changeset, at least minor for the taxonomy);
 * `migration-changelog` (each migration not yet released is named in the CHANGELOG, or a pending
 * changeset, of every server it touches, with its cutover date and the release that drops it).
 * `tool-lock-fresh` (each gated server's `tools.lock.json` describes the tools it lists now: else
 * "run pnpm tools:lock"); `tool-contracts` (a breaking change of a tool's contract between the
 * base's lockfile and the checkout's, see `breakingChanges`, needs a pending changeset releasing
 * that server's package with a major bump, a minor one before 1.0.0, whose text names the tool; the
 * base is `since`, else the last release's tag; a lockfile the base lacks breaks nothing).
 * Releases are the `<package>@<version>` tags `changeset publish` creates.
 *
 * @param options - the checkout and the diff base.
 * @returns every finding; `ok` when there is none.
 * @throws Error when the checkout has no published packages or its files cannot be read.
 */
export async function runReleaseCheck(options: ReleaseCheckOptions): Promise<ReleaseCheckResult> {
  const findings: ReleaseFinding[] = [];
  const skipped: { rule: ReleaseRule; reason: string }[] = [];
  const report: Report = (finding) => findings.push(finding);
  const skip: Skip = (rule, reason) => skipped.push({ rule, reason });
  const context = await gatherContext(options.root, options.layout ?? DEFAULT_LAYOUT, report);
  const snapshot = await baselineSnapshot(context);
  checkFixtureLayout(context, report);
  checkEntryShapes(context, report);
  checkExpiredMigrations(context, report);
  checkWindowRequired(context, snapshot, report);
  checkSnapshotDrift(context, snapshot, report, skip);
  await checkChangesetRequired(context, options.since, report, skip);
  checkMigrationChangelogs(context, snapshot, report);
  if (options.liveToolLocks !== undefined) checkToolLocksFresh(await options.liveToolLocks(), report);
  await checkToolContracts(context, options.since, report, skip);
  return {
    ok: findings.length === 0,
    currentVersion: context.currentVersion,
    targetVersion: context.targetVersion,
    releases: context.releases.map((release) => release.version),
    findings,
    skipped,
  };
}

function overlaps(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === undefined || b === undefined || a.some((item) => b.includes(item));
}

/**
 * The earliest shipped entry with this id or with the same reclassification (same kinds, a shared
 * code and server): renaming an entry must not reopen a window a release already used.
 */
function shippedAs(context: CheckContext, entry: ReleaseMigrationEntry): ShippedMigration | undefined {
  return context.shippedEntries
    .filter(
      ({ entry: old }) =>
        old.id === entry.id ||
        (entryVersion(old) === entryVersion(entry) &&
          old.from_kind === entry.from_kind &&
          old.to_kind === entry.to_kind &&
          overlaps(old.error_codes, entry.error_codes) &&
          overlaps(old.servers, entry.servers)),
    )
    .sort((a, b) => semver.compare(a.release.version, b.release.version))[0];
}

function checkExpiredMigrations(context: CheckContext, report: Report): void {
  const { layout, migrations, targetVersion } = context;
  for (const entry of migrations) {
    const earlier = shippedAs(context, entry);
    const shippedIn = earlier?.release;
    const renamed = earlier !== undefined && earlier.entry.id !== entry.id ? ` as "${earlier.entry.id}"` : '';
    const byRelease = shippedIn !== undefined && semver.compare(shippedIn.version, targetVersion) < 0;
    const byVersion = entry.removed_in !== undefined && semver.compare(entry.removed_in, targetVersion) <= 0;
    if (!byRelease && !byVersion) continue;
    report({
      rule: 'expired-migrations',
      message: byRelease
        ? `migration "${entry.id}" (${entry.from_kind} -> ${entry.to_kind}) shipped in ${shippedIn.version} (tag ${shippedIn.tag})${renamed}; its window closes with the next release, and ${targetVersion} is about to be released`
        : `migration "${entry.id}" (${entry.from_kind} -> ${entry.to_kind}) expired in ${entry.removed_in ?? ''}, and ${targetVersion} is about to be released`,
      fix: `Delete the entry "${entry.id}" from ${layout.migrationsFile}, run \`pnpm fixtures:update\`, and drop legacy_error_kind "${entry.from_kind}" from the recorded cases that still expect it (conformance/cases, packages/*/test/fixtures/upstream).`,
    });
  }
  checkUnexplainedLegacy(context, report);
}

/** A fixture's legacy value must come from an open entry of its own envelope version and server. */
function checkUnexplainedLegacy(context: CheckContext, report: Report): void {
  const { targetVersion } = context;
  const open = openAt(targetVersion, context.migrations);
  for (const fixture of context.fixtures) {
    const legacy = fixture.legacy_error_kind;
    if (legacy === undefined || open.some((entry) => covers(entry, fixture, legacy, fixture.error_kind))) continue;
    report({
      rule: 'expired-migrations',
      message: `${fixture.file} still emits legacy_error_kind "${legacy}" for ${fixture.error_code}, which no v${fixture.version} migration window of ${fixture.server} open at ${targetVersion} explains`,
      fix: 'Regenerate the conformance fixtures from the servers (their legacy_error_kind follows the migrations table), or add the missing migration entry.',
    });
  }
}

/**
 * Entries the table must not hold in any release: one without `servers` (a server new to the
 * family would inherit a window that predates it) or with a `contract_version` other than 1 or 2.
 */
function checkEntryShapes(context: CheckContext, report: Report): void {
  const file = context.layout.migrationsFile;
  for (const entry of context.migrations) {
    if (!Array.isArray(entry.servers) || entry.servers.length === 0)
      report({
        rule: 'expired-migrations',
        message: `migration "${entry.id}" (${entry.from_kind} -> ${entry.to_kind}) names no servers, so every server, one that joins the family later included, would carry legacy_error_kind "${entry.from_kind}"`,
        fix: `Give the entry "${entry.id}" in ${file} "servers": the ids of the servers that emitted "${entry.from_kind}" before (for example ["sp", "ads"]).`,
      });
    if (entry.contract_version !== undefined && entry.contract_version !== 1 && entry.contract_version !== 2)
      report({
        rule: 'expired-migrations',
        message: `migration "${entry.id}" has contract_version ${JSON.stringify(entry.contract_version)}, which is not an envelope version (1 or 2)`,
        fix: `Set "contract_version" of "${entry.id}" in ${file} to the envelope version whose envelopes carry its legacy value: 1 or 2 (absent means 1).`,
      });
  }
}

/** Each fixture's `_envelope_version` must be the version its folder holds. */
function checkFixtureLayout(context: CheckContext, report: Report): void {
  const folder = context.layout.fixturesFolder;
  for (const fixture of context.fixtures) {
    if (fixture.envelope_version === fixture.version) continue;
    report({
      rule: 'fixture-layout',
      message: `${fixture.file} states _envelope_version ${JSON.stringify(fixture.envelope_version) ?? 'nothing'} but lies among the v${fixture.version} fixtures`,
      fix: `Regenerate the fixtures (\`pnpm fixtures:update\`): v2 envelopes belong in ${folder}/<server>/, their v1 forms in ${folder}/v1/<server>/.`,
    });
  }
}

/**
 * "Drops it early": while no release has shipped a v2 kind for a server and code, nor an entry
 * covering the move, a v2 fixture whose v1 twin has another kind is the window release's case, and
 * must carry the twin's kind as `legacy_error_kind`, explained by an open v2 entry (the servers read the table, not the fixture).
 * A server with no v1 twin (new to the family) has no window to serve.
 */
function checkWindowRequired(context: CheckContext, snapshot: ReleaseSnapshot | undefined, report: Report): void {
  const served = snapshot === undefined ? {} : snapshotKinds(snapshot, 2);
  const open = openAt(context.targetVersion, context.migrations);
  for (const fixture of context.fixtures) {
    if (fixture.version !== 2) continue;
    const twin = v1TwinOf(fixture, context.fixtures);
    if (twin === undefined || twin.error_kind === fixture.error_kind) continue;
    if (served[fixture.server]?.[fixture.error_code] !== undefined || windowServed(context, fixture, twin)) continue;
    const entry = open.find((candidate) => covers(candidate, fixture, twin.error_kind, fixture.error_kind));
    if (entry !== undefined && fixture.legacy_error_kind === twin.error_kind) continue;
    report(windowRequiredFinding(context, fixture, twin, entry));
  }
}

/**
 * Whether an earlier release shipped an entry covering this fixture's move: its window was served
 * for every code it covers, also a code recorded only after that release (a new status case).
 */
function windowServed(context: CheckContext, fixture: FixtureEnvelope, twin: FixtureEnvelope): boolean {
  return context.shippedEntries.some(
    ({ entry, release }) =>
      semver.compare(release.version, context.targetVersion) < 0 &&
      covers(entry, fixture, twin.error_kind, fixture.error_kind),
  );
}

function windowRequiredFinding(
  context: CheckContext,
  fixture: FixtureEnvelope,
  twin: FixtureEnvelope,
  entry: ReleaseMigrationEntry | undefined,
): ReleaseFinding {
  const { server, error_code: code, legacy_error_kind: legacy } = fixture;
  const carries = legacy === undefined ? 'carries no legacy_error_kind' : `carries legacy_error_kind "${legacy}"`;
  const explained = entry === undefined ? 'no open v2 migration entry covers it' : `entry "${entry.id}" is open`;
  return {
    rule: 'window-required',
    message: `${fixture.file} is ${fixture.error_kind} where a v1 reader gets ${twin.error_kind} (${twin.file}); it ${carries} and ${explained}, but no release has shipped a v2 kind for ${server} ${code} yet, so ${context.targetVersion} must carry the window`,
    fix: `Keep a v2 window open in ${context.layout.migrationsFile} until one release has shipped it ({"id": "...", "contract_version": 2, "servers": ["${server}"], "from_kind": "${twin.error_kind}", "to_kind": "${fixture.error_kind}", "introduced_in": "${context.targetVersion}", "cutover_date": "YYYY-MM-DD"}), then run \`pnpm fixtures:update\`; the release after it drops the entry.`,
  };
}

/**
 * The snapshot of the last release as its tag holds it (the checkout's copy could be edited along
 * with the change it should reveal); else the newest one in the checkout at or below that release,
 * or before any release at or below the current version.
 */
async function baselineSnapshot(context: CheckContext): Promise<ReleaseSnapshot | undefined> {
  const last = context.releases.at(-1);
  const tagged =
    last === undefined
      ? undefined
      : await fileAt(context.root, last.tag, `${context.layout.releasesFolder}/${last.version}.json`);
  if (tagged !== undefined) return JSON.parse(tagged) as ReleaseSnapshot;
  return readLatestSnapshot(context.root, context.layout, last?.version ?? context.currentVersion);
}

function checkSnapshotDrift(
  context: CheckContext,
  snapshot: ReleaseSnapshot | undefined,
  report: Report,
  skip: Skip,
): void {
  if (snapshot === undefined) {
    skip(
      'snapshot-drift',
      `no released snapshot in ${context.layout.releasesFolder} at or below ${context.releases.at(-1)?.version ?? context.currentVersion}`,
    );
    return;
  }
  // Every fixture is compared, not one per code: two cases can share a code, and a change in
  // either is a change of what clients see for that code.
  const reported = new Set<string>();
  // A snapshot from before contract v2 recorded v1 kinds only: v2 fixtures have nothing to drift from.
  for (const fixture of context.fixtures) {
    const { server, error_code: code, error_kind: after, file, version } = fixture;
    const before = snapshotKinds(snapshot, version)[server]?.[code];
    const key = `${version} ${server} ${code} ${after}`;
    if (
      before === undefined ||
      after === before ||
      reported.has(key) ||
      context.migrations.some((entry) => covers(entry, fixture, before, after))
    )
      continue;
    reported.add(key);
    const versioned = version === 1 ? '' : ` "contract_version": ${version},`;
    report({
      rule: 'snapshot-drift',
      message: `${server} ${code} was ${before} in ${snapshot.version} and is ${after} now (${file}), with no migration entry`,
      fix: `Add to ${context.layout.migrationsFile}: {"id": "...",${versioned} "error_codes": ["${code}"], "servers": ["${server}"], "from_kind": "${before}", "to_kind": "${after}", "introduced_in": "${context.targetVersion}", "cutover_date": "YYYY-MM-DD"}, or restore the old kind.`,
    });
  }
}

async function checkChangesetRequired(
  context: CheckContext,
  sinceOption: string | undefined,
  report: Report,
  skip: Skip,
): Promise<void> {
  const { root, layout } = context;
  const since = sinceOption ?? context.releases.at(-1)?.tag ?? (await firstCommit(root));
  if (since === undefined) {
    skip('changeset-required', 'no --since ref given, no release tag and no commit');
    return;
  }
  const changed = await changedFiles(root, since);
  const contractChanges = changed.filter((file) =>
    layout.contractFiles.some((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))),
  );
  const taxonomyChanges = changed.filter((file) => layout.taxonomyFiles.includes(file));
  // A bump already written by `changeset version` (the release commit, before publish) counts
  // like the changesets it consumed.
  const before = await versionAt(root, since, context.packages[0]?.folder ?? '');
  const versioned = before === undefined ? 'none' : bumpBetween(before, context.currentVersion);
  const bump = Math.max(BUMP_RANK[context.pendingBump], BUMP_RANK[versioned]);
  if (contractChanges.length > 0 && bump === 0) {
    report({
      rule: 'changeset-required',
      message: `contract files changed since ${since} with no pending changeset: ${contractChanges.join(', ')}`,
      fix: `Run \`pnpm changeset\`, pick ${taxonomyChanges.length > 0 ? 'at least minor' : 'the bump that fits'}, and describe the change for users.`,
    });
    return;
  }
  if (taxonomyChanges.length > 0 && bump < BUMP_RANK.minor) {
    report({
      rule: 'changeset-required',
      message: `the taxonomy changed since ${since} (${taxonomyChanges.join(', ')}) but the release bumps only patch`,
      fix: 'Change the changeset to `minor` (or `major` when a kind or code was removed): a taxonomy change is never a patch.',
    });
  }
  if (bump === 0 || bump >= BUMP_RANK.minor) return;
  // A migration entry no release has shipped yet is a reclassification this release introduces.
  for (const entry of context.migrations.filter((candidate) => shippedAs(context, candidate) === undefined)) {
    report({
      rule: 'changeset-required',
      message: `migration "${entry.id}" (${entry.from_kind} -> ${entry.to_kind}) is a reclassification but the release bumps only patch`,
      fix: 'Change the changeset to `minor` (or `major`): a reclassification is never a patch.',
    });
  }
}

/** `tool-lock-fresh`: each server's lockfile describes the tools it lists now. */
function checkToolLocksFresh(locks: readonly ServerToolsLock[], report: Report): void {
  for (const lock of locks) {
    const problems = toolLockProblems(lock);
    if (problems.length === 0) continue;
    report({
      rule: 'tool-lock-fresh',
      message: `the tool lockfile of ${lock.server.id} is out of date: ${problems.join('; ')}`,
      fix: 'Run `pnpm tools:lock` and commit the lockfile (a property that disappeared gets a history entry: set its "new" when it was renamed).',
    });
  }
}

/** `tool-contracts`: a breaking change of a tool since the base is announced by a changeset. */
async function checkToolContracts(
  context: CheckContext,
  sinceOption: string | undefined,
  report: Report,
  skip: Skip,
): Promise<void> {
  const locks = checkedInLocks(context.root, context.packages);
  if (locks.length === 0) return;
  const base = sinceOption ?? context.releases.at(-1)?.tag;
  if (base === undefined) {
    skip('tool-contracts', 'no release and no --since ref to compare the tool lockfiles with');
    return;
  }
  const before = await versionAt(context.root, base, context.packages[0]?.folder ?? '');
  const versioned = before === undefined ? 'none' : bumpBetween(before, context.currentVersion);
  const changes = await unannouncedBreakingChanges({
    root: context.root,
    base,
    locks,
    changesets: context.changesets,
    currentVersion: context.currentVersion,
    versioned,
  });
  for (const change of changes)
    report({
      rule: 'tool-contracts',
      message: `${change.message} (${change.kind}, ${change.file} since ${base}): a breaking change of ${change.server}'s tool contract`,
      fix: `Add a changeset releasing ${change.packageName} as ${change.bump} (or higher) whose text names \`${change.tool}\` and says what callers must change, or restore the contract (a new optional property instead of a required one, the old values kept).`,
    });
}

/** What a server's release notes must say about one migration, each as a phrase to find. */
function requiredPhrases(entry: ReleaseMigrationEntry, opening: string, others: readonly string[]): string[] {
  return [
    `\`${entry.id}\``,
    entry.cutover_date ?? 'YYYY-MM-DD',
    `release after ${opening}`,
    ...others.map((name) => `\`${name}\``),
  ];
}

/**
 * A CHANGELOG cut into its notes: one per top-level list item (what `changeset version` writes for
 * each changeset) or heading, so that one note must say everything about a migration.
 */
function changelogNotes(changelog: string): string[] {
  return changelog.split(/^(?=#|[-*] )/m).filter((note) => note.trim() !== '');
}

/** The phrases the closest note naming the migration (the first phrase) lacks; all of them when no note names it. */
function missingFromBestNote(phrases: readonly string[], notes: readonly string[]): string[] {
  const [id = ''] = phrases;
  return notes
    .filter((note) => note.includes(id))
    .map((note) => phrases.filter((phrase) => !note.includes(phrase)))
    .reduce<string[]>((best, missing) => (missing.length < best.length ? missing : best), [...phrases]);
}

function checkMigrationChangelogs(context: CheckContext, snapshot: ReleaseSnapshot | undefined, report: Report): void {
  const { root, layout, targetVersion } = context;
  const known = new Set(snapshot?.migrations ?? []);
  const servers = Object.keys(layout.serverPackages);
  const nameOf = (server: string): string =>
    context.packages.find((entry) => entry.folder === layout.serverPackages[server])?.name ??
    layout.serverPackages[server] ??
    server;
  for (const entry of context.migrations) {
    if (context.shipped.has(entry.id) || (context.releases.length === 0 && known.has(entry.id))) continue;
    if (entry.cutover_date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(entry.cutover_date)) {
      report({
        rule: 'migration-changelog',
        message: `migration "${entry.id}" has no cutover_date`,
        fix: `Give the entry in ${layout.migrationsFile} a "cutover_date": "YYYY-MM-DD", the date from which clients must not rely on legacy_error_kind "${entry.from_kind}".`,
      });
      continue;
    }
    const touched = (entry.servers ?? servers).filter((server) => layout.serverPackages[server] !== undefined);
    for (const server of touched) {
      const name = nameOf(server);
      const notes = [
        ...context.changesets
          .filter((changeset) => changeset.releases.some((release) => release.name === name))
          .map((changeset) => changeset.summary),
        ...changelogNotes(readChangelog(root, layout.serverPackages[server] ?? '')),
      ];
      const others = touched.filter((other) => other !== server).map(nameOf);
      const missing = missingFromBestNote(requiredPhrases(entry, targetVersion, others), notes);
      if (missing.length === 0) continue;
      report({
        rule: 'migration-changelog',
        message: `${layout.serverPackages[server] ?? server}/CHANGELOG.md (and the pending changesets releasing ${name}) lack, for migration "${entry.id}": ${missing.join(', ')}`,
        fix: `Add a changeset releasing ${name} that names \`${entry.id}\`, says ${entry.from_kind} becomes ${entry.to_kind}, gives the cutover date ${entry.cutover_date}, says legacy_error_kind is dropped in the release after ${targetVersion}${others.length > 0 ? `, and refers to ${others.map((other) => `\`${other}\``).join(', ')}, which the migration also touches` : ''}.`,
      });
    }
  }
}

/**
 * Renders a result for people: one block per finding with its fix, then the skipped rules.
 *
 * @returns lines ending with `release:check: passed` or `release:check: N problem(s)`.
 */
export function formatReleaseCheck(result: ReleaseCheckResult): string {
  const released = result.releases.length === 0 ? 'no release yet' : `released: ${result.releases.join(', ')}`;
  const lines = [`release:check ${result.currentVersion} -> ${result.targetVersion} (${released})`];
  for (const finding of result.findings) {
    lines.push(`FAIL [${finding.rule}] ${finding.message}`, `     fix: ${finding.fix}`);
  }
  for (const skip of result.skipped) lines.push(`skip [${skip.rule}] ${skip.reason}`);
  lines.push(result.ok ? 'release:check: passed' : `release:check: ${result.findings.length} problem(s)`);
  return lines.join('\n');
}
