/**
 * The two reference servers the gate runs (SP and Ads), how each is started over stdio against
 * the upstream replay server, and the configurations ("variants") it is started in.
 *
 * @packageDocumentation
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { quote } from 'shell-quote';

import { isRecord } from '@mcp-envelope/contract';

/** The reference servers, in report order. */
export const SERVER_IDS = Object.freeze(['sp', 'ads'] as const);

/** One reference server's id (also its fixture folder and case-file prefix). */
export type ServerId = (typeof SERVER_IDS)[number];

/**
 * How a server is configured for a batch of calls.
 * - `main`: credentials, normalization events on, strict unknown fields, the official suite's fixture tools;
 * - `no-credentials`: as main without any LWA variable;
 * - `lenient`: as main with `MCP_STRICT_UNKNOWN_FIELDS=false`;
 * - `probe`: the contract's defaults (normalization events off), no fixture tools;
 * - `identities`: as main, with the SP server's identities read from the replay server's identity
 *   service route ({@link GATE_IDENTITY_SERVICE_PATH}), no fixture tools;
 * - `code-mode`: as main with `CODE_MODE=true` and a wall-time limit of
 *   {@link GATE_CODE_MODE_WALL_TIME_MS}, no fixture tools.
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

/** The `CODE_MODE_WALL_TIME_MS` of the `code-mode` variant: short, so an endless script ends fast. */
export const GATE_CODE_MODE_WALL_TIME_MS = 1_000;

/** One of {@link VARIANT_NAMES}. */
export type VariantName = (typeof VARIANT_NAMES)[number];

/** The conformance package's root folder (holds `cases/`, `fixtures/`, `models/`). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Dummy LWA credentials: the replay server's token endpoint accepts anything. */
export const GATE_LWA_CLIENT_ID = 'amzn1.application-oa2-client.conformancegate0001';

/** Where the replay server plays the identity service (`SP_IDENTITY_SERVICE_URL` is the replay URL plus this). */
export const GATE_IDENTITY_SERVICE_PATH = '/openbridge';

/** The dummy bearer token the gate's SP server sends to the identity service. */
export const GATE_IDENTITY_SERVICE_TOKEN = 'conformance-gate-identity-service-0001';

/** The Ads profile the gate's Ads server starts with. */
export const GATE_ADS_PROFILE_ID = '3300440055006600';

/** A reference server: which package's bin, and which model files it is given. */
export interface ReferenceServer {
  readonly id: ServerId;
  /** Package that ships the bin. */
  readonly packageName: string;
  readonly binName: string;
  /** Extra environment every variant of this server gets. */
  readonly env: Readonly<Record<string, string>>;
  /** Folders whose `*.json` are copied into the server's `--models` folder. */
  readonly modelSources: () => readonly string[];
}

function packageFolder(packageName: string): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve(`${packageName}/package.json`));
}

/** The SP and Ads reference servers. */
export const REFERENCE_SERVERS: Readonly<Record<ServerId, ReferenceServer>> = {
  sp: {
    id: 'sp',
    packageName: '@mcp-envelope/sp-adapter',
    binName: 'mcp-envelope-sp',
    env: { SP_API_REGION: 'na', SP_API_SANDBOX: 'false' },
    // --models replaces the built-in catalog, so the catalog comes along with the keyword model.
    modelSources: () => [
      join(packageFolder('@mcp-envelope/sp-adapter'), 'catalog'),
      join(PACKAGE_ROOT, 'models', 'keywords'),
    ],
  },
  ads: {
    id: 'ads',
    packageName: '@mcp-envelope/ads-adapter',
    binName: 'mcp-envelope-ads',
    env: { ADS_API_REGION: 'na', ADS_API_PROFILE_ID: GATE_ADS_PROFILE_ID },
    modelSources: () => [join(PACKAGE_ROOT, 'models', 'ads'), join(PACKAGE_ROOT, 'models', 'keywords')],
  },
};

/**
 * The absolute path of a package's bin, read from its package.json.
 *
 * @param server - the reference server.
 * @returns the file the bin points at (e.g. `.../sp-adapter/dist/cli.js`).
 * @throws Error when the package declares no such bin.
 */
export function serverBinPath(server: ReferenceServer): string {
  const folder = packageFolder(server.packageName);
  const manifest: unknown = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const bin = isRecord(manifest) && isRecord(manifest['bin']) ? manifest['bin'][server.binName] : undefined;
  if (typeof bin !== 'string') throw new Error(`${server.packageName} declares no bin ${server.binName}`);
  return join(folder, bin);
}

/**
 * The environment of a variant (on top of the server's own `env`).
 *
 * @param variant - the configuration.
 * @param tokenUrl - the replay server's token endpoint.
 * @param upstreamUrl - the replay server's base URL (the `identities` variant's identity service lives under it).
 * @returns the variables.
 */
export function variantEnv(variant: VariantName, tokenUrl: string, upstreamUrl = ''): Record<string, string> {
  const credentials = {
    LWA_CLIENT_ID: GATE_LWA_CLIENT_ID,
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.conformancegatesecret0001',
    LWA_REFRESH_TOKEN: 'Atzr|conformance-gate-refresh-0001',
  };
  const switches = {
    MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'true',
    MCP_SCHEMA_KEY_NORMALIZATION_META: 'true',
    MCP_STRICT_UNKNOWN_FIELDS: 'true',
    // the recorded cases call the same tools again and again, 429s included: a limiter learning
    // from them would refuse later cases, so only the limiter variant runs it
    MCP_RATE_LIMIT: 'off',
  };
  switch (variant) {
    case 'main':
      return { ...credentials, LWA_TOKEN_URL: tokenUrl, ...switches };
    case 'no-credentials':
      return { LWA_CLIENT_ID: '', LWA_CLIENT_SECRET: '', LWA_REFRESH_TOKEN: '', LWA_TOKEN_URL: tokenUrl, ...switches };
    case 'lenient':
      return { ...credentials, LWA_TOKEN_URL: tokenUrl, ...switches, MCP_STRICT_UNKNOWN_FIELDS: 'false' };
    case 'probe':
      return { ...credentials, LWA_TOKEN_URL: tokenUrl, ...switches, MCP_SCHEMA_KEY_NORMALIZATION_META: 'false' };
    case 'identities':
      return {
        ...credentials,
        LWA_TOKEN_URL: tokenUrl,
        ...switches,
        SP_IDENTITY_SERVICE_URL: `${upstreamUrl}${GATE_IDENTITY_SERVICE_PATH}`,
        SP_IDENTITY_SERVICE_TOKEN: GATE_IDENTITY_SERVICE_TOKEN,
      };
    case 'code-mode':
      return {
        ...credentials,
        LWA_TOKEN_URL: tokenUrl,
        ...switches,
        CODE_MODE: 'true',
        CODE_MODE_WALL_TIME_MS: String(GATE_CODE_MODE_WALL_TIME_MS),
      };
    case 'limiter':
      // no waiting: a call over budget is refused at once, which the limiter battery checks
      return {
        ...credentials,
        LWA_TOKEN_URL: tokenUrl,
        ...switches,
        MCP_RATE_LIMIT: 'on',
        MCP_RATE_LIMIT_MAX_WAIT_MS: '0',
      };
  }
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

/** Where the gate runs: the replay server's URLs and the prepared model folders. */
export interface ServerSetup {
  readonly upstreamUrl: string;
  readonly tokenUrl: string;
  /** Per server, the folder given as `--models`. */
  readonly modelFolders: Readonly<Record<ServerId, string>>;
  /** Per server, the command that starts it (without the gate's flags), e.g. `node .../cli.js`. */
  readonly commands: Readonly<Record<ServerId, string>>;
}

/**
 * The `--stdio` command line of a server in a variant: environment assignments, the server
 * command, `--upstream`, `--models`, and `--conformance-fixtures` in the `main` variant.
 *
 * @param setup - see {@link ServerSetup}.
 * @param server - which server.
 * @param variant - which configuration.
 * @returns the command line (secrets are dummy values; reports show names only).
 */
export function serverCommandLine(setup: ServerSetup, server: ServerId, variant: VariantName): string {
  const env = { ...REFERENCE_SERVERS[server].env, ...variantEnv(variant, setup.tokenUrl, setup.upstreamUrl) };
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${quoteWord(value)}`);
  const flags = [
    '--upstream',
    setup.upstreamUrl,
    '--models',
    setup.modelFolders[server],
    ...(variant === 'main' ? ['--conformance-fixtures'] : []),
  ];
  return [...assignments, setup.commands[server], ...flags.map(quoteWord)].join(' ');
}

/**
 * The default command of a server: this Node binary running the package's bin.
 *
 * @param server - which server.
 * @returns e.g. `/usr/bin/node /repo/packages/sp-adapter/dist/cli.js`.
 */
export function defaultServerCommand(server: ServerId): string {
  return `${quoteWord(process.execPath)} ${quoteWord(serverBinPath(REFERENCE_SERVERS[server]))}`;
}

/**
 * Copies each server's model sources into a fresh temporary folder.
 *
 * @returns the folders and a function that removes them.
 */
export function prepareModelFolders(): { folders: Record<ServerId, string>; remove: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'mcp-envelope-gate-models-'));
  const folders = {} as Record<ServerId, string>;
  for (const id of SERVER_IDS) {
    const folder = join(base, id);
    mkdirSync(folder, { recursive: true });
    for (const source of REFERENCE_SERVERS[id].modelSources()) {
      for (const name of readdirSync(source)
        .filter((entry) => entry.endsWith('.json'))
        .sort())
        copyFileSync(join(source, name), join(folder, name));
    }
    folders[id] = folder;
  }
  return {
    folders,
    remove: () => {
      rmSync(base, { recursive: true, force: true });
    },
  };
}
