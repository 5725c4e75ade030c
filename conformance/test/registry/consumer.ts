/**
 * The consumer side of the release rehearsal: an empty folder outside the workspace that
 * installs the published packages with plain npm from the loopback registry only.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a command printed and how it ended. */
export interface CommandResult {
  readonly code: number;
  readonly output: string;
}

/**
 * The environment without any npm or pnpm setting inherited from the runner (a test started
 * from `pnpm test` carries the runner's registry), plus `extra`.
 */
export function cleanEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm|pnpm)_/i.test(name)));
  return { ...env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', NO_UPDATE_NOTIFIER: '1', ...extra };
}

/**
 * The environment of an npm command run in a folder whose own `.npmrc` is the only configuration:
 * the user's and the machine's npmrc are not read, since a scoped registry there would outrank
 * the folder's `registry` and send an install past 127.0.0.1.
 */
export function loopbackNpmEnv(folder: string): NodeJS.ProcessEnv {
  // Two distinct files that do not exist: npm refuses to load one file as both.
  return cleanEnv({
    NPM_CONFIG_USERCONFIG: join(folder, '.no-user-npmrc'),
    NPM_CONFIG_GLOBALCONFIG: join(folder, '.no-global-npmrc'),
  });
}

// A fixed identity and no user or system git configuration, so a developer's settings (commit
// signing, hooks, tag sorting) change nothing in the rehearsal's commits and tags.
const GIT_ISOLATED = {
  GIT_AUTHOR_NAME: 'release',
  GIT_AUTHOR_EMAIL: 'release@example.test',
  GIT_COMMITTER_NAME: 'release',
  GIT_COMMITTER_EMAIL: 'release@example.test',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/**
 * The environment of the release commands in the rehearsal's clone (`pnpm run version-packages`,
 * `pnpm run release` and the npm and changeset commands they start): the only npm configuration
 * read is `userconfig`, a file of the rehearsal's own, so a developer's ~/.npmrc or the machine's
 * npmrc can neither send a publish elsewhere nor break one. Git runs as {@link gitEnv} has it.
 */
export function releaseNpmEnv(registry: string, userconfig: string): NodeJS.ProcessEnv {
  return cleanEnv({
    ...GIT_ISOLATED,
    npm_config_registry: `${registry}/`,
    NPM_CONFIG_USERCONFIG: userconfig,
    NPM_CONFIG_GLOBALCONFIG: `${userconfig}.no-global`,
    CI: '',
  });
}

/** The environment of git in the rehearsal (its commits and tags read no user or system git configuration). */
export function gitEnv(): NodeJS.ProcessEnv {
  return cleanEnv(GIT_ISOLATED);
}

/**
 * Runs a command to its end, never throwing for a non-zero exit.
 *
 * @returns the exit code and stdout followed by stderr.
 */
export async function command(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 256 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}`,
    };
  }
}

/** The `.npmrc` of a folder that may talk to the loopback registry and nothing else. */
export function writeRegistryNpmrc(folder: string, registry: string, cache: string, token?: string): void {
  const host = registry.replace(/^https?:/, '');
  const lines = [
    `registry=${registry}/`,
    `cache=${cache}`,
    'audit=false',
    'fund=false',
    'update-notifier=false',
    ...(token === undefined ? [] : [`${host}/:_authToken=${token}`]),
  ];
  writeFileSync(join(folder, '.npmrc'), `${lines.join('\n')}\n`);
}

/** Calls a tool that does not exist through the installed SDK client and prints the envelope. */
const UNKNOWN_TOOL_SCRIPT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callWithEnvelope } from '@mcp-envelope/contract';

const [bin, ...args] = process.argv.slice(2);
const client = new Client({ name: 'release-rehearsal', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: 'npx', args: ['--no-install', bin, ...args], env: process.env, stderr: 'ignore' }));
const [, envelope] = await callWithEnvelope(client, 'no_such_tool', {});
process.stdout.write(JSON.stringify(envelope));
await client.close();
`;

/**
 * Calls one tool of a server twice with the installed v1 SDK client and prints both answers: once
 * stating per request that it reads contract versions 1 and 2, once stating nothing (as every v1
 * reader does). Each answer gives the envelope as structuredContent and as the text block says it.
 */
const UPSTREAM_CALL_SCRIPT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, tool, ...args] = process.argv.slice(2);
const client = new Client({ name: 'release-rehearsal', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: 'npx', args: ['--no-install', bin, ...args], env: process.env, stderr: 'ignore' }));
const text = (result) => {
  const block = result.content?.[0]?.text;
  try { return JSON.parse(block); } catch { return block; }
};
const read = (result) => ({ isError: result.isError, structured: result.structuredContent, text: text(result) });
const stated = await client.callTool({ name: tool, arguments: {}, _meta: { 'io.github.mcp-envelope/envelope': { contract_versions: [1, 2] } } });
const silent = await client.callTool({ name: tool, arguments: {} });
process.stdout.write(JSON.stringify({ stated: read(stated), silent: read(silent) }));
await client.close();
`;

/** A consumer using every published package's types; it compiles only if the published types resolve. */
const CONSUMER_SOURCE = `import { MIGRATIONS, callWithEnvelope, validateEnvelope } from '@mcp-envelope/contract';
import type { ErrorEnvelope, MigrationEntry } from '@mcp-envelope/contract';
import { createEnvelopeServer } from '@mcp-envelope/core';
import type { EnvelopeTool } from '@mcp-envelope/core';
import { compileTool } from '@mcp-envelope/core/adapter';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import { AMAZON_REGIONS, LwaTokenClient } from '@mcp-envelope/amazon';
import type { AmazonRegion } from '@mcp-envelope/amazon';
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import { createSpServer } from '@mcp-envelope/sp-adapter';
import { createAdsServer } from '@mcp-envelope/ads-adapter';
import { probeServer } from '@mcp-envelope/conformance';

export function kindFor(envelope: ErrorEnvelope): string {
  return envelope.legacy_error_kind ?? envelope.error_kind;
}
export const windows: readonly MigrationEntry[] = MIGRATIONS;
export const valid: boolean = validateEnvelope({}).valid;
export const api = { callWithEnvelope, createSpServer, createAdsServer, probeServer, createEnvelopeServer, compileTool };
export const testing = { startUpstreamReplay };
export const amazon = { LwaTokenClient, startAmazonReplay };
export const naTokenUrl: string = AMAZON_REGIONS.na.lwaTokenUrl;
export const home: AmazonRegion = 'na';
export type Tools = readonly EnvelopeTool[];
`;

/** Must not compile: proves the contract's and the Amazon package's types are real, not `any`. */
const WRONG_SOURCE = `import { MIGRATIONS } from '@mcp-envelope/contract';

export const id: number = MIGRATIONS[0]!.id;
export const region: import('@mcp-envelope/amazon').AmazonRegion = 'mars';
`;

/**
 * Lays out the consumer folder: package.json (ESM), .npmrc, the unknown-tool and upstream-call scripts, and a
 * TypeScript consumer with one tsconfig per module resolution (`NodeNext`, `Bundler`).
 */
export function writeConsumer(folder: string, registry: string, cache: string): void {
  mkdirSync(join(folder, 'src'), { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'release-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeRegistryNpmrc(folder, registry, cache);
  writeFileSync(join(folder, 'unknown-tool.mjs'), UNKNOWN_TOOL_SCRIPT);
  writeFileSync(join(folder, 'upstream-call.mjs'), UPSTREAM_CALL_SCRIPT);
  writeFileSync(join(folder, 'src', 'consumer.ts'), CONSUMER_SOURCE);
  writeFileSync(join(folder, 'src', 'wrong.ts'), WRONG_SOURCE);
  // skipLibCheck: the third-party declarations (the MCP SDK's zod types) take most of a minute
  // to check and are not ours; the consumer's use of ours is what must compile.
  const strict = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: 'ES2022',
    types: ['node'],
  };
  const configs = {
    'tsconfig.nodenext.json': {
      compilerOptions: { ...strict, module: 'NodeNext', moduleResolution: 'NodeNext' },
      files: ['src/consumer.ts'],
    },
    'tsconfig.bundler.json': {
      compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler' },
      files: ['src/consumer.ts'],
    },
    'tsconfig.wrong.json': {
      compilerOptions: { ...strict, module: 'NodeNext', moduleResolution: 'NodeNext' },
      files: ['src/wrong.ts'],
    },
  };
  for (const [name, config] of Object.entries(configs))
    writeFileSync(join(folder, name), `${JSON.stringify(config, null, 2)}\n`);
}
