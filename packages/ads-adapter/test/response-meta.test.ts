import { describe, expect, it } from 'vitest';
import { lowerCaseHeaders } from '@mcp-envelope/core/adapter';

import { adsRequestId, isThrottledResponse, parseAdsResponseMeta } from '../src/response-meta.js';

const NOW = new Date('2026-05-04T10:00:00Z');

describe('parseAdsResponseMeta', () => {
  const cases: readonly { name: string; headers: Record<string, string>; expected: Record<string, unknown> }[] = [
    { name: 'no telemetry headers', headers: { 'Content-Type': 'application/json', 'x-amz-rid': 'ABC' }, expected: {} },
    {
      name: 'canonical casing',
      headers: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '1777888999' },
      expected: {
        rate_limit: { limit: 10, window_seconds: 1, limit_per_second: 10, remaining: 3, reset_at: '1777888999' },
      },
    },
    {
      name: 'upper casing, decimals and padding',
      headers: { 'X-RATELIMIT-LIMIT': ' 0.5 ', 'X-RATELIMIT-REMAINING': '0' },
      expected: { rate_limit: { limit: 0.5, window_seconds: 1, limit_per_second: 0.5, remaining: 0 } },
    },
    {
      name: 'empty values are absent',
      headers: { 'x-ratelimit-limit': '', 'x-ratelimit-remaining': '   ' },
      expected: {},
    },
    {
      name: 'non-numeric values stay raw strings',
      headers: { 'x-ratelimit-limit': '10/s', 'x-ratelimit-remaining': 'unknown', 'x-ratelimit-reset': '' },
      expected: { rate_limit: { limit: '10/s', window_seconds: 1, limit_per_second: '10/s', remaining: 'unknown' } },
    },
    {
      name: 'only the reset',
      headers: { 'x-ratelimit-reset': 'Mon, 04 May 2026 10:00:01 GMT' },
      expected: { rate_limit: { reset_at: 'Mon, 04 May 2026 10:00:01 GMT' } },
    },
    { name: 'Retry-After decimal seconds', headers: { 'Retry-After': '1.5' }, expected: { retry_after_seconds: 1.5 } },
    { name: 'Retry-After zero', headers: { 'retry-after': '0' }, expected: { retry_after_seconds: 0 } },
    {
      name: 'x-amz-retry-after in milliseconds',
      headers: { 'x-amz-retry-after': '1500' },
      expected: { retry_after_seconds: 1.5 },
    },
    {
      name: 'Retry-After before x-amz-retry-after',
      headers: { 'Retry-After': '3', 'x-amz-retry-after': '1500' },
      expected: { retry_after_seconds: 3 },
    },
    { name: 'Retry-After negative is dropped', headers: { 'Retry-After': '-3' }, expected: {} },
    { name: 'Retry-After garbage is dropped', headers: { 'Retry-After': 'soon' }, expected: {} },
    {
      name: 'Retry-After HTTP-date against the response Date',
      headers: { 'Retry-After': 'Mon, 04 May 2026 09:00:20 GMT', Date: 'Mon, 04 May 2026 09:00:00 GMT' },
      expected: { retry_after_seconds: 20 },
    },
    {
      name: 'Retry-After HTTP-date against now without Date',
      headers: { 'Retry-After': 'Mon, 04 May 2026 10:00:12 GMT' },
      expected: { retry_after_seconds: 12 },
    },
    {
      name: 'Retry-After date in the past clamps to 0',
      headers: { 'Retry-After': 'Mon, 04 May 2026 09:59:00 GMT' },
      expected: { retry_after_seconds: 0 },
    },
    {
      name: 'Warning header with a comma inside the quoted text',
      headers: { Warning: '299 ads-gateway "field state, deprecated" , 199 - "cached"' },
      expected: {
        warnings: [
          {
            kind: 'upstream_warning',
            summary: '299 ads-gateway "field state, deprecated"',
            details: [{ code: '299', agent: 'ads-gateway', text: 'field state, deprecated' }],
            hints: [],
          },
          {
            kind: 'upstream_warning',
            summary: '199 - "cached"',
            details: [{ code: '199', agent: '-', text: 'cached' }],
            hints: [],
          },
        ],
      },
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(parseAdsResponseMeta(testCase.headers, NOW)).toEqual(testCase.expected);
    });
  }

  it('reads WHATWG Headers too', () => {
    const headers = new Headers({ 'x-ratelimit-limit': '4', 'retry-after': '9' });
    expect(parseAdsResponseMeta(headers, NOW)).toEqual({
      rate_limit: { limit: 4, window_seconds: 1, limit_per_second: 4 },
      retry_after_seconds: 9,
    });
  });

  it('ignores the SP-API header family', () => {
    expect(parseAdsResponseMeta({ 'x-amzn-RateLimit-Limit': '2' }, NOW)).toEqual({});
  });
});

describe('isThrottledResponse', () => {
  const cases: readonly [Record<string, string>, boolean][] = [
    [{ 'amazon-advertising-api-throttled': 'true' }, true],
    [{ 'Amazon-Advertising-API-Throttled': 'TRUE' }, true],
    [{ 'amazon-advertising-api-throttled': ' True ' }, true],
    [{ 'amazon-advertising-api-throttled': 'false' }, false],
    [{ 'amazon-advertising-api-throttled': '' }, false],
    [{ 'x-amzn-ErrorType': 'ThrottlingException' }, false],
    [{}, false],
  ];
  for (const [headers, expected] of cases) {
    it(`${JSON.stringify(headers)} -> ${expected}`, () => {
      expect(isThrottledResponse(lowerCaseHeaders(headers))).toBe(expected);
    });
  }
});

describe('adsRequestId', () => {
  it('prefers the body requestId', () => {
    expect(adsRequestId(lowerCaseHeaders({ 'x-amzn-RequestId': 'header-id' }), { requestId: 'BODY1' })).toBe('BODY1');
  });
  it('falls back to x-amzn-RequestId, then x-amz-rid', () => {
    expect(adsRequestId(lowerCaseHeaders({ 'x-amz-rid': 'RID9', 'X-Amzn-RequestId': 'REQ7' }), { message: 'x' })).toBe(
      'REQ7',
    );
    expect(adsRequestId(lowerCaseHeaders({ 'x-amz-rid': 'RID9' }))).toBe('RID9');
  });
  it('finds a nested or numeric body id and skips empty ones', () => {
    expect(adsRequestId(new Map(), [{ request_id: 12345 }])).toBe('12345');
    expect(adsRequestId(lowerCaseHeaders({ 'x-amz-rid': 'R1' }), { requestId: '  ' })).toBe('R1');
  });
  it('is undefined when nothing names the request', () => {
    expect(adsRequestId(new Map(), 'text body')).toBeUndefined();
  });
});
