/**
 * `probe`: connects to a live MCP server, reads its envelope capability, lists its tools and runs
 * the probe battery, producing a {@link ProbeReport}.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { callToolOutcome, describeValue, withDeadline } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { checkCapability } from './capability-check.js';
import { openSession } from './connect.js';
import type { ProbeTarget, Session } from './connect.js';
import { isRecord } from './json-schema.js';
import { judgeExpectedFailure, judgeWrongCase, kindCode, truncate } from './probe-evaluate.js';
import type { Judgement } from './probe-evaluate.js';
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
  /** Timeout of each request, in milliseconds (default 10000). */
  readonly timeoutMs?: number;
  /** Called before each call of the battery. */
  readonly onProgress?: (progress: ProbeProgress) => void;
}

interface Listed {
  readonly tools: readonly ToolDescription[];
  readonly taskRequired: ReadonlySet<string>;
  readonly status: Omit<ToolsListStatus, 'probed'>;
}

interface BatteryContext {
  readonly client: Client;
  readonly capability: CapabilityStatus;
  readonly timeoutMs: number;
  readonly step: (tool: string, probe: ProbeName) => void;
}

function elapsed(start: number): number {
  return Math.round(performance.now() - start);
}

function row(probe: ProbeName, tool: string, expected: string, judgement: Judgement, start: number, args?: Readonly<Record<string, unknown>>): ProbeRow {
  return {
    probe,
    tool,
    expected,
    got: judgement.got,
    result: judgement.result,
    note: judgement.notes.join('; '),
    ...(args === undefined ? {} : { arguments: args }),
    duration_ms: elapsed(start),
  };
}

function capabilityRow(status: CapabilityStatus): ProbeRow {
  const got = !status.advertised
    ? 'not advertised'
    : `${status.location ?? ''} v${JSON.stringify(status.contract_version) ?? '?'} (${status.error_kinds === null ? 'no' : String(status.error_kinds.length)} kinds)`;
  const judgement: Judgement = { got, result: status.issues.length === 0 ? 'PASS' : 'FAIL', notes: status.issues };
  return row('capability', '-', 'contract_version 1, error_kinds within the taxonomy', judgement, performance.now());
}

function toolDescription(tool: unknown): { tool: ToolDescription; taskRequired: boolean } | undefined {
  if (!isRecord(tool) || typeof tool['name'] !== 'string') return undefined;
  const execution = tool['execution'];
  const taskRequired = isRecord(execution) && execution['taskSupport'] === 'required';
  return { tool: { name: tool['name'], inputSchema: tool['inputSchema'] }, taskRequired };
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
      const page = await withDeadline(client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs }), timeoutMs + 1_000);
      pages += 1;
      for (const entry of page.tools) {
        const described = toolDescription(entry);
        if (described === undefined) continue;
        tools.push(described.tool);
        if (described.taskRequired) taskRequired.add(described.tool.name);
      }
      cursor = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
      if (cursor !== undefined && seenCursors.has(cursor)) issue = `cursor loop: nextCursor ${JSON.stringify(truncate(cursor, 40))} repeated after page ${pages}`;
      else if (cursor !== undefined && pages >= MAX_TOOL_PAGES) issue = `stopped after ${MAX_TOOL_PAGES} pages`;
      if (cursor !== undefined) seenCursors.add(cursor);
    } while (cursor !== undefined && issue === undefined);
  } catch (error) {
    issue = `tools/list failed on page ${pages + 1}: ${truncate(describeValue(error))}`;
  }
  const status = { listed: tools.length, pages, names: tools.map((tool) => tool.name), ...(issue === undefined ? {} : { issue }) };
  return { tools, taskRequired, status };
}

function toolsListRow(status: Omit<ToolsListStatus, 'probed'>): ProbeRow {
  const got = `${status.listed} tool${status.listed === 1 ? '' : 's'} in ${status.pages} page${status.pages === 1 ? '' : 's'}`;
  const judgement: Judgement = { got, result: status.issue === undefined ? 'PASS' : 'FAIL', notes: status.issue === undefined ? [] : [status.issue] };
  return row('tools-list', '-', 'tools/list completes', judgement, performance.now());
}

async function unknownToolRow(context: BatteryContext): Promise<ProbeRow> {
  const name = `zz_conformance_no_such_tool_${randomBytes(4).toString('hex')}`;
  const expected = { kind: 'tool_not_found', code: 'TOOL_NOT_FOUND' };
  context.step(name, 'unknown-tool');
  const start = performance.now();
  const outcome = await callToolOutcome(context.client, name, {}, context.timeoutMs);
  return row('unknown-tool', name, kindCode(expected.kind, expected.code), judgeExpectedFailure(outcome, expected, context.capability), start, {});
}

async function runPlanned(context: BatteryContext, tool: string, planned: PlannedProbe, baselineNotes: readonly string[]): Promise<ProbeRow> {
  if (planned.status === 'skip') return row(planned.probe, tool, '-', { got: '-', result: 'SKIP', notes: [planned.reason] }, performance.now());
  const expected = kindCode(planned.expected.kind, planned.expected.code);
  context.step(tool, planned.probe);
  const start = performance.now();
  const outcome = await callToolOutcome(context.client, tool, planned.arguments, context.timeoutMs);
  let judgement: Judgement;
  if (planned.wrongCase === undefined) judgement = judgeExpectedFailure(outcome, planned.expected, context.capability);
  else {
    const reference = planned.wrongCase.reference;
    judgement = await judgeWrongCase({
      outcome,
      key: planned.wrongCase.key,
      optional: planned.wrongCase.optional,
      capability: context.capability,
      expected: planned.expected,
      reference: (): Promise<CallOutcome> => callToolOutcome(context.client, tool, reference, context.timeoutMs),
    });
  }
  const label = planned.wrongCase === undefined ? expected : `normalized or ${expected}`;
  const caveats = baselineNotes.map((note) => `baseline caveat: ${note}`);
  return row(planned.probe, tool, label, { ...judgement, notes: [planned.change, ...judgement.notes, ...caveats] }, start, planned.arguments);
}

function skipAll(tool: string, reason: string): ProbeRow[] {
  return TOOL_PROBE_NAMES.map((probe) => row(probe, tool, '-', { got: '-', result: 'SKIP', notes: [reason] }, performance.now()));
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
      rows.push(row(planned.probe, tool.name, '-', { got: 'error', result: 'FAIL', notes: [`probe error: ${truncate(describeValue(error))}`] }, performance.now()));
    }
  }
  return rows;
}

function countSteps(tools: readonly ToolDescription[], taskRequired: ReadonlySet<string>): number {
  let total = 1;
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

async function runBattery(session: Session, options: ProbeOptions, timeoutMs: number): Promise<Omit<ProbeReport, 'started_at' | 'duration_ms'>> {
  const capability = checkCapability(session.initializeResult?.['capabilities'] ?? session.client.getServerCapabilities());
  const listed = await listTools(session.client, timeoutMs);
  const probed = listed.tools.slice(0, Math.max(0, options.maxTools ?? DEFAULT_MAX_TOOLS));
  const total = countSteps(probed, listed.taskRequired);
  let index = 0;
  const context: BatteryContext = {
    client: session.client,
    capability,
    timeoutMs,
    step: (tool, probe) => {
      index += 1;
      options.onProgress?.({ index: Math.min(index, total), total, tool, probe });
    },
  };
  const rows: ProbeRow[] = [capabilityRow(capability), toolsListRow(listed.status), await unknownToolRow(context)];
  for (const tool of probed) rows.push(...(await probeTool(context, tool, listed.taskRequired.has(tool.name))));
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
 * `openbridge_envelope` capability, lists tools (following `nextCursor`, stopping at a repeated
 * cursor or {@link MAX_TOOL_PAGES} pages), calls an unknown tool, then runs the per-tool probes
 * planned by `planToolProbes` on the first `maxTools` tools. Every call has a timeout; nothing the
 * server sends makes this throw once the session is open. Implements CONTRACT.md "Conformance".
 *
 * @param options - target, limits and a progress callback.
 * @returns the report (rows in battery order, totals, verdict, timings in milliseconds).
 * @throws ServerUnreachableError when no session can be opened.
 * @throws CommandLineError when the `--stdio` command line cannot be split.
 */
export async function probeServer(options: ProbeOptions): Promise<ProbeReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const session = await openSession(options.target, timeoutMs);
  let report: Omit<ProbeReport, 'started_at' | 'duration_ms'>;
  try {
    report = await runBattery(session, options, timeoutMs);
  } finally {
    await session.close();
  }
  return { ...report, started_at: startedAt, duration_ms: elapsed(start) };
}
