/**
 * The release check's tool-contract rules: the checked-in lockfiles describe the servers' tools
 * (`tool-lock-fresh`), and a release that breaks a tool's contract since the base says so in a
 * changeset (`tool-contracts`). Implements CONTRACT.md "Tool contracts and the lockfile".
 *
 * @packageDocumentation
 */
import { join } from 'node:path';

import type { NewChangeset, VersionType } from '@changesets/types';
import semver from 'semver';

import { breakingChanges } from '../tools-lock/compare.js';
import type { BreakingChange } from '../tools-lock/compare.js';
import { TOOLS_LOCK_FILE, parseToolsLock, readToolsLock } from '../tools-lock/lockfile.js';
import type { ToolsLock } from '../tools-lock/lockfile.js';
import { fileAt } from './history.js';
import type { PublishedPackage } from './workspace.js';
import { readChangelog } from './workspace.js';

/** A server's lockfile in the checkout, with its package. */
export interface CheckedInLock {
  readonly folder: string;
  readonly packageName: string;
  readonly lock: ToolsLock;
}

/**
 * The lockfiles of the published packages that have one.
 *
 * @param root - the checkout.
 * @param packages - its published packages.
 * @returns one entry per package with a `tools.lock.json`.
 * @throws Error when a lockfile is there but is not one.
 */
export function checkedInLocks(root: string, packages: readonly PublishedPackage[]): CheckedInLock[] {
  return packages.flatMap((entry) => {
    const lock = readToolsLock(join(root, entry.folder));
    return lock === undefined ? [] : [{ folder: entry.folder, packageName: entry.name, lock }];
  });
}

/**
 * The bump that a breaking tool change needs: major, or minor before 1.0.0 (semver gives a 0.x
 * release no other way to say "breaking").
 *
 * @param version - the version the packages have now.
 * @returns the smallest bump that announces a breaking change.
 */
export function breakingBump(version: string): Exclude<VersionType, 'none' | 'patch'> {
  return semver.major(version) === 0 ? 'minor' : 'major';
}

const RANK: Readonly<Record<VersionType, number>> = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * The texts that may announce a package's breaking change: the summary of each pending changeset
 * that releases it with at least `needed`, and its CHANGELOG when the packages were already
 * versioned by at least that much since the base (after `changeset version` consumed them).
 */
function announcements(
  root: string,
  lock: CheckedInLock,
  changesets: readonly NewChangeset[],
  needed: VersionType,
  versioned: VersionType,
): string[] {
  const pending = changesets
    .filter((changeset) =>
      changeset.releases.some((release) => release.name === lock.packageName && RANK[release.type] >= RANK[needed]),
    )
    .map((changeset) => changeset.summary);
  return RANK[versioned] >= RANK[needed] ? [...pending, readChangelog(root, lock.folder)] : pending;
}

/**
 * Whether a text names a tool as a word of its own: `repos_get` is not named by `repos_getContent`,
 * nor `get-order` by `get-order-items` (MCP tool names may hold `-` and `.`), while a full stop
 * after the name ends the sentence, not the name.
 */
function names(text: string, tool: string): boolean {
  const escaped = tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_.-])${escaped}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])`).test(text);
}

/** What {@link unannouncedBreakingChanges} needs of the release check. */
export interface ToolContractInput {
  readonly root: string;
  /** The ref of the base: the last release's tag, or `--since`. */
  readonly base: string;
  readonly locks: readonly CheckedInLock[];
  readonly changesets: readonly NewChangeset[];
  /** The version the packages have now. */
  readonly currentVersion: string;
  /** The bump already written since the base (by `changeset version`). */
  readonly versioned: VersionType;
}

/** A breaking change no changeset announces, with the package and the bump it needs. */
export interface UnannouncedChange extends BreakingChange {
  readonly server: string;
  readonly packageName: string;
  readonly bump: VersionType;
  /** The lockfile, relative to the checkout. */
  readonly file: string;
}

/**
 * The breaking changes of each lockfile since the base that no changeset announces. A changeset
 * announces a tool's breaking change when it releases the tool's package with at least
 * {@link breakingBump} and its text names the tool. A lockfile the base did not have breaks
 * nothing.
 *
 * @param input - the checkout, the base, the lockfiles and the pending changesets.
 * @returns the changes to report, by lockfile.
 */
export async function unannouncedBreakingChanges(input: ToolContractInput): Promise<UnannouncedChange[]> {
  const needed = breakingBump(input.currentVersion);
  const found: UnannouncedChange[] = [];
  for (const lock of input.locks) {
    const file = `${lock.folder}/${TOOLS_LOCK_FILE}`;
    const before = await fileAt(input.root, input.base, file);
    if (before === undefined) continue;
    const texts = announcements(input.root, lock, input.changesets, needed, input.versioned);
    for (const change of breakingChanges(parseToolsLock(before, `${input.base}:${file}`), lock.lock)) {
      if (texts.some((text) => names(text, change.tool))) continue;
      found.push({ ...change, server: lock.lock.server, packageName: lock.packageName, bump: needed, file });
    }
  }
  return found;
}
