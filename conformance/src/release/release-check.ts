/**
 * `release:check`: the contract's versioning rules, enforced by machine. Run in CI and before
 * `changeset version`. Implements CONTRACT.md "Lockstep releases and migration windows" and
 * DESIGN 6.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import getReleasePlan from '@changesets/get-release-plan';
import getChangesets from '@changesets/read';
import type { NewChangeset, VersionType } from '@changesets/types';
import { compareVersions } from '@mcp-envelope/contract';
import type { MigrationEntry } from '@mcp-envelope/contract';

import {
  DEFAULT_LAYOUT,
  changedFiles,
  kindMapOf,
  readChangelogs,
  readFixtureEnvelopes,
  readLatestSnapshot,
  readMigrations,
  readPublishedPackages,
} from './workspace.js';
import type { WorkspaceLayout } from './workspace.js';

/** The rules, in the order they run. */
export const RELEASE_RULES = ['lockstep', 'expired-migrations', 'snapshot-drift', 'changeset-required', 'migration-changelog'] as const;

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
  readonly findings: readonly ReleaseFinding[];
  /** Rules that could not run, with the reason (e.g. no released snapshot yet). */
  readonly skipped: readonly { readonly rule: ReleaseRule; readonly reason: string }[];
}

/** Options of {@link runReleaseCheck}. */
export interface ReleaseCheckOptions {
  /** The checkout to check. */
  readonly root: string;
  /** Git ref to diff against for `changeset-required` (a PR's base, e.g. `origin/main`). Without it the last release tag `v<current>` is used when it exists. */
  readonly since?: string;
  readonly layout?: WorkspaceLayout;
}

const BUMP_RANK: Readonly<Record<VersionType, number>> = { none: 0, patch: 1, minor: 2, major: 3 };

function covers(entry: MigrationEntry, server: string, code: string, from: string, to: string): boolean {
  return entry.error_codes.includes(code) && (entry.servers === undefined || entry.servers.includes(server)) && entry.from_kind === from && entry.to_kind === to;
}

async function tagExists(root: string, tag: string): Promise<boolean> {
  try {
    await changedFiles(root, tag);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs every rule against a checkout.
 *
 * Rules: `lockstep` (every published package has one version, and the pending release moves them
 * together); `expired-migrations` (no entry with `removed_in` <= the target version, and no
 * fixture still carrying a `legacy_error_kind` that no open window explains);
 * `snapshot-drift` (each error code's kind per server equals the last released snapshot's, unless
 * a migration entry covers the change); `changeset-required` (a change to the taxonomy, the
 * schemas, the migrations table or a fixture needs a pending changeset, at least minor for the
 * taxonomy); `migration-changelog` (each migration new since the last snapshot is named, with its
 * cutover release, in a pending changeset or a CHANGELOG.md).
 *
 * @param options - the checkout and the diff base.
 * @returns every finding; `ok` when there is none.
 * @throws Error when the checkout has no published packages or its files cannot be read.
 */
export async function runReleaseCheck(options: ReleaseCheckOptions): Promise<ReleaseCheckResult> {
  const { root } = options;
  const layout = options.layout ?? DEFAULT_LAYOUT;
  const findings: ReleaseFinding[] = [];
  const skipped: { rule: ReleaseRule; reason: string }[] = [];

  const packages = readPublishedPackages(root, layout);
  const first = packages[0];
  if (first === undefined) throw new Error(`no published package found under ${root}`);
  const currentVersion = first.version;
  const versions = new Set(packages.map((entry) => entry.version));
  if (versions.size > 1) {
    findings.push({
      rule: 'lockstep',
      message: `published packages have different versions: ${packages.map((entry) => `${entry.name}@${entry.version}`).join(', ')}`,
      fix: 'Put every package in the one `fixed` group of .changeset/config.json and set them all to the same version.',
    });
  }

  const hasChangesetFolder = existsSync(join(root, '.changeset', 'config.json'));
  const plan = hasChangesetFolder ? await getReleasePlan(root) : { changesets: [] as NewChangeset[], releases: [] };
  const ours = plan.releases.filter((release) => packages.some((entry) => entry.name === release.name));
  const newVersions = new Set(ours.map((release) => release.newVersion));
  if (ours.length > 0 && (ours.length !== packages.length || newVersions.size > 1)) {
    findings.push({
      rule: 'lockstep',
      message: `the pending release does not move every package to one version: ${ours.map((release) => `${release.name}@${release.newVersion}`).join(', ')}`,
      fix: 'List every published package in the one `fixed` group of .changeset/config.json.',
    });
  }
  const targetVersion = ours.map((release) => release.newVersion).sort(compareVersions).at(-1) ?? currentVersion;

  const migrations = readMigrations(root, layout);
  for (const entry of migrations) {
    if (compareVersions(entry.removed_in, targetVersion) <= 0) {
      findings.push({
        rule: 'expired-migrations',
        message: `migration "${entry.id}" (${entry.from_kind} -> ${entry.to_kind}) expired in ${entry.removed_in}, and ${targetVersion} is about to be released`,
        fix: `Delete the entry "${entry.id}" from ${layout.migrationsFile}, run \`pnpm fixtures:update\`, and drop legacy_error_kind "${entry.from_kind}" from the recorded cases that still expect it (conformance/cases, packages/*/test/fixtures/upstream).`,
      });
    }
  }
  const open = migrations.filter((entry) => compareVersions(entry.introduced_in, targetVersion) <= 0 && compareVersions(targetVersion, entry.removed_in) < 0);
  const fixtures = readFixtureEnvelopes(root, layout);
  for (const fixture of fixtures) {
    if (fixture.legacy_error_kind === undefined) continue;
    const legacy = fixture.legacy_error_kind;
    if (!open.some((entry) => covers(entry, fixture.server, fixture.error_code, legacy, fixture.error_kind))) {
      findings.push({
        rule: 'expired-migrations',
        message: `${fixture.file} still emits legacy_error_kind "${legacy}" for ${fixture.error_code}, which no migration window open at ${targetVersion} explains`,
        fix: 'Regenerate the conformance fixtures from the servers (their legacy_error_kind follows the migrations table), or add the missing migration entry.',
      });
    }
  }

  const snapshot = readLatestSnapshot(root, layout, currentVersion);
  if (snapshot === undefined) {
    skipped.push({ rule: 'snapshot-drift', reason: `no released snapshot in ${layout.releasesFolder} at or below ${currentVersion}` });
  } else {
    const now = kindMapOf(fixtures);
    for (const [server, codes] of Object.entries(snapshot.kinds)) {
      for (const [code, before] of Object.entries(codes)) {
        const after = now[server]?.[code];
        if (after === undefined || after === before) continue;
        if (!migrations.some((entry) => covers(entry, server, code, before, after))) {
          findings.push({
            rule: 'snapshot-drift',
            message: `${server} ${code} was ${before} in ${snapshot.version} and is ${after} now, with no migration entry`,
            fix: `Add to ${layout.migrationsFile}: {"id": "...", "error_codes": ["${code}"], "servers": ["${server}"], "from_kind": "${before}", "to_kind": "${after}", "introduced_in": "${targetVersion}", "removed_in": "<the release after ${targetVersion}>"}, or restore the old kind.`,
          });
        }
      }
    }
  }

  const changesets = hasChangesetFolder ? await getChangesets(root) : [];
  const since = options.since ?? ((await tagExists(root, `v${currentVersion}`)) ? `v${currentVersion}` : undefined);
  if (since === undefined) {
    skipped.push({ rule: 'changeset-required', reason: `no --since ref given and no tag v${currentVersion}` });
  } else {
    const changed = await changedFiles(root, since);
    const contractChanges = changed.filter((file) => layout.contractFiles.some((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))));
    const taxonomyChanges = changed.filter((file) => layout.taxonomyFiles.includes(file));
    if (contractChanges.length > 0 && changesets.length === 0) {
      findings.push({
        rule: 'changeset-required',
        message: `contract files changed since ${since} with no pending changeset: ${contractChanges.join(', ')}`,
        fix: `Run \`pnpm changeset\`, pick ${taxonomyChanges.length > 0 ? 'at least minor' : 'the bump that fits'}, and describe the change for users.`,
      });
    } else if (taxonomyChanges.length > 0) {
      const bump = Math.max(0, ...ours.map((release) => BUMP_RANK[release.type]));
      if (bump < BUMP_RANK.minor) {
        findings.push({
          rule: 'changeset-required',
          message: `the taxonomy changed since ${since} (${taxonomyChanges.join(', ')}) but the pending changesets bump only ${bump === 0 ? 'nothing' : 'patch'}`,
          fix: 'Change the changeset to `minor` (or `major` when a kind or code was removed): a taxonomy change is never a patch.',
        });
      }
    }
  }

  const known = new Set(snapshot?.migrations ?? []);
  const texts = `${changesets.map((changeset) => changeset.summary).join('\n')}\n${readChangelogs(root, layout)}`;
  for (const entry of migrations) {
    if (known.has(entry.id)) continue;
    if (!(texts.includes(entry.id) && texts.includes(entry.removed_in))) {
      findings.push({
        rule: 'migration-changelog',
        message: `migration "${entry.id}" has no changelog entry naming its cutover release ${entry.removed_in}`,
        fix: `Add a changeset (or CHANGELOG.md entry) that names "${entry.id}", says ${entry.from_kind} becomes ${entry.to_kind} in ${entry.introduced_in}, and that legacy_error_kind is dropped in ${entry.removed_in}.`,
      });
    }
  }

  return { ok: findings.length === 0, currentVersion, targetVersion, findings, skipped };
}

/**
 * Renders a result for people: one block per finding with its fix, then the skipped rules.
 *
 * @returns lines ending with `release:check: passed` or `release:check: N problem(s)`.
 */
export function formatReleaseCheck(result: ReleaseCheckResult): string {
  const lines = [`release:check ${result.currentVersion} -> ${result.targetVersion}`];
  for (const finding of result.findings) {
    lines.push(`FAIL [${finding.rule}] ${finding.message}`, `     fix: ${finding.fix}`);
  }
  for (const skip of result.skipped) lines.push(`skip [${skip.rule}] ${skip.reason}`);
  lines.push(result.ok ? 'release:check: passed' : `release:check: ${result.findings.length} problem(s)`);
  return lines.join('\n');
}
