/**
 * The gate's Code Mode battery: each gated server whose descriptor has `code_mode`, started with
 * `CODE_MODE=true` (the `code-mode` variant), must list the meta tools, advertise `sandbox_runtime`, find a known tool
 * with `search_tools`, hand a script the `SCHEMA_*` envelope of a wrong argument as a value, stop
 * an endless loop with the wall-time limit envelope in time, and answer another call meanwhile.
 * Implements CONTRACT.md "Code Mode" for the project's own servers.
 *
 * @packageDocumentation
 */
import { validateEnvelope } from '@mcp-envelope/contract';

import { describeValue } from '../call-outcome.js';
import { checkCapability } from '../capability-check.js';
import { isRecord } from '@mcp-envelope/contract';
import { truncate } from '../probe-evaluate.js';
import type { GateEnvironment, GateReader, RawOutcome } from './environment.js';
import type { GateRow } from './gate-report.js';
import type { GateServer } from './descriptor.js';
import { KEYWORD_TOOL } from './fixture-plan.js';
import { GATE_CODE_MODE_WALL_TIME_MS } from './reference-servers.js';
import type { ServerId } from './reference-servers.js';

/** A script whose inner call breaks the keyword tool's `multipleOf` and returns what it got (an envelope of either version). */
export const WRONG_ARGUMENT_SCRIPT = `const reply = await callTool(${JSON.stringify(KEYWORD_TOOL)}, { body: { label: 'crate', quantity: 7 } });
if (reply._envelope_version === 1 || reply._envelope_version === 2) return { branch: 'envelope', envelope: reply };
return { branch: 'success', reply };`;

/** A script that never ends on its own. */
export const ENDLESS_SCRIPT = 'let turns = 0;\nwhile (true) { turns += 1; }';

/** How long past the wall-time limit the limit envelope may take to arrive, in milliseconds. */
const LIMIT_SLACK_MS = 2_000;

interface RowInput {
  readonly server: ServerId;
  readonly check: string;
  readonly expected: string;
  readonly got: string;
  readonly notes: readonly string[];
  readonly start: number;
}

function codeModeRow(input: RowInput): GateRow {
  return {
    section: 'code-mode',
    server: input.server,
    check: input.check,
    expected: input.expected,
    got: input.got,
    result: input.notes.length === 0 ? 'PASS' : 'FAIL',
    note: input.notes.join('; '),
    duration_ms: Math.round(performance.now() - input.start),
  };
}

function structuredOf(outcome: RawOutcome): Record<string, unknown> | undefined {
  if (outcome.type !== 'result' || !isRecord(outcome.result)) return undefined;
  const structured = outcome.result['structuredContent'];
  return isRecord(structured) ? structured : undefined;
}

function isErrorResult(outcome: RawOutcome): boolean {
  return outcome.type === 'result' && isRecord(outcome.result) && outcome.result['isError'] === true;
}

function describeOutcome(outcome: RawOutcome): string {
  return outcome.type === 'thrown'
    ? `threw ${describeValue(outcome.error)}`
    : truncate(JSON.stringify(outcome.result), 200);
}

async function listingRow(environment: GateEnvironment, server: ServerId): Promise<GateRow> {
  const start = performance.now();
  const notes: string[] = [];
  let got = 'no listing';
  try {
    const session = await environment.session(server, 'code-mode');
    const names = (await session.client.listTools()).tools.map((tool) => tool.name).sort();
    got = `[${names.join(', ')}]`;
    const expected = ['execute_code', 'get_envelope_contract', 'get_tool_schema', 'search_tools'];
    if (names.join() !== expected.join()) notes.push(`tools/list shows ${got}`);
    const kinds = checkCapability(session.initializeResult?.['capabilities']).error_kinds ?? [];
    if (!kinds.includes('sandbox_runtime')) notes.push('sandbox_runtime is not advertised');
    got += kinds.includes('sandbox_runtime') ? ', sandbox_runtime advertised' : '';
  } catch (error) {
    notes.push(`no session: ${truncate(describeValue(error))}`);
  }
  return codeModeRow({
    server,
    check: 'meta tools listed, sandbox_runtime advertised',
    expected: 'the four tools, sandbox_runtime among the kinds',
    got,
    notes,
    start,
  });
}

async function searchRow(
  environment: GateEnvironment,
  server: ServerId,
  search: { readonly query: string; readonly tool: string },
): Promise<GateRow> {
  const start = performance.now();
  const { query, tool } = search;
  const outcome = await environment.call(server, 'code-mode', 'search_tools', { query }, []);
  const hits = structuredOf(outcome)?.['tools'];
  const names = Array.isArray(hits) ? hits.map((hit) => (isRecord(hit) ? String(hit['name']) : '?')) : [];
  return codeModeRow({
    server,
    check: `search_tools "${query}"`,
    expected: `${tool} among the hits`,
    got: names.length === 0 ? describeOutcome(outcome) : names.slice(0, 5).join(', '),
    notes: names.includes(tool) ? [] : [`${tool} was not found`],
    start,
  });
}

/**
 * A script's inner call that breaks a schema gets its envelope as a value, in the version the
 * outer `execute_code` request reads (a script written for version 1 branches on `_envelope_version === 1`).
 */
async function wrongArgumentRow(environment: GateEnvironment, server: ServerId, reader: GateReader): Promise<GateRow> {
  const start = performance.now();
  const version = reader === 'v1' ? 1 : 2;
  const args = { code: WRONG_ARGUMENT_SCRIPT };
  const outcome = await environment.call(server, 'code-mode', 'execute_code', args, [], reader);
  const result = structuredOf(outcome)?.['result'];
  const envelope = isRecord(result) && result['branch'] === 'envelope' ? result['envelope'] : undefined;
  const notes: string[] = [];
  if (isErrorResult(outcome)) notes.push('execute_code itself failed');
  if (!isRecord(envelope)) notes.push(`the script did not get an envelope: ${describeOutcome(outcome)}`);
  else {
    if (envelope['error_code'] !== 'SCHEMA_MULTIPLE_OF') notes.push(`error_code ${String(envelope['error_code'])}`);
    if (envelope['_envelope_version'] !== version)
      notes.push(
        `the inner call's envelope is v${String(envelope['_envelope_version'])}, the outer request reads v${version}`,
      );
    const validation = validateEnvelope(envelope);
    if (!validation.valid)
      notes.push(`invalid envelope: ${validation.errors.map((error) => error.message).join(', ')}`);
  }
  return codeModeRow({
    server,
    check: `execute_code: wrong argument in an inner call (${reader} reader)`,
    expected: `v${version} SCHEMA_MULTIPLE_OF envelope returned as a value`,
    got: isRecord(envelope)
      ? `v${String(envelope['_envelope_version'])} ${String(envelope['error_kind'])}/${String(envelope['error_code'])} as a value`
      : 'no envelope',
    notes,
    start,
  });
}

function limitNotes(outcome: RawOutcome, elapsedMs: number): string[] {
  const notes: string[] = [];
  const envelope = structuredOf(outcome);
  if (!isErrorResult(outcome) || envelope === undefined) return [`no limit envelope: ${describeOutcome(outcome)}`];
  if (envelope['error_kind'] !== 'sandbox_runtime' || envelope['error_code'] !== 'CODE_MODE_SANDBOX_LIMITATION')
    notes.push(`${String(envelope['error_kind'])}/${String(envelope['error_code'])}`);
  const details: unknown = envelope['details'];
  const detail: unknown = Array.isArray(details) ? details[0] : undefined;
  if (!isRecord(detail) || detail['reason'] !== 'wall_time') notes.push('the detail does not name the wall_time limit');
  if (!validateEnvelope(envelope).valid) notes.push('invalid envelope');
  if (elapsedMs > GATE_CODE_MODE_WALL_TIME_MS + LIMIT_SLACK_MS)
    notes.push(`took ${Math.round(elapsedMs)} ms, more than the limit plus ${LIMIT_SLACK_MS} ms`);
  return notes;
}

/** The endless script, and a `get_envelope_contract` call on the same session while it runs. */
async function endlessRows(environment: GateEnvironment, server: ServerId): Promise<GateRow[]> {
  const start = performance.now();
  const looping = environment.call(server, 'code-mode', 'execute_code', { code: ENDLESS_SCRIPT }, []);
  const loopDone = looping.then(() => performance.now());
  // give the script time to be inside its loop before the other call goes out
  await new Promise((resolve) => setTimeout(resolve, Math.min(300, GATE_CODE_MODE_WALL_TIME_MS / 4)));
  const session = await environment.session(server, 'code-mode');
  const otherStart = performance.now();
  let other: RawOutcome;
  try {
    other = { type: 'result', result: await session.client.callTool({ name: 'get_envelope_contract', arguments: {} }) };
  } catch (error) {
    other = { type: 'thrown', error };
  }
  const otherEnd = performance.now();
  const [outcome, loopEnd] = await Promise.all([looping, loopDone]);
  const responsiveNotes = [
    ...(isErrorResult(other) || other.type === 'thrown' ? [`the other call failed: ${describeOutcome(other)}`] : []),
    ...(otherEnd >= loopEnd ? ['the other call was answered only after the script stopped'] : []),
  ];
  return [
    codeModeRow({
      server,
      check: 'execute_code: endless loop',
      expected: `sandbox_runtime/CODE_MODE_SANDBOX_LIMITATION wall_time within ${GATE_CODE_MODE_WALL_TIME_MS + LIMIT_SLACK_MS} ms`,
      got: `${Math.round(loopEnd - start)} ms`,
      notes: limitNotes(outcome, loopEnd - start),
      start,
    }),
    codeModeRow({
      server,
      check: 'responsive while a script loops',
      expected: 'get_envelope_contract answered before the script stops',
      got: `answered in ${Math.round(otherEnd - otherStart)} ms, ${Math.round(loopEnd - otherEnd)} ms before the script stopped`,
      notes: responsiveNotes,
      start: otherStart,
    }),
  ];
}

/**
 * Runs the Code Mode battery on every gated server whose descriptor has `code_mode`; the wrong
 * argument rows need the keyword tool (fixture group `keywords`), and the version 1 one a server
 * that speaks version 1.
 *
 * @param environment - the running gate environment.
 * @returns the rows, section `code-mode`.
 */
export async function codeModeRows(environment: GateEnvironment): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  const joined = environment.servers.filter(
    (entry): entry is GateServer & Required<Pick<GateServer, 'code_mode'>> => entry.code_mode !== undefined,
  );
  for (const { id: server, code_mode: codeMode, fixtures, contract_versions: versions } of joined) {
    rows.push(await listingRow(environment, server));
    if (rows.at(-1)?.got === 'no listing') continue;
    rows.push(await searchRow(environment, server, codeMode.search));
    // The first script of a process also compiles the sandbox, which takes most of the gate's
    // 1 s wall time on a loaded machine: one untimed run first, so the rows judge envelopes.
    await environment.call(server, 'code-mode', 'execute_code', { code: 'return 1;' }, []);
    if (fixtures.common.includes('keywords')) {
      rows.push(await wrongArgumentRow(environment, server, 'v2'));
      if (versions.includes(1)) rows.push(await wrongArgumentRow(environment, server, 'v1'));
    }
    rows.push(...(await endlessRows(environment, server)));
  }
  return rows;
}
