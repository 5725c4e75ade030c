/**
 * Generating the conformance fixtures from the running reference servers, writing them, and
 * comparing them with the checked-in files. A fixture is `{ _fixture_meta, envelope }` or
 * `{ _fixture_meta, response }` (the shape `validate` and the release check read). Each scenario
 * is run twice: as a client that reads version 2 (`fixtures/<server>/`) and as a client that
 * states no version, as every reader of version 1 (`fixtures/v1/<server>/`, same file names).
 *
 * Generation is deterministic: the upstream answers are recorded, the clock only matters for
 * HTTP-date `Retry-After` values (measured against the recorded `Date` header), and the random
 * `correlation_id` of internal errors is replaced by {@link FIXED_CORRELATION_ID}.
 *
 * @packageDocumentation
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { unwrapToolResult, validateEnvelopeVersion } from '@mcp-envelope/contract';
import type { ContractVersion } from '@mcp-envelope/contract';

import { describeValue } from '../call-outcome.js';
import { isRecord } from '@mcp-envelope/contract';
import type { UpstreamCase } from './cases.js';
import { READER_VERSIONS } from './environment.js';
import type { GateEnvironment, GateReader, RawOutcome } from './environment.js';
import type { GateServer } from './descriptor.js';
import { fixturePlan, resolveFixtureCall } from './fixture-plan.js';
import type { FixtureScenario } from './fixture-plan.js';
import { variantEnv } from './reference-servers.js';
import type { ServerId } from './reference-servers.js';

/** Stands in for the random `_meta.correlation_id` of an `internal_error` envelope. */
export const FIXED_CORRELATION_ID = '00000000-0000-4000-8000-000000000000';

/** One generated fixture. */
export interface GeneratedFixture {
  readonly server: ServerId;
  readonly scenario: FixtureScenario;
  /** The envelope version the reader that made the call gets (2: states `[1, 2]`; 1: states none). */
  readonly version: ContractVersion;
  /** The file's JSON value. */
  readonly document: Readonly<Record<string, unknown>>;
  /** The envelope (error fixtures) or the `structuredContent` (success fixtures), as normalized. */
  readonly payload: unknown;
  /** Why the outcome is not what the scenario wants (empty when it is). */
  readonly problems: readonly string[];
}

/** The readers fixtures are generated for, with the envelope version each gets (version 1 only from a server that speaks it). */
export const FIXTURE_READERS: readonly { readonly reader: GateReader; readonly version: ContractVersion }[] = [
  { reader: 'v2', version: 2 },
  { reader: 'v1', version: 1 },
];

/**
 * A fixture's path under the fixtures folder: `<server>/<scenario>.json` for version 2,
 * `v1/<server>/<scenario>.json` for version 1.
 *
 * @param fixture - the server, scenario id and version.
 * @returns the relative path, `/`-separated.
 */
export function fixtureFile(fixture: Pick<GeneratedFixture, 'server' | 'scenario' | 'version'>): string {
  return `${fixture.version === 1 ? 'v1/' : ''}${fixture.server}/${fixture.scenario.id}.json`;
}

/** Stands in for the replay server's `host:port`, which the OS picks anew on every run. */
export const REPLAY_HOST_PLACEHOLDER = '127.0.0.1:<replay-port>';

function correlationIds(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const entry of value) correlationIds(entry, found);
  else if (isRecord(value)) {
    for (const [key, entry] of Object.entries(value)) {
      if (key === 'correlation_id' && typeof entry === 'string' && entry !== '') found.add(entry);
      else correlationIds(entry, found);
    }
  }
  return found;
}

function replaceRunValues(value: unknown, replacements: readonly (readonly [string, string])[]): unknown {
  if (typeof value === 'string') return replacements.reduce((text, [from, to]) => text.split(from).join(to), value);
  if (Array.isArray(value)) return value.map((entry) => replaceRunValues(entry, replacements));
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, replaceRunValues(entry, replacements)]));
}

/**
 * Replaces values that differ from run to run: every `correlation_id` value (and its mentions in
 * any string, such as a hint) becomes {@link FIXED_CORRELATION_ID}, and the replay server's
 * `host:port` inside any string becomes {@link REPLAY_HOST_PLACEHOLDER}.
 *
 * @param value - an envelope or result.
 * @param replayHost - the replay server's `host:port`, e.g. `127.0.0.1:40111` (`''` for none).
 * @returns a copy with the run-specific values fixed.
 */
export function normalizeRunValues(value: unknown, replayHost: string): unknown {
  const replacements: [string, string][] = [...correlationIds(value, new Set())].map((id) => [
    id,
    FIXED_CORRELATION_ID,
  ]);
  if (replayHost !== '') replacements.push([replayHost, REPLAY_HOST_PLACEHOLDER]);
  return replaceRunValues(value, replacements);
}

/**
 * The envelope or success `structuredContent` of a raw outcome, normalized with
 * {@link normalizeRunValues}, and what is wrong with it for a fixture that holds `holds`.
 *
 * @param outcome - what the call gave.
 * @param holds - `envelope` (an error is wanted) or `response` (a success with `_meta`).
 * @param replayHost - the replay server's `host:port`.
 * @param version - the envelope version the reader gets; an envelope of another version is a problem (default 2).
 * @returns the normalized payload (`null` when there is none) and the problems.
 */
export function payloadOf(
  outcome: RawOutcome,
  holds: 'envelope' | 'response',
  replayHost: string,
  version: ContractVersion = 2,
): { payload: unknown; problems: string[] } {
  if (outcome.type === 'thrown')
    return { payload: null, problems: [`the call failed without a result: ${describeValue(outcome.error)}`] };
  // A success is told by isError alone: a success body may have an `error` key of its own (an Ads 207 batch).
  const isError = isRecord(outcome.result) && outcome.result['isError'] === true;
  const unwrapped = unwrapToolResult(outcome.result);
  if (holds === 'envelope') {
    if (!isError || unwrapped.ok) return { payload: null, problems: ['expected an error envelope, got a success'] };
    if (!('envelope' in unwrapped))
      return { payload: null, problems: [`expected an error envelope, got: ${describeValue(unwrapped.text)}`] };
    const envelope = normalizeRunValues(unwrapped.envelope, replayHost);
    const validation = validateEnvelopeVersion(envelope, version);
    return {
      payload: envelope,
      problems: validation.valid
        ? []
        : validation.errors.map((error) => `not a valid version ${version} envelope: ${error.path}: ${error.message}`),
    };
  }
  if (isError)
    return {
      payload: null,
      problems: [
        `expected a success, got ${!unwrapped.ok && 'envelope' in unwrapped ? `${unwrapped.envelope.error_kind}/${unwrapped.envelope.error_code}` : 'an error'}`,
      ],
    };
  const structured = isRecord(outcome.result) ? outcome.result['structuredContent'] : undefined;
  if (!isRecord(structured) || !isRecord(structured['_meta']))
    return { payload: structured ?? null, problems: ['the success result carries no structuredContent._meta'] };
  return { payload: normalizeRunValues(structured, replayHost), problems: [] };
}

function switchesOf(scenario: FixtureScenario): Record<string, string> {
  const env = variantEnv(scenario.variant);
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('MCP_')));
}

/** The `_fixture_meta` of one fixture: where it came from and how to make it again. */
function fixtureMeta(
  gated: GateServer,
  scenario: FixtureScenario,
  call: { tool: string; arguments: Readonly<Record<string, unknown>> },
  reader: GateReader,
): Record<string, unknown> {
  const stated = READER_VERSIONS[reader];
  const server = gated.id;
  return {
    server,
    scenario: scenario.id,
    about: scenario.about,
    generated_by: `pnpm fixtures:update: ${gated.bin} over stdio, upstream replayed`,
    reader:
      stated === undefined
        ? 'a client that states no contract version (a reader of version 1)'
        : `a client that states contract_versions [${stated.join(', ')}]`,
    switches: switchesOf(scenario),
    call: { tool: call.tool, arguments: call.arguments },
    ...(scenario.calls[server]?.upstreamCase === undefined
      ? {}
      : { upstream_case: scenario.calls[server].upstreamCase }),
  };
}

/**
 * Runs every fixture scenario on the servers that take part in it, once per reader (see
 * {@link FIXTURE_READERS}; the version 1 reader only on servers that speak version 1), and builds
 * the fixture documents.
 *
 * @param environment - the running gate environment.
 * @param cases - the recorded cases, by id (scenarios replay their upstream answers).
 * @param scenarios - the scenarios (default the plan of the environment's servers, `fixturePlan`).
 * @param readers - the readers (default both).
 * @returns one generated fixture per (reader, server, scenario) that applies, in plan order per server.
 */
export async function generateFixtures(
  environment: GateEnvironment,
  cases: ReadonlyMap<string, UpstreamCase>,
  scenarios: readonly FixtureScenario[] = fixturePlan(environment.servers),
  readers: readonly { readonly reader: GateReader; readonly version: ContractVersion }[] = FIXTURE_READERS,
): Promise<GeneratedFixture[]> {
  const generated: GeneratedFixture[] = [];
  for (const { reader, version } of readers) {
    for (const gated of environment.servers) {
      if (!gated.contract_versions.includes(version)) continue;
      const server = gated.id;
      for (const scenario of scenarios) {
        const planned = scenario.calls[server];
        if (planned === undefined) continue;
        const call = resolveFixtureCall(planned, cases);
        const outcome = await environment.call(
          server,
          scenario.variant,
          call.tool,
          call.arguments,
          call.upstream,
          reader,
        );
        const replayHost = new URL(environment.replay.url).host;
        const { payload, problems } = payloadOf(outcome, scenario.holds, replayHost, version);
        const meta = fixtureMeta(gated, scenario, call, reader);
        const document =
          scenario.holds === 'envelope'
            ? { _fixture_meta: meta, envelope: payload }
            : { _fixture_meta: meta, response: { structuredContent: payload } };
        generated.push({ server, scenario, version, document, payload, problems });
      }
    }
  }
  return generated;
}

/** The text a fixture file holds: two-space JSON and a final newline. */
export function fixtureText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The folders the fixtures live in, relative to the fixtures folder: one per (version, server) generated. */
function fixtureFolders(
  fixtures: readonly GeneratedFixture[],
): { version: ContractVersion; server: ServerId; folder: string }[] {
  const folders = new Map<string, { version: ContractVersion; server: ServerId; folder: string }>();
  for (const { version, server } of fixtures) {
    const folder = `${version === 1 ? 'v1/' : ''}${server}`;
    folders.set(folder, { version, server, folder });
  }
  return [...folders.values()];
}

/**
 * Writes the fixtures to `<folder>/<server>/<scenario>.json` (version 2) and
 * `<folder>/v1/<server>/<scenario>.json` (version 1), removing other `*.json` files in those
 * folders so that a scenario that no longer exists leaves no stale file.
 *
 * @param folder - e.g. `conformance/fixtures`.
 * @param fixtures - from {@link generateFixtures}.
 * @returns the paths written.
 */
export function writeFixtures(folder: string, fixtures: readonly GeneratedFixture[]): string[] {
  const written: string[] = [];
  for (const { version, server, folder: relative } of fixtureFolders(fixtures)) {
    const mine = fixtures.filter((fixture) => fixture.server === server && fixture.version === version);
    const serverFolder = join(folder, relative);
    mkdirSync(serverFolder, { recursive: true });
    const keep = new Set(mine.map((fixture) => `${fixture.scenario.id}.json`));
    for (const name of readdirSync(serverFolder))
      if (name.endsWith('.json') && !keep.has(name)) rmSync(join(serverFolder, name));
  }
  for (const fixture of fixtures) {
    const path = join(folder, fixtureFile(fixture));
    writeFileSync(path, fixtureText(fixture.document), 'utf8');
    written.push(path);
  }
  return written;
}

/** How one checked-in fixture compares with a freshly generated one. */
export interface FixtureComparison {
  readonly server: ServerId;
  readonly version: ContractVersion;
  /** The path under the fixtures folder, e.g. `sp/tool-not-found.json` or `v1/sp/tool-not-found.json`. */
  readonly file: string;
  readonly status: 'same' | 'different' | 'missing' | 'extra';
}

/**
 * Compares generated fixtures with the files in a folder (text equality after formatting).
 *
 * @param folder - the folder holding `<server>/<scenario>.json` and `v1/<server>/<scenario>.json`.
 * @param fixtures - freshly generated fixtures.
 * @returns one entry per generated fixture and per extra file on disk (in a folder of a version generated).
 */
export function compareFixtures(folder: string, fixtures: readonly GeneratedFixture[]): FixtureComparison[] {
  const comparisons: FixtureComparison[] = [];
  for (const fixture of fixtures) {
    const file = fixtureFile(fixture);
    const path = join(folder, file);
    const { server, version } = fixture;
    if (!existsSync(path)) comparisons.push({ server, version, file, status: 'missing' });
    else {
      const same = readFileSync(path, 'utf8') === fixtureText(fixture.document);
      comparisons.push({ server, version, file, status: same ? 'same' : 'different' });
    }
  }
  for (const { version, server, folder: relative } of fixtureFolders(fixtures)) {
    const serverFolder = join(folder, relative);
    const mine = fixtures.filter((fixture) => fixture.server === server && fixture.version === version);
    if (!existsSync(serverFolder)) continue;
    const known = new Set(mine.map((fixture) => `${fixture.scenario.id}.json`));
    for (const name of readdirSync(serverFolder).sort())
      if (name.endsWith('.json') && !known.has(name))
        comparisons.push({ server, version, file: `${relative}/${name}`, status: 'extra' });
  }
  return comparisons;
}
