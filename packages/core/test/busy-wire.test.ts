/**
 * The concurrency guard, returned errors and partial success against a real server process
 * (test/fixtures/busy-stdio-server.ts, over stdio) and a real SDK client, with the upstream a
 * loopback server of this test that holds every request until the test releases it; and a
 * client that drops its Streamable HTTP connection mid-call. Nothing waits on a clock: the test
 * waits for requests to arrive upstream, for answers, and for the handlers' `{"ended":n}` lines.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { createChanges } from '@mcp-envelope/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import { busyTools } from './fixtures/busy-tools.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/busy-stdio-server.ts', import.meta.url));
const PER_TOOL = 8;
const PER_SERVER = 10;

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
}

/** The loopback upstream: counts requests, holds each one until {@link HeldUpstream.release}. */
interface HeldUpstream {
  readonly url: string;
  readonly arrived: () => number;
  readonly until: (check: () => boolean) => Promise<void>;
  release(): void;
  close(): Promise<void>;
}

async function startHeldUpstream(): Promise<HeldUpstream> {
  const held = new Set<ServerResponse>();
  const seen = { arrived: 0 };
  const { changed, until } = createChanges();
  const server: Server = createServer((request, response) => {
    seen.arrived += 1;
    held.add(response);
    response.on('close', () => held.delete(response));
    changed();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrived: () => seen.arrived,
    until,
    release: () => {
      for (const response of [...held]) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        held.delete(response);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const V2 = { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } };

describe('a real server process under a storm of calls', () => {
  let upstream: HeldUpstream;
  let client: Client;
  const ended = { count: 0, text: '' };
  const serverLines = createChanges();

  beforeAll(async () => {
    upstream = await startHeldUpstream();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', SERVER],
      cwd: PACKAGE_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        BUSY_UPSTREAM: upstream.url,
        MCP_MAX_CONCURRENT_CALLS: String(PER_SERVER),
        MCP_MAX_CONCURRENT_CALLS_PER_TOOL: String(PER_TOOL),
        // the limiter's own bookkeeping is not under test here
        MCP_RATE_LIMIT: 'off',
        CODE_MODE: 'true',
        CODE_MODE_WALL_TIME_MS: '120000',
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      ended.text += chunk.toString('utf8');
      ended.count = ended.text.split('\n').filter((line) => line.startsWith('{"ended"')).length;
      serverLines.changed();
    });
    client = new Client({ name: 'busy-test', version: '0.0.1' });
    await client.connect(transport);
  });

  afterAll(async () => {
    upstream.release();
    await client.close();
    await upstream.close();
  });

  const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Result> =>
    client.callTool(
      { name, arguments: args, _meta: V2 },
      undefined,
      signal === undefined ? {} : { signal },
    ) as Promise<Result>;
  const code = (result: Result): unknown => result.structuredContent?.['error_code'];
  const endedReach = (count: number): Promise<void> => serverLines.until(() => ended.count >= count);

  it('one client firing 200 calls at one tool: 8 go upstream, 192 are answered SERVER_BUSY at once; afterwards every slot is free', async () => {
    const answered: Result[] = [];
    const answers = createChanges();
    const calls = Array.from({ length: 200 }, (_, n) =>
      call('hold', { n }).then((result) => {
        answered.push(result);
        answers.changed();
        return result;
      }),
    );
    // the 192 refusals come back while the 8 admitted calls are still held upstream
    await answers.until(() => answered.length === 192);
    await upstream.until(() => upstream.arrived() === PER_TOOL);
    expect(answered.map(code)).toEqual(Array.from({ length: 192 }, () => 'SERVER_BUSY'));
    expect(answered[0]?.isError).toBe(true);
    // no call has ended yet, so the wait is the first estimate: 1 s
    expect({ ...answered[0]?.structuredContent, tool: 'hold' }).toEqual({
      error_kind: 'rate_limited',
      tool: 'hold',
      summary:
        'This server is busy: 8 calls to hold are already running, its limit (MCP_MAX_CONCURRENT_CALLS_PER_TOOL); this call was refused before any upstream call.',
      details: [
        {
          path: '',
          issue: 'refused before any upstream call: too many calls in flight',
          received_type: 'object',
          scope: 'tool',
          limit: 8,
          setting: 'MCP_MAX_CONCURRENT_CALLS_PER_TOOL',
        },
      ],
      hints: [
        'Wait 1 s (_meta.retry_after_seconds), then call hold again.',
        'Send fewer calls at once: at most 8 calls to hold run together on this server.',
      ],
      examples: [],
      error_code: 'SERVER_BUSY',
      retryable: true,
      _envelope_version: 2,
      _meta: { retry_after_seconds: 1 },
    });
    expect(validateEnvelope(answered[0]?.structuredContent)).toEqual({ valid: true, version: 2 });
    upstream.release();
    const all = await Promise.all(calls);
    expect(all.filter((result) => result.isError !== true).map((result) => result.structuredContent)).toEqual(
      Array.from({ length: 8 }, () => ({ ok: true })),
    );
    expect(upstream.arrived()).toBe(8);

    // nothing leaked: once the 8 handlers ended, 8 calls are admitted again and the 9th is not
    await endedReach(8);
    const again = Array.from({ length: 9 }, (_, n) => call('hold', { n: 1000 + n }));
    await upstream.until(() => upstream.arrived() === 16);
    const refused = await Promise.race(again);
    expect(code(refused)).toBe('SERVER_BUSY');
    // the wait now comes from the 8 calls that ended: their median duration, 0.1 to 10 s
    const wait = (refused.structuredContent?.['_meta'] as { retry_after_seconds: number }).retry_after_seconds;
    expect(wait >= 0.1 && wait <= 10).toBe(true);
    upstream.release();
    expect((await Promise.all(again)).map(code)).toEqual([
      ...Array.from({ length: 8 }, () => undefined),
      'SERVER_BUSY',
    ]);
    await endedReach(16);
  });

  it('cancelled calls give their slots back as soon as their handlers stop', async () => {
    const controllers = Array.from({ length: PER_TOOL }, () => new AbortController());
    const cancelled = controllers.map((controller, n) => call('hold', { n: 2000 + n }, controller.signal));
    await upstream.until(() => upstream.arrived() === 24);
    for (const controller of controllers) controller.abort();
    for (const pending of cancelled) await expect(pending).rejects.toThrow();
    // core's fetch aborts with the call: each handler ends, and its slot is free
    await endedReach(24);
    const next = Array.from({ length: PER_TOOL }, (_, n) => call('hold', { n: 3000 + n }));
    await upstream.until(() => upstream.arrived() === 32);
    upstream.release();
    expect((await Promise.all(next)).map((result) => result.structuredContent)).toEqual(
      Array.from({ length: PER_TOOL }, () => ({ ok: true })),
    );
    await endedReach(32);
  });

  it('the server-wide bound counts every tool, Code Mode inner calls included; the server own tools are never refused', async () => {
    const holds = [
      ...Array.from({ length: PER_TOOL }, (_, n) => call('hold', { n: 4000 + n })),
      call('hold_other', { n: 1 }),
      call('hold_other', { n: 2 }),
    ];
    await upstream.until(() => upstream.arrived() === 42);
    const third = await call('hold_other', { n: 3 });
    expect(third.structuredContent).toMatchObject({
      error_code: 'SERVER_BUSY',
      details: [{ scope: 'server', limit: 10, setting: 'MCP_MAX_CONCURRENT_CALLS' }],
    });
    // execute_code itself runs (it never goes upstream); its inner call meets the same bound
    const inner = await call('execute_code', { code: "return await callTool('hold_other', { n: 4 });" });
    expect(inner.isError).toBeUndefined();
    expect(inner.structuredContent?.['result']).toMatchObject({
      tool: 'hold_other',
      error_code: 'SERVER_BUSY',
      details: [{ scope: 'server', limit: 10, setting: 'MCP_MAX_CONCURRENT_CALLS' }],
    });
    const contract = await call('get_envelope_contract', {});
    expect((contract.structuredContent?.['settings'] as Record<string, unknown>)['MCP_MAX_CONCURRENT_CALLS']).toBe(10);
    upstream.release();
    expect((await Promise.all(holds)).map(code)).toEqual(Array.from({ length: 10 }, () => undefined));
    expect(upstream.arrived()).toBe(42);
    await endedReach(42);
  });

  it('a reader of v1 gets the same SERVER_BUSY envelope in version 1', async () => {
    const holds = Array.from({ length: PER_TOOL }, (_, n) => call('hold', { n: 5000 + n }));
    await upstream.until(() => upstream.arrived() === 50);
    const v1 = (await client.callTool({ name: 'hold', arguments: { n: 5999 } })) as Result;
    expect(v1.structuredContent).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'SERVER_BUSY',
      _envelope_version: 1,
    });
    expect(validateEnvelope(v1.structuredContent)).toEqual({ valid: true, version: 1 });
    upstream.release();
    await Promise.all(holds);
    await endedReach(50);
  });

  it('a handler returns an error as a value: the same envelope as if thrown', async () => {
    const taken = await call('reserve_seat', { n: 13 });
    expect(taken.isError).toBe(true);
    expect(taken.structuredContent).toEqual({
      error_kind: 'upstream_http',
      tool: 'reserve_seat',
      summary: 'Seat 13 is already taken.',
      details: [{ path: 'n', issue: 'this seat was reserved by another call', received_type: 'integer', seat: 13 }],
      hints: ['Pick another seat; list the free ones first.'],
      examples: [],
      error_code: 'UPSTREAM_HTTP_409',
      retryable: false,
      _envelope_version: 2,
      upstream: 'sp-api',
      // the v1 -> v2 window of this upstream is open in this release's migrations table
      legacy_error_kind: 'sp_api_http',
    });
    expect((await call('reserve_seat', { n: 12 })).structuredContent).toEqual({ reserved: 12 });
    const returned = await call('returned_envelope_error', {});
    // before, any returned EnvelopeError was a class instance in data: a generic internal_error
    expect(returned.structuredContent).toEqual({
      error_kind: 'internal_error',
      tool: 'returned_envelope_error',
      summary: 'Returned, not thrown.',
      details: [],
      hints: [],
      examples: [],
      error_code: 'INTERNAL_ERROR',
      retryable: false,
      _envelope_version: 2,
    });
  });

  it('a partial success is a success with a partial_results warning naming each failed item', async () => {
    const result = await call('import_items', { items: ['a', 'bad1', 'b', 'bad2'] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      imported: ['a', 'b'],
      _meta: {
        warnings: [
          {
            kind: 'partial_results',
            summary: '2 of 4 items failed; the other 2 succeeded and are in the result.',
            details: [
              {
                received_type: 'object',
                path: 'items/1',
                issue: '"bad1" was refused upstream',
                error_code: 'UPSTREAM_HTTP_422',
                retryable: false,
              },
              {
                received_type: 'object',
                path: 'items/3',
                issue: '"bad2" was refused upstream',
                error_code: 'UPSTREAM_HTTP_422',
                retryable: false,
              },
            ],
            hints: [
              'Keep the items that succeeded; send again only the failed ones (details[].path), those with retryable: true first.',
            ],
          },
        ],
      },
    });
    expect((await call('import_items', { items: ['a'] })).structuredContent).toEqual({ imported: ['a'] });
  });
});

describe('a client that drops its Streamable HTTP connection mid-call', () => {
  it('frees the slots of its calls: the host cancels them, their handlers stop, and the next client gets every slot', async () => {
    const upstream = await startHeldUpstream();
    const ended = { count: 0 };
    const endings = createChanges();
    const server = createEnvelopeServer({
      info: { name: 'busy-http', version: '0.0.1' },
      adapter: testAdapter,
      tools: busyTools(upstream.url, () => {
        ended.count += 1;
        endings.changed();
      }),
      options: { env: {}, logger: captureLog().logger, rateLimit: false, maxConcurrentCallsPerTool: PER_TOOL },
    });
    const handle = await server.serveStreamableHttp({ port: 0 });
    const connect = async (): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
      const transport = new StreamableHTTPClientTransport(handle.url);
      const client = new Client({ name: 'busy-http', version: '0.0.1' });
      await client.connect(transport);
      return { client, transport };
    };
    try {
      const dropping = await connect();
      const dropped = Array.from({ length: PER_TOOL }, (_, n) =>
        dropping.client.callTool({ name: 'hold', arguments: { n } }),
      );
      await upstream.until(() => upstream.arrived() === PER_TOOL);
      // the client goes away without cancelling: its POST connections close under the calls
      await dropping.transport.close();
      for (const pending of dropped) await expect(pending).rejects.toThrow();
      await endings.until(() => ended.count === PER_TOOL);
      const next = await connect();
      const calls = Array.from({ length: PER_TOOL + 1 }, (_, n) =>
        next.client.callTool({ name: 'hold', arguments: { n: 100 + n } }),
      );
      await upstream.until(() => upstream.arrived() === 2 * PER_TOOL);
      expect((await Promise.race(calls)).structuredContent).toMatchObject({ error_code: 'SERVER_BUSY' });
      upstream.release();
      const results = (await Promise.all(calls)) as Result[];
      expect(results.filter((result) => result.isError !== true)).toHaveLength(PER_TOOL);
      await next.client.close();
    } finally {
      upstream.release();
      await handle.close();
      await server.close();
      await upstream.close();
    }
  });
});
