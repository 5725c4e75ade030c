/**
 * `runGate`: the conformance gate for the servers of the server list (servers.ts; each described
 * by its package's `conformance/server.json`). Starts the upstream replay server, starts each
 * server over stdio pointed at it as its descriptor says, and runs
 * the probe battery, the upstream battery (every recorded case, as a client that reads version 2
 * and as one that states no version), the fixture battery (every fixture of both versions
 * regenerated and compared with the checked-in file, each version 1 file tied to its version 2
 * twin), the capability checks (versions 1 and 2 spoken, advertised kinds = emitted kinds per
 * version), the cross-server parity rows on version 2 kinds and the Code Mode battery (see
 * code-mode.ts). Implements CONTRACT.md "Conformance" for the project's own servers.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { unwrapToolResult, validateEnvelopeVersion } from '@mcp-envelope/contract';
import type { ContractVersion } from '@mcp-envelope/contract';
import { PACKAGE_VERSION } from '@mcp-envelope/core';

import { describeValue } from '../call-outcome.js';
import { checkCapability, contractToolDisagreements } from '../capability-check.js';
import type { CapabilityStatus } from '../report-types.js';
import { displayStdioCommand, parseStdioCommand } from '../command-line.js';
import { isRecord } from '@mcp-envelope/contract';
import { probeServer } from '../probe.js';
import { truncate } from '../probe-evaluate.js';
import { checkDocument } from '../validate-files.js';
import { gateCases } from './cases.js';
import type { ExpectedEnvelope, ExpectedEnvelopeV1, ExpectedSuccess, UpstreamCase } from './cases.js';
import { startGateEnvironment } from './environment.js';
import type { GateEnvironment, GateReader, RawOutcome } from './environment.js';
import { codeModeRows } from './code-mode.js';
import { limiterRows } from './limiter.js';
import { compareFixtures, fixtureFile, generateFixtures } from './fixtures.js';
import type { FixtureComparison, GeneratedFixture } from './fixtures.js';
import { GATE_SECTIONS, totalsOf } from './gate-report.js';
import { parityRows } from './parity.js';
import { twinProblems } from './twins.js';
import type { TwinServer } from './twins.js';
import type { GateReport, GateRow, GateSection, GateServerInfo, GateTotals } from './gate-report.js';
import { loadGateServers } from './descriptor.js';
import { PACKAGE_ROOT, serverCommandLine } from './reference-servers.js';
import type { ServerId } from './reference-servers.js';
import { GATE_SERVER_PACKAGES } from './servers.js';

/** Options of {@link runGate}. */
export interface GateOptions {
  /** The server packages, or package folders, to gate (default `GATE_SERVER_PACKAGES`). */
  readonly serverPackages?: readonly string[];
  /** One folder holding every server's recorded cases (default: each descriptor's `cases` folder). */
  readonly casesFolder?: string;
  /** Folder of the checked-in fixtures (default the package's `fixtures/`). */
  readonly fixturesFolder?: string;
  /** Replace the command that starts a server (the gate's flags are appended). */
  readonly commands?: Partial<Record<ServerId, string>>;
  /** Leave out the probe battery (its rows are then absent). */
  readonly skipProbe?: boolean;
  /** Timeout of each request in milliseconds. */
  readonly timeoutMs?: number;
  /** Called with a short line as each part starts. */
  readonly onProgress?: (line: string) => void;
}

function row(
  section: GateSection,
  server: string,
  check: string,
  expected: string,
  got: string,
  notes: readonly string[],
  start: number,
  skipped = false,
): GateRow {
  return {
    section,
    server,
    check,
    expected,
    got,
    result: skipped ? 'SKIP' : notes.length === 0 ? 'PASS' : 'FAIL',
    note: notes.join('; '),
    duration_ms: Math.round(performance.now() - start),
  };
}

function withoutNormalized(meta: unknown): Record<string, unknown> | undefined {
  if (!isRecord(meta)) return undefined;
  const copy = Object.fromEntries(Object.entries(meta).filter(([key]) => key !== 'normalized'));
  return Object.keys(copy).length === 0 ? undefined : copy;
}

function metaLabel(meta: Readonly<Record<string, unknown>> | undefined): string {
  return meta === undefined ? 'no _meta' : `_meta{${Object.keys(meta).join(',')}}`;
}

/** Any case expectation: of a reader of version 2 or of version 1. */
export type CaseExpectation = ExpectedEnvelope | ExpectedEnvelopeV1 | ExpectedSuccess;

/** An envelope's or expectation's verdict in one line: kind/code, upstream, retryable, legacy, `_meta` keys. */
function verdictLabel(
  verdict: Readonly<{
    error_kind: string;
    error_code: string;
    upstream?: unknown;
    retryable: unknown;
    legacy_error_kind?: unknown;
  }>,
  meta: Readonly<Record<string, unknown>> | undefined,
): string {
  const upstream = typeof verdict.upstream === 'string' ? ` upstream=${verdict.upstream}` : '';
  const legacy = typeof verdict.legacy_error_kind === 'string' ? ` legacy=${verdict.legacy_error_kind}` : '';
  return `${verdict.error_kind}/${verdict.error_code}${upstream} retryable=${String(verdict.retryable)}${legacy} ${metaLabel(meta)}`;
}

function expectedLabel(expected: CaseExpectation): string {
  if (expected.outcome === 'success') return `success ${metaLabel(expected._meta)}`;
  return verdictLabel(expected, expected._meta);
}

/** The differences between an envelope's fields and an expectation's, field by field. */
function envelopeDifferences(
  envelope: Readonly<Record<string, unknown>>,
  expected: ExpectedEnvelope | ExpectedEnvelopeV1,
  version: ContractVersion,
): string[] {
  const differences: string[] = [];
  const validation = validateEnvelopeVersion(envelope, version);
  if (!validation.valid)
    differences.push(
      `not a valid version ${version} envelope: ${validation.errors.map((error) => `${error.path} ${error.message}`).join(', ')}`,
    );
  const fields = ['error_kind', 'error_code', 'upstream', 'retryable', 'legacy_error_kind'] as const;
  for (const field of fields) {
    const want = (expected as unknown as Readonly<Record<string, unknown>>)[field];
    const label = (value: unknown): string =>
      value === undefined ? 'absent' : JSON.stringify(value).replace(/^"|"$/g, '');
    if (envelope[field] !== want) differences.push(`${field} ${label(envelope[field])}, expected ${label(want)}`);
  }
  const details = Array.isArray(envelope['details']) ? (envelope['details'] as unknown[]) : [];
  const saysEffectUnknown = details.some((detail) => isRecord(detail) && detail['reason'] === 'effect_unknown');
  if (saysEffectUnknown !== (expected.effect_unknown === true))
    differences.push(
      saysEffectUnknown ? 'an effect_unknown detail, expected none' : 'no effect_unknown detail, expected one',
    );
  const meta = withoutNormalized(envelope['_meta']);
  if (!isDeepStrictEqual(meta, expected._meta))
    differences.push(
      `_meta is ${truncate(JSON.stringify(meta) ?? 'absent', 200)}, expected ${truncate(JSON.stringify(expected._meta) ?? 'absent', 200)}`,
    );
  return differences;
}

/**
 * Judges one outcome against a case's expectation, field by field: kind, code, `upstream`,
 * retryable, `legacy_error_kind`, the effect-unknown detail (present exactly when `effect_unknown`)
 * and `_meta` (exact, `normalized` aside) for an envelope, which
 * must also validate as an envelope of `version`; `_meta` of `structuredContent` for a success.
 *
 * @param expected - the case's expectation for the reader of `version`.
 * @param outcome - what the call gave.
 * @param version - the envelope version the reader gets (default 2).
 * @returns what arrived, as a label, and every difference found (empty when it matches).
 */
export function judgeCase(
  expected: CaseExpectation,
  outcome: RawOutcome,
  version: ContractVersion = 2,
): { got: string; differences: string[] } {
  if (outcome.type === 'thrown')
    return { got: 'call failed', differences: [`no result: ${truncate(describeValue(outcome.error))}`] };
  // A success is told by isError alone: a success body may have an `error` key of its own (an Ads 207 batch).
  const isError = isRecord(outcome.result) && outcome.result['isError'] === true;
  const unwrapped = unwrapToolResult(
    isError ? outcome.result : { ...(outcome.result as object), structuredContent: undefined },
  );
  if (expected.outcome === 'success') {
    if (isError)
      return {
        got:
          !unwrapped.ok && 'envelope' in unwrapped
            ? `${unwrapped.envelope.error_kind}/${unwrapped.envelope.error_code}`
            : 'error without envelope',
        differences: ['expected a success'],
      };
    const structured = isRecord(outcome.result) ? outcome.result['structuredContent'] : undefined;
    const meta = withoutNormalized(isRecord(structured) ? structured['_meta'] : undefined);
    const differences = isDeepStrictEqual(meta, expected._meta)
      ? []
      : [
          `_meta is ${truncate(JSON.stringify(meta) ?? 'absent', 200)}, expected ${truncate(JSON.stringify(expected._meta) ?? 'absent', 200)}`,
        ];
    return { got: `success ${metaLabel(meta)}`, differences };
  }
  if (!isError || unwrapped.ok) return { got: 'success', differences: ['expected an error envelope'] };
  if (!('envelope' in unwrapped))
    return { got: 'no envelope', differences: [`an error without an envelope: ${truncate(unwrapped.text)}`] };
  const envelope = unwrapped.envelope as unknown as Readonly<Record<string, unknown>>;
  return {
    got: verdictLabel(unwrapped.envelope, withoutNormalized(envelope['_meta'])),
    differences: envelopeDifferences(envelope, expected, version),
  };
}

/** The readers each case is replayed for, with the expectation and envelope version each gets (none: not replayed). */
const CASE_READERS: readonly {
  readonly reader: GateReader;
  readonly version: ContractVersion;
  readonly expectation: (recorded: UpstreamCase) => CaseExpectation | undefined;
  readonly suffix: string;
}[] = [
  { reader: 'v2', version: 2, expectation: (recorded) => recorded.expected, suffix: '' },
  { reader: 'v1', version: 1, expectation: (recorded) => recorded.expected_v1, suffix: ' (v1 reader)' },
];

/**
 * Every case replayed once per reader: a client that reads version 2, then one that states nothing
 * (on a server that speaks version 1, whose cases say what it gets).
 */
async function upstreamRows(environment: GateEnvironment, cases: readonly UpstreamCase[]): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const recorded of cases) {
    for (const { reader, version, expectation, suffix } of CASE_READERS) {
      const expected = expectation(recorded);
      if (expected === undefined) continue;
      const start = performance.now();
      const outcome = await environment.call(
        recorded.server,
        recorded.variant,
        recorded.call.tool,
        recorded.call.arguments,
        recorded.upstream,
        reader,
      );
      const judged = judgeCase(expected, outcome, version);
      rows.push(
        row(
          'upstream',
          recorded.server,
          `${recorded.id}${suffix}`,
          expectedLabel(expected),
          judged.got,
          judged.differences,
          start,
        ),
      );
    }
  }
  return rows;
}

/** What a fixture row says about a file besides its comparison: the file's validity, and a v1 file's tie to its v2 twin. */
function fileNotes(folder: string, comparison: FixtureComparison, twins: ReadonlyMap<ServerId, TwinServer>): string[] {
  if (comparison.status === 'missing') return [];
  const text = (file: string): unknown => JSON.parse(readFileSync(join(folder, file), 'utf8')) as unknown;
  const document = text(comparison.file);
  const notes = checkDocument(document).violations.map(
    (violation) => `invalid fixture at ${violation.path || '(root)'}: ${violation.reason}`,
  );
  const envelope = isRecord(document) ? document['envelope'] : undefined;
  if (envelope !== undefined) {
    const validation = validateEnvelopeVersion(envelope, comparison.version);
    if (!validation.valid) notes.push(`not a valid version ${comparison.version} envelope`);
  }
  const twin = twins.get(comparison.server);
  const twinFile = comparison.file.replace(/^v1\//, '');
  if (comparison.version === 1 && twin !== undefined && existsSync(join(folder, twinFile)))
    notes.push(...twinProblems(document, text(twinFile), twin).map((problem) => `v2 twin ${twinFile}: ${problem}`));
  return notes;
}

const COMPARISON_NOTES: Readonly<Record<FixtureComparison['status'], string | undefined>> = {
  same: undefined,
  different:
    'the server now emits something else than the checked-in fixture: run pnpm fixtures:update and review the diff',
  missing: 'no checked-in fixture: run pnpm fixtures:update',
  extra: 'no scenario produces this file: run pnpm fixtures:update to remove it',
};

/**
 * One row per fixture file of both versions: identical to what the servers emit now, valid as an
 * envelope of its version, and, for a version 1 file, equal to its version 2 twin's projection.
 */
function fixtureRows(
  fixtures: readonly GeneratedFixture[],
  folder: string,
  twins: ReadonlyMap<ServerId, TwinServer>,
): GateRow[] {
  const rows: GateRow[] = [];
  for (const comparison of compareFixtures(folder, fixtures)) {
    const start = performance.now();
    const fixture = fixtures.find((entry) => fixtureFile(entry) === comparison.file);
    const status = COMPARISON_NOTES[comparison.status];
    const notes = [
      ...(fixture?.problems ?? []),
      ...(status === undefined ? [] : [status]),
      ...fileNotes(folder, comparison, twins),
    ];
    const payload = fixture?.payload;
    const got =
      isRecord(payload) && typeof payload['error_kind'] === 'string'
        ? `v${String(payload['_envelope_version'])} ${payload['error_kind']}/${String(payload['error_code'])}`
        : fixture === undefined
          ? '-'
          : 'success';
    const expected =
      fixture === undefined
        ? 'a scenario for it'
        : `v${fixture.version} ${fixture.scenario.holds} identical to the file${fixture.version === 1 ? ', the v2 twin projected' : ''}`;
    rows.push(
      row('fixtures', comparison.server, comparison.file, expected, `${got} (${comparison.status})`, notes, start),
    );
  }
  return rows;
}

/** The kinds the checked-in fixtures of one server and version hold. */
function fixtureKinds(
  folder: string,
  server: ServerId,
  version: ContractVersion,
  fixtures: readonly GeneratedFixture[],
): Set<string> {
  const kinds = new Set<string>();
  for (const fixture of fixtures) {
    if (fixture.server !== server || fixture.version !== version) continue;
    try {
      const value: unknown = JSON.parse(readFileSync(join(folder, fixtureFile(fixture)), 'utf8'));
      const envelope = isRecord(value) ? value['envelope'] : undefined;
      if (isRecord(envelope) && typeof envelope['error_kind'] === 'string') kinds.add(envelope['error_kind']);
    } catch {
      // A missing fixture is reported by the fixture battery.
    }
  }
  return kinds;
}

function normalizedKindsOf(fixtures: readonly GeneratedFixture[], server: ServerId): Set<string> {
  const kinds = new Set<string>();
  for (const fixture of fixtures) {
    if (fixture.server !== server || !isRecord(fixture.payload)) continue;
    const meta = fixture.payload['_meta'];
    const events = isRecord(meta) ? meta['normalized'] : undefined;
    if (Array.isArray(events))
      for (const event of events) if (isRecord(event) && typeof event['kind'] === 'string') kinds.add(event['kind']);
  }
  return kinds;
}

function setDifference(left: ReadonlySet<string>, right: ReadonlySet<string>): string[] {
  return [...left].filter((entry) => !right.has(entry)).sort();
}

async function capabilityRows(
  environment: GateEnvironment,
  cases: readonly UpstreamCase[],
  fixtures: readonly GeneratedFixture[],
  folder: string,
): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const gated of environment.servers) {
    const server = gated.id;
    const start = performance.now();
    const status = await capabilityOf(environment, server);
    const versions = status.contract_versions ?? [];
    // a reader of version 1 keeps its envelopes only while the server answers it as its descriptor says
    const declared = `contract_versions [${gated.contract_versions.join(', ')}], contract_version ${gated.default_version}`;
    const window =
      isDeepStrictEqual(versions, gated.contract_versions) && status.contract_version === gated.default_version;
    rows.push(
      row(
        'capability',
        server,
        'capability advertised',
        `${declared} (a client that states nothing reads v${gated.default_version}), each version's kinds within its taxonomy`,
        status.advertised
          ? `${status.location ?? '?'} v${JSON.stringify(status.contract_version) ?? '?'} of [${versions.join(', ')}]`
          : 'not advertised',
        [...status.issues, ...(window || !status.advertised ? [] : [`its descriptor says ${declared}`])],
        start,
      ),
      ...([2, 1] as const)
        .filter((version) => gated.contract_versions.includes(version))
        .map((version) => emittedKindsRow(server, status, cases, fixtures, folder, version)),
      await contractToolRow(environment, server, status),
      await normalizedKindsRow(environment, server, status, fixtures),
    );
  }
  return rows;
}

/** The capability a server advertised to the gate's main session. */
async function capabilityOf(environment: GateEnvironment, server: ServerId): Promise<CapabilityStatus> {
  const session = await environment.session(server, 'main');
  return checkCapability(session.initializeResult?.['capabilities'] ?? session.client.getServerCapabilities());
}

/**
 * The kinds the capability advertises for one version (`error_kinds_by_version`) against those the
 * fixtures of that version and the recorded cases' expectations for its reader emit.
 */
function emittedKindsRow(
  server: ServerId,
  status: CapabilityStatus,
  cases: readonly UpstreamCase[],
  fixtures: readonly GeneratedFixture[],
  folder: string,
  version: ContractVersion,
): GateRow {
  const start = performance.now();
  const advertised = new Set(status.error_kinds_by_version?.[String(version)] ?? []);
  const emitted = fixtureKinds(folder, server, version, fixtures);
  for (const recorded of cases) {
    const expected = version === 2 ? recorded.expected : recorded.expected_v1;
    if (recorded.server === server && expected?.outcome === 'error') emitted.add(expected.error_kind);
  }
  const notEmitted = setDifference(advertised, emitted);
  const notAdvertised = setDifference(emitted, advertised);
  return row(
    'capability',
    server,
    `advertised kinds = emitted kinds (v${version}: error_kinds_by_version["${version}"])`,
    `[${[...advertised].sort().join(', ')}]`,
    `[${[...emitted].sort().join(', ')}] in fixtures and cases`,
    [
      ...notEmitted.map((kind) => `${kind} is advertised but no fixture or case emits it`),
      ...notAdvertised.map((kind) => `${kind} is emitted but not advertised`),
    ],
    start,
  );
}

/** `get_envelope_contract` answers the very object the capability advertises. */
async function contractToolRow(
  environment: GateEnvironment,
  server: ServerId,
  status: CapabilityStatus,
): Promise<GateRow> {
  const start = performance.now();
  const contract = await environment.call(server, 'main', 'get_envelope_contract', {}, []);
  const structured =
    contract.type === 'result' && isRecord(contract.result) ? contract.result['structuredContent'] : undefined;
  const value = isRecord(status.value) ? status.value : {};
  const same = contractToolDisagreements(structured, value).length === 0;
  return row(
    'capability',
    server,
    'get_envelope_contract = capability',
    'the advertised object',
    same ? 'the same object' : truncate(describeValue(structured ?? contract)),
    same ? [] : ['get_envelope_contract differs from the advertised capability'],
    start,
  );
}

/** The normalized kinds advertised by the strict and lenient servers against those the fixtures show. */
async function normalizedKindsRow(
  environment: GateEnvironment,
  server: ServerId,
  status: CapabilityStatus,
  fixtures: readonly GeneratedFixture[],
): Promise<GateRow> {
  const start = performance.now();
  const value = isRecord(status.value) ? status.value : {};
  const lenient = checkCapability((await environment.session(server, 'lenient')).initializeResult?.['capabilities']);
  const advertisedEvents = new Set([
    ...(Array.isArray(value['normalized_kinds']) ? (value['normalized_kinds'] as string[]) : []),
    ...(isRecord(lenient.value) && Array.isArray(lenient.value['normalized_kinds'])
      ? (lenient.value['normalized_kinds'] as string[])
      : []),
  ]);
  const emittedEvents = normalizedKindsOf(fixtures, server);
  return row(
    'capability',
    server,
    'advertised normalized kinds = emitted (strict and lenient)',
    `[${[...advertisedEvents].sort().join(', ')}]`,
    `[${[...emittedEvents].sort().join(', ')}]`,
    [
      ...setDifference(advertisedEvents, emittedEvents).map((kind) => `${kind} is advertised but no fixture shows it`),
      ...setDifference(emittedEvents, advertisedEvents).map((kind) => `${kind} is emitted but not advertised`),
    ],
    start,
  );
}

async function probeRows(environment: GateEnvironment, timeoutMs: number): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const server of environment.servers.map((entry) => entry.id)) {
    environment.replay.reset();
    // Calls that pass validation reach the replay server; any 2xx will do for the probes.
    environment.replay.respond({ status: 200, body: {} });
    const start = performance.now();
    try {
      const report = await probeServer({
        target: { transport: 'stdio', commandLine: serverCommandLine(environment.setup, server, 'probe') },
        timeoutMs,
      });
      for (const probeRow of report.rows) {
        rows.push({
          section: 'probe',
          server,
          check: `${probeRow.probe} ${probeRow.tool}`,
          expected: probeRow.expected,
          got: probeRow.got,
          result: probeRow.result,
          note: probeRow.note,
          duration_ms: probeRow.duration_ms,
        });
      }
    } catch (error) {
      rows.push(
        row(
          'probe',
          server,
          'probe',
          'the probe battery runs',
          'error',
          [`probe failed: ${truncate(describeValue(error))}`],
          start,
        ),
      );
    }
  }
  environment.replay.reset();
  return rows;
}

/** What projecting each server's envelopes needs: its id, its primary upstream (from its capability), its release. */
async function twinServers(environment: GateEnvironment): Promise<Map<ServerId, TwinServer>> {
  const twins = new Map<ServerId, TwinServer>();
  for (const server of environment.servers.map((entry) => entry.id)) {
    const value = (await capabilityOf(environment, server)).value;
    const upstreams = isRecord(value) && Array.isArray(value['upstreams']) ? value['upstreams'] : [];
    const primary = typeof upstreams[0] === 'string' ? upstreams[0] : undefined;
    twins.set(server, { id: server, primaryUpstream: primary, release: PACKAGE_VERSION });
  }
  return twins;
}

async function serverInfos(environment: GateEnvironment): Promise<GateServerInfo[]> {
  const infos: GateServerInfo[] = [];
  for (const server of environment.servers.map((entry) => entry.id)) {
    let name: string | null = null;
    let version: string | null = null;
    let versions: readonly number[] | null = null;
    let defaultVersion: number | null = null;
    try {
      const info = (await environment.session(server, 'main')).client.getServerVersion();
      name = info?.name ?? null;
      version = info?.version ?? null;
      const status = await capabilityOf(environment, server);
      versions = status.contract_versions;
      defaultVersion = typeof status.contract_version === 'number' ? status.contract_version : null;
    } catch {
      // Reported by the rows that needed the session.
    }
    infos.push({
      id: server,
      name,
      version,
      command: displayStdioCommand(parseStdioCommand(serverCommandLine(environment.setup, server, 'main'))),
      contract_versions: versions,
      default_version: defaultVersion,
    });
  }
  return infos;
}

function sectionTotals(rows: readonly GateRow[]): Record<GateSection, GateTotals> {
  return Object.fromEntries(
    GATE_SECTIONS.map((section) => [section, totalsOf(rows.filter((entry) => entry.section === section))]),
  ) as Record<GateSection, GateTotals>;
}

/** A failing row for every always-started session (main, no-credentials, lenient) that does not open. */
async function startRows(environment: GateEnvironment): Promise<GateRow[]> {
  const failedStarts: GateRow[] = [];
  for (const server of environment.servers) {
    for (const variant of ['main', 'no-credentials', 'lenient'] as const) {
      const begin = performance.now();
      try {
        await environment.session(server.id, variant);
      } catch (error) {
        failedStarts.push(
          row(
            'capability',
            server.id,
            `start (${variant})`,
            `${server.bin} answers initialize`,
            'unreachable',
            [truncate(describeValue(error), 400)],
            begin,
          ),
        );
      }
    }
  }
  return failedStarts;
}

/**
 * Runs the whole gate for the servers of the server list. Nothing the servers do makes it throw
 * once the replay server is up: a server that cannot start gives failing rows.
 *
 * @param options - server list, folders, command overrides, timeout, progress.
 * @returns the report; `conformant` is true when no row failed.
 * @throws Error when a server package is not installed, a descriptor or a case file cannot be read (before any server starts).
 */
export async function runGate(options: GateOptions = {}): Promise<GateReport> {
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const servers = loadGateServers(options.serverPackages ?? GATE_SERVER_PACKAGES);
  const fixturesFolder = options.fixturesFolder ?? join(PACKAGE_ROOT, 'fixtures');
  const cases = gateCases(servers, options.casesFolder);
  const progress = options.onProgress ?? ((): void => undefined);
  const environment = await startGateEnvironment({
    servers,
    ...(options.commands === undefined ? {} : { commands: options.commands }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const rows: GateRow[] = [];
  try {
    progress('starting the servers');
    const failedStarts = await startRows(environment);
    if (failedStarts.length > 0) {
      rows.push(...failedStarts);
    } else {
      progress('upstream battery');
      const upstream = await upstreamRows(environment, cases);
      progress('fixture battery');
      const fixtures = await generateFixtures(environment, new Map(cases.map((entry) => [entry.id, entry])));
      progress('capability checks');
      rows.push(...(await capabilityRows(environment, cases, fixtures, fixturesFolder)));
      if (options.skipProbe !== true) {
        progress('probe battery');
        rows.push(...(await probeRows(environment, environment.timeoutMs)));
      }
      progress('code mode battery');
      const codeMode = await codeModeRows(environment);
      progress('limiter battery');
      const limiter = await limiterRows(environment);
      rows.push(
        ...upstream,
        ...fixtureRows(fixtures, fixturesFolder, await twinServers(environment)),
        ...parityRows(fixtures),
        ...codeMode,
        ...limiter,
      );
    }
    const servers = await serverInfos(environment);
    const summary = totalsOf(rows);
    return {
      command: 'gate',
      servers,
      rows,
      sections: sectionTotals(rows),
      summary,
      conformant: summary.failed === 0 && rows.length > 0,
      started_at: startedAt,
      duration_ms: Math.round(performance.now() - start),
    };
  } finally {
    await environment.close();
  }
}
