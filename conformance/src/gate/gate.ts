/**
 * `runGate`: the conformance gate for both reference servers. Starts the upstream replay server,
 * starts each reference server over stdio pointed at it (`--upstream`, `LWA_TOKEN_URL`), and runs
 * the probe battery, the upstream battery (every recorded case), the fixture battery (every
 * fixture regenerated and compared with the checked-in file), the capability checks (advertised
 * kinds = emitted kinds, contract version 1), the cross-server parity rows and the Code Mode
 * battery (see code-mode.ts). Implements
 * CONTRACT.md "Conformance" for the project's own servers.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { CONTRACT_VERSION, unwrapToolResult, validateEnvelope } from '@mcp-envelope/contract';

import { describeValue } from '../call-outcome.js';
import { checkCapability, contractToolDisagreements } from '../capability-check.js';
import type { CapabilityStatus } from '../report-types.js';
import { displayStdioCommand, parseStdioCommand } from '../command-line.js';
import { isRecord } from '../json-schema.js';
import { probeServer } from '../probe.js';
import { truncate } from '../probe-evaluate.js';
import { checkDocument } from '../validate-files.js';
import { defaultCasesFolder, readCases } from './cases.js';
import type { ExpectedEnvelope, ExpectedSuccess, UpstreamCase } from './cases.js';
import { startGateEnvironment } from './environment.js';
import type { GateEnvironment, RawOutcome } from './environment.js';
import { codeModeRows } from './code-mode.js';
import { limiterRows } from './limiter.js';
import { compareFixtures, generateFixtures } from './fixtures.js';
import type { GeneratedFixture } from './fixtures.js';
import { FIXTURE_SCENARIOS } from './fixture-plan.js';
import { GATE_SECTIONS, totalsOf } from './gate-report.js';
import type { GateReport, GateRow, GateSection, GateServerInfo, GateTotals } from './gate-report.js';
import { PACKAGE_ROOT, REFERENCE_SERVERS, serverCommandLine, SERVER_IDS } from './reference-servers.js';
import type { ServerId } from './reference-servers.js';

/** Options of {@link runGate}. */
export interface GateOptions {
  /** Folder of the recorded cases (default the package's `cases/`). */
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

function expectedLabel(expected: ExpectedEnvelope | ExpectedSuccess): string {
  if (expected.outcome === 'success') return `success ${metaLabel(expected._meta)}`;
  const legacy = expected.legacy_error_kind === undefined ? '' : ` legacy=${expected.legacy_error_kind}`;
  return `${expected.error_kind}/${expected.error_code} retryable=${String(expected.retryable)}${legacy} ${metaLabel(expected._meta)}`;
}

/**
 * Judges one outcome against a case's expectation, field by field: kind, code, retryable,
 * `legacy_error_kind` and `_meta` (exact, `normalized` aside) for an envelope, which must also
 * validate; `_meta` of `structuredContent` for a success.
 *
 * @param expected - the case's expectation.
 * @param outcome - what the call gave.
 * @returns what arrived, as a label, and every difference found (empty when it matches).
 */
export function judgeCase(
  expected: ExpectedEnvelope | ExpectedSuccess,
  outcome: RawOutcome,
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
  const envelope = unwrapped.envelope;
  const differences: string[] = [];
  const validation = validateEnvelope(envelope);
  if (!validation.valid)
    differences.push(
      `invalid envelope: ${validation.errors.map((error) => `${error.path} ${error.message}`).join(', ')}`,
    );
  if (envelope.error_kind !== expected.error_kind)
    differences.push(`error_kind ${envelope.error_kind}, expected ${expected.error_kind}`);
  if (envelope.error_code !== expected.error_code)
    differences.push(`error_code ${envelope.error_code}, expected ${expected.error_code}`);
  if (envelope.retryable !== expected.retryable)
    differences.push(`retryable ${String(envelope.retryable)}, expected ${String(expected.retryable)}`);
  if (envelope.legacy_error_kind !== expected.legacy_error_kind)
    differences.push(
      `legacy_error_kind ${envelope.legacy_error_kind ?? 'absent'}, expected ${expected.legacy_error_kind ?? 'absent'}`,
    );
  const meta = withoutNormalized(envelope._meta);
  if (!isDeepStrictEqual(meta, expected._meta))
    differences.push(
      `_meta is ${truncate(JSON.stringify(meta) ?? 'absent', 200)}, expected ${truncate(JSON.stringify(expected._meta) ?? 'absent', 200)}`,
    );
  const legacy = envelope.legacy_error_kind === undefined ? '' : ` legacy=${envelope.legacy_error_kind}`;
  return {
    got: `${envelope.error_kind}/${envelope.error_code} retryable=${String(envelope.retryable)}${legacy} ${metaLabel(meta)}`,
    differences,
  };
}

async function upstreamRows(environment: GateEnvironment, cases: readonly UpstreamCase[]): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const recorded of cases) {
    const start = performance.now();
    const outcome = await environment.call(
      recorded.server,
      recorded.variant,
      recorded.call.tool,
      recorded.call.arguments,
      recorded.upstream,
    );
    const judged = judgeCase(recorded.expected, outcome);
    rows.push(
      row(
        'upstream',
        recorded.server,
        recorded.id,
        expectedLabel(recorded.expected),
        judged.got,
        judged.differences,
        start,
      ),
    );
  }
  return rows;
}

function fixtureRows(fixtures: readonly GeneratedFixture[], folder: string): GateRow[] {
  const comparisons = compareFixtures(folder, fixtures);
  const rows: GateRow[] = [];
  for (const comparison of comparisons) {
    const start = performance.now();
    const fixture = fixtures.find((entry) => `${entry.server}/${entry.scenario.id}.json` === comparison.file);
    const notes = [...(fixture?.problems ?? [])];
    if (comparison.status === 'different')
      notes.push(
        'the server now emits something else than the checked-in fixture: run pnpm fixtures:update and review the diff',
      );
    if (comparison.status === 'missing') notes.push('no checked-in fixture: run pnpm fixtures:update');
    if (comparison.status === 'extra')
      notes.push('no scenario produces this file: run pnpm fixtures:update to remove it');
    if (comparison.status !== 'missing') {
      const checked = checkDocument(JSON.parse(readFileSync(join(folder, comparison.file), 'utf8')) as unknown);
      notes.push(
        ...checked.violations.map(
          (violation) => `invalid fixture at ${violation.path || '(root)'}: ${violation.reason}`,
        ),
      );
    }
    const payload = fixture?.payload;
    const got =
      isRecord(payload) && typeof payload['error_kind'] === 'string'
        ? `${payload['error_kind']}/${String(payload['error_code'])}`
        : fixture === undefined
          ? '-'
          : 'success';
    rows.push(
      row(
        'fixtures',
        comparison.server,
        comparison.file,
        fixture === undefined ? 'a scenario for it' : `${fixture.scenario.holds} identical to the file`,
        `${got} (${comparison.status})`,
        notes,
        start,
      ),
    );
  }
  return rows;
}

function fixtureKinds(folder: string, server: ServerId, fixtures: readonly GeneratedFixture[]): Set<string> {
  const kinds = new Set<string>();
  for (const fixture of fixtures) {
    if (fixture.server !== server) continue;
    try {
      const value: unknown = JSON.parse(readFileSync(join(folder, `${server}/${fixture.scenario.id}.json`), 'utf8'));
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
  for (const server of SERVER_IDS) {
    const start = performance.now();
    const session = await environment.session(server, 'main');
    const status = checkCapability(
      session.initializeResult?.['capabilities'] ?? session.client.getServerCapabilities(),
    );
    rows.push(
      row(
        'capability',
        server,
        'capability advertised',
        `contract_version ${CONTRACT_VERSION}, error_kinds within the taxonomy`,
        status.advertised
          ? `${status.location ?? '?'} v${JSON.stringify(status.contract_version) ?? '?'}`
          : 'not advertised',
        status.issues,
        start,
      ),
      emittedKindsRow(server, status, cases, fixtures, folder),
      await contractToolRow(environment, server, status),
      await normalizedKindsRow(environment, server, status, fixtures),
    );
  }
  return rows;
}

/** The kinds the capability advertises against those the fixtures and recorded cases emit. */
function emittedKindsRow(
  server: ServerId,
  status: CapabilityStatus,
  cases: readonly UpstreamCase[],
  fixtures: readonly GeneratedFixture[],
  folder: string,
): GateRow {
  const start = performance.now();
  const advertised = new Set(status.error_kinds ?? []);
  const emitted = fixtureKinds(folder, server, fixtures);
  for (const recorded of cases)
    if (recorded.server === server && recorded.expected.outcome === 'error') emitted.add(recorded.expected.error_kind);
  const notEmitted = setDifference(advertised, emitted);
  const notAdvertised = setDifference(emitted, advertised);
  return row(
    'capability',
    server,
    'advertised kinds = emitted kinds',
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

/** The server-specific prefix of codes and kinds (`sp_api_`, `ads_api_`, ...), one per gated server. */
const SERVER_PREFIX = `(?:${SERVER_IDS.join('|')})_api_`;

/** The server-specific part of an upstream HTTP code (`SP_API_HTTP_401` -> `<SERVER>_API_HTTP_401`). */
export function parityCode(code: string): string {
  return code.replace(new RegExp(`^${SERVER_PREFIX}`, 'i'), '<SERVER>_API_');
}

/** The server-specific part of a kind (`sp_api_http` -> `<server>_api_http`). */
export function parityKind(kind: string): string {
  return kind.replace(new RegExp(`^${SERVER_PREFIX}`), '<server>_api_');
}

/** An envelope's keys without `legacy_error_kind` (a migration window is per server), sorted. */
function contractKeys(envelope: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(envelope)
    .filter((key) => key !== 'legacy_error_kind')
    .sort();
}

/** The shape of an envelope compared across servers: its keys (`legacy_error_kind` aside), its `_meta` keys, and each detail's keys. */
export function envelopeShape(envelope: Readonly<Record<string, unknown>>): string {
  const meta = isRecord(envelope['_meta']) ? Object.keys(envelope['_meta']).sort() : [];
  const details = Array.isArray(envelope['details'])
    ? envelope['details'].map((detail) => (isRecord(detail) ? Object.keys(detail).sort().join('+') : typeof detail))
    : [];
  return `keys[${contractKeys(envelope).join(',')}] _meta[${meta.join(',')}] details[${details.join(' ')}]`;
}

function parityLabel(envelope: Readonly<Record<string, unknown>>): string {
  return `${parityKind(String(envelope['error_kind']))}/${parityCode(String(envelope['error_code']))} retryable=${String(envelope['retryable'])}`;
}

/** What differs between the first server's envelope and another's for one parity condition. */
function parityNotes(
  parity: string,
  first: { server: string; envelope: Record<string, unknown> },
  other: { server: string; envelope: Record<string, unknown> },
): string[] {
  const notes: string[] = [];
  const [a, b] = [first.envelope, other.envelope];
  if (parityLabel(a) !== parityLabel(b))
    notes.push(`${first.server} ${parityLabel(a)} but ${other.server} ${parityLabel(b)}`);
  if (
    parity.startsWith('input validation') ||
    parity === 'unknown tool' ||
    parity === 'internal error' ||
    parity === 'unknown field (strict)'
  ) {
    const shapes = [envelopeShape(a), envelopeShape(b)];
    if (shapes[0] !== shapes[1])
      notes.push(`shapes differ: ${first.server} ${shapes[0] ?? ''} / ${other.server} ${shapes[1] ?? ''}`);
    if (!isDeepStrictEqual(a['details'], b['details'])) notes.push('details differ');
  } else {
    const top = (envelope: Record<string, unknown>): string =>
      `${contractKeys(envelope).join(',')} _meta[${isRecord(envelope['_meta']) ? Object.keys(envelope['_meta']).sort().join(',') : ''}]`;
    if (top(a) !== top(b)) notes.push(`envelope keys differ: ${first.server} ${top(a)} / ${other.server} ${top(b)}`);
  }
  return notes;
}

/** One row per parity condition: every gated server (see `SERVER_IDS`) compared with the first. */
function parityRows(fixtures: readonly GeneratedFixture[]): GateRow[] {
  const rows: GateRow[] = [];
  const servers = SERVER_IDS.join('|');
  for (const scenario of FIXTURE_SCENARIOS) {
    const parity = scenario.parity;
    if (parity === undefined) continue;
    const start = performance.now();
    const found = SERVER_IDS.map((server) => ({
      server,
      envelope: fixtures.find((fixture) => fixture.server === server && fixture.scenario.id === scenario.id)?.payload,
    }));
    const envelopes = found.filter(
      (entry): entry is { server: (typeof SERVER_IDS)[number]; envelope: Record<string, unknown> } =>
        isRecord(entry.envelope),
    );
    const [first, ...others] = envelopes;
    if (first === undefined || envelopes.length !== found.length) {
      rows.push(
        row(
          'parity',
          servers,
          parity,
          'an envelope on every server',
          'missing',
          ['a server gave no envelope for this condition (see the fixture rows)'],
          start,
        ),
      );
      continue;
    }
    const notes = others.flatMap((other) => parityNotes(parity, first, other));
    const actual = others.map((other) => `${other.server} ${parityLabel(other.envelope)}`).join('; ');
    rows.push(row('parity', servers, parity, `${first.server} ${parityLabel(first.envelope)}`, actual, notes, start));
  }
  return rows;
}

async function probeRows(environment: GateEnvironment, timeoutMs: number): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const server of SERVER_IDS) {
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

async function serverInfos(environment: GateEnvironment): Promise<GateServerInfo[]> {
  const infos: GateServerInfo[] = [];
  for (const server of SERVER_IDS) {
    let name: string | null = null;
    let version: string | null = null;
    try {
      const info = (await environment.session(server, 'main')).client.getServerVersion();
      name = info?.name ?? null;
      version = info?.version ?? null;
    } catch {
      // Reported by the rows that needed the session.
    }
    infos.push({
      id: server,
      name,
      version,
      command: displayStdioCommand(parseStdioCommand(serverCommandLine(environment.setup, server, 'main'))),
    });
  }
  return infos;
}

function sectionTotals(rows: readonly GateRow[]): Record<GateSection, GateTotals> {
  return Object.fromEntries(
    GATE_SECTIONS.map((section) => [section, totalsOf(rows.filter((entry) => entry.section === section))]),
  ) as Record<GateSection, GateTotals>;
}

/**
 * Runs the whole gate for both reference servers. Nothing the servers do makes it throw once the
 * replay server is up: a server that cannot start gives failing rows.
 *
 * @param options - folders, command overrides, timeout, progress.
 * @returns the report; `conformant` is true when no row failed.
 * @throws Error when a case file cannot be read (before any server starts).
 */
export async function runGate(options: GateOptions = {}): Promise<GateReport> {
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const casesFolder = options.casesFolder ?? defaultCasesFolder(PACKAGE_ROOT);
  const fixturesFolder = options.fixturesFolder ?? join(PACKAGE_ROOT, 'fixtures');
  const cases = readCases(casesFolder);
  const progress = options.onProgress ?? ((): void => undefined);
  const environment = await startGateEnvironment({
    ...(options.commands === undefined ? {} : { commands: options.commands }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const rows: GateRow[] = [];
  try {
    progress('starting the reference servers');
    const failedStarts: GateRow[] = [];
    for (const server of SERVER_IDS) {
      for (const variant of ['main', 'no-credentials', 'lenient'] as const) {
        const begin = performance.now();
        try {
          await environment.session(server, variant);
        } catch (error) {
          failedStarts.push(
            row(
              'capability',
              server,
              `start (${variant})`,
              `${REFERENCE_SERVERS[server].binName} answers initialize`,
              'unreachable',
              [truncate(describeValue(error), 400)],
              begin,
            ),
          );
        }
      }
    }
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
        ...fixtureRows(fixtures, fixturesFolder),
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
