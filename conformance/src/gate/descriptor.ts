/**
 * How a server package describes itself to the gate: `conformance/server.json` in the package,
 * exported as `"./conformance/server.json"`. The descriptor says how to start the server against
 * the loopback upstream replay server, with which dummy credentials, where its recorded cases are,
 * which contract versions it speaks and which optional batteries it takes part in. The format is
 * described in conformance/README.md ("How a server describes itself").
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';

import { isRecord } from '@mcp-envelope/contract';
import type { ReplayRoute } from '@mcp-envelope/testing';

/** The path of a descriptor inside its package. */
export const DESCRIPTOR_PATH = 'conformance/server.json';

/** A variant's additions to the server's own arguments and environment. */
export interface VariantAdditions {
  /** Arguments appended to the descriptor's `args` (same placeholders). */
  readonly args: readonly string[];
  /** Variables set over the descriptor's `env` and the variant's core settings (same placeholders). */
  readonly env: Readonly<Record<string, string>>;
}

/** A fixture call a descriptor gives for a scenario of the gate's plan: a recorded case, or a call with upstream answers. */
export interface DescribedFixtureCall {
  /** The id of a recorded case whose call and upstream answers are replayed. */
  readonly case?: string;
  /** The tool to call, when no case is named. */
  readonly tool?: string;
  /** Its arguments (default none). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The answers the replay server gives for the call (default none: nothing is expected upstream). */
  readonly upstream?: readonly ReplayRoute[];
}

/** How the limiter battery teaches a server a limit: by a rate-limit header on a success, or by a 429. */
export type LimiterLesson =
  | {
      readonly learns_from: 'header';
      readonly headers: Readonly<Record<string, string>>;
      /** The `limit_per_second` the refusal must report. */
      readonly limit_per_second: number;
    }
  | { readonly learns_from: '429' };

/** One server's descriptor, as read (defaults filled in). */
export interface ServerDescriptor {
  /** Report name, fixture folder `fixtures/<id>/`, case-file prefix `<id>-`. */
  readonly id: string;
  /** The package's bin that starts the server. */
  readonly bin: string;
  /** Arguments; `{upstream}`, `{token_url}` and `{models}` are replaced. */
  readonly args: readonly string[];
  /** Dummy credentials and settings for the replay; values take the same placeholders. */
  readonly env: Readonly<Record<string, string>>;
  /** Variables emptied in the `no-credentials` variant. */
  readonly credentials: readonly string[];
  /** Folder of the recorded cases (package-relative; `{gate}/...` is the conformance package). */
  readonly cases: string;
  /** Folders whose `*.json` are copied into the `{models}` folder (same path rules as `cases`). */
  readonly models: readonly string[];
  /** The contract versions the server speaks (default `[2]`). */
  readonly contract_versions: readonly (1 | 2)[];
  /** The version a client that states none gets (default 1 when the server speaks it, else 2). */
  readonly default_version: 1 | 2;
  /** Per variant, what it adds; a variant outside the gate's always-run ones is joined by naming it. */
  readonly variants: Readonly<Record<string, VariantAdditions>>;
  /** Fixture scenarios: the shared groups it joins, and its own call for server-specific scenarios. */
  readonly fixtures: {
    readonly common: readonly string[];
    readonly calls: Readonly<Record<string, DescribedFixtureCall>>;
  };
  /** Code Mode battery: a query and the tool `search_tools` must find. Absent: the server has no Code Mode. */
  readonly code_mode?: { readonly search: { readonly query: string; readonly tool: string } };
  /** Limiter battery: the tool (no arguments), its upstream path and how the limit is taught. */
  readonly limiter?: { readonly tool: string; readonly path: string } & LimiterLesson;
  /**
   * The official MCP suite: the arguments that serve Streamable HTTP on 127.0.0.1 with the suite's
   * fixture tools (same placeholders; the server prints its URL on stderr). Absent: the suite is not run on it.
   */
  readonly mcp_suite?: { readonly args: readonly string[] };
}

/** A descriptor with where it came from. */
export interface GateServer extends ServerDescriptor {
  /** The package name (from its package.json). */
  readonly packageName: string;
  /** The package's root folder. */
  readonly packageRoot: string;
}

function fail(file: string, message: string): never {
  throw new Error(`${file}: ${message}`);
}

function strings(file: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
    fail(file, `${key} must be a list of strings`);
  return value;
}

function stringMap(file: string, key: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || !Object.values(value).every((entry) => typeof entry === 'string'))
    fail(file, `${key} must be an object of strings`);
  return value as Record<string, string>;
}

function variantsOf(file: string, value: unknown): Record<string, VariantAdditions> {
  if (value === undefined) return {};
  if (!isRecord(value)) fail(file, 'variants must be an object');
  return Object.fromEntries(
    Object.entries(value).map(([name, entry]) => {
      if (!isRecord(entry)) fail(file, `variants.${name} must be an object`);
      return [
        name,
        {
          args: strings(file, `variants.${name}.args`, entry['args']),
          env: stringMap(file, `variants.${name}.env`, entry['env']),
        },
      ];
    }),
  );
}

function fixturesOf(file: string, value: unknown): ServerDescriptor['fixtures'] {
  if (value === undefined) return { common: [], calls: {} };
  if (!isRecord(value)) fail(file, 'fixtures must be an object');
  const calls = value['calls'] ?? {};
  if (!isRecord(calls) || !Object.values(calls).every((call) => isRecord(call)))
    fail(file, 'fixtures.calls must map scenario ids to calls');
  for (const [id, call] of Object.entries(calls))
    if (!isRecord(call) || (typeof call['case'] !== 'string' && typeof call['tool'] !== 'string'))
      fail(file, `fixtures.calls.${id} needs a case id or a tool`);
  return {
    common: strings(file, 'fixtures.common', value['common']),
    calls: calls as Record<string, DescribedFixtureCall>,
  };
}

function versionsOf(
  file: string,
  value: Record<string, unknown>,
): Pick<ServerDescriptor, 'contract_versions' | 'default_version'> {
  const versions = value['contract_versions'] ?? [2];
  if (!Array.isArray(versions) || versions.length === 0 || !versions.every((entry) => entry === 1 || entry === 2))
    fail(file, 'contract_versions must list 1 and/or 2');
  const fallback = versions.includes(1) ? 1 : 2;
  const chosen = value['default_version'] ?? fallback;
  if (!versions.includes(chosen)) fail(file, 'default_version must be one of contract_versions');
  return { contract_versions: versions as (1 | 2)[], default_version: chosen as 1 | 2 };
}

/**
 * Checks a descriptor's JSON value and fills in the defaults (no models, no variants, no
 * fixtures, contract version 2 only).
 *
 * @param value - the parsed `server.json`.
 * @param file - its path, named in every error.
 * @returns the descriptor.
 * @throws Error naming the file and the field when the value is not a descriptor.
 */
export function parseDescriptor(value: unknown, file: string): ServerDescriptor {
  if (!isRecord(value)) fail(file, 'not an object');
  const id = value['id'];
  if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]{0,31}$/.test(id) || id === 'v1')
    fail(file, 'id must be a short lower-case name (letters, digits, "-"), not "v1"');
  if (typeof value['bin'] !== 'string') fail(file, 'bin must name the package bin');
  if (typeof value['cases'] !== 'string') fail(file, 'cases must name the folder of the recorded cases');
  const codeMode = value['code_mode'];
  if (codeMode !== undefined && !(isRecord(codeMode) && isRecord(codeMode['search'])))
    fail(file, 'code_mode needs search: { query, tool }');
  const suite = value['mcp_suite'];
  if (suite !== undefined && !isRecord(suite)) fail(file, 'mcp_suite must be an object with args');
  const limiter = value['limiter'];
  if (
    limiter !== undefined &&
    !(isRecord(limiter) && typeof limiter['tool'] === 'string' && typeof limiter['path'] === 'string')
  )
    fail(file, 'limiter needs tool and path');
  return {
    id,
    bin: value['bin'],
    args: strings(file, 'args', value['args']),
    env: stringMap(file, 'env', value['env']),
    credentials: strings(file, 'credentials', value['credentials']),
    cases: value['cases'],
    models: strings(file, 'models', value['models']),
    ...versionsOf(file, value),
    variants: variantsOf(file, value['variants']),
    fixtures: fixturesOf(file, value['fixtures']),
    ...(codeMode === undefined ? {} : { code_mode: codeMode as unknown as NonNullable<ServerDescriptor['code_mode']> }),
    ...(limiter === undefined ? {} : { limiter: limiter as unknown as NonNullable<ServerDescriptor['limiter']> }),
    ...(suite === undefined ? {} : { mcp_suite: { args: strings(file, 'mcp_suite.args', suite['args']) } }),
  };
}

/** The root folder of a package found from this module, or `undefined` when it is not installed. */
function installedPackageRoot(packageName: string): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    return dirname(require.resolve(`${packageName}/package.json`));
  } catch {
    return undefined;
  }
}

/**
 * Reads the descriptor of one entry of the server list.
 *
 * @param entry - a package name, or a package folder's path (absolute or starting with `.`).
 * @returns the server, or `undefined` when the package is not installed.
 * @throws Error when the package is there but its descriptor is missing or invalid.
 */
export function readGateServer(entry: string): GateServer | undefined {
  const byPath = isAbsolute(entry) || entry.startsWith('.');
  const packageRoot = byPath ? resolve(entry) : installedPackageRoot(entry);
  if (packageRoot === undefined || !existsSync(join(packageRoot, 'package.json'))) return undefined;
  const file = join(packageRoot, DESCRIPTOR_PATH);
  if (!existsSync(file)) throw new Error(`${entry} has no ${DESCRIPTOR_PATH}: it does not describe itself to the gate`);
  const manifest: unknown = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
  const packageName = isRecord(manifest) && typeof manifest['name'] === 'string' ? manifest['name'] : entry;
  return { ...parseDescriptor(JSON.parse(readFileSync(file, 'utf8')), file), packageName, packageRoot };
}

/**
 * Reads the descriptors of a server list; every package must be installed.
 *
 * @param entries - package names or folders (see `GATE_SERVER_PACKAGES`).
 * @returns the servers, in list order.
 * @throws Error naming every server package that is not installed, or a duplicate id.
 */
export function loadGateServers(entries: readonly string[]): GateServer[] {
  const found = entries.map((entry) => ({ entry, server: readGateServer(entry) }));
  const missing = found.filter(({ server }) => server === undefined).map(({ entry }) => entry);
  if (missing.length > 0)
    throw new Error(
      `the gate runs servers from packages that are not installed: ${missing.join(', ')} (install them beside @mcp-envelope/conformance, e.g. npm install ${missing.join(' ')})`,
    );
  const servers = found.map(({ server }) => server as GateServer);
  const ids = servers.map((server) => server.id);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) throw new Error(`two gated servers share the id "${twice}"`);
  return servers;
}

/**
 * A descriptor path: package-relative, or `{gate}/...` for the conformance package's own folders.
 *
 * @param server - the server.
 * @param path - e.g. `catalog` or `{gate}/cases`.
 * @param gateRoot - the conformance package's root folder.
 * @returns the absolute path.
 */
export function descriptorPath(server: GateServer, path: string, gateRoot: string): string {
  return path.startsWith('{gate}/') ? join(gateRoot, path.slice('{gate}/'.length)) : join(server.packageRoot, path);
}
