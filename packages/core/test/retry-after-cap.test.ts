/**
 * `_meta.retry_after_seconds` is at most `MAX_RETRY_AFTER_SECONDS` whoever states the wait: the
 * header parsers every adapter reads `Retry-After` with, and the envelope builder every failure
 * goes through (here a handler's own `toolError().retryAfter(...)`, over a real SDK client).
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { MAX_RETRY_AFTER_SECONDS, restResponseMeta } from '../src/adapter-entry.js';
import { recordResponseMetaInto } from '../src/context.js';
import { boundEnvelope } from '../src/envelope-builder.js';
import { toolError } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import type { CallRecord } from '../src/types.js';
import { parseRetryAfter, parseRetryAfterMilliseconds } from '../src/http-meta/rate-limit.js';
import { MAX_LEARNED_WAIT_MS } from '../src/rate-limit/limiter.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';

const NOW = new Date(Date.UTC(2026, 2, 2, 10, 0, 0));

describe('the longest stated wait', () => {
  it('is one day, the same for envelopes and for the limiter', () => {
    expect(MAX_RETRY_AFTER_SECONDS).toBe(86_400);
    expect(MAX_LEARNED_WAIT_MS).toBe(86_400_000);
  });

  it('caps every Retry-After form the parsers read', () => {
    expect(parseRetryAfter('99999999999', NOW)).toBe(86_400);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBe(86_400);
    expect(parseRetryAfterMilliseconds('99999999999999')).toBe(86_400);
    // a day and less is passed on as it was said
    expect(parseRetryAfter('86400', NOW)).toBe(86_400);
    expect(parseRetryAfter('Mon, 02 Mar 2026 10:00:30 GMT', NOW)).toBe(30);
  });

  it('caps the reset delay of _meta.rate_limit as well, beside the upstream’s own reset text', () => {
    // a reset in the year 9999 (epoch seconds), and the same as a delay of a billion seconds
    const epoch = restResponseMeta({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '253402300799' }, NOW);
    const delay = restResponseMeta({ 'ratelimit-remaining': '0', 'ratelimit-reset': '999999999' }, NOW);
    expect([epoch.rate_limit, delay.rate_limit]).toEqual([
      { remaining: 0, reset_after_seconds: 86_400, reset_at: '253402300799' },
      { remaining: 0, reset_after_seconds: 86_400, reset_at: '999999999' },
    ]);
    // a reset within the day is passed on as it was said
    const soon = restResponseMeta({ 'ratelimit-remaining': '0', 'ratelimit-reset': '90' }, NOW);
    expect(soon.rate_limit?.reset_after_seconds).toBe(90);
  });

  it('caps a reset delay a handler or an adapter states itself, recorded or in an envelope', () => {
    const record = { warnings: undefined } as unknown as CallRecord;
    recordResponseMetaInto(record, { rate_limit: { remaining: 0, reset_after_seconds: 1e12, reset_at: 'later' } });
    expect(record.rateLimit).toEqual({ remaining: 0, reset_after_seconds: 86_400, reset_at: 'later' });
    const envelope = {
      ...(toolError('rate_limited').summary('The quota is spent.').build().envelope as object),
      _meta: { rate_limit: { remaining: 0, reset_after_seconds: 1e12 }, retry_after_seconds: 30 },
    } as Parameters<typeof boundEnvelope>[0];
    expect(boundEnvelope(envelope)._meta).toEqual({
      rate_limit: { remaining: 0, reset_after_seconds: 86_400 },
      retry_after_seconds: 30,
    });
  });

  const session = useTestSession();

  it('caps a wait recorded beside an object result on the wire', async () => {
    // a handler (or an adapter's own response-meta parser) records the upstream's wait as it was said
    const tool: EnvelopeTool = {
      name: 'list_orders',
      inputSchema: { type: 'object' },
      handler: (_args, context) => {
        context.recordResponseMeta({ retry_after_seconds: 1e12 });
        return { orders: [] };
      },
    };
    const { client } = await session.start({ logger: captureLog().logger }, [tool]);
    const result = await client.callTool({ name: 'list_orders', arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ orders: [], _meta: { retry_after_seconds: 86_400 } });
  });

  it('caps a handler’s own wait in the envelope on the wire', async () => {
    const tool: EnvelopeTool = {
      name: 'spent_quota',
      inputSchema: { type: 'object' },
      handler: () => {
        throw toolError('rate_limited').summary('The quota is spent.').retryAfter(1e12).build();
      },
    };
    const { client } = await session.start({ logger: captureLog().logger }, [tool]);
    const result = await client.callTool({ name: 'spent_quota', arguments: {} });
    expect(result.isError).toBe(true);
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(validateEnvelope(envelope).valid).toBe(true);
    expect([envelope['error_kind'], envelope['retryable'], envelope['_meta']]).toEqual([
      'rate_limited',
      true,
      { retry_after_seconds: 86_400 },
    ]);
  });
});
