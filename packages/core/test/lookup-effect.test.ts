/**
 * Safe retries and lookups: a request a tool marks `lookup: true` (it changes nothing upstream)
 * that fails before the tool sent anything else says nothing of an unknown effect, since the
 * tool's own request never went out; the same lookup failing after a POST was sent does. A real
 * SDK client, in memory, against tools that are not idempotent, and a loopback upstream.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { effectUnknown } from '../src/effect-unknown.js';
import type { EnvelopeTool, ToolHandlerContext } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';

let replay: UpstreamReplay;

/**
 * An upstream whose lookups wait for the next POST and then fail, so that a lookup started first
 * fails after a request of the same call that could act was sent.
 */
const parkedLookups: ServerResponse[] = [];
const postsSeen = { count: 0 };
function failLookup(response: ServerResponse): void {
  response.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"no"}');
}
const slowLookup = createServer((request, response) => {
  if (request.method !== 'POST') {
    // the two requests travel on their own connections: the POST may arrive first
    if (postsSeen.count > 0) failLookup(response);
    else parkedLookups.push(response);
    return;
  }
  postsSeen.count += 1;
  response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":2}');
  for (const parked of parkedLookups.splice(0)) failLookup(parked);
});
let slowUrl = '';

beforeAll(async () => {
  slowLookup.listen(0, '127.0.0.1');
  await once(slowLookup, 'listening');
  slowUrl = `http://127.0.0.1:${(slowLookup.address() as AddressInfo).port}`;
  replay = await startUpstreamReplay({
    routes: [
      { method: 'GET', path: '/lookup', response: { status: 500, body: { message: 'lookup failed' } } },
      { method: 'POST', path: '/orders', response: { status: 201, body: { id: 1 } } },
    ],
  });
});

afterAll(async () => {
  slowLookup.closeAllConnections();
  slowLookup.close();
  await replay.close();
});

const session = useTestSession();

async function lookUp(context: ToolHandlerContext): Promise<void> {
  await context.fetch(`${replay.url}/lookup`, { method: 'GET', lookup: true });
}

/** Tools without annotations: not idempotent. */
const TOOLS: readonly EnvelopeTool[] = [
  {
    name: 'look_up_then_create',
    inputSchema: { type: 'object' },
    handler: async (_args, context) => {
      await lookUp(context);
      await context.fetch(`${replay.url}/orders`, { method: 'POST' });
      return { created: true };
    },
  },
  {
    name: 'create_then_look_up',
    inputSchema: { type: 'object' },
    handler: async (_args, context) => {
      await context.fetch(`${replay.url}/orders`, { method: 'POST' });
      await lookUp(context);
      return { created: true };
    },
  },
  {
    name: 'look_up_and_create_together',
    inputSchema: { type: 'object' },
    handler: async (_args, context) => {
      const lookup = context.fetch(`${slowUrl}/lookup`, { method: 'GET', lookup: true });
      const create = context.fetch(`${slowUrl}/orders`, { method: 'POST' });
      await Promise.all([lookup, create]);
      return { created: true };
    },
  },
  {
    name: 'create_after_a_failed_look_up',
    inputSchema: { type: 'object' },
    handler: async (_args, context) => {
      const failure = await lookUp(context).then(
        () => undefined,
        (error: unknown) => error,
      );
      await context.fetch(`${replay.url}/orders`, { method: 'POST' });
      throw failure;
    },
  },
];

async function envelopeOf(name: string): Promise<Record<string, unknown>> {
  const { client } = await session.start({ logger: captureLog().logger }, TOOLS);
  const result = await client.callTool({ name, arguments: {} });
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as Record<string, unknown>;
  expect(validateEnvelope(envelope).valid).toBe(true);
  return envelope;
}

function reasons(envelope: Record<string, unknown>): unknown[] {
  return (envelope['details'] as Record<string, unknown>[]).map((detail) => detail['reason'] ?? null);
}

describe('a failed lookup', () => {
  it('before anything else was sent keeps the verdict: retryable, no effect_unknown', async () => {
    const posts = replay.requests.filter((request) => request.method === 'POST').length;
    const envelope = await envelopeOf('look_up_then_create');
    expect([envelope['retryable'], reasons(envelope)]).toEqual([true, [null]]);
    expect(replay.requests.filter((request) => request.method === 'POST')).toHaveLength(posts);
  });

  it('after a POST was sent is effect-unknown: the POST may have acted', async () => {
    const envelope = await envelopeOf('create_then_look_up');
    expect(envelope['retryable']).toBe(false);
    expect(reasons(envelope)[0]).toBe('effect_unknown');
  });

  it('that started first but failed after a POST of the same call was sent is effect-unknown', async () => {
    const envelope = await envelopeOf('look_up_and_create_together');
    expect(envelope['retryable']).toBe(false);
    expect(reasons(envelope)[0]).toBe('effect_unknown');
  });

  it('rethrown after the tool sent a POST is effect-unknown', async () => {
    const envelope = await envelopeOf('create_after_a_failed_look_up');
    expect(envelope['retryable']).toBe(false);
    expect(reasons(envelope)[0]).toBe('effect_unknown');
  });

  it('is told by the failure alone', () => {
    const request = { method: 'GET', url: 'http://127.0.0.1:9/lookup' };
    expect(effectUnknown({ type: 'timeout', timeoutMs: 10, request: { ...request, lookupFirst: true } })).toBe(false);
    expect(effectUnknown({ type: 'timeout', timeoutMs: 10, request })).toBe(true);
  });
});
