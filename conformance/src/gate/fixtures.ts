/**
 * Generating the conformance fixtures from the running reference servers, writing them, and
 * comparing them with the checked-in files. A fixture is `{ _fixture_meta, envelope }` or
 * `{ _fixture_meta, response }` (the shape `validate` and the release check read).
 *
 * Generation is deterministic: the upstream answers are recorded, the clock only matters for
 * HTTP-date `Retry-After` values (measured against the recorded `Date` header), and the random
 * `correlation_id` of internal errors is replaced by {@link FIXED_CORRELATION_ID}.
 *
 * @packageDocumentation
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { unwrapToolResult, validateEnvelope } from '@mcp-envelope/contract';

import { describeValue } from '../call-outcome.js';
import { isRecord } from '../json-schema.js';
import type { UpstreamCase } from './cases.js';
import type { GateEnvironment, RawOutcome } from './environment.js';
import { FIXTURE_SCENARIOS, resolveFixtureCall } from './fixture-plan.js';
import type { FixtureScenario } from './fixture-plan.js';
import { REFERENCE_SERVERS, SERVER_IDS, variantEnv } from './reference-servers.js';
import type { ServerId } from './reference-servers.js';

/** Stands in for the random `_meta.correlation_id` of an `internal_error` envelope. */
export const FIXED_CORRELATION_ID = '00000000-0000-4000-8000-000000000000';

/** One generated fixture. */
export interface GeneratedFixture {
  readonly server: ServerId;
  readonly scenario: FixtureScenario;
  /** The file's JSON value. */
  readonly document: Readonly<Record<string, unknown>>;
  /** The envelope (error fixtures) or the `structuredContent` (success fixtures), as normalized. */
  readonly payload: unknown;
  /** Why the outcome is not what the scenario wants (empty when it is). */
  readonly problems: readonly string[];
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
 * @returns the normalized payload (`null` when there is none) and the problems.
 */
export function payloadOf(
  outcome: RawOutcome,
  holds: 'envelope' | 'response',
  replayHost: string,
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
    const validation = validateEnvelope(envelope);
    return {
      payload: envelope,
      problems: validation.valid ? [] : validation.errors.map((error) => `${error.path}: ${error.message}`),
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
  const env = variantEnv(scenario.variant, '');
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('MCP_')));
}

/**
 * Runs every fixture scenario on both servers and builds the fixture documents.
 *
 * @param environment - the running gate environment.
 * @param cases - the recorded cases, by id (scenarios replay their upstream answers).
 * @param scenarios - the scenarios (default {@link FIXTURE_SCENARIOS}).
 * @returns one generated fixture per (server, scenario) that applies, in plan order per server.
 */
export async function generateFixtures(
  environment: GateEnvironment,
  cases: ReadonlyMap<string, UpstreamCase>,
  scenarios: readonly FixtureScenario[] = FIXTURE_SCENARIOS,
): Promise<GeneratedFixture[]> {
  const generated: GeneratedFixture[] = [];
  for (const server of SERVER_IDS) {
    for (const scenario of scenarios) {
      const planned = scenario.calls[server];
      if (planned === undefined) continue;
      const call = resolveFixtureCall(planned, cases);
      const outcome = await environment.call(server, scenario.variant, call.tool, call.arguments, call.upstream);
      const { payload, problems } = payloadOf(outcome, scenario.holds, new URL(environment.replay.url).host);
      const meta = {
        server,
        scenario: scenario.id,
        about: scenario.about,
        generated_by: `pnpm fixtures:update: ${REFERENCE_SERVERS[server].binName} over stdio, upstream replayed`,
        switches: switchesOf(scenario),
        call: { tool: call.tool, arguments: call.arguments },
        ...(planned.upstreamCase === undefined ? {} : { upstream_case: planned.upstreamCase }),
      };
      const document =
        scenario.holds === 'envelope'
          ? { _fixture_meta: meta, envelope: payload }
          : { _fixture_meta: meta, response: { structuredContent: payload } };
      generated.push({ server, scenario, document, payload, problems });
    }
  }
  return generated;
}

/** The text a fixture file holds: two-space JSON and a final newline. */
export function fixtureText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Writes the fixtures to `<folder>/<server>/<scenario>.json`, removing other `*.json` files in
 * those server folders so that a scenario that no longer exists leaves no stale file.
 *
 * @param folder - e.g. `conformance/fixtures`.
 * @param fixtures - from {@link generateFixtures}.
 * @returns the paths written.
 */
export function writeFixtures(folder: string, fixtures: readonly GeneratedFixture[]): string[] {
  const written: string[] = [];
  for (const server of SERVER_IDS) {
    const serverFolder = join(folder, server);
    mkdirSync(serverFolder, { recursive: true });
    const keep = new Set(
      fixtures.filter((fixture) => fixture.server === server).map((fixture) => `${fixture.scenario.id}.json`),
    );
    for (const name of readdirSync(serverFolder))
      if (name.endsWith('.json') && !keep.has(name)) rmSync(join(serverFolder, name));
  }
  for (const fixture of fixtures) {
    const path = join(folder, fixture.server, `${fixture.scenario.id}.json`);
    writeFileSync(path, fixtureText(fixture.document), 'utf8');
    written.push(path);
  }
  return written;
}

/** How one checked-in fixture compares with a freshly generated one. */
export interface FixtureComparison {
  readonly server: ServerId;
  readonly file: string;
  readonly status: 'same' | 'different' | 'missing' | 'extra';
}

/**
 * Compares generated fixtures with the files in a folder (text equality after formatting).
 *
 * @param folder - the folder holding `<server>/<scenario>.json`.
 * @param fixtures - freshly generated fixtures.
 * @returns one entry per generated fixture and per extra file on disk.
 */
export function compareFixtures(folder: string, fixtures: readonly GeneratedFixture[]): FixtureComparison[] {
  const comparisons: FixtureComparison[] = [];
  for (const fixture of fixtures) {
    const file = `${fixture.server}/${fixture.scenario.id}.json`;
    const path = join(folder, file);
    if (!existsSync(path)) comparisons.push({ server: fixture.server, file, status: 'missing' });
    else
      comparisons.push({
        server: fixture.server,
        file,
        status: readFileSync(path, 'utf8') === fixtureText(fixture.document) ? 'same' : 'different',
      });
  }
  for (const server of SERVER_IDS) {
    const serverFolder = join(folder, server);
    if (!existsSync(serverFolder)) continue;
    const known = new Set(
      fixtures.filter((fixture) => fixture.server === server).map((fixture) => `${fixture.scenario.id}.json`),
    );
    for (const name of readdirSync(serverFolder).sort())
      if (name.endsWith('.json') && !known.has(name))
        comparisons.push({ server, file: `${server}/${name}`, status: 'extra' });
  }
  return comparisons;
}
