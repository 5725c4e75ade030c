/**
 * The `Mcp-Param-*` request check over real Streamable HTTP on 127.0.0.1: the SDK v2 client in the
 * 2026-07-28 era mirrors a header-annotated argument and its call succeeds; raw replays of that
 * call with the header changed get HTTP 400 and JSON-RPC -32020; the log names headers, never
 * values; a 2025-11-25 session is not subject to the check.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { StreamableHttpHandle } from '../src/index.js';

import { GOOD_HEADER_TOOL } from './fixtures/admission-tools.js';
import { captureLog } from './fixtures/log-capture.js';
import { rawPost } from './fixtures/raw-post.js';
import { testAdapter } from './fixtures/test-adapter.js';

const log = captureLog();
let handle: StreamableHttpHandle;

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'param-headers', version: '0.0.1' },
    adapter: testAdapter,
    tools: [GOOD_HEADER_TOOL],
    options: { env: {}, logger: log.logger },
  });
  handle = await server.serveStreamableHttp();
});

afterAll(async () => {
  await handle.close();
});

/** A recorded request: its headers as the client sent them, and its body. */
interface Recorded {
  readonly headers: Headers;
  readonly body: string;
}

/** The recorded call's headers without any `Mcp-Param-Region`, plus `extra`. */
function replayHeaders(call: Recorded, extra: Record<string, string | string[]>): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  call.headers.forEach((value, name) => {
    if (name !== 'mcp-param-region' && name !== 'content-length') headers[name] = value;
  });
  return { ...headers, ...extra };
}

async function recordedCall(): Promise<{ result: Record<string, unknown>; call: Recorded }> {
  const sent: Recorded[] = [];
  const fetchAndRecord = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const outgoing = new Request(input, init);
    sent.push({ headers: new Headers(outgoing.headers), body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(outgoing);
  };
  const client = new ClientV2(
    { name: 'param-headers-v2', version: '0.0.1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(handle.url, { fetch: fetchAndRecord }));
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema.properties).toEqual({ region: { type: 'string', 'x-mcp-header': 'Region' } });
    const result = await client.callTool({ name: 'route_report', arguments: { region: 'eu-west' } });
    const call = sent.find((entry) => entry.body.includes('"tools/call"'));
    if (call === undefined) throw new Error('the client sent no tools/call');
    return { result, call };
  } finally {
    await client.close();
  }
}

describe('Mcp-Param-* headers on a 2026-07-28 tools/call', () => {
  let call: Recorded;

  beforeAll(async () => {
    const recorded = await recordedCall();
    call = recorded.call;
    expect(recorded.result['structuredContent']).toEqual({ region: 'eu-west' });
  });

  it('the SDK v2 client sends the mirrored header, and its call runs the tool', () => {
    expect(call.headers.get('mcp-param-region')).toBe('eu-west');
    expect(call.headers.get('mcp-method')).toBe('tools/call');
  });

  it.each([
    ['the header as recorded', { 'Mcp-Param-Region': 'eu-west' }],
    ['a lower-case header name', { 'mcp-param-region': 'eu-west' }],
    ['the base64 form', { 'Mcp-Param-Region': `=?base64?${Buffer.from('eu-west').toString('base64')}?=` }],
  ])('accepts %s: 200 and the tool result', async (_label, extra) => {
    const { status, json } = await rawPost(handle.port, replayHeaders(call, extra), call.body);
    expect(status).toBe(200);
    expect((json['result'] as Record<string, unknown>)['structuredContent']).toEqual({ region: 'eu-west' });
  });

  it.each([
    ['absent', {}, 'param-header-missing'],
    ['a different value', { 'Mcp-Param-Region': 'us-east' }, 'param-header-mismatch'],
    ['sent twice', { 'Mcp-Param-Region': ['eu-west', 'eu-west'] }, 'param-header-duplicated'],
    ['malformed base64', { 'Mcp-Param-Region': '=?base64?not base64!?=' }, 'param-header-invalid-encoding'],
    ['base64 of another value', { 'Mcp-Param-Region': '=?base64?dXMtZWFzdA==?=' }, 'param-header-mismatch'],
  ])('refuses the header %s: 400, -32020, one log line with the header name', async (_label, extra, rule) => {
    const before = log.lines.length;
    const { status, json } = await rawPost(handle.port, replayHeaders(call, extra), call.body);
    expect(status).toBe(400);
    const error = json['error'] as { code: number; message: string; data: Record<string, unknown> };
    expect(error.code).toBe(-32020);
    expect(error.data).toMatchObject({ rule, mismatch: { header: 'Mcp-Param-Region' } });
    expect(JSON.stringify(error)).not.toContain('us-east');
    expect(log.lines.slice(before)).toEqual([
      expect.objectContaining({ level: 40, tool: 'route_report', rule, header: 'Mcp-Param-Region' }),
    ]);
  });

  it('refuses an alias key of the mirrored property (it would be renamed past the header)', async () => {
    const body = call.body.replace('"region":"eu-west"', '"Region":"eu-west"');
    expect(body).toContain('"Region"');
    const { status, json } = await rawPost(handle.port, replayHeaders(call, {}), body);
    expect(status).toBe(400);
    expect(json['error']).toMatchObject({ code: -32020, data: { rule: 'param-header-alias' } });
  });

  it('no log line holds a header or body value', () => {
    const raw = log.raw.join('\n');
    expect(log.lines.some((line) => line['rule'] === 'param-header-mismatch')).toBe(true);
    expect(raw).not.toContain('eu-west');
    expect(raw).not.toContain('us-east');
  });
});

describe('a 2025-11-25 session', () => {
  it('is not subject to the check: a v1 client sending a different Mcp-Param-Region still gets its result', async () => {
    const client = new Client({ name: 'param-headers-v1', version: '0.0.1' });
    await client.connect(
      new StreamableHTTPClientTransport(handle.url, { requestInit: { headers: { 'Mcp-Param-Region': 'us-east' } } }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('param-headers');
      const result = await client.callTool({ name: 'route_report', arguments: { region: 'eu-west' } });
      expect(result.structuredContent).toEqual({ region: 'eu-west' });
    } finally {
      await client.close();
    }
  });
});
