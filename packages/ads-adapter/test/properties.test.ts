import { toV1Envelope, validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { classifyAdsHttpFailure } from '../src/classify.js';
import { parseAdsErrorBody } from '../src/error-body.js';
import { adsPartialResultsWarning } from '../src/partial-results.js';
import { parseAdsResponseMeta } from '../src/response-meta.js';

const NOW = new Date('2026-03-01T00:00:00Z');

const headerName = fc.constantFrom(
  'X-RateLimit-Limit',
  'x-ratelimit-remaining',
  'X-RATELIMIT-RESET',
  'Retry-After',
  'retry-after',
  'Date',
  'Warning',
  'amazon-advertising-api-throttled',
  'x-amzn-ErrorType',
  'x-amzn-RequestId',
  'x-amz-rid',
  'Content-Type',
);
const headerValue = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'true',
    '10',
    '0.25',
    '-1',
    'Mon, 02 Mar 2026 00:00:09 GMT',
    '199 - "a, b"',
    'text/html',
    'application/json',
    '',
  ),
);
const headers = fc.dictionary(headerName, headerValue, { maxKeys: 8 });

const errorItem = fc.record(
  {
    code: fc.oneof(fc.string(), fc.integer(), fc.constantFrom('SUCCESS', 'UNAUTHORIZED', 'TOO_MANY_REQUESTS', '400')),
    message: fc.oneof(
      fc.string(),
      fc.constantFrom('Advertiser ID cannot be decrypted', 'Scope header is missing', 'Bearer Atza|abc'),
    ),
    details: fc.string(),
    detail: fc.string(),
    requestId: fc.string(),
    fieldLocation: fc.string(),
    index: fc.oneof(fc.nat(), fc.string()),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.jsonValue(),
  errorItem,
  fc.array(errorItem, { maxLength: 5 }),
  fc.record({
    error: fc.array(fc.record({ index: fc.nat(), errors: fc.array(errorItem, { maxLength: 3 }) }), { maxLength: 4 }),
  }),
  fc.string(),
  fc.constantFrom('', '<html><title>Oops</title></html>', '{"code":', undefined, null),
  fc.uint8Array({ maxLength: 64 }),
);
const status = fc.integer({ min: 400, max: 599 });
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'patch');
const path = fc.oneof(fc.constantFrom('/sp/campaigns/list', '/v2/profiles', '/reporting/reports/abc'), fc.webPath());

describe('parser and classifier properties', () => {
  it('parseAdsErrorBody never throws and always yields at least one schema-valid detail', () => {
    fc.assert(
      fc.property(body, status, headers, (value, code, responseHeaders) => {
        const parsed = parseAdsErrorBody(value, code, responseHeaders);
        expect(parsed.details.length).toBeGreaterThan(0);
        for (const detail of parsed.details) {
          expect(typeof detail.path).toBe('string');
          expect(typeof detail.issue).toBe('string');
          expect(detail.issue.length).toBeLessThanOrEqual(500);
          expect(detail['http_status']).toBe(code);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('classifyAdsHttpFailure never throws and always gives a valid envelope', () => {
    fc.assert(
      fc.property(status, headers, body, method, path, (code, responseHeaders, value, verb, where) => {
        const classified = classifyAdsHttpFailure(
          {
            type: 'upstream_http',
            status: code,
            headers: responseHeaders,
            body: value,
            request: { method: verb, url: `https://advertising-api.amazon.com${where}` },
          },
          NOW,
        );
        const { meta, ...rest } = classified;
        const envelope = {
          ...rest,
          tool: 'property_tool',
          examples: [],
          _envelope_version: 2 as const,
          ...(meta === undefined ? {} : { _meta: meta }),
        };
        expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
        expect(['upstream_http', 'auth_error', 'rate_limited']).toContain(classified.error_kind);
        expect(classified.upstream).toBe('ads-api');
        // what a reader of v1 gets of the same verdict is a valid v1 envelope of the v1 kinds
        const v1 = toV1Envelope(envelope);
        expect(validateEnvelope(v1)).toEqual({ valid: true, version: 1 });
        expect(['ads_api_http', 'auth_error', 'rate_limited']).toContain(v1?.error_kind);
        if (classified.error_kind === 'rate_limited') expect(classified.retryable).toBe(true);
        if (code >= 500) expect(classified.retryable).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('parseAdsResponseMeta never throws and its result is valid _meta', () => {
    fc.assert(
      fc.property(headers, (responseHeaders) => {
        expect(validateMeta(parseAdsResponseMeta(responseHeaders, NOW))).toEqual({ valid: true });
      }),
      { numRuns: 400 },
    );
  });

  it('adsPartialResultsWarning never throws and its warning is valid _meta', () => {
    fc.assert(
      fc.property(fc.integer({ min: 200, max: 299 }), body, (code, value) => {
        const warning = adsPartialResultsWarning(code, value);
        if (warning !== undefined) expect(validateMeta({ warnings: [warning] })).toEqual({ valid: true });
      }),
      { numRuns: 300 },
    );
  });

  it('a token placed anywhere in an upstream message never comes back', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9]{12,40}$/);
    fc.assert(
      fc.property(
        token,
        fc.string(),
        fc.constantFrom('Bearer ', 'Atza|', 'Atzr|', 'amzn1.oa2-cs.v1.', 'refresh_token=', '"clientSecret": "'),
        (secret, filler, prefix) => {
          const classified = classifyAdsHttpFailure(
            {
              type: 'upstream_http',
              status: 401,
              headers: {},
              body: { code: 'UNAUTHORIZED', details: `${filler.slice(0, 50)} ${prefix}${secret} end` },
              request: { method: 'GET', url: 'https://advertising-api.amazon.com/v2/profiles' },
            },
            NOW,
          );
          expect(JSON.stringify(classified)).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});
