/**
 * The release rehearsal: a temporary clone of this repository goes through three releases with
 * the same `pnpm run version-packages` and `pnpm run release` the release workflow runs, against
 * a real Verdaccio on 127.0.0.1 with no uplink; an empty folder outside the workspace then
 * installs the published packages with plain npm, runs and probes both servers, and type-checks
 * a TypeScript consumer. Release 1 is the contract's v2 window: a client that states it reads
 * versions 1 and 2 gets a v2 envelope with `legacy_error_kind`, a client that states nothing
 * (every v1 reader) the v1 envelope it always got; release 3 drops the legacy field. Nothing in
 * it assumes the repository's version, pending changesets or tags: the clone starts with no
 * release and the v2 window in its table (see preparation.ts), and every expected version is
 * derived from the clone.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import semver from 'semver';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { command, gitEnv, loopbackNpmEnv, releaseNpmEnv, writeConsumer, writeRegistryNpmrc } from './consumer.js';
import type { CommandResult } from './consumer.js';
import { V2_CUTOVER_DATE, V2_WINDOW, nextVersion, prepareFirstRelease } from './preparation.js';
import type { FirstRelease } from './preparation.js';
import { collectInstalled, seedStorage } from './third-party.js';
import { startVerdaccio } from './verdaccio.js';
import type { Registry } from './verdaccio.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGES = [
  ['contract', '@mcp-envelope/contract'],
  ['packages/core', '@mcp-envelope/core'],
  ['packages/testing', '@mcp-envelope/testing'],
  ['packages/amazon', '@mcp-envelope/amazon'],
  ['packages/sp-adapter', '@mcp-envelope/sp-adapter'],
  ['packages/ads-adapter', '@mcp-envelope/ads-adapter'],
  ['packages/github-adapter', '@mcp-envelope/github-adapter'],
  ['conformance', '@mcp-envelope/conformance'],
] as const;
const CONSUMER_TOOLS = ['typescript', '@types/node'];
const LWA_TOKEN_PATH = '/auth/o2/token';

/** Per server: a tool without arguments, the upstream path it calls (answered 404 here), and how v1 and v2 spell the failure. */
const NOT_FOUND_CALLS = {
  sp: {
    bin: 'mcp-envelope-sp',
    tool: 'sellers_getMarketplaceParticipations',
    path: '/sellers/v1/marketplaceParticipations',
    body: { errors: [{ code: 'NotFound', message: 'rehearsal upstream' }] },
    upstream: 'sp-api',
    v1Kind: 'sp_api_http',
    v1Code: 'SP_API_HTTP_404',
  },
  ads: {
    bin: 'mcp-envelope-ads',
    tool: 'list_profiles',
    path: '/v2/profiles',
    body: { code: 'NOT_FOUND', details: 'rehearsal upstream' },
    upstream: 'ads-api',
    v1Kind: 'ads_api_http',
    v1Code: 'ADS_API_HTTP_404',
  },
} as const;

type NotFoundCall = (typeof NOT_FOUND_CALLS)[keyof typeof NOT_FOUND_CALLS];

/** One answer of upstream-call.mjs: the envelope as structuredContent and as the text block gave it. */
interface CallAnswer {
  readonly isError?: boolean;
  readonly structured?: Record<string, unknown>;
  readonly text?: unknown;
}

interface Rehearsal {
  readonly base: string;
  readonly clone: string;
  readonly consumer: string;
  readonly registry: Registry;
  readonly upstream: Server;
  readonly upstreamUrl: string;
  readonly timings: string[];
  /** `Date.now()` when the rehearsal began: each progress line says how long it has run. */
  readonly started: number;
  /** Set by the preparation of release 1: the versions the three releases must produce follow from it. */
  first?: FirstRelease;
}

let state: Rehearsal | undefined;

function rehearsal(): Rehearsal {
  if (state === undefined) throw new Error('the rehearsal did not start');
  return state;
}

/**
 * Prints one line of progress with the seconds since the rehearsal began, and keeps it for the
 * summary: the rehearsal runs for minutes, and a run that prints nothing looks like one that hangs.
 */
function progress(started: number, line: string, timings?: string[]): void {
  timings?.push(line);
  process.stdout.write(`release rehearsal, ${((Date.now() - started) / 1000).toFixed(0)} s: ${line}\n`);
}

/** Runs a command, records how long it took, and fails with its output when `expectCode` differs. */
async function step(
  label: string,
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  expectCode: 0 | 'nonzero' = 0,
): Promise<CommandResult> {
  const started = Date.now();
  const result = await command(file, args, cwd, env);
  progress(rehearsal().started, `${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`, rehearsal().timings);
  const checks = result.output.split('\n').filter((line) => /^(release:check|FAIL \[|skip \[)/.test(line));
  if (checks.length > 0) rehearsal().timings.push(...checks.map((line) => `    ${line}`));
  const ok = expectCode === 0 ? result.code === 0 : result.code !== 0;
  if (!ok) throw new Error(`${label} exited ${result.code}:\n${result.output.slice(-8000)}`);
  return result;
}

/** The environment of the release commands in the clone: npm and pnpm see only the loopback registry. */
function releaseEnv(): NodeJS.ProcessEnv {
  const { base, registry } = rehearsal();
  return releaseNpmEnv(registry.url, join(base, 'release.npmrc'));
}

/** Release 1 as the preparation derived it from the clone. */
function firstRelease(): FirstRelease {
  const { first } = rehearsal();
  if (first === undefined) throw new Error('release 1 was not prepared');
  return first;
}

/** Release 3 (and the refused release 2): a patch after release 1. */
function patchRelease(): string {
  return nextVersion(firstRelease().version, 'patch');
}

/**
 * The `version` and `publish` commands of the release workflow's changesets step, as pnpm
 * arguments: the rehearsal runs exactly these, so a broken workflow command fails here first.
 */
function workflowCommands(): { version: string[]; publish: string[] } {
  const workflow = parse(readClone('.github/workflows/release.yml')) as {
    jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
  };
  const step = Object.values(workflow.jobs)
    .flatMap((job) => job.steps)
    .find((candidate) => candidate.uses?.startsWith('changesets/action@') === true);
  const asArguments = (line: string | undefined): string[] => {
    const match = /^npx pnpm (.+)$/.exec(line ?? '');
    if (match?.[1] === undefined)
      throw new Error(`the release workflow's changesets step runs "${line ?? ''}", not an \`npx pnpm ...\` command`);
    return match[1].split(' ');
  };
  return { version: asArguments(step?.with?.['version']), publish: asArguments(step?.with?.['publish']) };
}

function pnpm(args: readonly string[], label: string, expectCode: 0 | 'nonzero' = 0): Promise<CommandResult> {
  const { clone } = rehearsal();
  return step(
    label,
    process.execPath,
    [join(clone, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs'), ...args],
    clone,
    releaseEnv(),
    expectCode,
  );
}

function git(...args: string[]): Promise<CommandResult> {
  return step(`git ${args[0] ?? ''}`, 'git', args, rehearsal().clone, gitEnv());
}

async function publishedVersions(name: string): Promise<string[]> {
  const response = await fetch(`${rehearsal().registry.url}/${name.replace('/', '%2f')}`);
  if (response.status === 404) return [];
  return semver.sort(Object.keys(((await response.json()) as { versions: Record<string, unknown> }).versions));
}

function readClone(path: string): string {
  return readFileSync(join(rehearsal().clone, path), 'utf8');
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** A token for any LWA request, 404 on the paths of {@link NOT_FOUND_CALLS}, 503 on anything else. */
function answerUpstream(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  if (request.method === 'POST' && path === LWA_TOKEN_PATH) {
    answerJson(response, 200, { access_token: 'rehearsal-access-token', token_type: 'bearer', expires_in: 3600 });
    return;
  }
  const notFound = Object.values(NOT_FOUND_CALLS).find((call) => call.path === path);
  if (notFound !== undefined) answerJson(response, 404, notFound.body);
  else answerJson(response, 503, { errors: [{ code: 'ServiceUnavailable', message: 'rehearsal upstream' }] });
}

function startUpstream(): Promise<Server> {
  // Stands in for the Amazon APIs and their token service: the servers are pointed here, so no
  // call leaves 127.0.0.1.
  const server = createServer(answerUpstream);
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => {
      done(server);
    }),
  );
}

/** The consumer's environment plus dummy LWA credentials whose token service is the loopback upstream. */
function credentialedEnv(): NodeJS.ProcessEnv {
  const { consumer, upstreamUrl } = rehearsal();
  return {
    ...loopbackNpmEnv(consumer),
    LWA_CLIENT_ID: 'amzn1.application-oa2-client.rehearsal0001',
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.rehearsalsecret0001',
    LWA_REFRESH_TOKEN: 'Atzr|rehearsal-refresh-0001',
    LWA_TOKEN_URL: `${upstreamUrl}${LWA_TOKEN_PATH}`,
    MCP_RATE_LIMIT: 'off',
    SP_API_REGION: 'na',
    ADS_API_REGION: 'na',
  };
}

/** Calls the server's 404 tool as a client stating versions [1, 2] and as one stating nothing. */
async function callBoth(call: NotFoundCall, version: string): Promise<{ stated: CallAnswer; silent: CallAnswer }> {
  const { consumer, upstreamUrl } = rehearsal();
  const answer = await step(
    `consumer: ${call.bin} upstream 404, stated [1, 2] and silent (${version})`,
    process.execPath,
    ['upstream-call.mjs', call.bin, call.tool, '--upstream', upstreamUrl],
    consumer,
    credentialedEnv(),
  );
  return JSON.parse(answer.output) as { stated: CallAnswer; silent: CallAnswer };
}

/**
 * The window as the design has it: a v2 reader gets `upstream_http`, `UPSTREAM_HTTP_404` and the
 * upstream's name, with the v1 kind as `legacy_error_kind` only while the window is open; a
 * client that states nothing gets the v1 envelope it always got. Both channels say the same.
 */
function expectWindow(answers: { stated: CallAnswer; silent: CallAnswer }, call: NotFoundCall, open: boolean): void {
  for (const answer of [answers.stated, answers.silent]) {
    expect(answer.isError).toBe(true);
    expect(answer.text).toEqual(answer.structured);
  }
  expect(answers.stated.structured).toMatchObject({
    _envelope_version: 2,
    error_kind: 'upstream_http',
    error_code: 'UPSTREAM_HTTP_404',
    upstream: call.upstream,
  });
  expect(answers.stated.structured?.['legacy_error_kind']).toBe(open ? call.v1Kind : undefined);
  expect(answers.silent.structured).toMatchObject({
    _envelope_version: 1,
    error_kind: call.v1Kind,
    error_code: call.v1Code,
  });
  expect(Object.keys(answers.silent.structured ?? {}).filter((key) => /upstream|legacy/.test(key))).toEqual([]);
}

function readCloneJson(path: string): { envelope?: Record<string, unknown> } {
  return JSON.parse(readClone(path)) as { envelope?: Record<string, unknown> };
}

/** The fixture files of the clone (v2 and v1) that still carry a legacy_error_kind. */
function fixturesWithLegacy(): string[] {
  const folder = join(rehearsal().clone, 'conformance', 'fixtures');
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .filter((file) => readFileSync(join(folder, file), 'utf8').includes('"legacy_error_kind"'))
    .sort();
}

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), 'mcp-envelope-release-'));
  const timings: string[] = [];
  const started = Date.now();
  progress(started, 'starting Verdaccio on 127.0.0.1 with the third-party packages of the local install');
  // the GitHub server is published and tagged like every package, but no consumer here installs
  // it: its description package (about 395 MB unpacked) would only slow the registry's seeding
  const installed = PACKAGES.filter(([, name]) => name !== '@mcp-envelope/github-adapter');
  const thirdParty = collectInstalled(
    installed.map(([folder]) => join(ROOT, folder)),
    new Set(PACKAGES.map(([, name]) => name)),
    CONSUMER_TOOLS,
    ROOT,
  );
  const registry = await startVerdaccio(ROOT, base, (url, storage) => seedStorage(url, storage, thirdParty));
  const upstream = await startUpstream();
  const address = upstream.address();
  const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  state = {
    base,
    clone: join(base, 'repo'),
    consumer: join(base, 'consumer'),
    registry,
    upstream,
    upstreamUrl,
    timings,
    started,
  };
  progress(
    started,
    `verdaccio up with ${thirdParty.length} third-party packages packed from the local install: ${((Date.now() - started) / 1000).toFixed(1)} s`,
    timings,
  );
  writeRegistryNpmrc(base, registry.url, join(base, 'npm-cache'), registry.token);
  writeFileSync(join(base, 'release.npmrc'), readFileSync(join(base, '.npmrc'), 'utf8'));
  await step('git clone', 'git', ['clone', '--quiet', ROOT, state.clone], base, gitEnv());
  // The build cache only: the clone's first build has the same inputs as this checkout's.
  const commonDir = (
    await command('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], ROOT, gitEnv())
  ).output.trim();
  const turboCache = join(dirname(commonDir), '.turbo', 'cache');
  if (existsSync(turboCache)) cpSync(turboCache, join(state.clone, '.turbo', 'cache'), { recursive: true });
  await step(
    'pnpm install --offline (clone)',
    process.execPath,
    [join(ROOT, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs'), 'install', '--frozen-lockfile', '--offline'],
    state.clone,
    releaseEnv(),
  );
});

beforeEach((context) => {
  if (state !== undefined) progress(state.started, `phase: ${context.task.name}`);
});

afterAll(async () => {
  if (state === undefined) return;
  process.stdout.write(
    `release rehearsal (steps, seconds, and what release:check said):\n  ${state.timings.join('\n  ')}\n`,
  );
  await state.registry.stop();
  await new Promise((done) => state?.upstream.close(done));
  rmSync(state.base, { recursive: true, force: true });
});

describe('three releases through a real registry', () => {
  it('release 1 is prepared from the clone itself: no copied tag, the real v2 window, versions derived from its package.json and changesets', async () => {
    const first = await prepareFirstRelease(rehearsal().clone);
    rehearsal().first = first;
    rehearsal().timings.push(
      `release 1 prepared: ${first.from} -> ${first.version}, ${first.deletedTags.length} copied tag(s) deleted, windows ${first.migrationIds.join(', ')} (put back: ${first.restored.join(', ') || 'none'})`,
    );
    expect((await git('tag', '--list')).output).toBe('');
    expect(first.migrationIds).toEqual(expect.arrayContaining(V2_WINDOW.map((entry) => entry.id)));
    await pnpm(['run', 'fixtures:update'], 'release 1: pnpm run fixtures:update');
    for (const [server, call] of Object.entries(NOT_FOUND_CALLS)) {
      expect(readCloneJson(`conformance/fixtures/${server}/api-http-404.json`).envelope).toMatchObject({
        _envelope_version: 2,
        error_kind: 'upstream_http',
        error_code: 'UPSTREAM_HTTP_404',
        upstream: call.upstream,
        legacy_error_kind: call.v1Kind,
      });
      const v1 = readCloneJson(`conformance/fixtures/v1/${server}/api-http-404.json`).envelope;
      expect(v1).toMatchObject({ _envelope_version: 1, error_kind: call.v1Kind, error_code: call.v1Code });
      expect(v1?.['upstream']).toBeUndefined();
    }
    await git('add', '-A');
    await git('commit', '--quiet', '-m', 'rehearsal: the v2 window in the table and the fixtures');
  });

  it('release 1: version-packages and release publish every package at the derived version, lint-clean, tagged, with the windows open', async () => {
    const { from, version } = firstRelease();
    expect(workflowCommands()).toEqual({ version: ['run', 'version-packages'], publish: ['run', 'release'] });
    const versioned = await pnpm(workflowCommands().version, 'release 1: pnpm run version-packages');
    expect(versioned.output).toContain(`release:check ${from} -> ${version} (no release yet)`);
    for (const [folder] of PACKAGES) expect(JSON.parse(readClone(`${folder}/package.json`)).version).toBe(version);
    await git('add', '-A');
    await git('commit', '--quiet', '-m', 'Version Packages');
    const released = await pnpm(workflowCommands().publish, 'release 1: pnpm run release');
    expect(released.output.match(/All good!/g)).toHaveLength(PACKAGES.length);
    // attw names the build tools it finds in a package's devDependencies (the contract's esbuild)
    // between the package line and the resolutions line.
    for (const [, name] of PACKAGES)
      expect(released.output).toMatch(
        new RegExp(
          `${name} v${version.replaceAll('.', '\\.')}\\n\\n(?:Build tools:\\n(?:- .+\\n)+\\n)? \\(ignoring resolutions: 'node10', 'node16-cjs'\\)`,
        ),
      );
    for (const [, name] of PACKAGES) expect(await publishedVersions(name)).toEqual([version]);
    const tags = (await git('tag', '--list')).output.split('\n').filter((line) => line !== '');
    expect(tags.sort()).toEqual(PACKAGES.map(([, name]) => `${name}@${version}`).sort());
  });

  it('release 1 CHANGELOGs: each server names its migrations; its v2 entries with the cutover date, the dropping release and the other server', () => {
    const { version } = firstRelease();
    const table = JSON.parse(readClone('contract/migrations.json')) as {
      migrations: { id: string; servers?: string[] }[];
    };
    for (const [server, folder, other] of [
      ['sp', 'sp-adapter', 'ads-adapter'],
      ['ads', 'ads-adapter', 'sp-adapter'],
    ] as const) {
      const changelog = readClone(`packages/${folder}/CHANGELOG.md`);
      expect(changelog.startsWith(`# @mcp-envelope/${folder}\n\n## ${version}\n`)).toBe(true);
      const lines = changelog.split('\n');
      for (const entry of V2_WINDOW.filter((candidate) => candidate.servers[0] === server)) {
        const note = lines.find((line) => line.includes(`\`${entry.id}\``) && line.includes('in v2 envelopes')) ?? '';
        expect(note).toContain(`${entry.to_kind} carries legacy_error_kind ${entry.from_kind}`);
        expect(note).toContain(
          `cutover date ${V2_CUTOVER_DATE}; the release after ${version} drops \`legacy_error_kind\``,
        );
        expect(note).toContain(`\`@mcp-envelope/${other}\``);
      }
      const touching = table.migrations.filter(
        (entry) => entry.servers === undefined || entry.servers.includes(server),
      );
      for (const { id } of touching) expect(changelog).toContain(`\`${id}\``);
    }
  });

  it('release 1 from a clean folder: the v2 window for a client stating [1, 2], the v1 envelope for one stating nothing', async () => {
    const { consumer, base, upstreamUrl } = rehearsal();
    const { version } = firstRelease();
    writeConsumer(consumer, rehearsal().registry.url, join(base, 'consumer-npm-cache'));
    const names = [
      '@mcp-envelope/sp-adapter',
      '@mcp-envelope/ads-adapter',
      '@mcp-envelope/contract',
      '@mcp-envelope/amazon',
      '@mcp-envelope/testing',
      '@mcp-envelope/conformance',
    ];
    await step(
      `consumer: npm install ${version}`,
      'npm',
      ['install', ...names.map((name) => `${name}@${version}`), 'typescript@6.0.3', '@types/node@20.19.43'],
      consumer,
      loopbackNpmEnv(consumer),
    );
    for (const call of Object.values(NOT_FOUND_CALLS)) {
      expectWindow(await callBoth(call, version), call, true);
      // the published client helper states [1, 2]: it reads v2, and the v1 windows do not apply to v2
      const answer = await step(
        `consumer: ${call.bin} unknown tool (${version})`,
        process.execPath,
        ['unknown-tool.mjs', call.bin, '--upstream', upstreamUrl],
        consumer,
        loopbackNpmEnv(consumer),
      );
      const envelope = JSON.parse(answer.output) as Record<string, unknown>;
      expect(envelope).toMatchObject({
        _envelope_version: 2,
        error_kind: 'tool_not_found',
        error_code: 'TOOL_NOT_FOUND',
      });
      expect(envelope['legacy_error_kind']).toBeUndefined();
    }
  });

  it('release 2: a patch release is refused while the migrations release 1 shipped are still in the table', async () => {
    const { version, migrationIds } = firstRelease();
    writeFileSync(
      join(rehearsal().clone, '.changeset/rehearsal-fix.md'),
      "---\n'@mcp-envelope/sp-adapter': patch\n---\n\nA fix between releases.\n",
    );
    await git('add', '-A');
    await git('commit', '--quiet', '-m', 'a fix');
    const refused = await pnpm(workflowCommands().version, 'release 2: pnpm run version-packages (refused)', 'nonzero');
    expect(refused.output).toContain(`release:check ${version} -> ${patchRelease()} (released: ${version})`);
    for (const id of migrationIds) expect(refused.output).toContain(`FAIL [expired-migrations] migration "${id}"`);
    expect(refused.output).toContain(
      `shipped in ${version} (tag @mcp-envelope/contract@${version}); its window closes with the next release, and ${patchRelease()} is about to be released`,
    );
    expect(JSON.parse(readClone('contract/package.json')).version).toBe(version);
    expect(await publishedVersions('@mcp-envelope/sp-adapter')).toEqual([version]);
  });

  it('release 3: with the entries removed and the fixtures regenerated, a patch release publishes', async () => {
    const table = JSON.parse(readClone('contract/migrations.json')) as { migrations: unknown[] };
    writeFileSync(
      join(rehearsal().clone, 'contract/migrations.json'),
      `${JSON.stringify({ ...table, migrations: [] }, null, 2)}\n`,
    );
    writeFileSync(
      join(rehearsal().clone, '.changeset/rehearsal-cutover.md'),
      "---\n'@mcp-envelope/contract': patch\n'@mcp-envelope/sp-adapter': patch\n'@mcp-envelope/ads-adapter': patch\n---\n\nCutover: `legacy_error_kind` is no longer sent.\n",
    );
    await pnpm(['run', 'fixtures:update'], 'release 3: pnpm run fixtures:update');
    expect(fixturesWithLegacy()).toEqual([]);
    await git('add', '-A');
    await git('commit', '--quiet', '-m', 'drop the migrations release 1 shipped');
    await pnpm(workflowCommands().version, 'release 3: pnpm run version-packages');
    await git('add', '-A');
    await git('commit', '--quiet', '-m', 'Version Packages');
    await pnpm(workflowCommands().publish, 'release 3: pnpm run release');
    for (const [, name] of PACKAGES)
      expect(await publishedVersions(name)).toEqual([firstRelease().version, patchRelease()]);
  });

  it('release 3 from a clean folder: no legacy_error_kind for either reader, and both servers probe CONFORMANT with the installed CLI', async () => {
    const { consumer, upstreamUrl } = rehearsal();
    const names = [
      '@mcp-envelope/sp-adapter',
      '@mcp-envelope/ads-adapter',
      '@mcp-envelope/contract',
      '@mcp-envelope/amazon',
      '@mcp-envelope/conformance',
    ];
    await step(
      `consumer: npm install ${patchRelease()}`,
      'npm',
      ['install', ...names.map((name) => `${name}@${patchRelease()}`)],
      consumer,
      loopbackNpmEnv(consumer),
    );
    for (const call of Object.values(NOT_FOUND_CALLS)) expectWindow(await callBoth(call, patchRelease()), call, false);
    for (const bin of ['mcp-envelope-sp', 'mcp-envelope-ads']) {
      const answer = JSON.parse(
        (
          await step(
            `consumer: ${bin} unknown tool (${patchRelease()})`,
            process.execPath,
            ['unknown-tool.mjs', bin, '--upstream', upstreamUrl],
            consumer,
            loopbackNpmEnv(consumer),
          )
        ).output,
      ) as Record<string, unknown>;
      expect([answer['error_kind'], answer['legacy_error_kind']]).toEqual(['tool_not_found', undefined]);
      const probe = await step(
        `consumer: mcp-envelope-conformance probe ${bin}`,
        'npx',
        [
          '--no-install',
          'mcp-envelope-conformance',
          'probe',
          '--stdio',
          `npx --no-install ${bin} --upstream ${upstreamUrl}`,
          '--max-tools',
          '3',
        ],
        consumer,
        loopbackNpmEnv(consumer),
      );
      expect(probe.output).toContain('verdict: CONFORMANT');
    }
  });

  it('a TypeScript consumer of the published packages type-checks under NodeNext and Bundler, and a wrong use fails', async () => {
    const { consumer } = rehearsal();
    const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
      const checked = await step(
        `consumer: tsc -p ${config}`,
        process.execPath,
        [tsc, '-p', config],
        consumer,
        loopbackNpmEnv(consumer),
      );
      expect(checked.output).toBe('');
    }
    const wrong = await step(
      'consumer: tsc -p tsconfig.wrong.json',
      process.execPath,
      [tsc, '-p', 'tsconfig.wrong.json'],
      consumer,
      loopbackNpmEnv(consumer),
      'nonzero',
    );
    expect(wrong.output).toContain(
      "src/wrong.ts(3,14): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(wrong.output).toContain(`src/wrong.ts(4,14): error TS2322: Type '"mars"' is not assignable to type`);
  });
});
