/**
 * The pre-flight limiter over the wire: a real SDK client, a server built on the test adapter,
 * and the replay upstream on 127.0.0.1. The store's clock is the test's, so every number in a
 * refusal is exact.
 */
import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterEach, describe, expect, it } from 'vitest';

import { createEnvelopeServer, readSuccessBody } from '../../src/index.js';
import type { EnvelopeServerOptions, EnvelopeTool } from '../../src/index.js';
import { createMemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import type { MemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import { rateLimitKey } from '../../src/rate-limit/step.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/rate-limit/settings.js';
import { storeDeadlines } from '../../src/rate-limit/store-deadlines.js';
import type { RateLimitPlan, RateLimitStore } from '../../src/rate-limit/store.js';
import { connectInMemory } from '../fixtures/connect.js';
import type { Connected } from '../fixtures/connect.js';
import { createChanges } from '@mcp-envelope/testing';
import { captureLog } from '../fixtures/log-capture.js';
import { testAdapter } from '../fixtures/test-adapter.js';

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content: { text?: string }[];
}

const T0 = Date.UTC(2026, 0, 1);

/** A tool that sends one GET to the replay upstream's `path`, keyed by the `seller` argument. */
function upstreamTool(name: string, path: string, upstream: () => string, plan?: RateLimitPlan): EnvelopeTool {
  return {
    name,
    inputSchema: { type: 'object', properties: { seller: { type: 'string' } }, additionalProperties: false },
    ...(plan === undefined ? {} : { rateLimit: plan }),
    rateLimitIdentity: (args) => args['seller'] as string | undefined,
    handler: async (_args, context) => readSuccessBody(await context.fetch(`${upstream()}${path}`)),
  };
}

/**
 * The store with its takes and refunds counted: a test waits for the server to reach a take or a
 * refund instead of waiting some milliseconds and hoping it has.
 */
function watchedStore(inner: MemoryRateLimitStore): {
  store: RateLimitStore;
  taken: (count: number) => Promise<void>;
  refunded: () => Promise<void>;
} {
  const seen = { takes: 0, refunds: 0 };
  const { changed, until } = createChanges();
  const store: RateLimitStore = {
    description: inner.description,
    take: async (key, plan, maxWaitMs) => {
      const result = await inner.take(key, plan, maxWaitMs);
      seen.takes += 1;
      changed();
      return result;
    },
    refund: async (key, plan) => {
      await inner.refund(key, plan);
      seen.refunds += 1;
      changed();
    },
    drain: (key, plan, waitMs) => inner.drain(key, plan, waitMs),
    close: () => inner.close(),
  };
  return {
    store,
    taken: (count) => until(() => seen.takes >= count),
    refunded: () => until(() => seen.refunds >= 1),
  };
}

describe('the pre-flight limiter over the wire', () => {
  const open: { connected: Connected[]; replay: UpstreamReplay | undefined; stores: RateLimitStore[] } = {
    connected: [],
    replay: undefined,
    stores: [],
  };
  const clock = { ms: T0 };
  afterEach(async () => {
    for (const connected of open.connected.splice(0)) await connected.close();
    for (const store of open.stores.splice(0)) await store.close();
    await open.replay?.close();
    open.replay = undefined;
    clock.ms = T0;
  });

  const fakeClockStore = (): MemoryRateLimitStore => {
    const store = createMemoryRateLimitStore({ now: () => clock.ms, sweepIntervalMs: 0 });
    open.stores.push(store);
    return store;
  };

  async function start(
    tools: (upstream: () => string) => EnvelopeTool[],
    options: EnvelopeServerOptions = {},
  ): Promise<{
    call: (name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>) => Promise<Result>;
    replay: UpstreamReplay;
  }> {
    const replay = await startUpstreamReplay({
      routes: [
        { path: '/items', response: { status: 200, body: { items: [1] } } },
        { path: '/learn', response: { status: 200, headers: { 'x-test-ratelimit-limit': '0.5' }, body: {} } },
      ],
    });
    open.replay = replay;
    const server = createEnvelopeServer({
      info: { name: 'limiter-test', version: '0.0.1' },
      adapter: testAdapter,
      tools: tools(() => replay.url),
      options: { env: {}, logger: captureLog().logger, ...options },
    });
    const connected = await connectInMemory(server);
    open.connected.push(connected);
    const call = async (
      name: string,
      args: Record<string, unknown> = {},
      meta?: Record<string, unknown>,
    ): Promise<Result> =>
      (await connected.client.callTool({
        name,
        arguments: args,
        ...(meta === undefined ? {} : { _meta: meta }),
      })) as Result;
    return { call, replay };
  }

  it('refuses a call past the budget with a rate_limited envelope, before any upstream call', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 1, burst: 2 })],
      { rateLimitStore: fakeClockStore(), rateLimitMaxWaitMs: 0 },
    );
    expect((await call('limited')).isError).toBeUndefined();
    expect((await call('limited')).isError).toBeUndefined();
    const refused = await call('limited');
    expect(refused.isError).toBe(true);
    const envelope = refused.structuredContent ?? {};
    expect(validateEnvelope(envelope).valid).toBe(true);
    expect(JSON.parse(refused.content[0]?.text ?? '')).toEqual(envelope);
    expect(envelope).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      tool: 'limited',
      _meta: {
        retry_after_seconds: 1.112,
        rate_limit: { limit_per_second: 1, remaining: 0, reset_at: new Date(T0 + 2223).toISOString() },
      },
    });
    expect((envelope['details'] as { issue: string }[])[0]?.issue).toBe(
      'refused before any upstream call by the pre-flight rate limiter',
    );
    expect((envelope['hints'] as string[])[0]).toMatch(/^Wait 1.112 s/);
    // a reader of v2 gets the limit over its window and the time to the reset too
    const v2 = (await call('limited', {}, { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } })).structuredContent;
    expect(validateEnvelope(v2)).toEqual({ valid: true, version: 2 });
    expect(v2?.['_meta']).toEqual({
      retry_after_seconds: 1.112,
      rate_limit: {
        limit: 1,
        window_seconds: 1,
        limit_per_second: 1,
        remaining: 0,
        reset_at: new Date(T0 + 2223).toISOString(),
        reset_after_seconds: 2.223,
      },
    });
    expect(replay.requests).toHaveLength(2);
    // waited out, the call succeeds
    clock.ms += 1112;
    expect((await call('limited')).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(3);
  });

  it('waits for a token due within MCP_RATE_LIMIT_MAX_WAIT_MS instead of refusing', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 10, burst: 1 })],
      // the store's clock stands still, so the next token is exactly 100 ms away whatever the load
      { env: { MCP_RATE_LIMIT_MAX_WAIT_MS: '2000' }, rateLimitStore: fakeClockStore() },
    );
    expect((await call('limited')).isError).toBeUndefined();
    const started = performance.now();
    const second = await call('limited');
    expect(second.isError).toBeUndefined();
    // the call waited for its reserved token instead of being refused (5 ms of slack: the event loop
    // reads its clock once per turn, so a timer may fire a little early by ours)
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(replay.requests).toHaveLength(2);
  });

  it('gives the token back when a waiting call is cancelled, and sends nothing upstream', async () => {
    const { store, taken, refunded } = watchedStore(fakeClockStore());
    const plan = { ratePerSecond: 0.5, burst: 1 };
    const { replay } = await start((upstream) => [upstreamTool('slow', '/items', upstream, plan)], {
      rateLimitStore: store,
      rateLimitMaxWaitMs: 5000,
    });
    const client = open.connected[0]?.client;
    await client?.callTool({ name: 'slow', arguments: {} });
    const controller = new AbortController();
    const waiting = client?.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal });
    // the second call has reserved its token and waits 2 s for it: cancel it then
    await taken(2);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    // the server saw the cancellation once it gave the token back
    await refunded();
    expect(replay.requests).toHaveLength(1);
    // one token is owed (the first call), not two: the next one is 2 s away, not 4 s
    expect(await store.take(rateLimitKey(testAdapter.id, 'slow', undefined), plan, 0)).toMatchObject({
      granted: false,
      waitMs: 2000,
    });
  });

  it('gives the token back when a call is cancelled in its handler before any upstream request', async () => {
    const { store, refunded } = watchedStore(fakeClockStore());
    const plan = { ratePerSecond: 1, burst: 1 };
    const { changed: enter, until } = createChanges();
    const state = { entered: false };
    const hanging: EnvelopeTool = {
      name: 'hanging',
      inputSchema: { type: 'object' },
      rateLimit: plan,
      handler: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            reject(new Error('cancelled'));
          });
          state.entered = true;
          enter();
        }),
    };
    await start(() => [hanging], { rateLimitStore: store, rateLimitMaxWaitMs: 0 });
    const controller = new AbortController();
    const running = open.connected[0]?.client.callTool({ name: 'hanging', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await until(() => state.entered);
    controller.abort();
    await expect(running).rejects.toThrow();
    await refunded();
    expect(await store.take(rateLimitKey(testAdapter.id, 'hanging', undefined), plan, 0)).toMatchObject({
      granted: true,
      remaining: 0,
    });
  });

  it('replaces the rate of a tool by the limit the upstream reports', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('learner', '/learn', upstream, { ratePerSecond: 10, burst: 3 })],
      { rateLimitStore: fakeClockStore(), rateLimitMaxWaitMs: 0 },
    );
    for (let index = 0; index < 3; index += 1) expect((await call('learner')).isError).toBeUndefined();
    const refused = (await call('learner')).structuredContent ?? {};
    // at 10 per second the next token would be 0.1 s away; at the learned 0.5 it is 2 s
    expect(refused['_meta']).toEqual({
      retry_after_seconds: 2.223,
      rate_limit: { limit_per_second: 0.5, remaining: 0, reset_at: new Date(T0 + 6667).toISOString() },
    });
    expect(replay.requests).toHaveLength(3);
  });

  it('drains the bucket of a tool without a plan for Retry-After after an upstream 429, then backs off exponentially', async () => {
    const { call, replay } = await start((upstream) => [upstreamTool('open', '/open', upstream)], {
      rateLimitStore: fakeClockStore(),
      rateLimitMaxWaitMs: 0,
    });
    replay.enqueue({ status: 429, headers: { 'retry-after': '3' }, body: { message: 'slow down' } });
    const throttled = (await call('open')).structuredContent ?? {};
    expect(throttled).toMatchObject({ error_kind: 'rate_limited', _meta: { retry_after_seconds: 3 } });
    const refused = (await call('open')).structuredContent ?? {};
    expect(refused).toMatchObject({
      error_kind: 'rate_limited',
      _meta: { retry_after_seconds: 3, rate_limit: { limit_per_second: 1 } },
    });
    expect(replay.requests).toHaveLength(1);
    clock.ms += 3000;
    // two 429s without Retry-After: 1 s, then 2 s
    replay.enqueue({ status: 429, body: {} }, { status: 429, body: {} });
    await call('open');
    expect(((await call('open')).structuredContent?.['_meta'] as Record<string, unknown>)['retry_after_seconds']).toBe(
      1.112,
    );
    clock.ms += 1112;
    await call('open');
    expect(((await call('open')).structuredContent?.['_meta'] as Record<string, unknown>)['retry_after_seconds']).toBe(
      2,
    );
    expect(replay.requests).toHaveLength(3);
  });

  it('keeps the buckets of different identities apart', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 1, burst: 1 })],
      { rateLimitStore: fakeClockStore(), rateLimitMaxWaitMs: 0 },
    );
    expect((await call('limited', { seller: 'A' })).isError).toBeUndefined();
    expect((await call('limited', { seller: 'A' })).structuredContent?.['error_kind']).toBe('rate_limited');
    expect((await call('limited', { seller: 'B' })).isError).toBeUndefined();
    expect((await call('limited')).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(3);
    expect(rateLimitKey(testAdapter.id, 'limited', undefined)).toBe('sp\u0000limited');
    expect(rateLimitKey(testAdapter.id, 'limited', 'A')).toBe('sp\u0000limited\u0000A');
  });

  it('sends every call upstream when MCP_RATE_LIMIT is off, and says so in get_envelope_contract', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 1, burst: 1 })],
      { env: { MCP_RATE_LIMIT: 'off' } },
    );
    for (let index = 0; index < 4; index += 1) expect((await call('limited')).isError).toBeUndefined();
    expect(replay.requests).toHaveLength(4);
    expect((await call('get_envelope_contract')).structuredContent?.['settings']).toMatchObject({
      MCP_RATE_LIMIT: false,
      MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
      MCP_RATE_LIMIT_STORE: 'memory',
      MCP_RATE_LIMIT_STORE_TIMEOUT_MS: 1000,
      rate_limit_store_fallback: false,
    });
  });

  it('falls back to a local store whose buckets start empty while the store fails, logging one line, and recovers', async () => {
    const log = captureLog();
    const backing = createMemoryRateLimitStore();
    open.stores.push(backing);
    const state = { down: true };
    const failing: RateLimitStore = {
      description: 'redis://127.0.0.1:1/0',
      take: (key, plan, maxWaitMs) =>
        state.down ? Promise.reject(new Error('connect ECONNREFUSED')) : backing.take(key, plan, maxWaitMs),
      refund: (key, plan) => backing.refund(key, plan),
      drain: (key, plan, waitMs) => backing.drain(key, plan, waitMs),
      close: () => Promise.resolve(),
    };
    const { call, replay } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 1, burst: 5 })],
      { rateLimitStore: failing, rateLimitMaxWaitMs: 0, logger: log.logger },
    );
    // the fallback bucket starts empty: refused, as a value, never an internal error
    expect((await call('limited')).structuredContent?.['error_kind']).toBe('rate_limited');
    expect((await call('limited')).structuredContent?.['error_kind']).toBe('rate_limited');
    expect((await call('get_envelope_contract')).structuredContent?.['settings']).toMatchObject({
      MCP_RATE_LIMIT_STORE: 'redis://127.0.0.1:1/0',
      rate_limit_store_fallback: true,
    });
    expect(log.lines.filter((line) => line['level'] === 40)).toHaveLength(1);
    state.down = false;
    expect((await call('limited')).isError).toBeUndefined();
    expect((await call('get_envelope_contract')).structuredContent?.['settings']).toMatchObject({
      rate_limit_store_fallback: false,
    });
    expect(replay.requests).toHaveLength(1);
  });

  it('answers a Code Mode inner call past the budget with the rate_limited envelope as a value', async () => {
    const { call } = await start(
      (upstream) => [upstreamTool('limited', '/items', upstream, { ratePerSecond: 1, burst: 1 })],
      { rateLimitStore: fakeClockStore(), rateLimitMaxWaitMs: 0, codeMode: true },
    );
    const result = await call('execute_code', {
      code: `const first = await callTool('limited', {});
const second = await callTool('limited', {});
return { first: first.items, kind: second.error_kind, code: second.error_code, wait: second._meta.retry_after_seconds };`,
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent?.['result']).toEqual({
      first: [1],
      kind: 'rate_limited',
      code: 'RATE_LIMITED',
      wait: 1.112,
    });
  });

  it('execute_code and the meta tools take no token: an inner call that learns a limit leaves later runs unthrottled', async () => {
    const { call, replay } = await start(
      (upstream) => [upstreamTool('learner', '/learn', upstream, { ratePerSecond: 10, burst: 3 })],
      { rateLimitStore: fakeClockStore(), rateLimitMaxWaitMs: 0, codeMode: true },
    );
    // the upstream reports 0.5 per second: learner learns it, and execute_code's _meta carries it
    const learned = await call('execute_code', { code: "await callTool('learner', {}); return 0;" });
    expect(learned.structuredContent?.['_meta']).toMatchObject({ rate_limit: { limit_per_second: 0.5 } });
    // the store's clock stands still: a tool holding a 0.5/s bucket of one would be refused from here on
    for (let index = 0; index < 5; index += 1) {
      const again = await call('execute_code', { code: 'return 1;' });
      expect(again.structuredContent, `run ${index + 2}`).toEqual({ result: 1 });
      expect((await call('search_tools', { query: 'learner' })).isError).toBeUndefined();
      expect((await call('get_tool_schema', { name: 'learner' })).isError).toBeUndefined();
      expect((await call('get_envelope_contract')).isError).toBeUndefined();
    }
    expect(replay.requests).toHaveLength(1);
  });
});

describe('limiter settings', () => {
  const build = (env: Record<string, string>): unknown =>
    createEnvelopeServer({
      info: { name: 'limiter-test', version: '0.0.1' },
      adapter: testAdapter,
      tools: [],
      options: { env, logger: captureLog().logger },
    });

  it('stops the server at start on a value it cannot use, naming the variable but not the value', () => {
    expect(() => build({ MCP_RATE_LIMIT: 'sometimes' })).toThrow('MCP_RATE_LIMIT must be on or off');
    expect(() => build({ MCP_RATE_LIMIT_MAX_WAIT_MS: '-1' })).toThrow(
      /^MCP_RATE_LIMIT_MAX_WAIT_MS must be a non-negative integer/,
    );
    expect(() => build({ MCP_RATE_LIMIT_MAX_WAIT_MS: '1.5' })).toThrow(/^MCP_RATE_LIMIT_MAX_WAIT_MS/);
    // a longer timer fires after 1 ms in Node: a reserved call would go upstream at once
    expect(() => build({ MCP_RATE_LIMIT_MAX_WAIT_MS: '2147483648' })).toThrow(
      'MCP_RATE_LIMIT_MAX_WAIT_MS must be a non-negative integer (milliseconds) of at most 2147483647',
    );
    expect(() => build({ MCP_RATE_LIMIT_MAX_WAIT_MS: '2147483647' })).not.toThrow();
    expect(() => build({ MCP_RATE_LIMIT_STORE: 'http://h:1/0' })).toThrow(
      'MCP_RATE_LIMIT_STORE must be memory or a redis://host:port/db URL',
    );
    let message = '';
    try {
      build({ MCP_RATE_LIMIT_STORE: 'redis://user:s3cret-pw@h:6379/x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('MCP_RATE_LIMIT_STORE must be memory or a redis://host:port/db URL');
  });

  it('refuses an MCP_RATE_LIMIT_STORE_TIMEOUT_MS that is not a positive whole number of ms, env or option', () => {
    const expected = 'MCP_RATE_LIMIT_STORE_TIMEOUT_MS must be a positive integer (milliseconds) of at most 2147483647';
    for (const raw of ['0', '-5', '1.5', 'soon', '1e3', '2147483648'])
      expect(() => build({ MCP_RATE_LIMIT_STORE_TIMEOUT_MS: raw }), raw).toThrow(expected);
    const withOption = (value: number): unknown =>
      createEnvelopeServer({
        info: { name: 'limiter-test', version: '0.0.1' },
        adapter: testAdapter,
        tools: [],
        options: { env: {}, logger: captureLog().logger, rateLimitStoreTimeoutMs: value },
      });
    expect(() => withOption(0)).toThrow(
      'the option for MCP_RATE_LIMIT_STORE_TIMEOUT_MS must be an integer from 1 to 2147483647',
    );
    expect(() => withOption(Number.NaN)).toThrow(/^the option for MCP_RATE_LIMIT_STORE_TIMEOUT_MS/);
    expect(() => withOption(5000)).not.toThrow();
    expect(() => build({ MCP_RATE_LIMIT_STORE_TIMEOUT_MS: ' 5000 ' })).not.toThrow();
  });

  it('derives the connect and command deadlines from MCP_RATE_LIMIT_STORE_TIMEOUT_MS: a half and a quarter', () => {
    expect(storeDeadlines(RATE_LIMIT_DEFAULTS.MCP_RATE_LIMIT_STORE_TIMEOUT_MS)).toEqual({
      callMs: 1000,
      connectMs: 500,
      commandMs: 250,
    });
    expect(storeDeadlines(5000)).toEqual({ callMs: 5000, connectMs: 2500, commandMs: 1250 });
    expect(storeDeadlines(3)).toEqual({ callMs: 3, connectMs: 1, commandMs: 1 });
  });

  it('accepts on, off, 0 and memory', () => {
    expect(() =>
      build({ MCP_RATE_LIMIT: 'on', MCP_RATE_LIMIT_MAX_WAIT_MS: '0', MCP_RATE_LIMIT_STORE: 'memory' }),
    ).not.toThrow();
    expect(() => build({ MCP_RATE_LIMIT: 'OFF' })).not.toThrow();
  });
});
