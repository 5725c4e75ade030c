/**
 * No reader of version 1 loses an envelope. Agents written against contract version 1 recognise an
 * envelope by `_envelope_version === 1`; the servers now build version 2 and answer each client in
 * the version it states, version 1 to a client that states none. Two such readers are run against
 * the real SP and Ads server processes (loopback upstream), over stdio and Streamable HTTP, in both
 * protocol eras, for an upstream 404, an upstream 429, a validation error and an unknown tool:
 *
 * - the previous release's own client helpers: the contract package as it was before version 2
 *   (the last commit whose taxonomy says `CONTRACT_VERSION = 1`), compiled from the git history
 *   with this repository's TypeScript;
 * - a raw reader that checks `_envelope_version === 1` in `structuredContent` and in the text.
 *
 * One more call per connection states `[1, 2]` and must get version 2 from the same server.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import type { ReplayRoute, UpstreamReplay } from '@mcp-envelope/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseStdioCommand } from '../src/command-line.js';
import { readCase } from '../src/gate/cases.js';
import { KEYWORD_TOOL, MISSPELLED_TOOL } from '../src/gate/fixture-plan.js';
import { defaultServerCommand, PACKAGE_ROOT, serverCommandLine } from '../src/gate/reference-servers.js';
import type { ServerId, ServerSetup } from '../src/gate/reference-servers.js';
import { gated, prepareGatedModels, setupOn } from './helpers/gate-servers.js';

const REPOSITORY = join(PACKAGE_ROOT, '..');

/** What the previous release's contract package exports that a v1 reader uses. */
interface OldContract {
  callWithEnvelope(
    client: unknown,
    name: string,
    args?: Record<string, unknown>,
  ): Promise<readonly [unknown, null] | readonly [null, Record<string, unknown>]>;
  unwrapToolResult(result: unknown): { ok: boolean; envelope?: Record<string, unknown> };
  validateEnvelope(value: unknown): { valid: boolean; errors?: readonly unknown[] };
  CONTRACT_VERSION: number;
}

function git(args: readonly string[]): string {
  return execFileSync('git', ['-C', REPOSITORY, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** `contract/src/taxonomy.ts` at a commit; empty before the contract package existed. */
function taxonomyAt(commit: string): string {
  try {
    return git(['show', `${commit}:contract/src/taxonomy.ts`]);
  } catch {
    return '';
  }
}

/** The newest commit of this repository's history whose contract taxonomy says `CONTRACT_VERSION = 1`. */
function lastVersionOneCommit(): string {
  let commits: string[];
  try {
    commits = git(['rev-list', 'HEAD']).split('\n').filter(Boolean);
  } catch (error) {
    throw new Error(
      `v1-readers needs the git history of the repository it runs in (${REPOSITORY}) to build the previous release's contract`,
      { cause: error },
    );
  }
  for (const commit of commits) if (/CONTRACT_VERSION\s*=\s*1\b/.test(taxonomyAt(commit))) return commit;
  throw new Error(`no commit of ${REPOSITORY} has contract/src/taxonomy.ts with CONTRACT_VERSION = 1`);
}

/** Extracts the contract package of `commit`, builds it with this repository's TypeScript, and imports it. */
async function buildOldContract(commit: string, folder: string): Promise<OldContract> {
  const archive = execFileSync('git', ['-C', REPOSITORY, 'archive', commit, 'contract', 'tsconfig.base.json'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  const contract = join(folder, 'contract');
  // its dependencies are this contract's (ajv, ajv-formats, semver at the versions the lockfile
  // holds) and the workspace's (the Node types the base configuration names)
  symlinkSync(join(REPOSITORY, 'contract', 'node_modules'), join(contract, 'node_modules'), 'dir');
  symlinkSync(join(REPOSITORY, 'node_modules'), join(folder, 'node_modules'), 'dir');
  const tsc = createRequire(join(REPOSITORY, 'contract', 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, ['scripts/embed-json.mjs'], { cwd: contract });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: contract });
  return (await import(pathToFileURL(join(contract, 'dist', 'index.js')).href)) as OldContract;
}

type Era = 'legacy' | 'modern';
type Over = 'stdio' | 'http';

/** One failure a v1 reader must still recognise, with the v1 kind and code it has always had. */
interface Condition {
  readonly name: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly upstream: readonly ReplayRoute[];
  readonly v1: { readonly error_kind: string; readonly error_code: string; readonly legacy_error_kind?: string };
}

function recorded(id: string): Pick<Condition, 'tool' | 'arguments' | 'upstream'> {
  const entry = readCase(join(PACKAGE_ROOT, 'cases', `${id}.json`));
  return { tool: entry.call.tool, arguments: { ...entry.call.arguments }, upstream: entry.upstream };
}

const CONDITIONS: Readonly<Record<'sp' | 'ads', readonly Condition[]>> = {
  sp: [
    {
      name: 'upstream 404',
      ...recorded('sp-404-catalog-not-found'),
      v1: { error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_404' },
    },
    {
      name: 'upstream 429',
      ...recorded('sp-429-retry-after-seconds'),
      v1: { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', legacy_error_kind: 'sp_api_http' },
    },
  ],
  ads: [
    {
      name: 'upstream 404',
      ...recorded('ads-404-not-found-full-path'),
      v1: { error_kind: 'ads_api_http', error_code: 'ADS_API_HTTP_404' },
    },
    {
      name: 'upstream 429',
      ...recorded('ads-429-retry-after-seconds'),
      v1: { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', legacy_error_kind: 'ads_api_http' },
    },
  ],
};

const EVERY_SERVER: readonly Condition[] = [
  {
    name: 'validation error',
    tool: KEYWORD_TOOL,
    arguments: { body: { label: 5 } },
    upstream: [],
    v1: { error_kind: 'mcp_input_validation', error_code: 'SCHEMA_TYPE_MISMATCH' },
  },
  {
    name: 'unknown tool',
    tool: MISSPELLED_TOOL,
    arguments: {},
    upstream: [],
    v1: { error_kind: 'tool_not_found', error_code: 'TOOL_NOT_FOUND', legacy_error_kind: 'mcp_input_validation' },
  },
];

/** Starts a server over Streamable HTTP on 127.0.0.1 (`--http 0`) and waits for the URL it reports. */
async function startHttp(line: string): Promise<{ url: string; child: ChildProcess }> {
  const parsed = parseStdioCommand(`${line} --http 0`);
  const child = spawn(parsed.command, [...parsed.args], {
    env: { PATH: process.env['PATH'] ?? '', ...parsed.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (match !== null) resolve(match[0]);
    });
    child.once('exit', (code) => {
      reject(new Error(`the server exited with ${String(code)} before reporting its URL: ${stderr.slice(-500)}`));
    });
  });
  return { url, child };
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGTERM');
  });
}

let old: OldContract;
let buildFolder: string;
let replay: UpstreamReplay | undefined;
let models: ReturnType<typeof prepareGatedModels> | undefined;
let setup: ServerSetup;
const httpServers = new Map<ServerId, { url: string; child: ChildProcess }>();

beforeAll(async () => {
  buildFolder = mkdtempSync(join(tmpdir(), 'v1-readers-'));
  mkdirSync(buildFolder, { recursive: true });
  old = await buildOldContract(lastVersionOneCommit(), buildFolder);
  const started = await startAmazonReplay();
  replay = started;
  models = prepareGatedModels();
  setup = setupOn(started, models.folders, {
    sp: defaultServerCommand(gated('sp')),
    ads: defaultServerCommand(gated('ads')),
  });
  for (const server of ['sp', 'ads'] as const)
    httpServers.set(server, await startHttp(serverCommandLine(setup, server, 'main')));
}, 240_000);

afterAll(async () => {
  await Promise.all([...httpServers.values()].map(async ({ child }) => stopped(child)));
  await replay?.close();
  models?.remove();
  rmSync(buildFolder, { recursive: true, force: true });
});

it('builds the previous release: the contract package of version 1', () => {
  expect(old.CONTRACT_VERSION).toBe(1);
});

/** Sets the replay server's answers for the next call, dropping the earlier ones. */
function routes(upstream: readonly ReplayRoute[]): void {
  if (replay === undefined) throw new Error('the replay server did not start');
  replay.reset();
  replay.route(...upstream);
}

async function connect(server: ServerId, era: Era, over: Over): Promise<Client> {
  const client = new Client(
    { name: `v1-reader-${era}-${over}`, version: '0.0.1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  if (over === 'stdio') {
    const parsed = parseStdioCommand(serverCommandLine(setup, server, 'main'));
    await client.connect(
      new StdioClientTransport({
        command: parsed.command,
        args: [...parsed.args],
        env: { PATH: process.env['PATH'] ?? '', ...parsed.env },
        stderr: 'ignore',
      }),
    );
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(httpServers.get(server)?.url ?? '')));
  }
  return client;
}

const MATRIX: readonly (readonly ['sp' | 'ads', Over, Era])[] = (['sp', 'ads'] as const).flatMap((server) =>
  (['stdio', 'http'] as const).flatMap((over) =>
    (['legacy', 'modern'] as const).map((era) => [server, over, era] as const),
  ),
);

describe.each(MATRIX)('%s over %s, %s era', (server, over, era) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(server, era, over);
    expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  describe.each([...CONDITIONS[server], ...EVERY_SERVER])('$name', (condition) => {
    it("the previous release's callWithEnvelope hands back a valid v1 envelope with the v1 kind and code", async () => {
      routes(condition.upstream);
      const [value, envelope] = await old.callWithEnvelope(client, condition.tool, condition.arguments);
      expect(value).toBeNull();
      expect(envelope).toMatchObject({ _envelope_version: 1, ...condition.v1 });
      expect(envelope?.['legacy_error_kind']).toBe(condition.v1.legacy_error_kind);
      expect(old.validateEnvelope(envelope)).toEqual({ valid: true });
    });

    it('a raw reader finds _envelope_version 1 in structuredContent and in the text; the old unwrap agrees', async () => {
      routes(condition.upstream);
      const result = (await client.callTool({ name: condition.tool, arguments: condition.arguments })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
        content: { type: string; text?: string }[];
      };
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.['_envelope_version']).toBe(1);
      const text = JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown>;
      expect(text['_envelope_version']).toBe(1);
      expect([text['error_kind'], text['error_code']]).toEqual([condition.v1.error_kind, condition.v1.error_code]);
      const unwrapped = old.unwrapToolResult(result);
      expect(unwrapped.ok).toBe(false);
      expect(unwrapped.envelope).toMatchObject(condition.v1);
      expect(old.validateEnvelope(unwrapped.envelope)).toEqual({ valid: true });
    });
  });

  it('a client that states [1, 2] gets version 2 from the same server', async () => {
    const condition = CONDITIONS[server][0] as Condition;
    routes(condition.upstream);
    const result = (await client.callTool({
      name: condition.tool,
      arguments: condition.arguments,
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
    })) as { structuredContent?: Record<string, unknown> };
    expect(result.structuredContent).toMatchObject({
      _envelope_version: 2,
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_404',
      upstream: server === 'sp' ? 'sp-api' : 'ads-api',
    });
    // the previous release does not read it: this is why the servers answer v1 to a client that states nothing
    expect(old.validateEnvelope(result.structuredContent).valid).toBe(false);
  });
});
