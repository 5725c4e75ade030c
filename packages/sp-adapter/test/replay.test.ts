import { validateEnvelope } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UPSTREAM_FIXTURES } from './fixtures/upstream-fixtures.js';
import type { UpstreamReplay } from '@mcp-envelope/core/testing';

import { connect, lwaEnv, startSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';

let upstream: UpstreamReplay;
let connected: Connected;

beforeAll(async () => {
  upstream = await startSpUpstream();
  connected = await connect({ env: lwaEnv(upstream), upstream: upstream.url });
});

afterAll(async () => {
  await connected.close();
  await upstream.close();
});

describe('every recorded SP-API response, replayed over HTTP through the reference server and the SDK client', () => {
  it.each(UPSTREAM_FIXTURES.map((fixture) => [fixture.id, fixture] as const))('%s', async (_id, fixture) => {
    upstream.respond(fixture.response);
    const before = upstream.requests.length;
    const result = await connected.call(fixture.call.tool, fixture.call.arguments);

    // the request the server sent
    expect(upstream.requests).toHaveLength(before + 1);
    const sent = upstream.requests.at(-1)!;
    expect(sent.method).toBe(fixture.request.method);
    expect(sent.path).toBe(fixture.request.path);
    expect(Object.fromEntries(sent.query)).toEqual(fixture.request.query);
    expect(sent.headers['x-amz-access-token']).toMatch(/^Atza\|replay-access-token-\d+$/);

    const expected = fixture.expected;
    if (expected.error_kind === null) {
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as Record<string, unknown>;
      expect(structured['_meta']).toEqual(expected.meta);
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(structured);
      expect(structured['payload']).toBeDefined();
      return;
    }

    expect(result.isError).toBe(true);
    const envelope = result.structuredContent as unknown as ErrorEnvelope;
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(envelope);
    expect(validateEnvelope(envelope)).toEqual({ valid: true });
    expect(envelope.tool).toBe(fixture.call.tool);
    expect(envelope.error_kind).toBe(expected.error_kind);
    expect(envelope.error_code).toBe(expected.error_code);
    expect(envelope.retryable).toBe(expected.retryable);
    expect(envelope._envelope_version).toBe(1);
    expect(envelope._meta ?? {}).toEqual(expected.meta);
    const first = envelope.details[0]!;
    expect(first['http_status']).toBe(fixture.response.status);
    expect(first['request_id']).toBe(expected.request_id);
    if (expected.upstream_code !== undefined) expect(first['upstream_code']).toBe(expected.upstream_code);
    if (expected.issue !== undefined) expect(first.issue).toBe(expected.issue);
    for (const fragment of expected.hints_include ?? []) expect(envelope.hints.join('\n')).toContain(fragment);
    for (const fragment of expected.summary_excludes ?? []) expect(envelope.summary).not.toContain(fragment);
    const wire = JSON.stringify(result);
    for (const secret of [
      ...(expected.secrets ?? []),
      'replay-access-token',
      'fake-refresh-token',
      '00aa11bb22cc33dd44ee55ff66',
    ])
      expect(wire).not.toContain(secret);
  });

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
