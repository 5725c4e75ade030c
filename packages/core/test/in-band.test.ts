/**
 * Failures an upstream reports in a 2xx body, over the wire: a real SDK client, a server on the
 * test adapter with the HTTP kit's in-band rule, and the replay upstream on 127.0.0.1. A handler
 * that reads the body through `context.readBody` ends the call with the failure; one that calls
 * `readSuccessBody` gets the body as data. Every result states the contract in its own `_meta`.
 */
import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterEach, describe, expect, it } from 'vitest';

import { restInBandFailure } from '../src/adapter-entry.js';
import { createEnvelopeServer, readSuccessBody } from '../src/index.js';
import type { EnvelopeAdapter, EnvelopeServerOptions, EnvelopeTool, InBandVerdict } from '../src/index.js';
import { createMemoryRateLimitStore } from '../src/rate-limit/memory-store.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly _meta?: Record<string, unknown>;
}

const NOT_FOUND = { errors: [{ code: 'NotFound', message: 'Widget w-1 does not exist.' }] };
const QUOTA = { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota.' }] };
/** The request `_meta` of a client that reads contract version 2. */
const READS_V2 = { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } };
const STATED = { [ENVELOPE_EXTENSION_ID]: { contract_version: 2 } };

const open: { connected: Connected[]; replay: UpstreamReplay | undefined } = { connected: [], replay: undefined };
afterEach(async () => {
  for (const connected of open.connected.splice(0)) await connected.close();
  await open.replay?.close();
  open.replay = undefined;
});

/** A server whose tools read `/body` of the replay: `reads` through `context.readBody`, `free` through `readSuccessBody`. */
async function start(
  body: unknown,
  judge: EnvelopeAdapter['inBandFailure'] | null = (answer) => restInBandFailure(answer.body),
  options: EnvelopeServerOptions = {},
): Promise<{ call: (name: string) => Promise<Result>; replay: UpstreamReplay }> {
  const replay = await startUpstreamReplay({ routes: [{ path: '/body', response: { status: 200, body } }] });
  open.replay = replay;
  const tools: EnvelopeTool[] = [
    {
      name: 'reads',
      inputSchema: { type: 'object' },
      handler: async (_a, c) => c.readBody(await c.fetch(`${replay.url}/body`)),
    },
    {
      name: 'free',
      inputSchema: { type: 'object' },
      handler: async (_a, c) => readSuccessBody(await c.fetch(`${replay.url}/body`)),
    },
  ];
  const adapter: EnvelopeAdapter = judge === null ? testAdapter : { ...testAdapter, inBandFailure: judge };
  const server = createEnvelopeServer({
    info: { name: 'in-band-test', version: '0.0.1' },
    adapter,
    tools,
    options: { env: { MCP_RATE_LIMIT: 'off' }, logger: captureLog().logger, migrations: [], ...options },
  });
  const connected = await connectInMemory(server);
  open.connected.push(connected);
  const call = async (name: string): Promise<Result> =>
    (await connected.client.callTool({ name, arguments: {}, _meta: READS_V2 })) as Result;
  return { call, replay };
}

describe('a 2xx body the adapter judges a failure', () => {
  it('ends the call as the upstream_http failure of the same meaning, with a detail that names the status that arrived', async () => {
    const { call } = await start(NOT_FOUND);
    const result = await call('reads');
    const envelope = result.structuredContent ?? {};
    expect(result.isError).toBe(true);
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable'], envelope['upstream']]).toEqual([
      'upstream_http',
      'UPSTREAM_HTTP_404',
      false,
      'sp-api',
    ]);
    expect(envelope['summary']).toBe(
      "Upstream answered HTTP 404: Widget w-1 does not exist. (The upstream's answer was HTTP 200 with this failure in its body.)",
    );
    expect(envelope['details']).toEqual([
      {
        path: '',
        issue: 'The upstream answered HTTP 200 with a failure in its body, classified as HTTP 404.',
        received_type: 'object',
        http_status: 200,
        in_band: true,
      },
      { path: '', issue: 'Widget w-1 does not exist.', received_type: 'object', http_status: 404 },
    ]);
    expect(result._meta).toEqual(STATED);
  });

  it('is data to a handler that reads it with readSuccessBody', async () => {
    const { call } = await start(NOT_FOUND);
    const result = await call('free');
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(NOT_FOUND);
    expect(result._meta).toEqual(STATED);
  });

  it('is data on a server whose adapter has no in-band rule', async () => {
    const { call } = await start(NOT_FOUND, null);
    expect((await call('reads')).structuredContent).toEqual(NOT_FOUND);
  });

  it('keeps a body the rule calls data: an empty errors list beside items', async () => {
    const { call } = await start({ errors: [], items: [1] });
    const result = await call('reads');
    expect([result.isError, result.structuredContent]).toEqual([undefined, { errors: [], items: [1] }]);
  });

  it.each([
    ['has no failure status', (): InBandVerdict => ({ status: 200 })],
    [
      'throws',
      (): InBandVerdict => {
        throw new Error('the rule broke');
      },
    ],
  ])('answers internal_error when the rule %s', async (_, judge) => {
    const { call } = await start(NOT_FOUND, judge);
    const envelope = (await call('reads')).structuredContent ?? {};
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['internal_error', 'INTERNAL_ERROR']);
  });

  it('teaches the limiter an in-band quota failure as a 429: the next call is refused before it goes upstream', async () => {
    const clock = { ms: Date.UTC(2026, 0, 1) };
    const store = createMemoryRateLimitStore({ now: () => clock.ms, sweepIntervalMs: 0 });
    try {
      const { call, replay } = await start(QUOTA, (answer) => restInBandFailure(answer.body), {
        env: {},
        rateLimitStore: store,
        rateLimitMaxWaitMs: 0,
      });
      const first = (await call('reads')).structuredContent ?? {};
      expect([first['error_kind'], first['error_code']]).toEqual(['rate_limited', 'RATE_LIMITED']);
      const second = (await call('reads')).structuredContent ?? {};
      expect([second['error_kind'], second['error_code']]).toEqual(['rate_limited', 'RATE_LIMITED']);
      expect(replay.requests).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
