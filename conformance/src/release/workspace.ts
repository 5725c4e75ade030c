/**
 * Reading the facts the release check needs from a checkout: published packages, the migrations
 * table, release snapshots, fixtures, changed files.
 *
 * @packageDocumentation
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

import type { ErrorKind, MigrationEntry } from '@mcp-envelope/contract';
import { compareVersions } from '@mcp-envelope/contract';

const run = promisify(execFile);

/** Paths of a checkout, relative to its root; overridable for tests. */
export interface WorkspaceLayout {
  /** Folders that hold one published package each (their package.json is read). */
  readonly packageFolders: readonly string[];
  readonly migrationsFile: string;
  readonly releasesFolder: string;
  /** `<fixturesFolder>/<server>/*.json` */
  readonly fixturesFolder: string;
  /** Files whose change is a taxonomy change (needs a minor bump). */
  readonly taxonomyFiles: readonly string[];
  /** Files or folder prefixes whose change needs a changeset. */
  readonly contractFiles: readonly string[];
  /** Server id (as in the migrations table's `servers`) -> the folder of its package, whose CHANGELOG.md names each migration touching it. */
  readonly serverPackages: Readonly<Record<string, string>>;
}

/** This repository's layout. */
export const DEFAULT_LAYOUT: WorkspaceLayout = {
  packageFolders: [
    'contract',
    'packages/core',
    'packages/amazon',
    'packages/sp-adapter',
    'packages/ads-adapter',
    'conformance',
  ],
  migrationsFile: 'contract/migrations.json',
  releasesFolder: 'contract/releases',
  fixturesFolder: 'conformance/fixtures',
  taxonomyFiles: [
    'contract/src/taxonomy.ts',
    'contract/schemas/error-envelope.schema.json',
    'contract/schemas/jsonschema-error-codes.json',
  ],
  contractFiles: ['contract/src/taxonomy.ts', 'contract/schemas/', 'contract/migrations.json', 'conformance/fixtures/'],
  serverPackages: { sp: 'packages/sp-adapter', ads: 'packages/ads-adapter' },
};

/** A published package: name, version and folder. */
export interface PublishedPackage {
  readonly name: string;
  readonly version: string;
  readonly folder: string;
}

/**
 * The published (non-private) packages among the layout's folders that exist.
 *
 * @throws Error when a package.json cannot be read or has no name/version.
 */
export function readPublishedPackages(root: string, layout: WorkspaceLayout): PublishedPackage[] {
  return layout.packageFolders.flatMap((folder) => {
    const file = join(root, folder, 'package.json');
    if (!existsSync(file)) return [];
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; private?: boolean };
    if (manifest.private === true) return [];
    if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string')
      throw new Error(`${folder}/package.json has no name or version`);
    return [{ name: manifest.name, version: manifest.version, folder }];
  });
}

/** The checkout's migrations table (`[]` when the file does not exist). */
export function readMigrations(root: string, layout: WorkspaceLayout): MigrationEntry[] {
  const file = join(root, layout.migrationsFile);
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, 'utf8')) as { migrations: MigrationEntry[] }).migrations;
}

/** code -> kind, per server. */
export type KindMap = Readonly<Record<string, Readonly<Record<string, ErrorKind>>>>;

/** A released snapshot: `contract/releases/<version>.json`. */
export interface ReleaseSnapshot {
  readonly version: string;
  /** server -> error_code -> error_kind, as the fixtures of that release showed. */
  readonly kinds: KindMap;
  /** Ids of the migration entries in the table at that release. */
  readonly migrations: readonly string[];
}

/**
 * The newest snapshot whose version is below or equal to `atOrBelow` (all when omitted).
 *
 * @returns the snapshot, or `undefined` when there is none.
 */
export function readLatestSnapshot(
  root: string,
  layout: WorkspaceLayout,
  atOrBelow?: string,
): ReleaseSnapshot | undefined {
  const folder = join(root, layout.releasesFolder);
  if (!existsSync(folder)) return undefined;
  const versions = readdirSync(folder)
    .filter((name) => /^\d+\.\d+\.\d+\.json$/.test(name))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((version) => atOrBelow === undefined || compareVersions(version, atOrBelow) <= 0)
    .sort(compareVersions);
  const latest = versions.at(-1);
  if (latest === undefined) return undefined;
  return JSON.parse(readFileSync(join(folder, `${latest}.json`), 'utf8')) as ReleaseSnapshot;
}

function listJson(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) return listJson(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

/** One fixture envelope's classification facts. */
export interface FixtureEnvelope {
  readonly server: string;
  /** Path relative to the root. */
  readonly file: string;
  readonly error_code: string;
  readonly error_kind: ErrorKind;
  readonly legacy_error_kind?: ErrorKind;
}

/**
 * Every envelope fixture under `<fixturesFolder>/<server>/`. Response fixtures and files that
 * are not JSON objects with an `envelope` are skipped (the conformance suite validates them).
 */
export function readFixtureEnvelopes(root: string, layout: WorkspaceLayout): FixtureEnvelope[] {
  const base = join(root, layout.fixturesFolder);
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .sort()
    .filter((server) => statSync(join(base, server)).isDirectory())
    .flatMap((server) =>
      listJson(join(base, server)).flatMap((path) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(readFileSync(path, 'utf8'));
        } catch {
          return [];
        }
        const envelope = (parsed as { envelope?: Record<string, unknown> } | null)?.envelope;
        if (typeof envelope?.['error_code'] !== 'string' || typeof envelope['error_kind'] !== 'string') return [];
        const legacy = envelope['legacy_error_kind'];
        return [
          {
            server,
            file: relative(root, path),
            error_code: envelope['error_code'],
            error_kind: envelope['error_kind'] as ErrorKind,
            ...(typeof legacy === 'string' ? { legacy_error_kind: legacy as ErrorKind } : {}),
          },
        ];
      }),
    );
}

/**
 * code -> kind per server from fixtures.
 *
 * @returns the map; a code seen with two kinds on one server keeps the first (in file order).
 */
export function kindMapOf(fixtures: readonly FixtureEnvelope[]): KindMap {
  const map: Record<string, Record<string, ErrorKind>> = {};
  for (const fixture of fixtures) {
    const server = (map[fixture.server] ??= {});
    server[fixture.error_code] ??= fixture.error_kind;
  }
  return map;
}

/**
 * Files changed since `since` (committed on this branch, staged, unstaged and untracked), relative
 * to the root.
 *
 * @throws Error when git fails (not a repository, unknown ref).
 */
export async function changedFiles(root: string, since: string): Promise<string[]> {
  const git = async (...args: string[]): Promise<string[]> =>
    (await run('git', args, { cwd: root })).stdout.split('\n').filter((line) => line.trim() !== '');
  const [committed, worktree, untracked] = await Promise.all([
    git('diff', '--name-only', `${since}...HEAD`),
    git('diff', '--name-only', 'HEAD'),
    git('ls-files', '--others', '--exclude-standard'),
  ]);
  return [...new Set([...committed, ...worktree, ...untracked])].sort();
}

/** The CHANGELOG.md text of one folder of the checkout (`''` when it has none). */
export function readChangelog(root: string, folder: string): string {
  const file = join(root, folder, 'CHANGELOG.md');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
