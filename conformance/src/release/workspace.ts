/**
 * Reading the facts the release check needs from a checkout: published packages, the migrations
 * table, release snapshots, fixtures, changed files.
 *
 * @packageDocumentation
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { promisify } from 'node:util';

import { compareVersions } from '@mcp-envelope/contract';

const run = promisify(execFile);

/** Paths of a checkout, relative to its root; overridable for tests. */
export interface WorkspaceLayout {
  /** Folders that hold one published package each (their package.json is read). */
  readonly packageFolders: readonly string[];
  readonly migrationsFile: string;
  readonly releasesFolder: string;
  /** `<fixturesFolder>/<server>/*.json` (v2) and `<fixturesFolder>/v1/<server>/*.json` (v1). */
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
    'packages/testing',
    'packages/amazon',
    'packages/sp-adapter',
    'packages/ads-adapter',
    'packages/github-adapter',
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

/** An envelope contract version a fixture or a migration entry belongs to. */
export type FixtureVersion = 1 | 2;

/**
 * One entry of the migrations table as the release check reads it from the JSON file: kinds are
 * strings because a checkout's table may name kinds of either contract version, and `servers` is
 * optional here only so that an entry lacking it can be reported.
 */
export interface ReleaseMigrationEntry {
  readonly id: string;
  /** The codes it covers; absent: every code of `to_kind` on its servers. */
  readonly error_codes?: readonly string[];
  /** The servers it applies to (required by the contract: an entry without it is a finding). */
  readonly servers?: readonly string[];
  readonly conditions?: readonly string[];
  /** The envelope version it applies to; absent: 1. */
  readonly contract_version?: number;
  readonly from_kind: string;
  readonly to_kind: string;
  readonly introduced_in: string;
  readonly cutover_date?: string;
  readonly removed_in?: string;
}

/** The envelope version an entry applies to (`contract_version`, 1 when absent). */
export function entryVersion(entry: ReleaseMigrationEntry): number {
  return entry.contract_version ?? 1;
}

/** The checkout's migrations table (`[]` when the file does not exist). */
export function readMigrations(root: string, layout: WorkspaceLayout): ReleaseMigrationEntry[] {
  const file = join(root, layout.migrationsFile);
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, 'utf8')) as { migrations: ReleaseMigrationEntry[] }).migrations;
}

/** code -> kind, per server. */
export type KindMap = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The snapshot format that records v2 kinds under `kinds` and v1 kinds under `kinds_v1`. */
export const SNAPSHOT_FORMAT = 2;

/**
 * A released snapshot: `contract/releases/<version>.json`. A snapshot without `format` predates
 * contract v2: its `kinds` are v1 kinds, and no v2 kind had shipped.
 */
export interface ReleaseSnapshot {
  readonly version: string;
  /** {@link SNAPSHOT_FORMAT} from contract v2 on; absent in older snapshots. */
  readonly format?: number;
  /** server -> error_code -> error_kind, as the fixtures of that release showed (v2 from format 2 on, v1 before). */
  readonly kinds: KindMap;
  /** The same for the v1 fixtures (format 2 only). */
  readonly kinds_v1?: KindMap;
  /** Ids of the migration entries in the table at that release. */
  readonly migrations: readonly string[];
}

/**
 * The kinds a snapshot records for fixtures of one envelope version: a snapshot of the old format
 * holds v1 kinds only.
 *
 * @returns server -> code -> kind; `{}` when the snapshot recorded none of that version.
 */
export function snapshotKinds(snapshot: ReleaseSnapshot, version: FixtureVersion): KindMap {
  if (snapshot.format === SNAPSHOT_FORMAT) return (version === 2 ? snapshot.kinds : snapshot.kinds_v1) ?? {};
  return version === 1 ? snapshot.kinds : {};
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
  /** Path relative to its server's folder: the case, which a v2 fixture and its v1 twin share. */
  readonly name: string;
  /** The version its folder holds: `<fixtures>/<server>/` is v2, `<fixtures>/v1/<server>/` is v1. */
  readonly version: FixtureVersion;
  /** The `_envelope_version` the file states (checked against `version` by the release check). */
  readonly envelope_version: unknown;
  readonly error_code: string;
  readonly error_kind: string;
  readonly legacy_error_kind?: string;
}

/** The folder of the v1 fixtures under the fixtures folder; never a server name. */
export const V1_FIXTURES_FOLDER = 'v1';

function readFixtureFile(root: string, serverFolder: string, path: string, version: FixtureVersion): FixtureEnvelope[] {
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
      server: basename(serverFolder),
      file: relative(root, path),
      name: relative(serverFolder, path),
      version,
      envelope_version: envelope['_envelope_version'],
      error_code: envelope['error_code'],
      error_kind: envelope['error_kind'],
      ...(typeof legacy === 'string' ? { legacy_error_kind: legacy } : {}),
    },
  ];
}

function readServerFolders(root: string, base: string, version: FixtureVersion): FixtureEnvelope[] {
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .sort()
    .filter((server) => !(version === 2 && server === V1_FIXTURES_FOLDER))
    .filter((server) => statSync(join(base, server)).isDirectory())
    .flatMap((server) =>
      listJson(join(base, server)).flatMap((path) => readFixtureFile(root, join(base, server), path, version)),
    );
}

/**
 * Every envelope fixture: v2 under `<fixturesFolder>/<server>/`, v1 under
 * `<fixturesFolder>/v1/<server>/` (v2 first). Response fixtures and files that are not JSON
 * objects with an `envelope` are skipped (the conformance suite validates them).
 */
export function readFixtureEnvelopes(root: string, layout: WorkspaceLayout): FixtureEnvelope[] {
  const base = join(root, layout.fixturesFolder);
  return [...readServerFolders(root, base, 2), ...readServerFolders(root, join(base, V1_FIXTURES_FOLDER), 1)];
}

/**
 * The v1 fixture of the same case as a v2 fixture: same server, same path under the server's folder.
 *
 * @returns the twin, or `undefined` when the server has no v1 fixture of that name (a server new to the family).
 */
export function v1TwinOf(fixture: FixtureEnvelope, fixtures: readonly FixtureEnvelope[]): FixtureEnvelope | undefined {
  return fixtures.find(
    (candidate) => candidate.version === 1 && candidate.server === fixture.server && candidate.name === fixture.name,
  );
}

/**
 * code -> kind per server from fixtures of one envelope version.
 *
 * @returns the map; a code seen with two kinds on one server keeps the first (in file order).
 */
export function kindMapOf(fixtures: readonly FixtureEnvelope[], version: FixtureVersion): KindMap {
  const map: Record<string, Record<string, string>> = {};
  for (const fixture of fixtures) {
    if (fixture.version !== version) continue;
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
