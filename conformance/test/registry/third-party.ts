/**
 * The third-party packages our published packages need, taken from this checkout's installed
 * node_modules (the pnpm store's copies) and published to the loopback registry, so that a
 * consumer's `npm install` is served entirely from 127.0.0.1 and the registry needs no uplink.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional === true).map(([name]) => name);
  const optional = new Set([...Object.keys(manifest.optionalDependencies ?? {}), ...optionalPeers]);
  const names = [...new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])];
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
export function collectInstalled(roots: readonly string[], exclude: ReadonlySet<string>, extra: readonly string[], extraFrom: string): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const queue: string[] = [...roots.map((root) => realpathSync(root))];
  for (const name of extra) {
    const folder = resolveFrom(extraFrom, name);
    if (folder === undefined) throw new Error(`${name} is not installed under ${extraFrom}`);
    const own = readManifest(folder);
    found.set(`${name}@${own.version ?? ''}`, { name, version: own.version ?? '0.0.0', folder, manifest: own as Record<string, unknown> });
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
      found.set(key, { name: own.name ?? name, version: own.version ?? '0.0.0', folder: dependency, manifest: own as Record<string, unknown> });
      queue.push(dependency);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version, undefined, { numeric: true }));
}

/**
 * A package folder packed the way npm packs it: a gzipped tar with everything under `package/`.
 * Files are stored whole even when they are hard links (pnpm links identical files to one store
 * entry), because npm drops hard-link entries when it unpacks.
 */
async function packFolder(folder: string, file: string): Promise<Buffer> {
  await run('tar', ['--create', '--gzip', '--file', file, '--directory', folder, '--exclude=./node_modules', '--hard-dereference', '--transform', 's,^\\.,package,', '.']);
  return readFileSync(file);
}

/**
 * Publishes each package to the registry with the registry's own publish endpoint (what
 * `npm publish` sends), one request per version, a few at a time; versions of one name go in
 * ascending order so that `latest` ends on the highest.
 *
 * @throws Error when the registry refuses one.
 */
export async function publishInstalled(registry: string, token: string, packages: readonly InstalledPackage[]): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-envelope-pack-'));
  const byName = new Map<string, InstalledPackage[]>();
  for (const entry of packages) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  const lanes = [...byName.values()];
  const worker = async (): Promise<void> => {
    for (let versions = lanes.shift(); versions !== undefined; versions = lanes.shift()) {
      for (const entry of versions) await publishOne(registry, token, entry, join(scratch, `${entry.name.replace('/', '+')}-${entry.version}.tgz`));
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

async function publishOne(registry: string, token: string, entry: InstalledPackage, scratchFile: string): Promise<void> {
  const tarball = await packFolder(entry.folder, scratchFile);
  const file = `${entry.name.split('/').at(-1) ?? entry.name}-${entry.version}.tgz`;
  const dist = {
    tarball: `${registry}/${entry.name}/-/${file}`,
    shasum: createHash('sha1').update(tarball).digest('hex'),
    integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
  };
  const body = {
    _id: entry.name,
    name: entry.name,
    'dist-tags': { latest: entry.version },
    versions: { [entry.version]: { ...entry.manifest, _id: `${entry.name}@${entry.version}`, dist } },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
  };
  const response = await fetch(`${registry}/${entry.name.replace('/', '%2f')}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`publishing ${entry.name}@${entry.version} answered ${response.status}: ${await response.text()}`);
}
