import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { readRateLimit, restResponseMeta } from '../../src/http-kit/index.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const NOW_EPOCH = NOW.getTime() / 1000;

/** Header text: anything, numbers of any size, and structured-field lists with numeric parameters. */
const headerText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
  fc.double({ noNaN: true }).map(String),
  fc
    .tuple(
      fc.constantFrom('"d"', 'd', '1'),
      fc.constantFrom('r', 't', 'q', 'w'),
      fc.bigInt({ min: 0n, max: 10n ** 15n }),
    )
    .map(([name, key, value]) => `${name};${key}=${value}`),
);

describe('readRateLimit: IETF RateLimit and RateLimit-Policy (draft 10 to 12)', () => {
  it('reads a quoted policy name with its quota, window, remaining and reset', () => {
    expect(
      readRateLimit({ RateLimit: '"default";r=50;t=30', 'RateLimit-Policy': '"default";q=100;w=60' }, NOW),
    ).toEqual({
      limit: 100,
      window_seconds: 60,
      remaining: 50,
      reset_after_seconds: 30,
      reset_at: '2026-03-02T10:00:30.000Z',
      policy: 'default',
    });
  });

  it('reads a token policy name (draft 10) and matches the policy by name among several', () => {
    expect(
      readRateLimit(
        {
          ratelimit: 'burst;r=9;t=1, day;r=4000;t=3600',
          'ratelimit-policy': 'burst;q=10;w=1, day;q=5000;w=86400;qu="requests"',
        },
        NOW,
      ),
    ).toEqual({
      limit: 10,
      window_seconds: 1,
      remaining: 9,
      reset_after_seconds: 1,
      reset_at: '2026-03-02T10:00:01.000Z',
      policy: 'burst',
    });
  });

  it('takes the policy with the fewest requests left: it refuses first', () => {
    const reading = readRateLimit(
      {
        ratelimit: '"hour";r=900;t=600, "minute";r=0;t=12',
        'ratelimit-policy': '"hour";q=1000;w=3600, "minute";q=60;w=60',
      },
      NOW,
    );
    expect(reading).toMatchObject({
      policy: 'minute',
      remaining: 0,
      limit: 60,
      window_seconds: 60,
      reset_after_seconds: 12,
    });
  });

  it('reads RateLimit-Policy alone as the limit and window, and RateLimit alone as remaining and reset', () => {
    expect(readRateLimit({ 'RateLimit-Policy': '"permin";q=60;w=60' }, NOW)).toEqual({
      limit: 60,
      window_seconds: 60,
      policy: 'permin',
    });
    expect(readRateLimit({ RateLimit: '"x";r=3' }, NOW)).toEqual({ remaining: 3, policy: 'x' });
  });

  it('ignores a field that is not a structured list, and items without the required parameter', () => {
    expect(
      readRateLimit({ RateLimit: 'limit=10, remaining=oops', 'RateLimit-Policy': '"p";w=60' }, NOW),
    ).toBeUndefined();
    expect(readRateLimit({ RateLimit: '"p";r=-1;t=5' }, NOW)).toBeUndefined();
  });
});

describe('readRateLimit: RateLimit-Limit / -Remaining / -Reset', () => {
  it('reads the plain numbers, the reset as seconds from now', () => {
    expect(
      readRateLimit({ 'RateLimit-Limit': '100', 'RateLimit-Remaining': '7', 'RateLimit-Reset': '45' }, NOW),
    ).toEqual({ limit: 100, remaining: 7, reset_after_seconds: 45, reset_at: '2026-03-02T10:00:45.000Z' });
  });

  it('reads a limit with its quota policies (`100, 100;w=60`)', () => {
    expect(readRateLimit({ 'ratelimit-limit': '100, 100;w=60, 1000;w=3600' }, NOW)).toEqual({
      limit: 100,
      window_seconds: 60,
    });
  });
});

describe('readRateLimit: X-RateLimit-*', () => {
  it('reads GitHub headers: epoch reset, used, resource', () => {
    const reset = NOW_EPOCH + 1800;
    expect(
      readRateLimit(
        {
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '5000',
          'x-ratelimit-resource': 'core',
          'x-ratelimit-reset': String(reset),
        },
        NOW,
      ),
    ).toEqual({
      limit: 5000,
      remaining: 0,
      used: 5000,
      resource: 'core',
      reset_after_seconds: 1800,
      reset_at: '2026-03-02T10:30:00.000Z',
    });
  });

  it('reads a small reset as a delay, and an epoch in the past as 0 s', () => {
    expect(readRateLimit({ 'X-RateLimit-Reset': '20' }, NOW)).toEqual({
      reset_after_seconds: 20,
      reset_at: '2026-03-02T10:00:20.000Z',
    });
    expect(readRateLimit({ 'X-RateLimit-Reset': String(NOW_EPOCH - 60) }, NOW)).toEqual({
      reset_after_seconds: 0,
      reset_at: '2026-03-02T09:59:00.000Z',
    });
  });

  it('prefers the IETF fields key by key, filling the rest from the older dialects', () => {
    expect(
      readRateLimit(
        {
          RateLimit: '"d";r=5;t=10',
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '9',
          'x-ratelimit-used': '51',
        },
        NOW,
      ),
    ).toEqual({
      limit: 60,
      remaining: 5,
      used: 51,
      reset_after_seconds: 10,
      reset_at: '2026-03-02T10:00:10.000Z',
      policy: 'd',
    });
  });

  it('gives undefined without any rate-limit header, and ignores non-numbers', () => {
    expect(readRateLimit({ 'content-type': 'application/json' }, NOW)).toBeUndefined();
    expect(readRateLimit({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1' }, NOW)).toBeUndefined();
    expect(readRateLimit(undefined, NOW)).toBeUndefined();
  });

  it('reads an HTTP date or ISO 8601 reset, and keeps only the delay of one too far to be a date', () => {
    expect(readRateLimit({ 'X-RateLimit-Reset': 'Mon, 02 Mar 2026 10:01:00 GMT' }, NOW)).toEqual({
      reset_after_seconds: 60,
      reset_at: '2026-03-02T10:01:00.000Z',
    });
    expect(readRateLimit({ 'X-RateLimit-Reset': '2026-03-02T10:00:05Z' }, NOW)).toEqual({
      reset_after_seconds: 5,
      reset_at: '2026-03-02T10:00:05.000Z',
    });
    expect(readRateLimit({ 'RateLimit-Reset': '1000000000000000' }, NOW)).toEqual({ reset_after_seconds: 1e15 });
    // epoch seconds past what a Date holds (8.64e15 ms)
    expect(readRateLimit({ 'X-RateLimit-Reset': '9000000000000' }, NOW)).toEqual({
      reset_after_seconds: 9e12 - NOW_EPOCH,
    });
  });

  it('never throws and returns only finite, non-negative numbers on any header text', () => {
    const names = [
      'ratelimit',
      'ratelimit-policy',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'x-ratelimit-limit',
      'x-ratelimit-reset',
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), headerText), (headers) => {
        const reading = readRateLimit(headers, NOW);
        expect(typeof restResponseMeta(headers, NOW)).toBe('object');
        for (const value of Object.values(reading ?? {}))
          if (typeof value === 'number') expect(Number.isFinite(value) && value >= 0).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('restResponseMeta', () => {
  it('writes the reading in v2 keys, reset_at as the raw epoch text, Retry-After and Warning', () => {
    const reset = String(NOW_EPOCH + 60);
    expect(
      restResponseMeta(
        {
          'X-RateLimit-Limit': '60',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': reset,
          'Retry-After': '61',
          Warning: '199 - "deprecated endpoint"',
        },
        NOW,
      ),
    ).toEqual({
      rate_limit: { limit: 60, remaining: 0, reset_after_seconds: 60, reset_at: reset },
      retry_after_seconds: 61,
      warnings: [
        {
          kind: 'upstream_warning',
          summary: '199 - "deprecated endpoint"',
          details: [{ code: '199', agent: '-', text: 'deprecated endpoint' }],
          hints: [],
        },
      ],
    });
  });

  it('states an IETF reset as reset_after_seconds only (no raw reset text was sent)', () => {
    expect(restResponseMeta({ RateLimit: '"d";r=1;t=4', 'RateLimit-Policy': '"d";q=10;w=60' }, NOW)).toEqual({
      rate_limit: { limit: 10, window_seconds: 60, remaining: 1, reset_after_seconds: 4, policy: 'd' },
    });
  });

  it('gives {} for a response without these headers, and keeps a reset text it cannot read as reset_at', () => {
    expect(restResponseMeta({ 'content-type': 'text/plain' }, NOW)).toEqual({});
    expect(restResponseMeta({ 'x-ratelimit-reset': 'soon' }, NOW)).toEqual({ rate_limit: { reset_at: 'soon' } });
  });
});

describe('readRateLimit: names from the upstream', () => {
  it('cuts a policy name to 100 characters, as it does a resource name: both go into every _meta', () => {
    const long = 'p'.repeat(5000);
    expect(readRateLimit({ ratelimit: `"${long}";r=3;t=10`, 'x-ratelimit-resource': `r${long}` }, NOW)).toEqual({
      remaining: 3,
      reset_after_seconds: 10,
      reset_at: '2026-03-02T10:00:10.000Z',
      policy: 'p'.repeat(100),
      resource: `r${'p'.repeat(99)}`,
    });
  });
});
