import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  currentCallContext,
  recordResponseMeta,
  UpstreamClientError,
  UpstreamHttpError,
  upstreamFetch,
} from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { createTestServer } from './fixtures/test-server.js';
import { startReplay } from './fixtures/upstream-replay.js';
import { startUpstreamReplay } from '../src/testing/index.js';
import type { Replay } from './fixtures/upstream-replay.js';

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
    const started = Date.now();
    const result = await connected.client.callTool({
      name: 'fetch_upstream',
      arguments: { url: `${replay.baseUrl}/slow?ms=3000`, timeoutMs: 100 },
    });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(structured(result)['summary']).toBe('The upstream did not answer within 100 ms.');
    expect(structured(result)['error_code']).toBe('TOOL_EXECUTION_FAILED');
  });
});

describe('implicit and explicit call context', () => {
  const tools = (base: () => string): EnvelopeTool[] => [
    {
      name: 'implicit',
      inputSchema: { type: 'object' },
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        // The free function, two awaits deep: it finds the call through AsyncLocalStorage.
        const response = await upstreamFetch(`${base()}/rate/7`);
        const body: unknown = await response.json();
        return body;
      },
    },
    {
      name: 'explicit',
      inputSchema: { type: 'object' },
      handler: async (_args, context) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const response = await context.fetch(`${base()}/rate/4`);
        const body: unknown = await response.json();
        return body;
      },
    },
  ];

  it('the free upstreamFetch records into the call from anywhere in the handler (default)', async () => {
    const connection = await connectInMemory(
      createTestServer(
        {},
        tools(() => replay.baseUrl),
      ),
    );
    expect((await connection.client.callTool({ name: 'implicit', arguments: {} })).structuredContent).toEqual({
      n: 7,
      _meta: { rate_limit: { remaining: 7 } },
    });
    expect((await connection.client.callTool({ name: 'explicit', arguments: {} })).structuredContent).toEqual({
      n: 4,
      _meta: { rate_limit: { remaining: 4 } },
    });
    await connection.close();
  });

  it('with implicitContext off, context.fetch still records and the free function records nothing', async () => {
    const connection = await connectInMemory(
      createTestServer(
        { implicitContext: false },
        tools(() => replay.baseUrl),
      ),
    );
    expect((await connection.client.callTool({ name: 'explicit', arguments: {} })).structuredContent).toEqual({
      n: 4,
      _meta: { rate_limit: { remaining: 4 } },
    });
    expect((await connection.client.callTool({ name: 'implicit', arguments: {} })).structuredContent).toEqual({ n: 7 });
    await connection.close();
  });
});

describe('implicit call context for handlers that are not async functions', () => {
  const N_SCHEMA = { type: 'object', properties: { n: { type: 'integer' }, remote: { type: 'boolean' } } };

  async function fetchRate(base: string, n: number): Promise<unknown> {
    await new Promise((resolve) => setTimeout(resolve, 2));
    const response = await upstreamFetch(`${base}/rate/${n}`);
    return response.json();
  }

  it("a plain function that returns an async helper's promise records on every call", async () => {
    const connection = await connectInMemory(
      createTestServer({}, [
        { name: 'wrapper', inputSchema: N_SCHEMA, handler: (args) => fetchRate(replay.baseUrl, Number(args['n'])) },
      ]),
    );
    for (const n of [3, 9, 6]) {
      expect((await connection.client.callTool({ name: 'wrapper', arguments: { n } })).structuredContent).toEqual({
        n,
        _meta: { rate_limit: { remaining: n } },
      });
    }
    await connection.close();
  });

  it('a synchronous handler finds its call through the free functions on its first and later calls', async () => {
    const seen: (string | undefined)[] = [];
    const connection = await connectInMemory(
      createTestServer({}, [
        {
          name: 'sync_meta',
          inputSchema: N_SCHEMA,
          handler: (args) => {
            seen.push(currentCallContext()?.tool);
            recordResponseMeta({ rate_limit: { limit_per_second: Number(args['n']) } });
            return { n: args['n'] };
          },
        },
      ]),
    );
    for (const n of [1, 2, 3]) {
      expect((await connection.client.callTool({ name: 'sync_meta', arguments: { n } })).structuredContent).toEqual({
        n,
        _meta: { rate_limit: { limit_per_second: n } },
      });
    }
    expect(seen).toEqual(['sync_meta', 'sync_meta', 'sync_meta']);
    // Outside any call there is no context, and recording is a no-op.
    expect(currentCallContext()).toBeUndefined();
    await connection.close();
  });

  it('a handler that switches from plain values to a promise is logged once and runs in the storage from then on', async () => {
    const log = captureLog();
    const connection = await connectInMemory(
      createTestServer({ logger: log.logger }, [
        {
          name: 'mixed',
          inputSchema: N_SCHEMA,
          handler: (args) =>
            args['remote'] === true ? fetchRate(replay.baseUrl, Number(args['n'])) : { n: args['n'] },
        },
      ]),
    );
    const call = async (args: Record<string, unknown>): Promise<unknown> =>
      (await connection.client.callTool({ name: 'mixed', arguments: args })).structuredContent;
    expect(await call({ n: 1 })).toEqual({ n: 1 });
    expect(await call({ n: 2 })).toEqual({ n: 2 });
    // Learned as synchronous: this call's continuation after the first await misses the call.
    expect(await call({ n: 6, remote: true })).toEqual({ n: 6 });
    const warnings = log.lines.filter((line) => line['level'] === 40);
    expect(warnings.map((line) => line['tool'])).toEqual(['mixed']);
    expect(String(warnings[0]?.['msg'])).toContain('declare the handler async');
    // From now on every call runs inside the storage, plain returns included.
    expect(await call({ n: 9, remote: true })).toEqual({ n: 9, _meta: { rate_limit: { remaining: 9 } } });
    expect(await call({ n: 4 })).toEqual({ n: 4 });
    expect(await call({ n: 7, remote: true })).toEqual({ n: 7, _meta: { rate_limit: { remaining: 7 } } });
    expect(log.lines.filter((line) => line['level'] === 40)).toHaveLength(1);
    await connection.close();
  });

  it('concurrent synchronous and asynchronous calls each record only their own meta', async () => {
    const connection = await connectInMemory(
      createTestServer({}, [
        {
          name: 'remote',
          inputSchema: N_SCHEMA,
          handler: async (args) => fetchRate(replay.baseUrl, Number(args['n'])),
        },
        {
          name: 'local',
          inputSchema: N_SCHEMA,
          handler: (args) => {
            recordResponseMeta({ rate_limit: { limit_per_second: Number(args['n']) } });
            return { n: args['n'] };
          },
        },
      ]),
    );
    const results = await Promise.all(
      // Remote calls use multiples of 3 (the replay answers 503 for n % 3 === 2).
      Array.from({ length: 200 }, (_, index) => {
        const remote = index % 2 === 0;
        const n = remote ? index * 3 : index;
        return connection.client
          .callTool({ name: remote ? 'remote' : 'local', arguments: { n } })
          .then((result) => ({ remote, n, content: result.structuredContent }));
      }),
    );
    for (const { remote, n, content } of results) {
      expect(content).toEqual(
        remote ? { n, _meta: { rate_limit: { remaining: n } } } : { n, _meta: { rate_limit: { limit_per_second: n } } },
      );
    }
    await connection.close();
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
