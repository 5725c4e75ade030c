/**
 * Which releases happened, read from the git tags `changeset publish` creates
 * (`@scope/pkg@MAJOR.MINOR.PATCH`, one per package and release), and what a checkout held at a
 * release.
 *
 * @packageDocumentation
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { compareVersions } from '@mcp-envelope/contract';

import type { ReleaseMigrationEntry } from './workspace.js';

const run = promisify(execFile);

/** One release that happened: its version and a tag that marks it. */
export interface Release {
  readonly version: string;
  /** A tag of this release, e.g. `@mcp-envelope/contract@0.2.0`. */
  readonly tag: string;
}

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout;
}

/**
 * The releases of the given packages, oldest first, from the tags `<name>@<version>`. A version
 * counts once however many of its packages were tagged; the first package's tag is preferred.
 *
 * @param root - a git checkout.
 * @param packageNames - the published packages, e.g. `['@mcp-envelope/contract', ...]`.
 * @returns the releases, sorted by version; `[]` outside a repository or with no such tag.
 */
export async function readReleases(root: string, packageNames: readonly string[]): Promise<Release[]> {
  let tags: string[];
  try {
    tags = (await git(root, 'tag', '--list')).split('\n').filter((line) => line !== '');
  } catch {
    return [];
  }
  const byVersion = new Map<string, { tag: string; rank: number }>();
  for (const tag of tags) {
    const at = tag.lastIndexOf('@');
    const rank = packageNames.indexOf(tag.slice(0, at));
    const version = tag.slice(at + 1);
    if (at <= 0 || rank < 0 || !/^\d+\.\d+\.\d+$/.test(version)) continue;
    const known = byVersion.get(version);
    if (known === undefined || rank < known.rank) byVersion.set(version, { tag, rank });
  }
  return [...byVersion.entries()]
    .map(([version, { tag }]) => ({ version, tag }))
    .sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * The migrations table as it was at a ref.
 *
 * @returns the entries; `[]` when the file did not exist there.
 */
export async function migrationsAt(
  root: string,
  ref: string,
  migrationsFile: string,
): Promise<ReleaseMigrationEntry[]> {
  try {
    return (JSON.parse(await git(root, 'show', `${ref}:${migrationsFile}`)) as { migrations: ReleaseMigrationEntry[] })
      .migrations;
  } catch {
    return [];
  }
}

/**
 * A file's text as it was at a ref.
 *
 * @returns the text, or `undefined` when the file did not exist there.
 */
export async function fileAt(root: string, ref: string, path: string): Promise<string | undefined> {
  try {
    return await git(root, 'show', `${ref}:${path}`);
  } catch {
    return undefined;
  }
}

/**
 * The version a package had at a ref (its `package.json`).
 *
 * @returns the version, or `undefined` when the file or field did not exist there.
 */
export async function versionAt(root: string, ref: string, packageFolder: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await git(root, 'show', `${ref}:${packageFolder}/package.json`)) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The repository's first commit (the base of the changeset rule before any release).
 *
 * @returns the commit id, or `undefined` outside a repository or before the first commit.
 */
export async function firstCommit(root: string): Promise<string | undefined> {
  try {
    return (await git(root, 'rev-list', '--max-parents=0', 'HEAD')).split('\n').find((line) => line !== '');
  } catch {
    return undefined;
  }
}

/** A migration entry as a release shipped it. */
export interface ShippedMigration {
  readonly entry: ReleaseMigrationEntry;
  readonly release: Release;
}

/**
 * Every migration entry some release shipped, with the first release whose table held it.
 *
 * @returns one item per id, oldest release first.
 */
export async function shippedMigrationEntries(
  root: string,
  releases: readonly Release[],
  migrationsFile: string,
): Promise<ShippedMigration[]> {
  const shipped = new Map<string, ShippedMigration>();
  for (const release of releases) {
    for (const entry of await migrationsAt(root, release.tag, migrationsFile)) {
      if (!shipped.has(entry.id)) shipped.set(entry.id, { entry, release });
    }
  }
  return [...shipped.values()];
}

/**
 * For each migration id, the first release whose table held it.
 *
 * @returns id -> release, for the ids that some release shipped.
 */
export async function shippedMigrations(
  root: string,
  releases: readonly Release[],
  migrationsFile: string,
): Promise<Map<string, Release>> {
  const entries = await shippedMigrationEntries(root, releases, migrationsFile);
  return new Map(entries.map(({ entry, release }) => [entry.id, release]));
}
