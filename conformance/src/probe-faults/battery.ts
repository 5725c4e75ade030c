/**
 * The upstream fault battery of `probe --upstream-faults`: a loopback fault upstream stands in for
 * the server's upstream API, and one tool that reaches it is called once per round while the
 * upstream answers with a success, HTTP errors, a timeout, unreadable bodies and rate limits.
 *
 * @packageDocumentation
 */
import { ENVELOPE_EXTENSION_ID, isRecord } from '@mcp-envelope/contract';
import { ENVELOPE_CONTRACT_TOOL_NAME } from '@mcp-envelope/core';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { callToolOutcome, describeValue } from '../call-outcome.js';
import type { CallOutcome } from '../call-outcome.js';
import { CommandLineError } from '../command-line.js';
import { probeRow, truncate } from '../probe-evaluate.js';
import type { Judgement } from '../probe-evaluate.js';
import { planToolProbes } from '../probe-plan.js';
import type { ToolDescription } from '../probe-plan.js';
import type { CapabilityStatus, ProbeName, ProbeRow } from '../report-types.js';

import { faultExpectationLabel, judgeFaultRound } from './judge.js';
import { FAULT_ROUNDS, faultExpectationFor, SUCCESS_ROUND } from './rounds.js';
import type { FaultExpectation, FaultRound } from './rounds.js';

/** The placeholder of the `--stdio` command line that becomes the fault upstream's base URL. */
export const UPSTREAM_PLACEHOLDER = '{upstream}';
/** The placeholder that becomes the fault upstream's OAuth 2.0 token endpoint (`POST`, answers a bearer token). */
export const TOKEN_URL_PLACEHOLDER = '{token_url}';
/** Default `--upstream-timeout-ms`: how long a server waits for its upstream, in milliseconds. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** How many listed tools are tried, in listing order, for one whose call reaches the fault upstream. */
export const MAX_FAULT_TOOL_CANDIDATES = 10;

/** What the fault battery is told (the `--upstream-faults` options). */
export interface UpstreamFaultOptions {
  /** The tool to call in every round; absent: the first listed tool whose call reaches the fault upstream. */
  readonly tool?: string;
  /** The tool's arguments; absent: the valid baseline the probe builds from its `inputSchema`. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /**
   * How long the server waits for its upstream before it gives up, in milliseconds (default
   * {@link DEFAULT_UPSTREAM_TIMEOUT_MS}): the timeout round waits that long plus the probe's timeout.
   */
  readonly upstreamTimeoutMs?: number;
  /** An environment variable to set to the fault upstream's URL, for servers that read it there. */
  readonly upstreamEnv?: string;
}

/** A session of its own for one round, closed after it. */
export interface FaultSession {
  readonly client: Client;
  /** Never throws. */
  close(): Promise<void>;
}

/** What the battery runs on: the open session and the running fault upstream. */
export interface FaultBatteryContext {
  readonly client: Client;
  /** Starts the server again, for a round that needs a server process of its own. */
  readonly openSession: () => Promise<FaultSession>;
  readonly capability: CapabilityStatus;
  readonly upstream: UpstreamReplay;
  /** The probe's timeout of one request, in milliseconds. */
  readonly timeoutMs: number;
  readonly step: (tool: string, probe: ProbeName) => void;
}

/** The versions the battery states it reads: it judges version 2 envelopes. */
const STATES_BOTH = Object.freeze({ [ENVELOPE_EXTENSION_ID]: Object.freeze({ contract_versions: [1, 2] }) });

/** The rounds after the success round, which picks the tool. */
const FAULT_ONLY_ROUNDS = FAULT_ROUNDS.filter((round) => round !== SUCCESS_ROUND);

/**
 * Starts the loopback fault upstream: `startUpstreamReplay` on 127.0.0.1, answering the success
 * round until a round says otherwise, its token endpoint handing out a bearer token.
 *
 * @returns the running upstream; the caller closes it.
 */
export function startFaultUpstream(): Promise<UpstreamReplay> {
  return startUpstreamReplay({ standing: SUCCESS_ROUND.answer({ now: new Date(), holdMs: 0 }) });
}

/**
 * The `--stdio` command line pointed at the fault upstream: every `{upstream}` becomes its URL and
 * every `{token_url}` its token endpoint (in arguments and `NAME=value` assignments alike), and
 * `MCP_RATE_LIMIT=off` goes in front, so that a pre-flight limiter which learns from the
 * rate-limit rounds does not answer in the upstream's place; an assignment in the line itself wins.
 *
 * @param commandLine - the `--stdio` command line.
 * @param upstream - the fault upstream's `url` and `tokenUrl`.
 * @param upstreamEnv - a variable to set to the URL as well (`--upstream-env`).
 * @returns the command line to start.
 * @throws CommandLineError when the line has no `{upstream}` and no variable is named, or the name is no variable name.
 */
export function faultCommandLine(
  commandLine: string,
  upstream: { readonly url: string; readonly tokenUrl: string },
  upstreamEnv?: string,
): string {
  if (upstreamEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(upstreamEnv))
    throw new CommandLineError(`--upstream-env needs a variable name, got "${upstreamEnv}"`);
  if (upstreamEnv === undefined && !commandLine.includes(UPSTREAM_PLACEHOLDER))
    throw new CommandLineError(
      `--upstream-faults needs ${UPSTREAM_PLACEHOLDER} in the command line (e.g. --upstream ${UPSTREAM_PLACEHOLDER}) or --upstream-env <NAME>`,
    );
  const filled = commandLine
    .replaceAll(UPSTREAM_PLACEHOLDER, upstream.url)
    .replaceAll(TOKEN_URL_PLACEHOLDER, upstream.tokenUrl);
  const assignments = ['MCP_RATE_LIMIT=off', ...(upstreamEnv === undefined ? [] : [`${upstreamEnv}=${upstream.url}`])];
  return `${assignments.join(' ')} ${filled}`;
}

interface Candidate {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Whether `tools/list` annotates the tool as idempotent (see `faultExpectationFor`). */
  readonly idempotent: boolean;
}

interface Called {
  readonly outcome: CallOutcome;
  /** Whether at least one request reached the fault upstream during the call. */
  readonly reached: boolean;
  readonly durationMs: number;
}

function faultRow(
  probe: ProbeName,
  tool: string,
  expected: string,
  judgement: Judgement,
  called?: Called & { readonly arguments: Readonly<Record<string, unknown>> },
): ProbeRow {
  return probeRow(probe, tool, expected, judgement, called?.durationMs ?? 0, called?.arguments);
}

async function callOnce(
  context: FaultBatteryContext,
  candidate: Candidate,
  timeoutMs: number,
  client: Client = context.client,
): Promise<Called> {
  const before = context.upstream.requests.length;
  const start = performance.now();
  const outcome = await callToolOutcome(client, candidate.tool, candidate.arguments, timeoutMs, STATES_BOTH);
  return {
    outcome,
    reached: context.upstream.requests.length > before,
    durationMs: Math.round(performance.now() - start),
  };
}

/** The tools worth trying, in listing order, or why the named one cannot be called. */
function candidates(
  tools: readonly ToolDescription[],
  taskRequired: ReadonlySet<string>,
  options: UpstreamFaultOptions,
): readonly Candidate[] | string {
  if (options.tool !== undefined) {
    const named = tools.find((tool) => tool.name === options.tool);
    if (named === undefined) return `--fault-tool ${options.tool} is not in tools/list`;
    if (options.arguments !== undefined)
      return [{ tool: named.name, arguments: options.arguments, idempotent: named.idempotent === true }];
    const plan = planToolProbes(named);
    return plan.ok
      ? [{ tool: named.name, arguments: plan.baseline, idempotent: named.idempotent === true }]
      : `no valid arguments for ${named.name} (give --fault-arguments): ${plan.reason}`;
  }
  const found: Candidate[] = [];
  for (const tool of tools) {
    if (tool.name === ENVELOPE_CONTRACT_TOOL_NAME || taskRequired.has(tool.name)) continue;
    const plan = planToolProbes(tool);
    if (plan.ok) found.push({ tool: tool.name, arguments: plan.baseline, idempotent: tool.idempotent === true });
    if (found.length >= MAX_FAULT_TOOL_CANDIDATES) break;
  }
  return found.length > 0
    ? found
    : 'no listed tool has arguments the probe can build (give --fault-tool and --fault-arguments)';
}

function outcomeWord(outcome: CallOutcome): string {
  if (outcome.type === 'envelope') return `${outcome.envelope.error_kind}/${outcome.envelope.error_code}`;
  return outcome.type === 'no-envelope' ? `no envelope (${outcome.channel})` : outcome.type;
}

interface Picked {
  readonly candidate: Candidate;
  readonly called: Called;
  /** The tools tried before it, with what they gave. */
  readonly passed: readonly string[];
}

/** Calls the candidates in turn, the upstream answering the success round, until one reaches it. */
async function pickTool(
  context: FaultBatteryContext,
  list: readonly Candidate[],
): Promise<Picked | { readonly passed: readonly string[] }> {
  const passed: string[] = [];
  for (const candidate of list) {
    context.step(candidate.tool, SUCCESS_ROUND.probe);
    const called = await callOnce(context, candidate, context.timeoutMs);
    if (called.reached) return { candidate, called, passed };
    passed.push(`${candidate.tool} (${outcomeWord(called.outcome)})`);
  }
  return { passed };
}

function skippedRounds(reason: string): ProbeRow[] {
  return FAULT_ONLY_ROUNDS.map((round) =>
    faultRow(round.probe, '-', faultExpectationLabel(round.expected), { got: '-', result: 'SKIP', notes: [reason] }),
  );
}

/** The rows when no call reached the fault upstream: the success row fails, the rest cannot run. */
function unreachedRows(reason: string): ProbeRow[] {
  const judgement: Judgement = { got: 'no upstream request', result: 'FAIL', notes: [reason] };
  return [
    faultRow(SUCCESS_ROUND.probe, '-', faultExpectationLabel(SUCCESS_ROUND.expected), judgement),
    ...skippedRounds('no tool call reached the fault upstream'),
  ];
}

function judgeCalled(
  context: FaultBatteryContext,
  round: FaultRound,
  called: Called,
  notes: readonly string[],
  expected: FaultExpectation = round.expected,
): Judgement {
  const judgement = judgeFaultRound(called.outcome, expected, context.capability);
  const missed = called.reached ? [] : ['the call did not reach the fault upstream'];
  return {
    got: judgement.got,
    result: missed.length === 0 ? judgement.result : 'FAIL',
    notes: [`upstream answered ${round.answers}`, ...notes, ...judgement.notes, ...missed],
  };
}

async function runRound(
  context: FaultBatteryContext,
  round: FaultRound,
  candidate: Candidate,
  upstreamTimeoutMs: number,
): Promise<ProbeRow> {
  // the timeout round's call lasts the server's upstream timeout, then the probe's own
  const timeoutMs = round.waitsForServerTimeout === true ? upstreamTimeoutMs + context.timeoutMs : context.timeoutMs;
  const expected = faultExpectationFor(round, candidate.idempotent);
  context.step(candidate.tool, round.probe);
  let own: FaultSession | undefined;
  try {
    own = round.ownServer === true ? await context.openSession() : undefined;
    // built once the server runs, so that a reset time counts from the call; held longer than
    // the probe waits, so that only the server giving up ends the timeout round's exchange
    context.upstream.respond(round.answer({ now: new Date(), holdMs: timeoutMs + context.timeoutMs }));
    const called = await callOnce(context, candidate, timeoutMs, own?.client);
    const notes = own === undefined ? [] : ['on a server process of its own'];
    const judgement = judgeCalled(context, round, called, notes, expected);
    return faultRow(round.probe, candidate.tool, faultExpectationLabel(expected), judgement, {
      ...called,
      arguments: candidate.arguments,
    });
  } catch (error) {
    const judgement: Judgement = {
      got: 'error',
      result: 'FAIL',
      notes: [`probe error: ${truncate(describeValue(error))}`],
    };
    return faultRow(round.probe, candidate.tool, faultExpectationLabel(expected), judgement);
  } finally {
    await own?.close();
  }
}

/**
 * Runs the fault battery on an open session whose server was started against the fault upstream:
 * picks the tool (the named one, or the first listed tool, `get_envelope_contract` and tools that
 * require tasks aside, whose call with the probe's valid baseline reaches the upstream; at most
 * {@link MAX_FAULT_TOOL_CANDIDATES} tried), whose call is the success round, then runs the other
 * rounds of `FAULT_ROUNDS` on it, each call stating contract versions `[1, 2]`. A round whose
 * call does not reach the upstream fails; when no call reaches it, the success row fails and the
 * other rounds are skipped, so a server whose valid calls all fail never passes.
 *
 * @param context - the session, the capability, the fault upstream, the probe's timeout, progress.
 * @param listed - the listed tools and the names of those that require tasks.
 * @param options - the tool, its arguments, the server's upstream timeout.
 * @returns one row per round, in `FAULT_ROUNDS` order.
 */
export async function runFaultBattery(
  context: FaultBatteryContext,
  listed: { readonly tools: readonly ToolDescription[]; readonly taskRequired: ReadonlySet<string> },
  options: UpstreamFaultOptions,
): Promise<ProbeRow[]> {
  const list = candidates(listed.tools, listed.taskRequired, options);
  if (typeof list === 'string') return unreachedRows(list);
  context.upstream.respond(SUCCESS_ROUND.answer({ now: new Date(), holdMs: 0 }));
  const picked = await pickTool(context, list);
  if (!('candidate' in picked))
    return unreachedRows(`no call reached the fault upstream; tried ${picked.passed.join(', ')}`);
  const how =
    options.tool === undefined
      ? [
          `the first listed tool whose call reached the fault upstream${picked.passed.length === 0 ? '' : `, after ${picked.passed.join(', ')}`}`,
        ]
      : [];
  const rows = [
    faultRow(
      SUCCESS_ROUND.probe,
      picked.candidate.tool,
      faultExpectationLabel(SUCCESS_ROUND.expected),
      judgeCalled(context, SUCCESS_ROUND, picked.called, how),
      { ...picked.called, arguments: picked.candidate.arguments },
    ),
  ];
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  for (const round of FAULT_ONLY_ROUNDS) rows.push(await runRound(context, round, picked.candidate, upstreamTimeoutMs));
  context.upstream.respond(SUCCESS_ROUND.answer({ now: new Date(), holdMs: 0 }));
  return rows;
}

/**
 * Reads `--fault-arguments`: a JSON object.
 *
 * @param text - the option's value.
 * @returns the object, or why it is not one.
 */
export function parseFaultArguments(text: string): Readonly<Record<string, unknown>> | string {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : '--fault-arguments must be a JSON object';
  } catch (error) {
    return `--fault-arguments is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}
