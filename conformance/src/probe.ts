/**
 * `probe`: connects to a live MCP server, reads its envelope capability, lists its tools and runs
 * the probe battery, producing a {@link ProbeReport}.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import { ENVELOPE_CONTRACT_TOOL_NAME } from '@mcp-envelope/core';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { callToolOutcome, describeValue, withDeadline } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import {
  checkCapability,
  contractToolDisagreements,
  settingsOfContract,
  unreportedSwitches,
} from './capability-check.js';
import type { ServerSettings } from './capability-check.js';
import { CommandLineError } from './command-line.js';
import { openSession } from './connect.js';
import type { ProbeTarget, Session } from './connect.js';
import { isRecord } from '@mcp-envelope/contract';
import {
  judgeExpectedFailure,
  judgePassThrough,
  judgeWrongCase,
  kindCode,
  mayPassThrough,
  truncate,
  wrongCaseUnnormalizedExpectation,
} from './probe-evaluate.js';
import type { Judgement } from './probe-evaluate.js';
import { probeRow } from './probe-evaluate.js';
import { FAULT_ROUNDS, faultCommandLine, runFaultBattery, startFaultUpstream } from './probe-faults/index.js';
import type { UpstreamFaultOptions } from './probe-faults/index.js';
import { planToolProbes } from './probe-plan.js';
import type { PlannedProbe, ToolDescription } from './probe-plan.js';
import { TOOL_PROBE_NAMES } from './report-types.js';
import type { CapabilityStatus, ProbeName, ProbeReport, ProbeRow, ToolsListStatus } from './report-types.js';

/** Default `--max-tools`. */
export const DEFAULT_MAX_TOOLS = 25;
/** Default `--timeout-ms`. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The most `tools/list` pages read before listing stops. */
export const MAX_TOOL_PAGES = 1_000;

/** One step of the battery, reported to {@link ProbeOptions.onProgress} before it runs. */
export interface ProbeProgress {
  /** 1-based number of this step. */
  readonly index: number;
  readonly total: number;
  readonly tool: string;
  readonly probe: ProbeName;
}

/** Options of {@link probeServer}. */
export interface ProbeOptions {
  readonly target: ProbeTarget;
  /** How many tools to probe, in listing order (default 25). */
  readonly maxTools?: number;
  /** Timeout of each request, the `initialize` handshake included, in milliseconds (default 10000). */
  readonly timeoutMs?: number;
  /** Called before each call of the battery. */
  readonly onProgress?: (progress: ProbeProgress) => void;
  /**
   * Run the upstream fault battery too (`--upstream-faults`): only for a `stdio` target whose
   * command line has `{upstream}` (or that names `upstreamEnv`); see `runFaultBattery`.
   */
  readonly upstreamFaults?: UpstreamFaultOptions;
}

interface Listed {
  readonly tools: readonly ToolDescription[];
  readonly taskRequired: ReadonlySet<string>;
  readonly status: Omit<ToolsListStatus, 'probed'>;
}

interface BatteryContext {
  readonly client: Client;
  readonly capability: CapabilityStatus;
  /** The switches `get_envelope_contract` reported; the rows are judged by them. */
  readonly settings: ServerSettings;
  readonly timeoutMs: number;
  readonly step: (tool: string, probe: ProbeName) => void;
}

function elapsed(start: number): number {
  return Math.round(performance.now() - start);
}

function row(
  probe: ProbeName,
  tool: string,
  expected: string,
  judgement: Judgement,
  start: number,
  args?: Readonly<Record<string, unknown>>,
): ProbeRow {
  return probeRow(probe, tool, expected, judgement, elapsed(start), args);
}

function capabilityRow(status: CapabilityStatus): ProbeRow {
  const got = !status.advertised
    ? 'not advertised'
    : `${status.location ?? ''} v${JSON.stringify(status.contract_version) ?? '?'} (${status.error_kinds === null ? 'no' : String(status.error_kinds.length)} kinds)`;
  const judgement: Judgement = { got, result: status.issues.length === 0 ? 'PASS' : 'FAIL', notes: status.issues };
  const expected = "contract_version the oldest of contract_versions, each version's kinds within its taxonomy";
  return row('capability', '-', expected, judgement, performance.now());
}

function toolDescription(tool: unknown): { tool: ToolDescription; taskRequired: boolean } | undefined {
  if (!isRecord(tool) || typeof tool['name'] !== 'string') return undefined;
  const execution = tool['execution'];
  const taskRequired = isRecord(execution) && execution['taskSupport'] === 'required';
  const annotations = tool['annotations'];
  const idempotent =
    isRecord(annotations) && (annotations['readOnlyHint'] === true || annotations['idempotentHint'] === true);
  return { tool: { name: tool['name'], inputSchema: tool['inputSchema'], idempotent }, taskRequired };
}

async function listTools(client: Client, timeoutMs: number): Promise<Listed> {
  const tools: ToolDescription[] = [];
  const taskRequired = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let issue: string | undefined;
  try {
    do {
      const page = await withDeadline(
        client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs }),
        timeoutMs + 1_000,
      );
      pages += 1;
      for (const entry of page.tools) {
        const described = toolDescription(entry);
        if (described === undefined) continue;
        tools.push(described.tool);
        if (described.taskRequired) taskRequired.add(described.tool.name);
      }
      // An empty string is a cursor too; an absent cursor (null is made absent on arrival) ends the list.
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      if (cursor !== undefined && seenCursors.has(cursor))
        issue = `cursor loop: nextCursor ${JSON.stringify(truncate(cursor, 40))} repeated after page ${pages}`;
      else if (cursor !== undefined && pages >= MAX_TOOL_PAGES) issue = `stopped after ${MAX_TOOL_PAGES} pages`;
      if (cursor !== undefined) seenCursors.add(cursor);
    } while (cursor !== undefined && issue === undefined);
  } catch (error) {
    issue = `tools/list failed on page ${pages + 1}: ${truncate(describeValue(error))}`;
  }
  const status = {
    listed: tools.length,
    pages,
    names: tools.map((tool) => tool.name),
    ...(issue === undefined ? {} : { issue }),
  };
  return { tools, taskRequired, status };
}

interface ContractReading {
  readonly row: ProbeRow;
  readonly settings: ServerSettings;
}

const UNREPORTED: ServerSettings = { normalizationEnabled: undefined, strictUnknownFields: undefined };

/** The contract object of a successful call: its `structuredContent`, or its text parsed when it sent only text. */
function contractValue(outcome: Extract<CallOutcome, { type: 'success' }>): unknown {
  if (typeof outcome.value !== 'string') return outcome.value;
  try {
    return JSON.parse(outcome.value) as unknown;
  } catch {
    return outcome.value;
  }
}

/**
 * Calls `get_envelope_contract` (the fallback for hosts that never show capabilities): it must be
 * listed, answer, and repeat the advertised capability; its `settings` decide how rows are judged.
 */
async function readContractTool(
  client: Client,
  listed: Listed,
  capability: CapabilityStatus,
  timeoutMs: number,
): Promise<ContractReading> {
  const start = performance.now();
  const expected = 'listed, and the same object as the capability';
  if (!listed.status.names.includes(ENVELOPE_CONTRACT_TOOL_NAME)) {
    const judgement: Judgement = {
      got: 'not listed',
      result: 'FAIL',
      notes: [`${ENVELOPE_CONTRACT_TOOL_NAME} is not in tools/list`],
    };
    return { row: row('contract-tool', ENVELOPE_CONTRACT_TOOL_NAME, expected, judgement, start), settings: UNREPORTED };
  }
  const outcome = await callToolOutcome(client, ENVELOPE_CONTRACT_TOOL_NAME, {}, timeoutMs);
  if (outcome.type !== 'success') {
    const got =
      outcome.type === 'envelope' ? kindCode(outcome.envelope.error_kind, outcome.envelope.error_code) : outcome.type;
    const judgement: Judgement = {
      got,
      result: 'FAIL',
      notes: [`${ENVELOPE_CONTRACT_TOOL_NAME} did not answer with its contract`],
    };
    return {
      row: row('contract-tool', ENVELOPE_CONTRACT_TOOL_NAME, expected, judgement, start, {}),
      settings: UNREPORTED,
    };
  }
  const value = contractValue(outcome);
  const settings = settingsOfContract(value);
  const disagreements = capability.advertised ? contractToolDisagreements(value, capability.value) : [];
  const unreported = unreportedSwitches(value);
  const issues = [
    ...disagreements,
    ...(unreported.length === 0 ? [] : [`settings do not report ${unreported.join(', ')} as a boolean`]),
  ];
  const reported = [
    settings.normalizationEnabled === undefined
      ? undefined
      : `MCP_SCHEMA_KEY_NORMALIZATION_ENABLED ${String(settings.normalizationEnabled)}`,
    settings.strictUnknownFields === undefined
      ? undefined
      : `MCP_STRICT_UNKNOWN_FIELDS ${String(settings.strictUnknownFields)}`,
  ].filter((part) => part !== undefined);
  const answered = capability.advertised ? 'the same object' : 'answered (no capability to compare)';
  const got = disagreements.length > 0 ? 'differs' : unreported.length > 0 ? 'settings incomplete' : answered;
  const notes = [...issues, reported.length === 0 ? 'no settings reported' : `settings: ${reported.join(', ')}`];
  return {
    row: row(
      'contract-tool',
      ENVELOPE_CONTRACT_TOOL_NAME,
      expected,
      { got, result: issues.length === 0 ? 'PASS' : 'FAIL', notes },
      start,
      {},
    ),
    settings,
  };
}

function toolsListRow(status: Omit<ToolsListStatus, 'probed'>): ProbeRow {
  const got = `${status.listed} tool${status.listed === 1 ? '' : 's'} in ${status.pages} page${status.pages === 1 ? '' : 's'}`;
  const judgement: Judgement = {
    got,
    result: status.issue === undefined ? 'PASS' : 'FAIL',
    notes: status.issue === undefined ? [] : [status.issue],
  };
  return row('tools-list', '-', 'tools/list completes', judgement, performance.now());
}

async function unknownToolRow(context: BatteryContext): Promise<ProbeRow> {
  const name = `zz_conformance_no_such_tool_${randomBytes(4).toString('hex')}`;
  const expected = { kind: 'tool_not_found', code: 'TOOL_NOT_FOUND' };
  context.step(name, 'unknown-tool');
  const start = performance.now();
  const outcome = await callToolOutcome(context.client, name, {}, context.timeoutMs);
  return row(
    'unknown-tool',
    name,
    kindCode(expected.kind, expected.code),
    judgeExpectedFailure(outcome, expected, context.capability),
    start,
    {},
  );
}

/** The versions a current client states it reads, in a request's `_meta`. */
const STATES_BOTH = Object.freeze({ [ENVELOPE_EXTENSION_ID]: Object.freeze({ contract_versions: [1, 2] }) });

/** The version an outcome's envelope is in, as a label. */
function versionOf(outcome: CallOutcome): string {
  return outcome.type === 'envelope' ? `v${String(outcome.envelope._envelope_version)}` : outcome.type;
}

/**
 * The version negotiation, on an unknown tool (an envelope every server gives): a client that
 * states `[1, 2]` gets the highest version the server lists, and a client that states nothing
 * gets `contract_version` (a reader of version 1 states nothing). Implements CONTRACT.md "Versioning".
 */
async function contractVersionsRow(context: BatteryContext): Promise<ProbeRow> {
  const name = `zz_conformance_no_such_tool_${randomBytes(4).toString('hex')}`;
  context.step(name, 'contract-versions');
  const start = performance.now();
  if (!context.capability.advertised) {
    const judgement: Judgement = {
      got: '-',
      result: 'SKIP',
      notes: ['no capability advertised: no version to negotiate'],
    };
    return row('contract-versions', name, 'versions as the capability lists them', judgement, start, {});
  }
  const spoken = context.capability.contract_versions ?? [];
  const highest = [1, 2].filter((version) => spoken.includes(version)).at(-1);
  const defaultVersion = context.capability.contract_version;
  const stating = await callToolOutcome(context.client, name, {}, context.timeoutMs, STATES_BOTH);
  const silent = await callToolOutcome(context.client, name, {}, context.timeoutMs);
  const notes: string[] = [];
  if (highest === undefined) notes.push('the capability lists no contract version to negotiate');
  else if (versionOf(stating) !== `v${highest}`)
    notes.push(`a client stating [1, 2] got ${versionOf(stating)}, expected v${highest} (the highest both read)`);
  if (versionOf(silent) !== `v${String(defaultVersion)}`)
    notes.push(
      `a client stating nothing got ${versionOf(silent)}, expected v${String(defaultVersion)} (contract_version)`,
    );
  const expected = `[1, 2] -> v${String(highest ?? '?')}, nothing -> v${String(defaultVersion)}`;
  const judgement: Judgement = {
    got: `[1, 2] -> ${versionOf(stating)}, nothing -> ${versionOf(silent)}`,
    result: notes.length === 0 ? 'PASS' : 'FAIL',
    notes,
  };
  return row('contract-versions', name, expected, judgement, start, {});
}

type RunPlanned = Extract<PlannedProbe, { status: 'run' }>;

/** What the row's `expected` column says, by the server's reported switches. */
function expectedLabel(settings: ServerSettings, planned: RunPlanned): string {
  const expected = kindCode(planned.expected.kind, planned.expected.code);
  if (planned.passThrough !== undefined && settings.strictUnknownFields === false)
    return 'passed through (strict unknown fields off)';
  if (planned.wrongCase === undefined) return expected;
  if (settings.normalizationEnabled === false) {
    const expectation = wrongCaseUnnormalizedExpectation(planned.wrongCase.key);
    return mayPassThrough(planned.wrongCase.unknownKeys, settings)
      ? `${expectation}, or passed through unrenamed`
      : expectation;
  }
  return settings.normalizationEnabled === true ? 'normalized' : `normalized or ${expected}`;
}

async function judgePlanned(
  context: BatteryContext,
  tool: string,
  planned: RunPlanned,
  outcome: CallOutcome,
): Promise<Judgement> {
  const callWith = (args: Readonly<Record<string, unknown>>) => (): Promise<CallOutcome> =>
    callToolOutcome(context.client, tool, args, context.timeoutMs);
  if (planned.passThrough !== undefined && context.settings.strictUnknownFields === false) {
    return judgePassThrough({
      outcome,
      key: planned.passThrough.key,
      capability: context.capability,
      reference: callWith(planned.passThrough.reference),
    });
  }
  if (planned.wrongCase === undefined) return judgeExpectedFailure(outcome, planned.expected, context.capability);
  return judgeWrongCase({
    outcome,
    key: planned.wrongCase.key,
    canonical: planned.wrongCase.canonical,
    optional: planned.wrongCase.optional,
    capability: context.capability,
    settings: context.settings,
    expected: planned.expected,
    unknownKeys: planned.wrongCase.unknownKeys,
    reference: callWith(planned.wrongCase.reference),
  });
}

async function runPlanned(
  context: BatteryContext,
  tool: string,
  planned: PlannedProbe,
  baselineNotes: readonly string[],
): Promise<ProbeRow> {
  if (planned.status === 'skip')
    return row(planned.probe, tool, '-', { got: '-', result: 'SKIP', notes: [planned.reason] }, performance.now());
  context.step(tool, planned.probe);
  const start = performance.now();
  const outcome = await callToolOutcome(context.client, tool, planned.arguments, context.timeoutMs);
  const judgement = await judgePlanned(context, tool, planned, outcome);
  const caveats = baselineNotes.map((note) => `baseline caveat: ${note}`);
  return row(
    planned.probe,
    tool,
    expectedLabel(context.settings, planned),
    { ...judgement, notes: [planned.change, ...judgement.notes, ...caveats] },
    start,
    planned.arguments,
  );
}

function skipAll(tool: string, reason: string): ProbeRow[] {
  return TOOL_PROBE_NAMES.map((probe) =>
    row(probe, tool, '-', { got: '-', result: 'SKIP', notes: [reason] }, performance.now()),
  );
}

async function probeTool(context: BatteryContext, tool: ToolDescription, taskRequired: boolean): Promise<ProbeRow[]> {
  if (taskRequired) return skipAll(tool.name, 'tool requires task-based execution (not probed)');
  const plan = planToolProbes(tool);
  if (!plan.ok) return skipAll(tool.name, plan.reason);
  const rows: ProbeRow[] = [];
  for (const planned of plan.probes) {
    try {
      rows.push(await runPlanned(context, tool.name, planned, plan.notes));
    } catch (error) {
      rows.push(
        row(
          planned.probe,
          tool.name,
          '-',
          { got: 'error', result: 'FAIL', notes: [`probe error: ${truncate(describeValue(error))}`] },
          performance.now(),
        ),
      );
    }
  }
  return rows;
}

function countSteps(tools: readonly ToolDescription[], taskRequired: ReadonlySet<string>, faults: boolean): number {
  // the unknown-tool and contract-versions probes, and the fault rounds (one call each when the first tool reaches the upstream)
  let total = 2 + (faults ? FAULT_ROUNDS.length : 0);
  for (const tool of tools) {
    if (taskRequired.has(tool.name)) continue;
    const plan = planToolProbes(tool);
    if (plan.ok) total += plan.probes.filter((planned) => planned.status === 'run').length;
  }
  return total;
}

function serverInfo(session: Session): { name: string; version: string } | null {
  const info = session.client.getServerVersion();
  return info === undefined ? null : { name: info.name, version: info.version };
}

/** The fault upstream and how to start the server against it again. */
interface FaultEnvironment {
  readonly upstream: UpstreamReplay;
  readonly openSession: () => Promise<Session>;
  readonly options: UpstreamFaultOptions;
}

async function runBattery(
  session: Session,
  options: ProbeOptions,
  timeoutMs: number,
  faults: FaultEnvironment | undefined,
): Promise<Omit<ProbeReport, 'started_at' | 'duration_ms'>> {
  const capability = checkCapability(
    session.initializeResult?.['capabilities'] ?? session.client.getServerCapabilities(),
  );
  const listed = await listTools(session.client, timeoutMs);
  const probed = listed.tools.slice(0, Math.max(0, options.maxTools ?? DEFAULT_MAX_TOOLS));
  const total = countSteps(probed, listed.taskRequired, faults !== undefined);
  const contract = await readContractTool(session.client, listed, capability, timeoutMs);
  let index = 0;
  const context: BatteryContext = {
    client: session.client,
    capability,
    settings: contract.settings,
    timeoutMs,
    step: (tool, probe) => {
      index += 1;
      options.onProgress?.({ index: Math.min(index, total), total, tool, probe });
    },
  };
  const rows: ProbeRow[] = [
    capabilityRow(capability),
    toolsListRow(listed.status),
    contract.row,
    await unknownToolRow(context),
    await contractVersionsRow(context),
  ];
  for (const tool of probed) rows.push(...(await probeTool(context, tool, listed.taskRequired.has(tool.name))));
  if (faults !== undefined) {
    const faultContext = { ...context, upstream: faults.upstream, openSession: faults.openSession };
    rows.push(...(await runFaultBattery(faultContext, listed, faults.options)));
  }
  const summary = {
    passed: rows.filter((entry) => entry.result === 'PASS').length,
    failed: rows.filter((entry) => entry.result === 'FAIL').length,
    skipped: rows.filter((entry) => entry.result === 'SKIP').length,
  };
  return {
    command: 'probe',
    target: { transport: options.target.transport, display: session.display },
    server: serverInfo(session),
    capability,
    tools: { ...listed.status, probed: probed.length },
    rows,
    summary,
    conformant: summary.failed === 0 && capability.advertised && capability.issues.length === 0,
  };
}

/**
 * Probes a live MCP server for envelope conformance: connects with the SDK `Client`, checks the
 * `openbridge_envelope` capability, lists tools (following every string `nextCursor`, `""`
 * included, until it is absent or `null`; stopping at a repeated cursor or `MAX_TOOL_PAGES`
 * pages), reads `get_envelope_contract` (it must agree with the capability; its `settings` decide
 * how the `unknown-extra` and `wrong-case` rows are judged), calls an unknown tool, then runs the
 * per-tool probes planned by `planToolProbes` on the first `maxTools` tools. With `upstreamFaults`,
 * it first starts a loopback fault upstream on 127.0.0.1, starts the server with its URL in place
 * of `{upstream}` (see `faultCommandLine`), and after the other rows runs the fault battery
 * (`runFaultBattery`, one `upstream-*` row per round); the fault upstream is closed at the end.
 * Every call has a timeout; nothing the server sends makes this throw once the session is open.
 * Implements CONTRACT.md "Conformance" and, for the fault rounds, "Upstream HTTP codes".
 *
 * @param options - target, limits, the fault battery's options and a progress callback.
 * @returns the report (rows in battery order, totals, verdict, timings in milliseconds).
 * @throws ServerUnreachableError when no session can be opened.
 * @throws CommandLineError when the `--stdio` command line cannot be split, or `upstreamFaults` is
 *   given for an HTTP target or a command line without `{upstream}` (and no `upstreamEnv`).
 */
export async function probeServer(options: ProbeOptions): Promise<ProbeReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const faults = options.upstreamFaults;
  if (faults !== undefined && options.target.transport !== 'stdio')
    throw new CommandLineError('--upstream-faults needs a server the probe starts (--stdio)');
  const upstream = faults === undefined ? undefined : await startFaultUpstream();
  try {
    let target = options.target;
    if (upstream !== undefined && target.transport === 'stdio')
      target = { ...target, commandLine: faultCommandLine(target.commandLine, upstream, faults?.upstreamEnv) };
    const started = target;
    const environment =
      upstream === undefined || faults === undefined
        ? undefined
        : { upstream, options: faults, openSession: () => openSession(started, timeoutMs) };
    const session = await openSession(target, timeoutMs);
    let report: Omit<ProbeReport, 'started_at' | 'duration_ms'>;
    try {
      report = await runBattery(session, options, timeoutMs, environment);
    } finally {
      await session.close();
    }
    return { ...report, started_at: startedAt, duration_ms: elapsed(start) };
  } finally {
    await upstream?.close();
  }
}
