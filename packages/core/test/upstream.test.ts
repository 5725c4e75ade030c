import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startUpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UpstreamClientError, UpstreamHttpError, upstreamFetch } from '../src/index.js';
import type { EnvelopeTool, ToolHandlerContext } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { createTestServer } from './fixtures/test-server.js';
import { startReplay } from './fixtures/upstream-replay.js';
import type { Replay } from './fixtures/upstream-replay.js';

/** Bounds on calls in flight no test here reaches. */
const UNBOUNDED = { maxConcurrentCalls: 100_000, maxConcurrentCallsPerTool: 100_000 } as const;

let replay: Replay;
let connected: Connected;
let refusedUrl: string;

beforeAll(async () => {
  replay = await startReplay();
  connected = await connectInMemory(createTestServer());
  // A port that was just free: connecting to it is refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/orders`;
  await new Promise<void>((resolve) => {
    probe.close(() => {
      resolve();
    });
  });
});

afterAll(async () => {
  await connected.close();
  await replay.close();
});

function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

describe('upstreamFetch inside a tool call', () => {
  it('records rate limit and warnings of a 2xx response into the object result _meta', async () => {
    const result = await connected.client.callTool({
      name: 'fetch_upstream',
      arguments: { url: `${replay.baseUrl}/scenario/test-orders-success` },
    });
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toEqual({
      orders: [{ orderId: '902-3159896-1390916', status: 'Shipped' }],
      _meta: {
        rate_limit: { limit_per_second: 0.0167, remaining: 12, reset_at: '2026-03-02T10:00:05Z' },
        warnings: [{ kind: 'upstream_warning', summary: '199 - "served from cache"', details: [], hints: [] }],
      },
    });
  });

  it('classifies a recorded 500 through the adapter, with the response telemetry in _meta', async () => {
    const result = await connected.client.callTool({
      name: 'fetch_upstream',
      arguments: { url: `${replay.baseUrl}/scenario/test-orders-server-error` },
    });
    expect(result.isError).toBe(true);
    expect(structured(result)).toEqual({
      error_kind: 'sp_api_http',
      tool: 'fetch_upstream',
      summary: 'Upstream answered HTTP 500: We encountered an internal error. Please try again.',
      details: [
        {
          path: '',
          issue: 'We encountered an internal error. Please try again.',
          received_type: 'object',
          http_status: 500,
        },
      ],
      hints: ['Retry in a moment.'],
      examples: [],
      error_code: 'SP_API_HTTP_500',
      retryable: true,
      _envelope_version: 1,
      _meta: { rate_limit: { remaining: 11 }, retry_after_seconds: 3 },
    });
  });

  it('classifies a recorded 403 as auth_error and redacts the tokens its body echoes', async () => {
    const result = await connected.client.callTool({
      name: 'fetch_upstream',
      arguments: { url: `${replay.baseUrl}/scenario/test-orders-unauthorized` },
    });
    const envelope = structured(result);
    expect(envelope['error_kind']).toBe('auth_error');
    expect(envelope['error_code']).toBe('SP_API_HTTP_403');
    expect(envelope['summary']).toBe(
      'Upstream refused the credentials: Access denied for token [REDACTED] with Bearer [REDACTED]',
    );
    expect(JSON.stringify(result)).not.toContain('IwEBIReplayToken123');
    expect(JSON.stringify(result)).not.toContain('abc.def.ghi');
  });

  it('classifies a refused connection as a network failure', async () => {
    const result = await connected.client.callTool({ name: 'fetch_upstream', arguments: { url: refusedUrl } });
    expect(structured(result)).toEqual({
      error_kind: 'sp_api_client',
      tool: 'fetch_upstream',
      summary: 'The upstream could not be reached.',
      details: [],
      hints: ['Retry in a moment.'],
      examples: [],
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      _envelope_version: 1,
    });
  });

  it('classifies an expired timeoutMs as a timeout failure', async () => {
    const started = performance.now();
    const result = await connected.client.callTool({
      name: 'fetch_upstream',
      arguments: { url: `${replay.baseUrl}/slow?ms=3000`, timeoutMs: 100 },
    });
    // a real socket's clock: the answer would come after 3 s, so ending before 2.5 s shows the 100 ms
    // timeout ended the call, with 2.4 s of slack for a loaded machine
    expect(performance.now() - started).toBeLessThan(2500);
    expect(structured(result)['summary']).toBe('The upstream did not answer within 100 ms.');
    expect(structured(result)['error_code']).toBe('TOOL_EXECUTION_FAILED');
  });
});

describe('the per-call context handed to handlers', () => {
  const N_SCHEMA = { type: 'object', properties: { n: { type: 'integer' }, remote: { type: 'boolean' } } };

  async function fetchRate(context: ToolHandlerContext, base: string, n: number): Promise<unknown> {
    // a turn of the event loop between the handler's start and its fetch
    await new Promise((resolve) => setImmediate(resolve));
    const response = await context.fetch(`${base}/rate/${n}`);
    return response.json();
  }

  it('context.fetch records into the call two awaits deep; the free upstreamFetch records nothing', async () => {
    const connection = await connectInMemory(
      createTestServer({}, [
        {
          name: 'explicit',
          inputSchema: { type: 'object' },
          handler: async (_args, context) => fetchRate(context, replay.baseUrl, 4),
        },
        {
          name: 'free',
          inputSchema: { type: 'object' },
          handler: async () => {
            const response = await upstreamFetch(`${replay.baseUrl}/rate/7`);
            return await response.json();
          },
        },
      ]),
    );
    expect((await connection.client.callTool({ name: 'explicit', arguments: {} })).structuredContent).toEqual({
      n: 4,
      _meta: { rate_limit: { remaining: 4 } },
    });
    expect((await connection.client.callTool({ name: 'free', arguments: {} })).structuredContent).toEqual({ n: 7 });
    await connection.close();
  });

  it("a plain function returning a helper's promise and a synchronous handler both record through their context", async () => {
    const connection = await connectInMemory(
      createTestServer({}, [
        {
          name: 'wrapper',
          inputSchema: N_SCHEMA,
          handler: (args, context) => fetchRate(context, replay.baseUrl, Number(args['n'])),
        },
        {
          name: 'sync_meta',
          inputSchema: N_SCHEMA,
          handler: (args, context) => {
            context.recordResponseMeta({ rate_limit: { limit_per_second: Number(args['n']) } });
            return { n: args['n'], tool: context.tool };
          },
        },
      ]),
    );
    for (const n of [3, 9, 6]) {
      expect((await connection.client.callTool({ name: 'wrapper', arguments: { n } })).structuredContent).toEqual({
        n,
        _meta: { rate_limit: { remaining: n } },
      });
      expect((await connection.client.callTool({ name: 'sync_meta', arguments: { n } })).structuredContent).toEqual({
        n,
        tool: 'sync_meta',
        _meta: { rate_limit: { limit_per_second: n } },
      });
    }
    await connection.close();
  });

  it('concurrent synchronous and asynchronous calls, on two servers of one process, each record only their own meta', async () => {
    const serverTools = (offset: number): EnvelopeTool[] => [
      {
        name: 'remote',
        inputSchema: N_SCHEMA,
        handler: async (args, context) => fetchRate(context, replay.baseUrl, Number(args['n'])),
      },
      {
        name: 'local',
        inputSchema: N_SCHEMA,
        handler: (args, context) => {
          context.recordResponseMeta({ rate_limit: { limit_per_second: Number(args['n']) + offset } });
          return { n: args['n'] };
        },
      },
    ];
    const connections = [
      // 200 calls at once: the bounds on calls in flight are lifted, each call's own telemetry is under test
      await connectInMemory(createTestServer(UNBOUNDED, serverTools(0))),
      await connectInMemory(createTestServer(UNBOUNDED, serverTools(1000))),
    ];
    const results = await Promise.all(
      // Remote calls use multiples of 3 (the replay answers 503 for n % 3 === 2).
      Array.from({ length: 200 }, (_, index) => {
        const remote = index % 2 === 0;
        const n = remote ? index * 3 : index;
        const server = index % 4 < 2 ? 0 : 1;
        return connections[server]!.client.callTool({ name: remote ? 'remote' : 'local', arguments: { n } }).then(
          (result) => ({ remote, n, server, content: result.structuredContent }),
        );
      }),
    );
    for (const { remote, n, server, content } of results) {
      expect(content).toEqual(
        remote
          ? { n, _meta: { rate_limit: { remaining: n } } }
          : { n, _meta: { rate_limit: { limit_per_second: n + server * 1000 } } },
      );
    }
    for (const connection of connections) await connection.close();
  });
});

describe('upstreamFetch on its own', () => {
  it('returns the 2xx response with its body unread', async () => {
    const response = await upstreamFetch(`${replay.baseUrl}/scenario/test-orders-success`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ orders: [{ orderId: '902-3159896-1390916', status: 'Shipped' }] });
  });

  it('throws UpstreamHttpError with status, lower-case headers, parsed body and request', async () => {
    const error = await upstreamFetch(`${replay.baseUrl}/scenario/test-orders-server-error?marketplace=x`, {
      method: 'post',
      body: '{}',
    }).catch((caught: unknown) => caught);
    expect(UpstreamHttpError.isInstance(error)).toBe(true);
    const httpError = error as UpstreamHttpError;
    expect(httpError.status).toBe(500);
    expect(httpError.headers['x-test-ratelimit-remaining']).toBe('11');
    expect(httpError.body).toEqual({
      errors: [{ code: 'InternalFailure', message: 'We encountered an internal error. Please try again.' }],
    });
    expect(httpError.request).toEqual({
      method: 'POST',
      url: `${replay.baseUrl}/scenario/test-orders-server-error?marketplace=x`,
    });
    expect(httpError.message).toBe(
      `upstream POST ${replay.baseUrl}/scenario/test-orders-server-error answered HTTP 500`,
    );
  });

  it('reads at most 64 KiB of a failed response body', async () => {
    const error = (await upstreamFetch(`${replay.baseUrl}/large`).catch(
      (caught: unknown) => caught,
    )) as UpstreamHttpError;
    expect(error.status).toBe(500);
    expect(error.body).toBe('E'.repeat(65536));
  });

  it('throws UpstreamClientError network and timeout failures', async () => {
    const refused = await upstreamFetch(refusedUrl).catch((caught: unknown) => caught);
    expect(UpstreamClientError.isInstance(refused)).toBe(true);
    expect((refused as UpstreamClientError).failure.type).toBe('network');
    const timedOut = await upstreamFetch(`${replay.baseUrl}/slow?ms=3000`, { timeoutMs: 50 }).catch(
      (caught: unknown) => caught,
    );
    expect((timedOut as UpstreamClientError).failure).toEqual({
      type: 'timeout',
      timeoutMs: 50,
      request: { method: 'GET', url: `${replay.baseUrl}/slow?ms=3000` },
    });
  });

  it('refuses a body whose Content-Length passes maxBodyBytes, and keeps the deadline over a body read with text()', async () => {
    const hostile = await startUpstreamReplay();
    try {
      hostile.respond({ status: 200, body: 'x'.repeat(1000) });
      const tooLarge = await upstreamFetch(`${hostile.url}/big`, { maxBodyBytes: 100 }).catch(
        (caught: unknown) => caught,
      );
      expect((tooLarge as UpstreamClientError).failure).toEqual({
        type: 'response_too_large',
        subject: 'upstream_body',
        limitBytes: 100,
        setting: 'MCP_MAX_UPSTREAM_BODY_BYTES',
        request: { method: 'GET', url: `${hostile.url}/big` },
      });
      hostile.respond({ status: 200, body: '{"slow":true}', dripIntervalMs: 200 });
      const response = await upstreamFetch(`${hostile.url}/drip`, { timeoutMs: 300 });
      const stalled = await response.text().catch((caught: unknown) => caught);
      expect((stalled as UpstreamClientError).failure).toEqual({
        type: 'timeout',
        timeoutMs: 300,
        phase: 'body',
        request: { method: 'GET', url: `${hostile.url}/drip` },
      });
    } finally {
      await hostile.close();
    }
  });
});
