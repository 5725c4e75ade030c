/**
 * A Redis URL can carry credentials in every place the Redis client reads them: the user info
 * (`redis://user:password@host`) and query parameters (`?password=`, `?username=`,
 * `?sentinelPassword=`: the client turns every query parameter into an option). None of them may
 * reach a log line or `get_envelope_contract`. A real redis-server on 127.0.0.1 requires the
 * password, so the store only works when the client really read it from the query.
 */
import { startRedisServer } from '@mcp-envelope/testing';
import type { RedisServer } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../../src/index.js';
// Loaded here, not on the server's first call: the store loads it lazily, within the limiter's
// store deadline (MCP_RATE_LIMIT_STORE_TIMEOUT_MS), which loading the Redis client on a loaded
// machine can exceed.
import '../../src/rate-limit/redis-store.js';
import { withoutPassword } from '../../src/rate-limit/redis-url.js';
import { storeDescription } from '../../src/rate-limit/settings.js';
import { connectInMemory } from '../fixtures/connect.js';
import { captureLog } from '../fixtures/log-capture.js';
import { testAdapter } from '../fixtures/test-adapter.js';

const PASSWORD = 'query-pass-7f3a91';
const SENTINEL_PASSWORD = 'sentinel-secret-55b2';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer({ password: PASSWORD });
});

afterAll(async () => {
  await redis.stop();
});

describe('credentials in a Redis store URL', () => {
  it.each([
    ['redis://:hunter2-pass@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['redis://admin-user:hunter2-pass@127.0.0.1:6379', 'redis://***:***@127.0.0.1:6379'],
    ['redis://admin-user@127.0.0.1:6379', 'redis://***@127.0.0.1:6379'],
    [
      'rediss://127.0.0.1:6379/2?username=admin-user&password=hunter2-pass&sentinelPassword=s3&db=2&family=6',
      'rediss://127.0.0.1:6379/2?username=***&password=***&sentinelPassword=***&db=2&family=6',
    ],
    ['redis://127.0.0.1:6379?Password=hunter2-pass&tls=x', 'redis://127.0.0.1:6379?Password=***&tls=***'],
  ])('%s is shown as %s in logs and settings', (url, shown) => {
    expect(withoutPassword(url)).toBe(shown);
    expect(storeDescription(url)).toBe(shown);
  });

  it('a password given as ?password= works, and reaches neither the log nor get_envelope_contract', async () => {
    const url = `redis://127.0.0.1:${redis.port}/0?username=default&password=${PASSWORD}&sentinelPassword=${SENTINEL_PASSWORD}`;
    const shown = `redis://127.0.0.1:${redis.port}/0?username=***&password=***&sentinelPassword=***`;
    const log = captureLog();
    const server = createEnvelopeServer({
      info: { name: 'redis-url-credentials', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'limited',
          inputSchema: { type: 'object', properties: {} },
          rateLimit: { ratePerSecond: 100, burst: 100 },
          handler: () => ({ done: true }),
        },
      ],
      options: {
        // 5 s instead of the default 1 s: a loaded two-core machine can hold a round trip past the
        // default's 250 ms command deadline, and this test is about credentials, not deadlines
        env: { MCP_RATE_LIMIT: 'on', MCP_RATE_LIMIT_STORE: url, MCP_RATE_LIMIT_STORE_TIMEOUT_MS: '5000' },
        logger: log.logger,
      },
    });
    const connected = await connectInMemory(server);
    try {
      const call = async (name: string): Promise<Record<string, unknown> | undefined> =>
        ((await connected.client.callTool({ name, arguments: {} })) as { structuredContent?: Record<string, unknown> })
          .structuredContent;
      const fallingBack = async (): Promise<unknown> =>
        ((await call('get_envelope_contract'))?.['settings'] as Record<string, unknown> | undefined)?.[
          'rate_limit_store_fallback'
        ];
      // The first call loads the Redis client and connects within the store's deadlines, which
      // a loaded two-core machine could still miss (the call then falls back and says so); a later
      // call uses the store once connected. A wrong password never connects, so five calls fail.
      let answered = false;
      for (let attempt = 0; attempt < 5 && !answered; attempt += 1) {
        expect(await call('limited')).toEqual({ done: true });
        answered = (await fallingBack()) === false;
      }
      // the store answered: the client authenticated with the password from the query
      expect(answered, JSON.stringify(log.lines)).toBe(true);
      const warningsBefore = log.lines.filter((line) => line['level'] === 40).length;
      await redis.stop();
      expect(await call('limited')).toEqual({ done: true });
      const settings = (await call('get_envelope_contract'))?.['settings'];
      // the answer also goes through the server's redactor, which knows `password=` by name
      expect(settings).toMatchObject({
        MCP_RATE_LIMIT_STORE: `redis://127.0.0.1:${redis.port}/0?username=***&password=[REDACTED]&sentinelPassword=[REDACTED]`,
        MCP_RATE_LIMIT_STORE_TIMEOUT_MS: 5000,
        rate_limit_store_fallback: true,
      });
      const fallback = log.lines.filter((line) => line['level'] === 40).slice(warningsBefore);
      expect(fallback).toHaveLength(1);
      expect(fallback[0]?.['store']).toBe(shown);
      const everything = `${log.raw.join('\n')}${JSON.stringify(settings)}`;
      expect(everything).not.toContain(PASSWORD);
      expect(everything).not.toContain(SENTINEL_PASSWORD);
    } finally {
      await connected.close();
    }
  });
});
