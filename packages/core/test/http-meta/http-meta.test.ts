import { describe, expect, it } from 'vitest';

import {
  headerValue,
  lowerCaseHeaders,
  parseRetryAfter,
  parseRetryAfterMilliseconds,
  parseWarningHeader,
  rateLimitMeta,
  rateLimitValue,
  retryAfterSeconds,
  upstreamWarnings,
} from '../../src/http-meta/index.js';

const SP_NAMES = {
  limit: ['x-amzn-RateLimit-Limit'],
  remaining: ['x-amzn-RateLimit-Remaining'],
  reset: ['x-amzn-RateLimit-Reset'],
};
const NOW = new Date('2026-03-02T10:00:00Z');

describe('lowerCaseHeaders / headerValue', () => {
  it('reads a plain record in any casing and folds repeated names', () => {
    const headers = lowerCaseHeaders({ 'X-Amzn-RateLimit-Limit': '2.0', 'x-amzn-ratelimit-limit': '2.0', Date: 'x' });
    expect(headers.get('x-amzn-ratelimit-limit')).toBe('2.0, 2.0');
    expect(headerValue(headers, 'X-AMZN-RATELIMIT-LIMIT')).toBe('2.0, 2.0');
  });

  it('reads WHATWG Headers and Node array values', () => {
    expect(headerValue(lowerCaseHeaders(new Headers({ 'Retry-After': ' 3 ' })), 'retry-after')).toBe('3');
    expect(lowerCaseHeaders({ warning: ['199 - "a"', '299 - "b"'] }).get('warning')).toBe('199 - "a", 299 - "b"');
  });

  it('treats empty values as absent and tries names in order', () => {
    const headers = lowerCaseHeaders({ a: '   ', b: 'yes' });
    expect(headerValue(headers, 'a')).toBeUndefined();
    expect(headerValue(headers, 'a', 'b')).toBe('yes');
    expect(lowerCaseHeaders(undefined).size).toBe(0);
  });
});

describe('rateLimitValue', () => {
  it.each([
    ['0.0167', 0.0167],
    [' 12 ', 12],
    ['2.0', 2],
    ['0', 0],
    ['1e3', 1000],
    ['2.0, 2.0', '2.0, 2.0'],
    ['unlimited', 'unlimited'],
    ['Infinity', 'Infinity'],
    ['0x10', '0x10'],
  ] as const)('%j -> %j', (raw, expected) => {
    expect(rateLimitValue(raw)).toBe(expected);
  });

  it('absent and empty are undefined', () => {
    expect(rateLimitValue(undefined)).toBeUndefined();
    expect(rateLimitValue('  ')).toBeUndefined();
  });
});

describe('rateLimitMeta', () => {
  it('emits only the keys whose headers are present, reset_at raw', () => {
    expect(rateLimitMeta(lowerCaseHeaders({ 'X-Amzn-Ratelimit-Limit': '0.5' }), SP_NAMES)).toEqual({
      limit_per_second: 0.5,
    });
    expect(
      rateLimitMeta(
        lowerCaseHeaders({
          'x-amzn-RateLimit-Limit': '10',
          'x-amzn-RateLimit-Remaining': '7',
          'x-amzn-RateLimit-Reset': '1714074153',
        }),
        SP_NAMES,
      ),
    ).toEqual({ limit_per_second: 10, remaining: 7, reset_at: '1714074153' });
  });

  it('is undefined (never empty, never null) without any header', () => {
    expect(rateLimitMeta(lowerCaseHeaders({ 'x-amzn-RateLimit-Limit': '' }), SP_NAMES)).toBeUndefined();
    expect(rateLimitMeta(lowerCaseHeaders({}), SP_NAMES)).toBeUndefined();
  });
});

describe('Retry-After', () => {
  it.each([
    ['3', 3],
    ['1.2', 1.2],
    ['0', 0],
    ['.5', 0.5],
  ] as const)('delta-seconds %j -> %j', (raw, expected) => {
    expect(parseRetryAfter(raw, NOW)).toBe(expected);
  });

  it.each(['-1', '5s', 'soon', '', '1,2', 'NaN'])('drops %j', (raw) => {
    expect(parseRetryAfter(raw, NOW)).toBeUndefined();
  });

  it('measures an HTTP-date from now, or from the response Date header when it parses', () => {
    expect(parseRetryAfter('Mon, 02 Mar 2026 10:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter('Mon, 02 Mar 2026 10:00:30 GMT', NOW, 'Mon, 02 Mar 2026 10:00:20 GMT')).toBe(10);
    expect(parseRetryAfter('Mon, 02 Mar 2026 10:00:30 GMT', NOW, 'garbage')).toBe(30);
  });

  it('clamps a past HTTP-date to 0 and accepts the obsolete date forms', () => {
    expect(parseRetryAfter('Mon, 02 Mar 2026 09:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Monday, 02-Mar-26 10:01:00 GMT', NOW)).toBe(60);
    expect(parseRetryAfter('Mon Mar  2 10:00:05 2026', NOW)).toBe(5);
  });

  it("reads a server's own milliseconds header after Retry-After, and only the headers it names", () => {
    const waitMs = ['X-Wait-Ms'];
    expect(parseRetryAfterMilliseconds('1500')).toBe(1.5);
    expect(parseRetryAfterMilliseconds('abc')).toBeUndefined();
    expect(retryAfterSeconds(lowerCaseHeaders({ 'x-wait-ms': '250' }), NOW, waitMs)).toBe(0.25);
    expect(retryAfterSeconds(lowerCaseHeaders({ 'Retry-After': '2', 'x-wait-ms': '250' }), NOW, waitMs)).toBe(2);
    expect(retryAfterSeconds(lowerCaseHeaders({ 'x-wait-ms': '250' }), NOW)).toBeUndefined();
    expect(retryAfterSeconds(lowerCaseHeaders({ 'Retry-After': 'later' }), NOW)).toBeUndefined();
  });
});

describe('Warning headers', () => {
  it('splits several values, keeping commas inside quotes, with dates and escapes', () => {
    expect(
      parseWarningHeader('199 - "cached, maybe stale", 299 api.example "say \\"hi\\"" "Mon, 02 Mar 2026 10:00:00 GMT"'),
    ).toEqual([
      { value: '199 - "cached, maybe stale"', code: '199', agent: '-', text: 'cached, maybe stale' },
      {
        value: '299 api.example "say \\"hi\\"" "Mon, 02 Mar 2026 10:00:00 GMT"',
        code: '299',
        agent: 'api.example',
        text: 'say "hi"',
        date: 'Mon, 02 Mar 2026 10:00:00 GMT',
      },
    ]);
  });

  it('splits only where a warn-code follows the comma, so an unquoted date or free text stays whole', () => {
    expect(
      parseWarningHeader('299 - "late" Mon, 02 Mar 2026 10:00:00 GMT, 199 - "stale", deprecated, use v2').map(
        (warning) => warning.value,
      ),
    ).toEqual(['299 - "late" Mon, 02 Mar 2026 10:00:00 GMT', '199 - "stale", deprecated, use v2']);
  });

  it('keeps a value that does not follow the grammar whole', () => {
    expect(parseWarningHeader('deprecated endpoint')).toEqual([
      { value: 'deprecated endpoint', code: '', agent: '', text: 'deprecated endpoint' },
    ]);
    expect(parseWarningHeader(undefined)).toEqual([]);
  });

  it('becomes upstream_warning entries whose summary is the value as sent, one per value of a folded header', () => {
    expect(
      upstreamWarnings(
        '199 - "cached response", 299 sellingpartnerapi-na.amazon.com "MaxResultsPerPage is capped at 100"',
      ),
    ).toEqual([
      {
        kind: 'upstream_warning',
        summary: '199 - "cached response"',
        details: [{ code: '199', agent: '-', text: 'cached response' }],
        hints: [],
      },
      {
        kind: 'upstream_warning',
        summary: '299 sellingpartnerapi-na.amazon.com "MaxResultsPerPage is capped at 100"',
        details: [
          { code: '299', agent: 'sellingpartnerapi-na.amazon.com', text: 'MaxResultsPerPage is capped at 100' },
        ],
        hints: [],
      },
    ]);
  });
});
