/**
 * Waits an upstream states are read from headers it controls: a reset in the year 10000 or the
 * largest structured-field integer must neither lock a tool out for millennia nor break the
 * refusal the limiter answers with.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { afterEach, describe, expect, it } from 'vitest';

import { createRateLimiter, MAX_LEARNED_WAIT_MS } from '../../src/rate-limit/limiter.js';
import type { RateLimiter } from '../../src/rate-limit/limiter.js';
import { createMemoryRateLimitStore } from '../../src/rate-limit/memory-store.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/rate-limit/settings.js';
import { decideRateLimit } from '../../src/rate-limit/step.js';
import { captureLog } from '../fixtures/log-capture.js';

const T0 = Date.UTC(2026, 0, 1);
const CALL = { serverId: 'srv', tool: 'list_items', identity: undefined, plan: undefined };
const KEY = 'srv\u0000list_items';

describe('the limiter after hostile waits', () => {
  const open: { limiter?: RateLimiter } = {};
  afterEach(async () => {
    await open.limiter?.close();
  });

  function limiterAt(clock: { ms: number }): RateLimiter {
    const store = createMemoryRateLimitStore({ now: () => clock.ms, sweepIntervalMs: 0 });
    open.limiter = createRateLimiter({
      settings: { ...RATE_LIMIT_DEFAULTS, MCP_RATE_LIMIT_MAX_WAIT_MS: 0 },
      store,
      ownsStore: true,
      logger: captureLog().logger,
      now: () => clock.ms,
    });
    return open.limiter;
  }

  it.each([
    ['a reset in the year 10000', (Date.UTC(10000, 0, 1) - T0) / 1000],
    ['the largest structured-field integer', 999_999_999_999_999],
    ['a Retry-After of 1e300 seconds', 1e300],
  ])('caps %s at MAX_LEARNED_WAIT_MS and still refuses with a valid envelope', async (_name, seconds) => {
    const clock = { ms: T0 };
    const limiter = limiterAt(clock);
    await limiter.learn(KEY, undefined, { status: 200, exhausted: true, retryAfterSeconds: seconds });
    const refused = await decideRateLimit(limiter, CALL, new AbortController().signal);
    expect(refused.go).toBe(false);
    if (refused.go) return;
    expect(validateEnvelope(refused.envelope)).toEqual({ valid: true, version: 2 });
    expect(refused.envelope._meta?.retry_after_seconds).toBe(MAX_LEARNED_WAIT_MS / 1000);
    // once the capped wait has passed, the upstream is asked again
    clock.ms = T0 + MAX_LEARNED_WAIT_MS;
    const later = await decideRateLimit(limiter, CALL, new AbortController().signal);
    expect(later.go).toBe(true);
  });

  it.each([
    ['one request in 1e9 s', { limit: 1, window_seconds: 1e9 }],
    ['the largest structured-field window', { limit: 1, window_seconds: 999_999_999_999_999 }],
    ['a rate below one a day', { limit_per_second: 1e-6 }],
  ])('learns no rate slower than one request per MAX_LEARNED_WAIT_MS: %s', async (_name, rateLimit) => {
    const clock = { ms: T0 };
    const limiter = limiterAt(clock);
    const learnFrom = async (): Promise<void> => {
      const decision = await decideRateLimit(limiter, CALL, new AbortController().signal);
      expect(decision.go).toBe(true);
      if (decision.go)
        await decision.after({ rateLimit, upstreamStatus: 200, signal: new AbortController().signal } as never);
    };
    await learnFrom();
    // the same hostile statement twice more, a second apart: the calls still go upstream
    clock.ms += 1000;
    await learnFrom();
    clock.ms += 1000;
    await learnFrom();
    expect(limiter.planFor(KEY, undefined)).toBeUndefined();
  });

  it('still learns a daily quota: one request a day is a plan', async () => {
    const clock = { ms: T0 };
    const limiter = limiterAt(clock);
    await limiter.learn(KEY, undefined, { limitPerSecond: 1 / 86_400, status: 200 });
    expect(limiter.planFor(KEY, undefined)).toEqual({ ratePerSecond: 1 / 86_400, burst: 1 });
  });
});
