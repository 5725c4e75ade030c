import { MIGRATIONS, validateEnvelope } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UPSTREAM_FIXTURES } from './fixtures/upstream-fixtures.js';
import type { UpstreamFixture } from './fixtures/upstream-fixtures.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { connect, lwaEnv, READS_V1_AND_V2, startSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';

/**
 * The release the recorded cases describe: the one that opens SP's v2 windows (their v2 form
 * carries `legacy_error_kind`); once the table drops those windows, the package's own version.
 */
const WINDOW_RELEASE = MIGRATIONS.find((entry) => entry.id === 'sp-api-http-to-upstream-http')?.introduced_in;

let upstream: UpstreamReplay;
let connected: Connected;

beforeAll(async () => {
  upstream = await startSpUpstream();
  connected = await connect({
    env: lwaEnv(upstream),
    upstream: upstream.url,
    envelope: WINDOW_RELEASE === undefined ? {} : { version: WINDOW_RELEASE },
  });
});

afterAll(async () => {
  await connected.close();
  await upstream.close();
});

/** Replays a fixture's answer for one call, checks the request the server sent, returns the result. */
async function replay(fixture: UpstreamFixture, meta?: Record<string, unknown>): Promise<CallToolResult> {
  upstream.respond(fixture.response);
  const before = upstream.requests.length;
  const result = await connected.call(fixture.call.tool, fixture.call.arguments, meta);
  expect(upstream.requests).toHaveLength(before + 1);
  const sent = upstream.requests.at(-1)!;
  expect(sent.method).toBe(fixture.request.method);
  expect(sent.path).toBe(fixture.request.path);
  expect(Object.fromEntries(sent.query)).toEqual(fixture.request.query);
  expect(sent.headers['x-amz-access-token']).toMatch(/^Atza\|replay-access-token-\d+$/);
  return result;
}

/** The structured result, checked to be the same object as its text copy. */
function structuredOf(result: CallToolResult): Record<string, unknown> {
  const structured = result.structuredContent as Record<string, unknown>;
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(structured);
  return structured;
}

/** What every form of an error envelope of this fixture shares: tool, details, hints, no secret. */
function expectSharedFields(fixture: UpstreamFixture, result: CallToolResult, envelope: Record<string, unknown>): void {
  const expected = fixture.expected;
  expect(envelope['tool']).toBe(fixture.call.tool);
  expect(envelope['retryable']).toBe(expected.retryable);
  const first = (envelope['details'] as Record<string, unknown>[])[0]!;
  expect(first['http_status']).toBe(fixture.response.status);
  expect(first['request_id']).toBe(expected.request_id);
  if (expected.upstream_code !== undefined) expect(first['upstream_code']).toBe(expected.upstream_code);
  if (expected.issue !== undefined) expect(first['issue']).toBe(expected.issue);
  const hints = (envelope['hints'] as string[]).join('\n');
  for (const fragment of expected.hints_include ?? []) expect(hints).toContain(fragment);
  for (const fragment of expected.summary_excludes ?? []) expect(envelope['summary']).not.toContain(fragment);
  const wire = JSON.stringify(result);
  for (const secret of [
    ...(expected.secrets ?? []),
    'replay-access-token',
    'fake-refresh-token',
    '00aa11bb22cc33dd44ee55ff66',
  ])
    expect(wire).not.toContain(secret);
}

const CASES = UPSTREAM_FIXTURES.map((fixture) => [fixture.id, fixture] as const);

describe('every recorded SP-API response, replayed through the reference server to a client that states nothing (a reader of v1)', () => {
  it.each(CASES)('%s', async (_id, fixture) => {
    const result = await replay(fixture);
    const expected = fixture.expected_v1;
    const structured = structuredOf(result);
    if (expected.error_kind === null) {
      expect(result.isError).toBeFalsy();
      expect(structured['_meta']).toEqual(expected.meta);
      expect(structured['payload']).toBeDefined();
      return;
    }
    expect(result.isError).toBe(true);
    expect(validateEnvelope(structured)).toEqual({ valid: true, version: 1 });
    expect(structured['_envelope_version']).toBe(1);
    expect(structured['error_kind']).toBe(expected.error_kind);
    expect(structured['error_code']).toBe(expected.error_code);
    expect(structured['legacy_error_kind']).toBe(expected.legacy_error_kind);
    expect(Object.hasOwn(structured, 'upstream')).toBe(false);
    expect(structured['_meta'] ?? {}).toEqual(expected.meta);
    expectSharedFields(fixture, result, structured);
  });
});

describe('every recorded SP-API response, replayed through the reference server to a client that reads v1 and v2', () => {
  it.each(CASES)('%s', async (_id, fixture) => {
    const result = await replay(fixture, READS_V1_AND_V2);
    const expected = fixture.expected;
    const structured = structuredOf(result);
    if (expected.error_kind === null) {
      expect(result.isError).toBeFalsy();
      expect(structured['_meta']).toEqual(expected.meta);
      expect(structured['payload']).toBeDefined();
      return;
    }
    expect(result.isError).toBe(true);
    expect(validateEnvelope(structured)).toEqual({ valid: true, version: 2 });
    expect(structured['_envelope_version']).toBe(2);
    expect(structured['error_kind']).toBe(expected.error_kind);
    expect(structured['error_code']).toBe(expected.error_code);
    expect(structured['upstream']).toBe(expected.upstream);
    expect(structured['legacy_error_kind']).toBe(expected.legacy_error_kind);
    expect(structured['_meta'] ?? {}).toEqual(expected.meta);
    expectSharedFields(fixture, result, structured);
  });
});

describe('what the reference server sends', () => {
  it('writes list parameters comma-separated, as SP-API expects', async () => {
    upstream.respond({ status: 200, body: { payload: {} } });
    await connected.call('ordersV0_getOrders', {
      MarketplaceIds: ['A1PA6795UKMFR9', 'APJ6JRA9NG5V4'],
      OrderStatuses: ['Unshipped', 'PartiallyShipped'],
      CreatedAfter: '2026-04-01T00:00:00Z',
    });
    expect(upstream.requests.at(-1)!.rawQuery).toBe(
      'CreatedAfter=2026-04-01T00%3A00%3A00Z&OrderStatuses=Unshipped,PartiallyShipped&MarketplaceIds=A1PA6795UKMFR9,APJ6JRA9NG5V4',
    );
  });

  it('sends the body as JSON with the model media type', async () => {
    upstream.respond({ status: 202, headers: { 'content-type': 'application/json' }, body: { reportId: '4471' } });
    const result = await connected.call('reports20210630_createReport', {
      body: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: ['ATVPDKIKX0DER'] },
    });
    expect(result.structuredContent).toEqual({ reportId: '4471' });
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({
      reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA',
      marketplaceIds: ['ATVPDKIKX0DER'],
    });
  });
});
