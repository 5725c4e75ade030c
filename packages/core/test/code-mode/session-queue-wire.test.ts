/**
 * Code Mode's queue between sessions over the wire: real SDK v1 clients, each with its own
 * Streamable HTTP session, against a server on 127.0.0.1, with the replay upstream on 127.0.0.1.
 * Programs hold their worker on an inner call the test answers, so the order of events depends
 * on the queue alone; the one time bound is generous.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';

import { createEnvelopeServer, readSuccessBody } from '../../src/index.js';
import type { EnvelopeServerOptions, EnvelopeTool, StreamableHttpHandle } from '../../src/index.js';
import { createMemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import { rateLimitKey } from '../../src/rate-limit/step.js';
import type { RateLimitStore } from '../../src/rate-limit/store.js';
import { captureLog } from '../fixtures/log-capture.js';
import { testAdapter } from '../fixtures/test-adapter.js';

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
}

/** What the server side saw, in order: `hold` and `mark` calls starting. */
interface Events {
  readonly seen: string[];
  /** Answers every `hold` call waiting. */
  readonly releaseAll: () => void;
  /** Answers the oldest `hold` call waiting. */
  readonly releaseOne: () => void;
  /** Resolves once `check` holds, re-checked at each event (never on a timer). */
  readonly until: (check: () => boolean) => Promise<void>;
}

function createEvents(): Events & { hold: EnvelopeTool; mark: EnvelopeTool; wake: () => void } {
  const seen: string[] = [];
  const held: (() => void)[] = [];
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  return {
    seen,
    wake,
    releaseAll: () => {
      for (const release of held.splice(0)) release();
    },
    releaseOne: () => held.shift()?.(),
    until: async (check) => {
      while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    hold: {
      name: 'hold',
      inputSchema: { type: 'object' },
      handler: (_args, context) =>
        new Promise((resolve, reject) => {
          seen.push('hold');
          held.push(() => {
            resolve({ held: true });
          });
          context.signal.addEventListener('abort', () => {
            reject(new Error('cancelled'));
          });
          wake();
        }),
    },
    mark: {
      name: 'mark',
      inputSchema: { type: 'object' },
      handler: () => {
        seen.push('mark');
        wake();
        return { marked: true };
      },
    },
  };
}

describe('Code Mode sessions over Streamable HTTP', () => {
  const open: {
    handle: StreamableHttpHandle | undefined;
    clients: Client[];
    replay: UpstreamReplay | undefined;
    stores: RateLimitStore[];
    release: (() => void) | undefined;
  } = { handle: undefined, clients: [], replay: undefined, stores: [], release: undefined };
  afterEach(async () => {
    open.release?.();
    for (const client of open.clients.splice(0)) await client.close();
    await open.handle?.close();
    await open.replay?.close();
    for (const store of open.stores.splice(0)) await store.close();
    Object.assign(open, { handle: undefined, replay: undefined, release: undefined });
  });

  async function serve(tools: EnvelopeTool[], options: EnvelopeServerOptions): Promise<StreamableHttpHandle> {
    const server = createEnvelopeServer({
      info: { name: 'session-queue', version: '0.0.1' },
      adapter: testAdapter,
      tools,
      options: { logger: captureLog().logger, codeMode: true, ...options },
    });
    open.handle = await server.serveStreamableHttp();
    return open.handle;
  }

  async function connect(handle: StreamableHttpHandle): Promise<Client> {
    const client = new Client({ name: 'session-queue-client', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    open.clients.push(client);
    return client;
  }

  const execute = async (client: Client, code: string, signal?: AbortSignal): Promise<Result> =>
    (await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      ...(signal === undefined ? {} : { signal }),
      timeout: 120_000,
    })) as Result;

  it("one session's 16 runs: 8 are refused at once with a retryable envelope, and another session's run takes the next worker", async () => {
    const events = createEvents();
    open.release = events.releaseAll;
    const handle = await serve([events.hold, events.mark], {
      env: { CODE_MODE_WALL_TIME_MS: '60000' },
    });
    const [greedy, other] = [await connect(handle), await connect(handle)];
    const answers: Result[] = [];
    const runs = Array.from({ length: 16 }, () =>
      execute(greedy, "return await callTool('hold', {});").then((result) => {
        answers.push(result);
        events.wake();
        return result;
      }),
    );
    await events.until(() => answers.length === 8 && events.seen.length === 4);
    for (const refused of answers) {
      expect(refused.isError).toBe(true);
      expect(validateEnvelope(refused.structuredContent).valid).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        error_kind: 'sandbox_runtime',
        error_code: 'CODE_MODE_SANDBOX_LIMITATION',
        retryable: true,
        tool: 'execute_code',
        details: [{ path: 'code', reason: 'session_runs', setting: 'CODE_MODE_MAX_SESSION_RUNS', limit: 8 }],
        _meta: { retry_after_seconds: 60 },
      });
    }
    const quick = execute(other, "return await callTool('mark', {});");
    // The other session's request reaches the queue at some point while the greedy session still
    // has four runs queued: from then on the next freed worker is its own. Workers are freed one at
    // a time, each after the previous one was taken, until its program has started.
    while (!events.seen.includes('mark')) {
      const before = events.seen.length;
      events.releaseOne();
      await events.until(() => events.seen.length > before);
    }
    expect((await quick).structuredContent).toEqual({ result: { marked: true } });
    // first come first served would have started all four queued greedy runs first (mark ninth)
    expect(events.seen.indexOf('mark')).toBeLessThan(8);
    while (events.seen.filter((seen) => seen === 'hold').length < 8) {
      const before = events.seen.length;
      events.releaseAll();
      await events.until(() => events.seen.length > before);
    }
    events.releaseAll();
    const settled = await Promise.all(runs);
    expect(settled.filter((result) => result.isError !== true)).toHaveLength(8);
  });

  it('cancelling 16 queued and running runs frees every worker for another session, and a cancelled inner call waiting for the limiter sends nothing upstream', async () => {
    const events = createEvents();
    open.release = events.releaseAll;
    const replay = await startUpstreamReplay({
      routes: [{ path: '/items', response: { status: 200, body: { items: [1] } } }],
    });
    open.replay = replay;
    // the store's clock stands still: the second inner call waits for a token 22.223 s away, far
    // longer than this test runs, so only the cancellation can end its wait
    const store = createMemoryRateLimitStore({ now: () => Date.UTC(2026, 0, 1), sweepIntervalMs: 0 });
    open.stores.push(store);
    const takes: string[] = [];
    const counting: RateLimitStore = {
      ...store,
      description: store.description,
      take: async (key, plan, maxWaitMs) => {
        const taken = await store.take(key, plan, maxWaitMs);
        takes.push(key);
        events.wake();
        return taken;
      },
      refund: (key, plan) => store.refund(key, plan),
      drain: (key, plan, waitMs) => store.drain(key, plan, waitMs),
      close: () => Promise.resolve(),
    };
    const plan = { ratePerSecond: 0.05, burst: 1 };
    const limited: EnvelopeTool = {
      name: 'limited',
      inputSchema: { type: 'object' },
      rateLimit: plan,
      handler: async (_args, context) => readSuccessBody(await context.fetch(`${replay.url}/items`)),
    };
    const handle = await serve([events.hold, events.mark, limited], {
      env: { CODE_MODE_WALL_TIME_MS: '60000', CODE_MODE_MAX_SESSION_RUNS: '16' },
      rateLimitStore: counting,
      rateLimitMaxWaitMs: 60_000,
    });
    const [greedy, other] = [await connect(handle), await connect(handle)];
    const controller = new AbortController();
    const waiting = execute(
      greedy,
      "await callTool('limited', {}); return await callTool('limited', {});",
      controller.signal,
    ).catch((error: unknown) => error);
    await events.until(() => takes.length === 2);
    const runs = Array.from({ length: 15 }, () =>
      execute(greedy, "return await callTool('hold', {});", controller.signal).catch((error: unknown) => error),
    );
    // one worker waits for the limiter, three hold, twelve runs are queued
    await events.until(() => events.seen.length === 3);
    controller.abort();
    const errors = await Promise.all([waiting, ...runs]);
    expect(errors.filter((error) => !(error instanceof Error))).toEqual([]);
    const started = performance.now();
    expect((await execute(other, "return await callTool('mark', {});")).structuredContent).toEqual({
      result: { marked: true },
    });
    // four workers were held and twelve runs queued: the other session's run found a free worker
    // (a fresh one, loaded within its 30 s startup limit however busy the machine)
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(events.seen).toEqual(['hold', 'hold', 'hold', 'mark']);
    // the waiting inner call's token was given back: one token is owed (the first call), so at
    // 0.05 per second the next is 20 s away, not 40 s
    expect(await store.take(rateLimitKey(testAdapter.id, 'limited', undefined), plan, 0)).toMatchObject({
      granted: false,
      waitMs: 20_000,
    });
    expect(replay.requests).toHaveLength(1);
  });
});
