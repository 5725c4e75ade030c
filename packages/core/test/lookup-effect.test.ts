/**
 * Safe retries and lookups: a request a tool marks `lookup: true` (it changes nothing upstream)
 * that fails before the tool sent anything else says nothing of an unknown effect, since the
 * tool's own request never went out; the same lookup failing after a POST was sent does. A real
 * SDK client, in memory, against tools that are not idempotent, and a loopback upstream.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { effectUnknown } from '../src/effect-unknown.js';
import type { EnvelopeTool, ToolHandlerContext } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';

let replay: UpstreamReplay;

beforeAll(async () => {
  replay = await startUpstreamReplay({
    routes: [
      { method: 'GET', path: '/lookup', response: { status: 500, body: { message: 'lookup failed' } } },
      { method: 'POST', path: '/orders', response: { status: 201, body: { id: 1 } } },
    ],
  });
});

afterAll(async () => {
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

  it('is told by the failure alone', () => {
    const request = { method: 'GET', url: 'http://127.0.0.1:9/lookup' };
    expect(effectUnknown({ type: 'timeout', timeoutMs: 10, request: { ...request, lookupFirst: true } })).toBe(false);
    expect(effectUnknown({ type: 'timeout', timeoutMs: 10, request })).toBe(true);
  });
});
