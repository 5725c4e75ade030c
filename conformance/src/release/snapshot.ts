/**
 * Writing the release snapshot `contract/releases/<version>.json`: what each error code's kind
 * is, per server and envelope version (`kinds` v2, `kinds_v1` v1, `format: 2`), and which
 * migration entries exist, at a release. The release check compares
 * the next release against it.
 *
 * @packageDocumentation
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  DEFAULT_LAYOUT,
  SNAPSHOT_FORMAT,
  kindMapOf,
  readFixtureEnvelopes,
  readMigrations,
  readPublishedPackages,
} from './workspace.js';
import type { KindMap, ReleaseSnapshot, WorkspaceLayout } from './workspace.js';

/** A kind map with servers and codes in sorted order, so a snapshot's diff shows only real changes. */
function sortedKinds(kinds: KindMap): KindMap {
  return Object.fromEntries(
    Object.keys(kinds)
      .sort()
      .map((server) => [
        server,
        Object.fromEntries(Object.entries(kinds[server] ?? {}).sort(([a], [b]) => a.localeCompare(b))),
      ]),
  );
}

/**
 * Builds and writes the snapshot for the packages' current version.
 *
 * @param root - the checkout.
 * @param layout - defaults to this repository's layout.
 * @returns the snapshot and the path written.
 * @throws Error when there is no published package.
 */
export function writeReleaseSnapshot(
  root: string,
  layout: WorkspaceLayout = DEFAULT_LAYOUT,
): { snapshot: ReleaseSnapshot; path: string } {
  const version = readPublishedPackages(root, layout)[0]?.version;
  if (version === undefined) throw new Error(`no published package found under ${root}`);
  const fixtures = readFixtureEnvelopes(root, layout);
  const snapshot: ReleaseSnapshot = {
    version,
    format: SNAPSHOT_FORMAT,
    kinds: sortedKinds(kindMapOf(fixtures, 2)),
    kinds_v1: sortedKinds(kindMapOf(fixtures, 1)),
    migrations: readMigrations(root, layout).map((entry) => entry.id),
  };
  const folder = join(root, layout.releasesFolder);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${version}.json`);
  writeFileSync(path, `${JSON.stringify(snapshot, null, 2)}\n`);
  return { snapshot, path };
}
