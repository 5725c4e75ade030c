/**
 * The third-party packages our published packages need, taken from this checkout's installed
 * node_modules (the pnpm store's copies) and published to the loopback registry, so that a
 * consumer's `npm install` is served entirely from 127.0.0.1 and the registry needs no uplink.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One installed package: its manifest and the folder holding its published files. */
export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  readonly folder: string;
  readonly manifest: Record<string, unknown>;
}

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function readManifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
}

/** Node's lookup: `node_modules/<name>` in the folder and each parent, from a package's real path. */
function resolveFrom(folder: string, name: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(at) === at) return undefined;
  }
}

function wanted(manifest: Manifest): { names: string[]; optional: Set<string> } {
  const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional === true)
    .map(([name]) => name);
  const optional = new Set([...Object.keys(manifest.optionalDependencies ?? {}), ...optionalPeers]);
  const names = [
    ...new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]),
  ];
  return { names, optional };
}

/**
 * Every installed package that `roots` need at run time (dependencies, optional and peer
 * dependencies, transitively), skipping `exclude` (our own packages). Optional ones that are not
 * installed (other platforms' binaries) are left out, as npm leaves them out.
 *
 * @param roots - package folders to start from.
 * @param extra - further names to add, resolved from `extraFrom`.
 * @throws Error when a required dependency is not installed.
 */
export function collectInstalled(
  roots: readonly string[],
  exclude: ReadonlySet<string>,
  extra: readonly string[],
  extraFrom: string,
): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const queue: string[] = [...roots.map((root) => realpathSync(root))];
  for (const name of extra) {
    const folder = resolveFrom(extraFrom, name);
    if (folder === undefined) throw new Error(`${name} is not installed under ${extraFrom}`);
    const own = readManifest(folder);
    found.set(`${name}@${own.version ?? ''}`, {
      name,
      version: own.version ?? '0.0.0',
      folder,
      manifest: own as Record<string, unknown>,
    });
    queue.push(folder);
  }
  for (let folder = queue.shift(); folder !== undefined; folder = queue.shift()) {
    const manifest = readManifest(folder);
    const { names, optional } = wanted(manifest);
    for (const name of names) {
      if (exclude.has(name)) continue;
      const dependency = resolveFrom(folder, name);
      if (dependency === undefined) {
        if (optional.has(name)) continue;
        throw new Error(`${name}, needed by ${manifest.name ?? folder}, is not installed`);
      }
      const own = readManifest(dependency);
      const key = `${own.name ?? name}@${own.version ?? ''}`;
      if (found.has(key)) continue;
      found.set(key, {
        name: own.name ?? name,
        version: own.version ?? '0.0.0',
        folder: dependency,
        manifest: own as Record<string, unknown>,
      });
      queue.push(dependency);
    }
  }
  return [...found.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version, undefined, { numeric: true }),
  );
}

/**
 * A package folder packed the way npm packs it: a gzipped tar with everything under `package/`.
 * Files are stored whole even when they are hard links (pnpm links identical files to one store
 * entry), because npm drops hard-link entries when it unpacks.
 */
async function packFolder(folder: string, file: string): Promise<Buffer> {
  await run('tar', [
    '--create',
    '--gzip',
    '--file',
    file,
    '--directory',
    folder,
    '--exclude=./node_modules',
    '--hard-dereference',
    '--transform',
    's,^\\.,package,',
    '.',
  ]);
  return readFileSync(file);
}

async function mapLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const lane = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: limit }, lane));
}

/**
 * Writes the packages straight into a Verdaccio storage folder, in the layout its local storage
 * keeps (`<name>/package.json` with every version, beside `<name>/<file>.tgz`), before the
 * registry starts: publishing ~190 packages one request at a time takes most of a minute.
 *
 * @param registry - the URL the registry will listen on (the tarball addresses).
 * @param storage - the storage folder of its configuration.
 */
export async function seedStorage(
  registry: string,
  storage: string,
  packages: readonly InstalledPackage[],
): Promise<void> {
  const byName = new Map<string, InstalledPackage[]>();
  for (const entry of packages) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  const now = new Date().toISOString();
  await mapLimited([...byName.entries()], 4, async ([name, versions]) => {
    const folder = join(storage, name);
    mkdirSync(folder, { recursive: true });
    const packument = {
      name,
      _id: name,
      versions: {} as Record<string, unknown>,
      time: { created: now, modified: now } as Record<string, string>,
      'dist-tags': { latest: versions.at(-1)?.version ?? '' },
      users: {},
      _uplinks: {},
      _distfiles: {},
      _attachments: {} as Record<string, unknown>,
      _rev: '1-0000000000000000',
      readme: '',
    };
    for (const entry of versions) {
      const file = `${name.split('/').at(-1) ?? name}-${entry.version}.tgz`;
      const tarball = await packFolder(entry.folder, join(folder, file));
      const shasum = createHash('sha1').update(tarball).digest('hex');
      const dist = {
        tarball: `${registry}/${name}/-/${file}`,
        shasum,
        integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
      };
      packument.versions[entry.version] = { ...entry.manifest, _id: `${name}@${entry.version}`, dist };
      packument.time[entry.version] = now;
      packument._attachments[file] = { shasum, version: entry.version };
    }
    writeFileSync(join(folder, 'package.json'), JSON.stringify(packument, null, 2));
  });
}
