import { validateEnvelope } from '@mcp-envelope/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { createTestServer } from './fixtures/test-server.js';
import { startReplay } from './fixtures/upstream-replay.js';
import type { Replay } from './fixtures/upstream-replay.js';

let replay: Replay;
let connected: Connected;
const log = captureLog();

beforeAll(async () => {
  replay = await startReplay();
  connected = await connectInMemory(
    // the bounds on calls in flight are lifted: this test is about 500 calls each keeping its own outcome
    createTestServer({ logger: log.logger, maxConcurrentCalls: 500, maxConcurrentCallsPerTool: 500 }, [
      {
        name: 'rate_call',
        inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
        handler: async (args, context) => {
          const n = Number(args['n']);
          if (n % 11 === 10) throw new Error(`unexpected failure ${n}`);
          const response = await context.fetch(`${replay.baseUrl}/rate/${n}`);
          const body: unknown = await response.json();
          return body;
        },
      },
    ]),
  );
});

afterAll(async () => {
  await connected.close();
  await replay.close();
});

describe('500 concurrent calls', () => {
  it('gives every call its own outcome and its own _meta', async () => {
    const calls = Array.from({ length: 500 }, (_, n) =>
      connected.client
        .callTool({ name: 'rate_call', arguments: { n: n % 5 === 4 ? String(n) : n } })
        .then((result) => ({ n, result })),
    );
    const outcomes = await Promise.all(calls);
    const counts = { success: 0, upstream: 0, validation: 0, internal: 0 };
    const correlationIds = new Set<string>();
    for (const { n, result } of outcomes) {
      const content = result.structuredContent as Record<string, unknown>;
      if (n % 5 === 4) {
        counts.validation += 1;
        expect(result.isError).toBe(true);
        expect(content['error_code']).toBe('SCHEMA_TYPE_MISMATCH');
        expect(Object.hasOwn(content, '_meta')).toBe(false);
      } else if (n % 11 === 10) {
        counts.internal += 1;
        expect(content['error_code']).toBe('INTERNAL_ERROR');
        correlationIds.add((content['_meta'] as { correlation_id: string }).correlation_id);
        expect(Object.keys(content['_meta'] as object)).toEqual(['correlation_id']);
      } else if (n % 3 === 2) {
        counts.upstream += 1;
        expect(result.isError).toBe(true);
        expect(content['summary']).toBe(`Upstream answered HTTP 503: busy ${n}`);
        expect(content['_meta']).toEqual({ rate_limit: { remaining: n } });
      } else {
        counts.success += 1;
        expect(result.isError).toBeUndefined();
        expect(content).toEqual({ n, _meta: { rate_limit: { remaining: n } } });
      }
      if (result.isError === true) expect(validateEnvelope(content)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
    }
    expect(counts).toEqual({ success: 243, upstream: 121, validation: 100, internal: 36 });
    expect(correlationIds.size).toBe(36);
    const logged = new Set(log.lines.map((line) => line['correlation_id'] as string));
    for (const id of correlationIds) expect(logged.has(id)).toBe(true);
  });
});
