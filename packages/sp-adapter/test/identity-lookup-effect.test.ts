/**
 * Safe retries and the identity lookup: the SP server asks its identity service (a GET) for a
 * seller's refresh token before it sends a tool's own request. When that lookup fails, the
 * tool's POST was never sent, so the envelope must not say its effect is unknown. The SP server
 * runs as a child process over stdio, read by the real SDK client; the identity service, the
 * token endpoint and SP-API are one loopback replay.
 */
import { fileURLToPath } from 'node:url';

import { validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { envelopeV2Of, lwaEnv, READS_V1_AND_V2, startSpUpstream } from './helpers/sp-client.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CREATE = 'reports20210630_createReport';
const CREATE_ARGS = { body: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: ['ATVPDKIKX0DER'] } };
const IDENTITY = { name: 'Acme US', region: 'na', marketplace_ids: ['ATVPDKIKX0DER'] };

let upstream: UpstreamReplay;
let client: Client;

beforeAll(async () => {
  upstream = await startSpUpstream();
  upstream.route(
    {
      method: 'GET',
      path: '/idsvc/identities',
      response: { status: 200, body: [7, 8, 9].map((id) => ({ id, ...IDENTITY })) },
    },
    { method: 'GET', path: '/idsvc/identities/7', response: { status: 500, body: { message: 'lookup failed' } } },
    { method: 'GET', path: '/idsvc/identities/8', response: { status: 200, dropConnection: true } },
    {
      method: 'GET',
      path: '/idsvc/identities/9',
      response: { status: 200, body: { id: 9, ...IDENTITY, refresh_token: 'Atzr|seller-nine-refresh-token' } },
    },
    { method: 'POST', path: '/reports/2021-06-30/reports', response: { status: 500, body: {} } },
  );
  client = new Client({ name: 'identity-lookup-effect', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', '--upstream', upstream.url],
      cwd: PACKAGE,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...lwaEnv(upstream),
        SP_IDENTITY_SERVICE_URL: `${upstream.url}/idsvc`,
      },
      stderr: 'ignore',
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

/** Makes `id` the session's identity, then calls createReport as a reader of v2. */
async function createReportAs(id: number): Promise<ReturnType<typeof envelopeV2Of>> {
  const chosen = (await client.callTool({
    name: 'set_active_identity',
    arguments: { identity_id: id },
  })) as CallToolResult;
  expect(chosen.isError).toBeFalsy();
  const result = (await client.callTool({
    name: CREATE,
    arguments: CREATE_ARGS,
    _meta: READS_V1_AND_V2,
  })) as CallToolResult;
  const envelope = envelopeV2Of(result);
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
  return envelope;
}

/** The `reason` of each detail, `null` where a detail has none. */
function reasons(envelope: ReturnType<typeof envelopeV2Of>): unknown[] {
  return envelope.details.map((detail) => detail['reason'] ?? null);
}

const posts = (): number => upstream.requests.filter((request) => request.method === 'POST').length;

describe('a failed identity lookup before a POST', () => {
  it('an identity service 500 keeps its verdict: retryable, no effect_unknown, SP-API not called', async () => {
    const before = posts();
    const envelope = await createReportAs(7);
    expect([envelope.error_kind, envelope.error_code, envelope.upstream, envelope.retryable]).toEqual([
      'upstream_http',
      'UPSTREAM_HTTP_500',
      'openbridge',
      true,
    ]);
    expect(reasons(envelope)).toEqual([null]);
    expect(envelope.hints[0]).toBe(
      'The identity service failed on its side: retry with exponential backoff; SP-API itself was not called.',
    );
    expect(posts()).toBe(before);
  });

  it('a connection the identity service dropped keeps its verdict too', async () => {
    const before = posts();
    const envelope = await createReportAs(8);
    expect([envelope.error_kind, envelope.error_code, envelope.upstream, envelope.retryable]).toEqual([
      'upstream_client',
      'TOOL_EXECUTION_FAILED',
      'openbridge',
      true,
    ]);
    expect(reasons(envelope)).toEqual([null]);
    expect(posts()).toBe(before);
  });

  it('once the lookup succeeds, a 500 to the POST itself is effect-unknown', async () => {
    const before = posts();
    const envelope = await createReportAs(9);
    expect([envelope.error_code, envelope.upstream, envelope.retryable]).toEqual([
      'UPSTREAM_HTTP_500',
      'sp-api',
      false,
    ]);
    expect(reasons(envelope)[0]).toBe('effect_unknown');
    expect(posts()).toBe(before + 1);
  });
});
