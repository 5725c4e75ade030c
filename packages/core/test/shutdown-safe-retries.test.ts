/**
 * Safe retries of calls a graceful shutdown cuts short, over real Streamable HTTP on 127.0.0.1
 * with a real SDK client: the handler was running, so a tool that is not idempotent may already
 * have done its work upstream. Its envelope is the effect-unknown form (not retryable, the check
 * first), while a read-only tool's stays retryable (CONTRACT.md "Safe retries").
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { toolAnnotationsForMethod } from '../src/openapi-entry.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

const V2 = { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } };

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
}

/** A loopback upstream that never answers; `arrived` resolves once `count` requests came in. */
async function startHangingUpstream(count: number) {
  const held: ServerResponse[] = [];
  let reached: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const server = createServer((_request, response) => {
    held.push(response);
    if (held.length === count) reached();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

function tool(name: string, method: 'GET' | 'POST', url: string): EnvelopeTool {
  return {
    name,
    annotations: toolAnnotationsForMethod(method),
    inputSchema: { type: 'object' },
    handler: async (_args, context) => (await context.fetch(`${url}/orders`, { method })).status,
  };
}

describe('a graceful shutdown cutting calls short', () => {
  it('answers a POST that was under way with the effect-unknown form, and a GET retryable', async () => {
    const upstream = await startHangingUpstream(2);
    const server = createEnvelopeServer({
      info: { name: 'shutdown-safe-retries', version: '0.0.1' },
      adapter: testAdapter,
      tools: [tool('create_order', 'POST', upstream.url), tool('get_order', 'GET', upstream.url)],
      options: { env: {}, logger: captureLog().logger, rateLimit: false },
    });
    const handle = await server.serveStreamableHttp({ port: 0 });
    const client = new Client({ name: 'shutdown-safe-retries', version: '0.0.1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(handle.url));
      const calls = ['create_order', 'get_order'].map(
        (name) => client.callTool({ name, arguments: {}, _meta: V2 }) as Promise<Result>,
      );
      await upstream.arrived;
      expect(await handle.shutdown(0)).toEqual({ forcedCalls: 2 });
      const [created = {}, read = {}] = (await Promise.all(calls)).map((result) => result.structuredContent ?? {});
      for (const envelope of [created, read]) expect(validateEnvelope(envelope).valid).toBe(true);
      const reasons = (envelope: Record<string, unknown>) =>
        (envelope['details'] as Record<string, unknown>[]).map((detail) => detail['reason']);
      expect([created['error_code'], created['retryable'], reasons(created)]).toEqual([
        'INTERNAL_ERROR',
        false,
        ['effect_unknown', 'server_shutting_down'],
      ]);
      expect((created['hints'] as string[])[0]).toMatch(/^Check whether the call took effect/);
      expect([read['error_code'], read['retryable'], reasons(read)]).toEqual([
        'INTERNAL_ERROR',
        true,
        ['server_shutting_down'],
      ]);
    } finally {
      await client.close().catch(() => undefined);
      await upstream.close();
    }
  });
});
