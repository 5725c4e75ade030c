/**
 * How the gate starts the servers it runs (see servers.ts and descriptor.ts): over stdio, against
 * the upstream replay server, in the configurations ("variants") each takes part in.
 *
 * @packageDocumentation
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { quote } from 'shell-quote';

import { isRecord } from '@mcp-envelope/contract';

import { descriptorPath } from './descriptor.js';
import type { GateServer } from './descriptor.js';

/** One gated server's id (also its fixture folder and case-file prefix), from its descriptor. */
export type ServerId = string;

/**
 * How a server is configured for a batch of calls. Every server runs the first four:
 * - `main`: the descriptor's credentials and arguments, normalization events on, strict unknown fields;
 * - `no-credentials`: as main with the descriptor's `credentials` variables emptied;
 * - `lenient`: as main with `MCP_STRICT_UNKNOWN_FIELDS=false`;
 * - `probe`: the contract's defaults (normalization events off).
 *
 * A server joins the others by naming them in its descriptor's `variants`:
 * - `identities`: as main plus what the descriptor adds (the SP server reads its identities from
 *   the replay server's identity service route);
 * - `code-mode`: as main with `CODE_MODE=true` and a wall-time limit of {@link GATE_CODE_MODE_WALL_TIME_MS};
 * - `limiter`: as main with the pre-flight limiter on and no waiting.
 */
export const VARIANT_NAMES = [
  'main',
  'no-credentials',
  'lenient',
  'probe',
  'identities',
  'code-mode',
  'limiter',
] as const;

/** One of {@link VARIANT_NAMES}. */
export type VariantName = (typeof VARIANT_NAMES)[number];

/** The variants every server runs, whatever its descriptor says. */
export const ALWAYS_RUN_VARIANTS: readonly VariantName[] = Object.freeze([
  'main',
  'no-credentials',
  'lenient',
  'probe',
]);

/** The `CODE_MODE_WALL_TIME_MS` of the `code-mode` variant: short, so an endless script ends fast. */
export const GATE_CODE_MODE_WALL_TIME_MS = 1_000;

/** The conformance package's root folder (holds `cases/`, `fixtures/`, `models/`). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Whether a server takes part in a variant.
 *
 * @param server - the server.
 * @param variant - the configuration.
 * @returns true for the always-run variants and those the descriptor names.
 */
export function takesPart(server: GateServer, variant: VariantName): boolean {
  return ALWAYS_RUN_VARIANTS.includes(variant) || variant in server.variants;
}

/**
 * The absolute path of a server's bin, read from its package.json.
 *
 * @param server - the gated server.
 * @returns the file the bin points at (e.g. `.../sp-adapter/dist/cli.js`).
 * @throws Error when the package declares no such bin.
 */
export function serverBinPath(server: GateServer): string {
  const manifest: unknown = JSON.parse(readFileSync(join(server.packageRoot, 'package.json'), 'utf8'));
  const bins = isRecord(manifest) ? manifest['bin'] : undefined;
  const bin = isRecord(bins) ? bins[server.bin] : typeof bins === 'string' ? bins : undefined;
  if (typeof bin !== 'string') throw new Error(`${server.packageName} declares no bin ${server.bin}`);
  return join(server.packageRoot, bin);
}

/**
 * The core settings of a variant, the same for every server (`MCP_*`, `CODE_MODE*`).
 *
 * @param variant - the configuration.
 * @returns the variables.
 */
export function variantEnv(variant: VariantName): Record<string, string> {
  const switches = {
    MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'true',
    MCP_SCHEMA_KEY_NORMALIZATION_META: 'true',
    MCP_STRICT_UNKNOWN_FIELDS: 'true',
    // the recorded cases call the same tools again and again, 429s included: a limiter learning
    // from them would refuse later cases, so only the limiter variant runs it
    MCP_RATE_LIMIT: 'off',
  };
  switch (variant) {
    case 'lenient':
      return { ...switches, MCP_STRICT_UNKNOWN_FIELDS: 'false' };
    case 'probe':
      return { ...switches, MCP_SCHEMA_KEY_NORMALIZATION_META: 'false' };
    case 'code-mode':
      return { ...switches, CODE_MODE: 'true', CODE_MODE_WALL_TIME_MS: String(GATE_CODE_MODE_WALL_TIME_MS) };
    case 'limiter':
      // no waiting: a call over budget is refused at once, which the limiter battery checks
      return { ...switches, MCP_RATE_LIMIT: 'on', MCP_RATE_LIMIT_MAX_WAIT_MS: '0' };
    default:
      return switches;
  }
}

/** Where the gate runs: the replay server's URLs, the servers, their model folders and commands. */
export interface ServerSetup {
  readonly upstreamUrl: string;
  readonly tokenUrl: string;
  /** The gated servers, in report order. */
  readonly servers: readonly GateServer[];
  /** Per server id, the folder given for `{models}`. */
  readonly modelFolders: Readonly<Record<ServerId, string>>;
  /** Per server id, the command that starts it (without its arguments), e.g. `node .../cli.js`. */
  readonly commands: Readonly<Record<ServerId, string>>;
}

/**
 * Fills a descriptor value's placeholders `{upstream}`, `{token_url}` and `{models}`.
 *
 * @param text - an argument or environment value of a descriptor.
 * @param values - the placeholder values by name; a placeholder without a value stays as written.
 * @returns the text filled in.
 */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{(upstream|token_url|models)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * A gated server by id.
 *
 * @param setup - the setup holding the servers.
 * @param id - the server id.
 * @returns the server.
 * @throws Error when no gated server has that id.
 */
export function serverOf(setup: Pick<ServerSetup, 'servers'>, id: ServerId): GateServer {
  const server = setup.servers.find((entry) => entry.id === id);
  if (server === undefined) throw new Error(`no gated server has the id "${id}"`);
  return server;
}

/**
 * The environment and arguments of a server in a variant, placeholders filled in: the descriptor's
 * env, the variant's core settings, the descriptor's additions for the variant, and in
 * `no-credentials` every `credentials` variable emptied.
 *
 * @param setup - see {@link ServerSetup}.
 * @param id - which server.
 * @param variant - which configuration.
 * @returns the variables and the arguments.
 */
export function serverLaunch(
  setup: ServerSetup,
  id: ServerId,
  variant: VariantName,
): { env: Record<string, string>; args: string[] } {
  const server = serverOf(setup, id);
  const values = { upstream: setup.upstreamUrl, token_url: setup.tokenUrl, models: setup.modelFolders[id] ?? '' };
  const added = server.variants[variant] ?? { args: [], env: {} };
  const emptied = variant === 'no-credentials' ? Object.fromEntries(server.credentials.map((name) => [name, ''])) : {};
  const env = Object.fromEntries(
    Object.entries({ ...server.env, ...variantEnv(variant), ...added.env, ...emptied }).map(([name, value]) => [
      name,
      fillPlaceholders(value, values),
    ]),
  );
  return { env, args: [...server.args, ...added.args].map((arg) => fillPlaceholders(arg, values)) };
}

/**
 * Quotes a word for a `--stdio` command line with `shell-quote`, the library that splits it again;
 * a word of plain path and URL characters stays bare so the line reads as typed.
 *
 * @param word - any text.
 * @returns the word, quoted when it needs to be.
 */
export function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : quote([word]);
}

/**
 * The `--stdio` command line of a server in a variant: environment assignments, the server
 * command and its arguments (see {@link serverLaunch}).
 *
 * @param setup - see {@link ServerSetup}.
 * @param id - which server.
 * @param variant - which configuration.
 * @returns the command line (secrets are dummy values; reports show names only).
 */
export function serverCommandLine(setup: ServerSetup, id: ServerId, variant: VariantName): string {
  const { env, args } = serverLaunch(setup, id, variant);
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${quoteWord(value)}`);
  return [...assignments, setup.commands[id] ?? '', ...args.map(quoteWord)].join(' ');
}

/**
 * The default command of a server: this Node binary running the package's bin.
 *
 * @param server - the gated server.
 * @returns e.g. `/usr/bin/node /repo/packages/sp-adapter/dist/cli.js`.
 */
export function defaultServerCommand(server: GateServer): string {
  return `${quoteWord(process.execPath)} ${quoteWord(serverBinPath(server))}`;
}

/**
 * Copies each server's model folders (descriptor `models`) into a fresh temporary folder per server.
 *
 * @param servers - the gated servers.
 * @returns the folders by server id and a function that removes them.
 */
export function prepareModelFolders(servers: readonly GateServer[]): {
  folders: Record<ServerId, string>;
  remove: () => void;
} {
  const base = mkdtempSync(join(tmpdir(), 'mcp-envelope-gate-models-'));
  const folders: Record<ServerId, string> = {};
  for (const server of servers) {
    const folder = join(base, server.id);
    mkdirSync(folder, { recursive: true });
    for (const source of server.models.map((path) => descriptorPath(server, path, PACKAGE_ROOT))) {
      for (const name of readdirSync(source)
        .filter((entry) => entry.endsWith('.json'))
        .sort())
        copyFileSync(join(source, name), join(folder, name));
    }
    folders[server.id] = folder;
  }
  return {
    folders,
    remove: () => {
      rmSync(base, { recursive: true, force: true });
    },
  };
}
