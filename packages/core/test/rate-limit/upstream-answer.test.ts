import { describe, expect, it } from 'vitest';

import type { EnvelopeAdapter } from '../../src/index.js';
import { upstreamLimitState } from '../../src/rate-limit/upstream-answer.js';
import { testAdapter } from '../fixtures/test-adapter.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const REQUEST = { method: 'GET', url: 'https://api.example.test/items' };

/** An adapter whose upstream throttles with a 400 and a flag header, as some gateways do. */
const FLAGGING: EnvelopeAdapter = {
  ...testAdapter,
  classify: (failure, context) =>
    failure.type === 'upstream_http' && failure.headers['x-throttled'] === 'true'
      ? {
          error_kind: 'rate_limited',
          error_code: 'RATE_LIMITED',
          retryable: true,
          summary: 's',
          details: [],
          hints: [],
        }
      : testAdapter.classify(failure, context),
};

describe('upstreamLimitState', () => {
  it('reads a 403 with remaining 0 as a limit lasting until the reset', () => {
    const answer = {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW.getTime() / 1000 + 90) },
      body: {},
      request: REQUEST,
      meta: {},
    };
    expect(upstreamLimitState(testAdapter, answer, 'list', NOW)).toEqual({
      limited: true,
      exhausted: true,
      waitSeconds: 90,
    });
  });

  it("prefers the adapter's own wait (its parseResponseMeta) for a limit", () => {
    const answer = {
      status: 429,
      headers: { 'retry-after': '5' },
      body: '',
      request: REQUEST,
      meta: { retry_after_seconds: 2.5 },
    };
    expect(upstreamLimitState(testAdapter, answer, 'list', NOW)).toEqual({
      limited: true,
      exhausted: false,
      waitSeconds: 2.5,
    });
  });

  it("takes the adapter's classification for a status the kit does not call a limit", () => {
    const answer = { status: 400, headers: { 'x-throttled': 'true' }, body: {}, request: REQUEST, meta: {} };
    expect(upstreamLimitState(FLAGGING, answer, 'list', NOW)).toEqual({ limited: true, exhausted: false });
    expect(upstreamLimitState(testAdapter, answer, 'list', NOW)).toEqual({ limited: false, exhausted: false });
  });

  it('a classifier that throws says no limit, and a 2xx is never classified', () => {
    const throwing: EnvelopeAdapter = {
      ...testAdapter,
      classify: () => {
        throw new Error('broken');
      },
    };
    expect(
      upstreamLimitState(throwing, { status: 400, headers: {}, body: {}, request: REQUEST, meta: {} }, 'list', NOW),
    ).toEqual({
      limited: false,
      exhausted: false,
    });
    expect(
      upstreamLimitState(
        throwing,
        { status: 200, headers: { ratelimit: '"d";r=0;t=3' }, body: undefined, request: REQUEST, meta: {} },
        'list',
        NOW,
      ),
    ).toEqual({
      limited: false,
      exhausted: true,
      waitSeconds: 3,
    });
  });
});
