/**
 * The gate's limiter battery: each gated server whose descriptor has `limiter`, started with the
 * pre-flight limiter on and no waiting (the `limiter` variant), must learn a plan from the upstream
 * as its descriptor says (SP from its `x-amzn-RateLimit-Limit` header, Ads from a 429) and then refuse the next call over budget with
 * a valid `rate_limited` envelope before anything is sent upstream, and `get_envelope_contract`
 * must report the limiter. Implements CONTRACT.md "rate_limited" (pre-flight limiter) for the
 * project's own servers.
 *
 * @packageDocumentation
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import type { ReplayRoute } from '@mcp-envelope/testing';

import { describeValue } from '../call-outcome.js';
import { isRecord } from '@mcp-envelope/contract';
import { truncate } from '../probe-evaluate.js';
import type { GateServer } from './descriptor.js';
import type { GateEnvironment, RawOutcome } from './environment.js';
import type { GateRow } from './gate-report.js';
import type { ServerId } from './reference-servers.js';

/** A server's limiter section of its descriptor. */
type LimiterSection = NonNullable<GateServer['limiter']>;

function limiterRow(
  server: ServerId,
  check: string,
  expected: string,
  got: string,
  notes: readonly string[],
  start: number,
): GateRow {
  return {
    section: 'limiter',
    server,
    check,
    expected,
    got,
    result: notes.length === 0 ? 'PASS' : 'FAIL',
    note: notes.join('; '),
    duration_ms: Math.round(performance.now() - start),
  };
}

function structuredOf(outcome: RawOutcome): Record<string, unknown> | undefined {
  if (outcome.type !== 'result' || !isRecord(outcome.result)) return undefined;
  const structured = outcome.result['structuredContent'];
  return isRecord(structured) ? structured : undefined;
}

function describeOutcome(outcome: RawOutcome): string {
  return outcome.type === 'thrown'
    ? `threw ${describeValue(outcome.error)}`
    : truncate(JSON.stringify(outcome.result), 200);
}

/** What is wrong with a pre-flight refusal (nothing when it is one). */
function refusalNotes(outcome: RawOutcome, sentUpstream: number): string[] {
  const envelope = structuredOf(outcome);
  if (envelope === undefined || !isRecord(outcome.type === 'result' ? outcome.result : undefined))
    return [`no envelope: ${describeOutcome(outcome)}`];
  const notes: string[] = [];
  if (envelope['error_kind'] !== 'rate_limited' || envelope['error_code'] !== 'RATE_LIMITED')
    notes.push(`${String(envelope['error_kind'])}/${String(envelope['error_code'])}`);
  if (envelope['retryable'] !== true) notes.push('not retryable');
  const meta = isRecord(envelope['_meta']) ? envelope['_meta'] : {};
  if (typeof meta['retry_after_seconds'] !== 'number') notes.push('no _meta.retry_after_seconds');
  if (!isRecord(meta['rate_limit'])) notes.push('no _meta.rate_limit');
  const validation = validateEnvelope(envelope);
  if (!validation.valid) notes.push(`invalid envelope: ${validation.errors.map((error) => error.message).join(', ')}`);
  if (sentUpstream !== 0) notes.push(`${sentUpstream} request(s) reached the upstream`);
  return notes;
}

/** Calls the server's tool with `routes` and says how many requests reached the upstream. */
async function callCounting(
  environment: GateEnvironment,
  server: ServerId,
  tool: string,
  routes: readonly ReplayRoute[],
): Promise<{ outcome: RawOutcome; sent: number }> {
  const before = environment.replay.requests.length;
  const outcome = await environment.call(server, 'limiter', tool, {}, routes);
  return { outcome, sent: environment.replay.requests.length - before };
}

/** A limit reported in headers becomes the plan; the call past it is refused before going upstream. */
async function headerRows(
  environment: GateEnvironment,
  server: ServerId,
  limiter: LimiterSection & { readonly learns_from: 'header' },
): Promise<GateRow[]> {
  const start = performance.now();
  const route: ReplayRoute = {
    path: limiter.path,
    response: { status: 200, headers: limiter.headers, body: { payload: [] } },
  };
  const names = Object.keys(limiter.headers).join(', ');
  // the first call teaches the plan (one token), the second spends it, the third is over budget
  await callCounting(environment, server, limiter.tool, [route]);
  const spent = await callCounting(environment, server, limiter.tool, [route]);
  const refused = await callCounting(environment, server, limiter.tool, [route]);
  const limit = (structuredOf(refused.outcome)?.['_meta'] as { rate_limit?: Record<string, unknown> } | undefined)
    ?.rate_limit?.['limit_per_second'];
  const notes = [
    ...(spent.sent === 1 ? [] : ['the call within the learned plan did not go upstream']),
    ...refusalNotes(refused.outcome, refused.sent),
  ];
  return [
    limiterRow(
      server,
      `learned rate from ${names}`,
      `limit_per_second ${limiter.limit_per_second} in the refusal`,
      `limit_per_second ${String(limit)}`,
      limit === limiter.limit_per_second ? [] : [`limit_per_second ${String(limit)}`],
      start,
    ),
    limiterRow(
      server,
      'pre-flight refusal envelope',
      'rate_limited/RATE_LIMITED, valid, retry_after_seconds and rate_limit, nothing upstream',
      describeOutcome(refused.outcome).slice(0, 120),
      notes,
      start,
    ),
  ];
}

/** No plan at first; an upstream 429 drains the bucket, so the next call is refused before going upstream. */
async function throttledRows(
  environment: GateEnvironment,
  server: ServerId,
  limiter: LimiterSection,
): Promise<GateRow[]> {
  const start = performance.now();
  const throttled: ReplayRoute = {
    path: limiter.path,
    response: { status: 429, headers: { 'retry-after': '30' }, body: { code: 'THROTTLED', details: 'slow down' } },
  };
  const first = await callCounting(environment, server, limiter.tool, [throttled]);
  const refused = await callCounting(environment, server, limiter.tool, [throttled]);
  const wait = (structuredOf(refused.outcome)?.['_meta'] as { retry_after_seconds?: unknown } | undefined)
    ?.retry_after_seconds;
  const notes = [
    ...(first.sent === 1 && structuredOf(first.outcome)?.['error_kind'] === 'rate_limited'
      ? []
      : [`the upstream 429 was not answered as rate_limited: ${describeOutcome(first.outcome)}`]),
    ...refusalNotes(refused.outcome, refused.sent),
    ...(typeof wait === 'number' && wait > 0 && wait <= 30 ? [] : [`retry_after_seconds ${String(wait)}`]),
  ];
  return [
    limiterRow(
      server,
      'learning from a 429, then pre-flight refusal',
      'upstream 429 (Retry-After 30) drains the bucket: next call refused, valid, nothing upstream',
      `retry_after_seconds ${String(wait)}`,
      notes,
      start,
    ),
  ];
}

async function contractRow(environment: GateEnvironment, server: ServerId): Promise<GateRow> {
  const start = performance.now();
  const outcome = await environment.call(server, 'limiter', 'get_envelope_contract', {}, []);
  const settings = structuredOf(outcome)?.['settings'];
  const notes: string[] = [];
  if (!isRecord(settings)) notes.push(`no settings: ${describeOutcome(outcome)}`);
  else {
    if (settings['MCP_RATE_LIMIT'] !== true) notes.push('MCP_RATE_LIMIT is not reported on');
    if (settings['MCP_RATE_LIMIT_MAX_WAIT_MS'] !== 0) notes.push('MCP_RATE_LIMIT_MAX_WAIT_MS is not 0');
    if (settings['MCP_RATE_LIMIT_STORE'] !== 'memory') notes.push('the store is not memory');
    if (settings['rate_limit_store_fallback'] !== false) notes.push('rate_limit_store_fallback is not false');
  }
  return limiterRow(
    server,
    'get_envelope_contract reports the limiter',
    'MCP_RATE_LIMIT true, MAX_WAIT_MS 0, store memory, no fallback',
    isRecord(settings)
      ? `${String(settings['MCP_RATE_LIMIT'])}, ${String(settings['MCP_RATE_LIMIT_MAX_WAIT_MS'])}, ${String(settings['MCP_RATE_LIMIT_STORE'])}, ${String(settings['rate_limit_store_fallback'])}`
      : 'no settings',
    notes,
    start,
  );
}

/**
 * Runs the limiter battery on every gated server whose descriptor has `limiter`.
 *
 * @param environment - the running gate environment.
 * @returns the rows, section `limiter`.
 */
export async function limiterRows(environment: GateEnvironment): Promise<GateRow[]> {
  const rows: GateRow[] = [];
  for (const { id, limiter } of environment.servers) {
    if (limiter === undefined) continue;
    rows.push(await contractRow(environment, id));
    rows.push(
      ...(limiter.learns_from === 'header'
        ? await headerRows(environment, id, limiter)
        : await throttledRows(environment, id, limiter)),
    );
  }
  return rows;
}
