/**
 * A scripted agent that reads only the envelope corrects its call in one retry. The SP server runs
 * as its own process (the bin's source over stdio) on the official SP models plus the conformance
 * keyword model (for the keywords no official model uses), against a loopback replay upstream.
 * For each `SCHEMA_*` keyword code the agent makes a deliberately wrong call, builds the
 * corrected arguments from the details (`path`, `extra`, `did_you_mean`, `limit`, and a failed
 * combinator's `branch_details`, read the same way) and nothing else, and calls once more.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { SCHEMA_ERROR_CODES, validateEnvelope } from '@mcp-envelope/contract';
import type { EnvelopeDetail, ErrorEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CLI } from './helpers/cli.js';
import { lwaEnv, READS_V1_AND_V2, startSpUpstream } from './helpers/sp-client.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const KEYWORD_MODEL = fileURLToPath(
  new URL('../../../conformance/models/keywords/conformance-keywords.json', import.meta.url),
);
const KEYWORD_TOOL = 'conformanceKeywords_checkKeywords';
const PLAN_ID = 'wf1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d';
const SHIPMENT_ID = 'sh1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d';

/** One deliberately wrong call: the code it must get, and whether the envelope holds the fix. */
interface WrongCall {
  readonly code: string;
  /** Names a second call for the same code (the first is named by its code). */
  readonly label?: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Why the agent cannot fix it from the envelope, when it cannot. */
  readonly cannot?: string;
}

/** The keyword tool's body with one property wrong (`label` is its one required property). */
function keywordCall(code: string, body: Record<string, unknown>, cannot?: string, label?: string): WrongCall {
  return {
    code,
    tool: KEYWORD_TOOL,
    args: { body: { label: 'ok-label', ...body } },
    ...(cannot === undefined ? {} : { cannot }),
    ...(label === undefined ? {} : { label }),
  };
}

const WRONG_CALLS: readonly WrongCall[] = [
  { code: 'SCHEMA_TYPE_MISMATCH', tool: 'reports20210630_getReports', args: { pageSize: '50' } },
  {
    code: 'SCHEMA_REQUIRED',
    tool: 'fbaInventory_getInventorySummaries',
    args: { granularityId: 'ATVPDKIKX0DER', marketplaceIds: ['ATVPDKIKX0DER'] },
  },
  {
    code: 'SCHEMA_MAX_ITEMS',
    tool: 'catalogItems20220401_searchCatalogItems',
    args: { marketplaceIds: ['ATVPDKIKX0DER', 'A2EUQ1WTGCTBG2'], keywords: ['tea'] },
  },
  {
    code: 'SCHEMA_MIN_ITEMS',
    tool: 'reports20210630_getReports',
    args: { processingStatuses: [] },
    cannot: 'the model gives no default or example, and which statuses to ask for is the caller’s choice',
  },
  {
    code: 'SCHEMA_MAX_LENGTH',
    tool: 'fulfillmentInbound20240320_getShipment',
    args: { inboundPlanId: `${PLAN_ID}9`, shipmentId: SHIPMENT_ID },
  },
  {
    code: 'SCHEMA_MIN_LENGTH',
    tool: 'fulfillmentInbound20240320_getShipment',
    args: { inboundPlanId: PLAN_ID.slice(0, 30), shipmentId: SHIPMENT_ID },
    cannot: 'the model gives no default or example, and the missing characters of an id are only the caller’s to know',
  },
  { code: 'SCHEMA_MAXIMUM', tool: 'reports20210630_getReports', args: { pageSize: 500 } },
  { code: 'SCHEMA_MINIMUM', tool: 'reports20210630_getReports', args: { pageSize: 0 } },
  { code: 'SCHEMA_ENUM_MISMATCH', tool: 'reports20210630_getReports', args: { processingStatuses: ['done'] } },
  keywordCall('SCHEMA_PATTERN_MISMATCH', { label: 'Ok-label' }),
  { code: 'SCHEMA_FORMAT_INVALID', tool: 'reports20210630_getReports', args: { createdSince: '2025-03-01' } },
  { code: 'SCHEMA_ADDITIONAL_PROPERTIES', tool: 'reports20210630_getReports', args: { pageSzie: 10 } },
  // no branch takes a number: the nearest branch's type mismatch says to send it as text
  keywordCall('SCHEMA_ONE_OF_FAILED', { target: 7 }),
  keywordCall(
    'SCHEMA_ONE_OF_FAILED',
    { target: 'abc' },
    'both branches take it, and no const/enum property tells them apart: how to leave one is the caller’s choice',
    'SCHEMA_ONE_OF_FAILED matched twice',
  ),
  keywordCall('SCHEMA_ANY_OF_FAILED', { window: '5' }),
  // every part wants an object, and the text sent is one in JSON
  keywordCall('SCHEMA_ALL_OF_FAILED', { limits: '{"low":1,"high":9}' }),
  keywordCall(
    'SCHEMA_ALL_OF_FAILED',
    { limits: {} },
    'the missing low and high are the caller’s to choose',
    'SCHEMA_ALL_OF_FAILED missing fields',
  ),
  keywordCall('SCHEMA_UNIQUE_ITEMS', { tags: ['a', 'a'] }),
  keywordCall('SCHEMA_CONST_MISMATCH', { version: 3 }),
  keywordCall('SCHEMA_MULTIPLE_OF', { quantity: 7 }),
  keywordCall('SCHEMA_VALIDATION_FAILED', { startDate: '2025-03-01' }, 'the end date is the caller’s to choose'),
];

/** The object at `segments` inside `root`, created on the way when missing. */
function objectAt(root: Record<string, unknown>, segments: readonly string[]): Record<string, unknown> {
  let node: Record<string, unknown> = root;
  for (const segment of segments) {
    const next = node[segment];
    if (typeof next !== 'object' || next === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  return node;
}

/**
 * The scripted agent: the corrected arguments built from the envelope alone, or `undefined` when
 * some detail offers no fix. An unknown key (`extra`) is renamed to the suggested key; a text
 * over `maxLength` is cut to the detail's `limit`; any other detail's value at `path` is replaced
 * by the suggested value; a failed combinator without a suggestion of its own is corrected through
 * its `branch_details`, each read like a top-level detail.
 */
export function correctedArguments(
  sent: Record<string, unknown>,
  envelope: ErrorEnvelope,
): Record<string, unknown> | undefined {
  const corrected = structuredClone(sent);
  return applyDetails(corrected, envelope.details, envelope.error_code) ? corrected : undefined;
}

/** Applies each detail's fix to `corrected`; `false` when one offers none. */
function applyDetails(corrected: Record<string, unknown>, details: readonly EnvelopeDetail[], code: string): boolean {
  for (const detail of details) {
    const segments = detail.path === '' ? [] : detail.path.split('/');
    const last = segments.at(-1);
    const own = last === undefined ? undefined : objectAt(corrected, segments.slice(0, -1))[last];
    // a too long text: the suggestion leaves out the word the cut lands in (it may be a token's
    // head), so the agent cuts its own value to the stated limit
    if (code === 'SCHEMA_MAX_LENGTH' && typeof detail['limit'] === 'number' && typeof own === 'string') {
      objectAt(corrected, segments.slice(0, -1))[last ?? ''] = Array.from(own).slice(0, detail['limit']).join('');
      continue;
    }
    if (!Object.hasOwn(detail, 'did_you_mean')) {
      const nested = detail['branch_details'];
      if (!Array.isArray(nested) || nested.length === 0) return false;
      if (!applyDetails(corrected, nested as EnvelopeDetail[], code)) return false;
      continue;
    }
    if (typeof detail['extra'] === 'string') {
      const holder = objectAt(corrected, segments);
      holder[String(detail.did_you_mean)] = holder[detail['extra']];
      Reflect.deleteProperty(holder, detail['extra']);
    } else {
      if (last === undefined) return false;
      objectAt(corrected, segments.slice(0, -1))[last] = detail.did_you_mean;
    }
  }
  return true;
}

let upstream: UpstreamReplay;
let scratch: string;
let client: Client;

beforeAll(async () => {
  upstream = await startSpUpstream();
  scratch = mkdtempSync(join(tmpdir(), 'sp-scripted-agent-'));
  const models = join(scratch, 'models');
  mkdirSync(models);
  for (const file of readdirSync(join(PACKAGE, 'catalog')))
    copyFileSync(join(PACKAGE, 'catalog', file), join(models, file));
  copyFileSync(KEYWORD_MODEL, join(models, 'conformance-keywords.json'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, '--upstream', upstream.url, '--models', models, '--no-model-cache'],
    cwd: PACKAGE,
    env: { PATH: process.env['PATH'] ?? '', XDG_CACHE_HOME: join(scratch, 'cache'), ...lwaEnv(upstream) },
    stderr: 'pipe',
  });
  client = new Client({ name: 'scripted-agent', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
  await upstream.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name: tool, arguments: args, _meta: READS_V1_AND_V2 })) as CallToolResult;
}

function envelopeOf(result: CallToolResult): ErrorEnvelope {
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as unknown as ErrorEnvelope;
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
  return envelope;
}

describe('a scripted agent that reads only the envelope', () => {
  it('covers every keyword code', () => {
    const keywordCodes = SCHEMA_ERROR_CODES.slice(0, 19);
    expect([...new Set(WRONG_CALLS.map((wrong) => wrong.code))].sort()).toEqual([...keywordCodes].sort());
  });

  it('fixes 16 of the 18 keyword codes in one retry; for the other two, two second calls and the fallback it finds no fix in the envelope', async () => {
    const outcome: Record<string, string> = {};
    for (const wrong of WRONG_CALLS) {
      const envelope = envelopeOf(await call(wrong.tool, wrong.args));
      expect([wrong.code, envelope.error_code, envelope.summary]).toEqual([
        wrong.code,
        wrong.code,
        expect.stringMatching(/ Correct .+ call again\.$/),
      ]);
      const corrected = correctedArguments(wrong.args, envelope);
      if (corrected === undefined) {
        outcome[wrong.label ?? wrong.code] = 'cannot';
        continue;
      }
      const retried = await call(wrong.tool, corrected);
      outcome[wrong.label ?? wrong.code] =
        retried.isError === true ? `still failing: ${JSON.stringify(retried.structuredContent)}` : 'fixed';
    }
    const expected = Object.fromEntries(
      WRONG_CALLS.map((wrong) => [wrong.label ?? wrong.code, wrong.cannot === undefined ? 'fixed' : 'cannot']),
    );
    expect(outcome).toEqual(expected);
    const fixedCodes = new Set(
      WRONG_CALLS.filter((wrong) => outcome[wrong.label ?? wrong.code] === 'fixed').map((wrong) => wrong.code),
    );
    expect(fixedCodes.size).toBe(16);
    expect(SCHEMA_ERROR_CODES.slice(0, 18).filter((code) => !fixedCodes.has(code))).toEqual([
      'SCHEMA_MIN_ITEMS',
      'SCHEMA_MIN_LENGTH',
    ]);
  });

  it('shows the envelope before and the call after: a page size sent as text', async () => {
    const envelope = envelopeOf(await call('reports20210630_getReports', { pageSize: '50' }));
    expect(envelope.summary).toBe('pageSize should be integer, not string. Correct pageSize and call again.');
    expect(envelope.details).toEqual([
      {
        path: 'pageSize',
        issue: 'pageSize should be integer, not string.',
        received_type: 'string',
        field: 'pageSize',
        expected_type: 'integer',
        received_value: '50',
        expected: 'a value of type integer',
        did_you_mean: 50,
      },
    ]);
    expect(correctedArguments({ pageSize: '50' }, envelope)).toEqual({ pageSize: 50 });
  });

  it('shows the envelope before and the call after: a oneOf no branch of which takes a number', async () => {
    const args = { body: { label: 'ok-label', target: 7 } };
    const envelope = envelopeOf(await call(KEYWORD_TOOL, args));
    expect(envelope.details).toEqual([
      {
        path: 'body/target',
        issue: "body/target must match exactly one of the schema's alternatives and does not.",
        received_type: 'integer',
        field: 'body/target',
        branches: [
          { branch: 0, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'body/target' },
          { branch: 1, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'body/target' },
        ],
        nearest_branch: 0,
        branch_details: [
          {
            path: 'body/target',
            issue: 'body/target should be string, not integer.',
            received_type: 'integer',
            field: 'body/target',
            expected_type: 'string',
            received_value: 7,
            expected: 'a value of type string',
            did_you_mean: '7',
          },
        ],
        received_value: 7,
        expected: 'a value matching exactly one of the 2 alternatives',
      },
    ]);
    const corrected = correctedArguments(args, envelope);
    expect(corrected).toEqual({ body: { label: 'ok-label', target: '7' } });
    expect((await call(KEYWORD_TOOL, corrected ?? {})).isError).not.toBe(true);
  });

  it('never echoes an LWA token sent in the wrong field, and suggests nothing made from it', async () => {
    const token = 'Atza|IwEBIScriptedAgentAccessToken0123456789';
    const result = await call('reports20210630_getReports', { pageSize: token });
    const envelope = envelopeOf(result);
    expect(envelope.details[0]).toEqual({
      path: 'pageSize',
      issue: 'pageSize should be integer, not string.',
      received_type: 'string',
      field: 'pageSize',
      expected_type: 'integer',
      received_value: '[REDACTED]',
      expected: 'a value of type integer',
    });
    expect(JSON.stringify(result)).not.toContain('IwEBIScriptedAgent');
  });
});
