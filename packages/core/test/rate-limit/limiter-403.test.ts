/**
 * The pre-flight limiter learns from rate limits that arrive as 403 and from a budget the upstream
 * says is spent: a real SDK client over Streamable HTTP on 127.0.0.1, a server whose adapter is
 * made of the HTTP kit, and the replay upstream on 127.0.0.1. Only `Date` is faked, so the resets
 * the upstream states and the limiter's buckets share one clock the test moves.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { classifyRestFailure, restResponseMeta } from '../../src/adapter-entry.js';
import { createEnvelopeServer, readSuccessBody } from '../../src/index.js';
import type { EnvelopeAdapter, EnvelopeTool, StreamableHttpHandle } from '../../src/index.js';
import { createMemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import type { MemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import { captureLog } from '../fixtures/log-capture.js';

const T0 = Date.UTC(2026, 0, 1);
const T0_EPOCH = T0 / 1000;

/** An adapter that is nothing but the HTTP kit, for an upstream called `example-api`. */
const KIT_ADAPTER: EnvelopeAdapter = {
  id: 'kit',
  errorKinds: ['upstream_http', 'upstream_client', 'auth_error', 'rate_limited'],
  upstreams: ['example-api'],
  classify: (failure, context) =>
    classifyRestFailure(failure, context, { upstream: 'example-api', apiName: 'Example API' }),
  parseResponseMeta: (headers, now) => restResponseMeta(headers, now),
};

interface Envelope {
  readonly error_kind: string;
  readonly error_code: string;
  readonly retryable: boolean;
  readonly upstream?: string;
  readonly details: readonly Record<string, unknown>[];
  readonly _meta?: Record<string, unknown>;
}

describe('the limiter after rate limits signalled by 403 and spent budgets', () => {
  const open: {
    replay?: UpstreamReplay;
    handle?: StreamableHttpHandle;
    client?: Client;
    store?: MemoryRateLimitStore;
  } = {};

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
  });

  afterEach(async () => {
    await open.client?.close();
    await open.handle?.close();
    await open.store?.close();
    await open.replay?.close();
    vi.useRealTimers();
  });

  async function start(): Promise<{
    call: () => Promise<{ isError?: boolean; envelope: Envelope }>;
    replay: UpstreamReplay;
  }> {
    // scripted answers first (enqueue), then this standing one
    const replay = await startUpstreamReplay({ standing: { status: 200, body: { items: [1] } } });
    open.replay = replay;
    const tool: EnvelopeTool = {
      name: 'list_items',
      inputSchema: { type: 'object' },
      handler: async (_args, context) => readSuccessBody(await context.fetch(`${replay.url}/items`)),
    };
    open.store = createMemoryRateLimitStore({ now: () => Date.now(), sweepIntervalMs: 0 });
    const server = createEnvelopeServer({
      info: { name: 'kit-limiter', version: '0.0.1' },
      adapter: KIT_ADAPTER,
      tools: [tool],
      options: { env: {}, logger: captureLog().logger, rateLimitStore: open.store, rateLimitMaxWaitMs: 0 },
    });
    open.handle = await server.serveStreamableHttp({ host: '127.0.0.1' });
    const client = new Client({ name: 'kit-limiter-client', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(open.handle.url));
    open.client = client;
    const call = async (): Promise<{ isError?: boolean; envelope: Envelope }> => {
      const result = (await client.callTool({ name: 'list_items', arguments: {} })) as {
        isError?: boolean;
        structuredContent?: unknown;
      };
      if (result.isError === true)
        expect(validateEnvelope(result.structuredContent)).toEqual({ valid: true, version: 2 });
      return { ...(result.isError === true ? { isError: true } : {}), envelope: result.structuredContent as Envelope };
    };
    return { call, replay };
  }

  it('a 403 with x-ratelimit-remaining 0 is rate_limited, and the next call is refused before going upstream until the reset', async () => {
    const { call, replay } = await start();
    replay.enqueue({
      status: 403,
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-resource': 'core',
        'x-ratelimit-reset': String(T0_EPOCH + 60),
      },
      body: { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.example.test/rate' },
    });
    const limited = (await call()).envelope;
    expect(limited).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      upstream: 'example-api',
      _meta: {
        retry_after_seconds: 60,
        rate_limit: { limit: 5000, remaining: 0, used: 5000, resource: 'core', reset_after_seconds: 60 },
      },
    });
    expect(limited.details[0]).toMatchObject({ http_status: 403, rate_limit_reason: 'remaining-zero' });

    const refused = await call();
    expect(refused.envelope).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      _meta: { retry_after_seconds: 60 },
    });
    expect(refused.envelope.upstream).toBeUndefined();
    expect(refused.envelope.details[0]?.['issue']).toBe(
      'refused before any upstream call by the pre-flight rate limiter',
    );
    expect(replay.requests).toHaveLength(1);

    vi.setSystemTime(T0 + 60_000);
    expect((await call()).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(2);
  });

  it('a reset in the year 10000 holds calls for a day at most, not until then', async () => {
    const { call, replay } = await start();
    replay.enqueue({
      status: 403,
      // 10000-01-01T00:00:00Z in epoch seconds: a hostile or broken upstream
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '253402300800' },
      body: { message: 'API rate limit exceeded' },
    });
    // neither the envelope nor the limiter believes the upstream for longer than a day
    // (MAX_RETRY_AFTER_SECONDS): the upstream's answer and the limiter's refusal say the same wait
    expect((await call()).envelope).toMatchObject({
      error_kind: 'rate_limited',
      _meta: { retry_after_seconds: 86_400 },
    });
    expect((await call()).envelope).toMatchObject({
      error_kind: 'rate_limited',
      _meta: { retry_after_seconds: 86_400 },
    });
    expect(replay.requests).toHaveLength(1);
    vi.setSystemTime(T0 + 86_400_000);
    expect((await call()).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(2);
  });

  it('a 403 secondary limit with Retry-After drains for that long', async () => {
    const { call, replay } = await start();
    replay.enqueue({
      status: 403,
      headers: { 'retry-after': '30' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
    });
    expect((await call()).envelope).toMatchObject({
      error_kind: 'rate_limited',
      _meta: { retry_after_seconds: 30 },
      details: [{ http_status: 403, rate_limit_reason: 'retry-after' }],
    });
    expect((await call()).envelope).toMatchObject({ error_kind: 'rate_limited', _meta: { retry_after_seconds: 30 } });
    vi.setSystemTime(T0 + 29_000);
    expect((await call()).envelope).toMatchObject({ error_kind: 'rate_limited', _meta: { retry_after_seconds: 1 } });
    expect(replay.requests).toHaveLength(1);
    vi.setSystemTime(T0 + 30_000);
    expect((await call()).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(2);
  });

  it('a successful answer with remaining 0 and a reset holds the next call until the reset', async () => {
    const { call, replay } = await start();
    replay.enqueue({
      status: 200,
      headers: { RateLimit: '"default";r=0;t=45', 'RateLimit-Policy': '"default";q=100;w=60' },
      body: { items: [2] },
    });
    expect(await call()).toEqual({
      envelope: {
        items: [2],
        _meta: {
          rate_limit: { limit: 100, window_seconds: 60, remaining: 0, reset_after_seconds: 45, policy: 'default' },
        },
      },
    });
    const refused = (await call()).envelope;
    expect(refused).toMatchObject({ error_kind: 'rate_limited', _meta: { retry_after_seconds: 45 } });
    expect(replay.requests).toHaveLength(1);
    vi.setSystemTime(T0 + 45_000);
    expect((await call()).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(2);
  });

  it('a limit over a window (IETF q=120;w=60) sets the rate: 2 per second, a bucket of 2', async () => {
    const { call, replay } = await start();
    replay.enqueue({
      status: 200,
      headers: { RateLimit: '"minute";r=1;t=30', 'RateLimit-Policy': '"minute";q=120;w=60' },
      body: { items: [3] },
    });
    await call();
    expect((await call()).isError).toBeUndefined();
    expect((await call()).isError).toBeUndefined();
    const refused = (await call()).envelope;
    // the limiter spends nine tenths of the rate: the next token is 1 / 1.8 s away
    expect(refused).toMatchObject({
      error_kind: 'rate_limited',
      _meta: { retry_after_seconds: 0.556, rate_limit: { limit: 2, window_seconds: 1, remaining: 0 } },
    });
    expect(replay.requests).toHaveLength(3);
  });

  it('a plain 403 and an answer with requests left hold nothing back', async () => {
    const { call, replay } = await start();
    replay.enqueue(
      { status: 403, body: { message: 'Resource not accessible by integration' } },
      { status: 200, headers: { 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': String(T0_EPOCH + 60) }, body: {} },
    );
    expect((await call()).envelope).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'UPSTREAM_HTTP_403',
      upstream: 'example-api',
    });
    expect((await call()).isError).toBeUndefined();
    expect((await call()).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(3);
  });
});
