import { describe, expect, it } from 'vitest';

import { adsErrorsOf, locationToPath, MAX_ADS_ERROR_DETAILS, parseAdsErrorBody } from '../src/error-body.js';

describe('adsErrorsOf: every Ads body shape', () => {
  const cases: readonly { name: string; body: unknown; expected: unknown }[] = [
    {
      name: 'legacy {code, details}',
      body: { code: 'INVALID_ARGUMENT', details: 'startDate is in the past' },
      expected: [{ code: 'INVALID_ARGUMENT', message: 'startDate is in the past' }],
    },
    {
      name: 'legacy number-like code',
      body: { code: '400', details: ' padded text ' },
      expected: [{ code: '400', message: 'padded text' }],
    },
    { name: 'numeric code', body: { code: 422, details: 'bad' }, expected: [{ code: '422', message: 'bad' }] },
    {
      name: 'variant {code, detail}',
      body: { code: '425', detail: 'The Request is a duplicate of : abc' },
      expected: [{ code: '425', message: 'The Request is a duplicate of : abc' }],
    },
    {
      name: '{requestId, message}',
      body: { requestId: 'X1', message: 'Unexpected failure' },
      expected: [{ message: 'Unexpected failure' }],
    },
    {
      name: 'unified v1 {code, message}',
      body: { code: 'FIELD_VALUE_IS_NULL', message: 'name is null' },
      expected: [{ code: 'FIELD_VALUE_IS_NULL', message: 'name is null' }],
    },
    { name: 'gateway {message}', body: { message: 'Forbidden' }, expected: [{ message: 'Forbidden' }] },
    {
      name: 'gateway {Message}',
      body: { Message: 'User is not authorized to access this resource with an explicit deny' },
      expected: [{ message: 'User is not authorized to access this resource with an explicit deny' }],
    },
    { name: 'code only', body: { code: 'INTERNAL_ERROR' }, expected: [{ code: 'INTERNAL_ERROR' }] },
    {
      name: 'unified v1 multi-status',
      body: {
        success: [{ index: 0 }],
        partialSuccess: [
          {
            index: 2,
            errors: [
              {
                code: 'DATE_TOO_SOON',
                message: 'start too soon',
                fieldLocation: 'adGroups[2].startDate',
                marketplace: 'FR',
              },
            ],
          },
        ],
        error: [
          {
            index: 1,
            errors: [{ code: 'FIELD_VALUE_IS_EMPTY', message: 'empty name', fieldLocation: 'adGroups[1].name' }],
          },
        ],
      },
      expected: [
        { code: 'FIELD_VALUE_IS_EMPTY', message: 'empty name', location: 'adGroups/1/name', index: 1 },
        {
          code: 'DATE_TOO_SOON',
          message: 'start too soon',
          location: 'adGroups/2/startDate',
          index: 2,
          marketplace: 'FR',
        },
      ],
    },
    {
      name: 'v3 resource wrapper with errorValue',
      body: {
        keywords: {
          success: [],
          error: [
            {
              index: 4,
              errors: [
                {
                  errorType: 'rangeError',
                  errorValue: {
                    rangeError: { reason: 'TOO_HIGH', message: 'bid too high', cause: { location: '$[4].bid' } },
                  },
                },
              ],
            },
          ],
        },
      },
      expected: [{ code: 'TOO_HIGH', message: 'bid too high', location: '4/bid', index: 4 }],
    },
    {
      name: 'v3 errorValue without reason uses errorType',
      body: {
        campaigns: {
          error: [{ index: 0, errors: [{ errorType: 'otherError', errorValue: { otherError: { message: 'x' } } }] }],
        },
      },
      expected: [{ code: 'otherError', message: 'x', index: 0 }],
    },
    {
      name: 'v2 list: SUCCESS items skipped, positions kept',
      body: [
        { code: 'SUCCESS', campaignId: 1 },
        { code: 'INVALID_ARGUMENT', description: 'budget below minimum', campaignId: 2 },
        { code: 'SUCCESS', campaignId: 3 },
      ],
      expected: [{ code: 'INVALID_ARGUMENT', message: 'budget below minimum', index: 1 }],
    },
    {
      name: 'budget-rule responses: Ok items skipped, failed ones kept with their position',
      body: {
        responses: [
          { code: 'Ok', details: 'Budget rule created', ruleId: 'r1' },
          { code: 'INVALID_ARGUMENT', details: 'Rule duration overlaps another rule', ruleId: null },
        ],
      },
      expected: [{ code: 'INVALID_ARGUMENT', message: 'Rule duration overlaps another rule', index: 1 }],
    },
    {
      name: 'a 207 where everything succeeded',
      body: { campaigns: { success: [{ index: 0, campaignId: '9' }], error: [] } },
      expected: [],
    },
    {
      name: 'LWA style {error, error_description}',
      body: { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter' },
      expected: [{ code: 'invalid_grant', message: 'The request has an invalid grant parameter' }],
    },
    {
      name: 'object message is serialized',
      body: { code: 'X', message: { nested: true } },
      expected: [{ code: 'X', message: '{"nested":true}' }],
    },
    { name: 'an empty object', body: {}, expected: [] },
    { name: 'a number', body: 42, expected: [] },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(adsErrorsOf(testCase.body)).toEqual(testCase.expected);
    });
  }

  it(`keeps at most ${MAX_ADS_ERROR_DETAILS} errors`, () => {
    const body = {
      error: Array.from({ length: 80 }, (_, index) => ({ index, errors: [{ code: 'E', message: `m${index}` }] })),
    };
    const found = adsErrorsOf(body);
    expect(found.length).toBe(50);
    expect(found[49]).toEqual({ code: 'E', message: 'm49', index: 49 });
  });

  it('survives a getter that throws', () => {
    const hostile = Object.defineProperty({}, 'message', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(adsErrorsOf(hostile)).toEqual([]);
  });

  it('stops at depth on a deeply nested body', () => {
    let body: unknown = { code: 'DEEP', message: 'bottom' };
    for (let level = 0; level < 40; level += 1) body = { errors: [body] };
    expect(adsErrorsOf(body)).toEqual([]);
  });
});

describe('locationToPath', () => {
  const cases: readonly [string, string][] = [
    ['campaigns[0].budget.value', 'campaigns/0/budget/value'],
    ['$[3].name', '3/name'],
    ['$.campaigns[1]', 'campaigns/1'],
    ["targets['x'].bid", 'targets/x/bid'],
    ['/adGroups/0/name', 'adGroups/0/name'],
    ['name', 'name'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} -> ${expected}`, () => {
      expect(locationToPath(input)).toBe(expected);
    });
  }
});

describe('parseAdsErrorBody', () => {
  it('legacy body: one detail with code, request id and status', () => {
    expect(parseAdsErrorBody({ code: 'NOT_FOUND', details: 'Report not found', requestId: 'RQ1' }, 404)).toEqual({
      shape: 'error_object',
      errors: [{ code: 'NOT_FOUND', message: 'Report not found' }],
      requestId: 'RQ1',
      details: [
        {
          path: '',
          issue: 'Report not found',
          received_type: 'object',
          upstream_code: 'NOT_FOUND',
          request_id: 'RQ1',
          http_status: 404,
        },
      ],
      headline: 'Report not found',
    });
  });

  it('the body is a JSON string as fetched', () => {
    const parsed = parseAdsErrorBody('{"code":"UNAUTHORIZED","details":"Scope header is missing"}', 401, {
      'Content-Type': 'application/json',
    });
    expect(parsed.details).toEqual([
      {
        path: '',
        issue: 'Scope header is missing',
        received_type: 'object',
        upstream_code: 'UNAUTHORIZED',
        http_status: 401,
      },
    ]);
  });

  it('bytes are decoded', () => {
    const bytes = new TextEncoder().encode('{"message":"Too Many Requests"}');
    expect(parseAdsErrorBody(bytes, 429).details).toEqual([
      { path: '', issue: 'Too Many Requests', received_type: 'object', http_status: 429 },
    ]);
  });

  it('HTML: only a short summary, never markup', () => {
    const parsed = parseAdsErrorBody(
      '<html><head><title>502 Bad Gateway</title></head><body><script>x()</script><center>nginx</center></body></html>',
      502,
    );
    expect(parsed.shape).toBe('html');
    expect(parsed.details).toEqual([
      { path: '', issue: 'The response was an HTML page: 502 Bad Gateway', received_type: 'string', http_status: 502 },
    ]);
  });

  it('empty body with the request id from headers', () => {
    const parsed = parseAdsErrorBody(undefined, 503, { 'x-amz-rid': 'RID5' });
    expect(parsed).toEqual({
      shape: 'empty',
      errors: [],
      requestId: 'RID5',
      details: [
        {
          path: '',
          issue: 'The response body was empty.',
          received_type: 'null',
          request_id: 'RID5',
          http_status: 503,
        },
      ],
      headline: 'empty response body',
    });
  });

  it('plain text', () => {
    expect(parseAdsErrorBody('upstream connect error', 503).details).toEqual([
      { path: '', issue: 'upstream connect error', received_type: 'string', http_status: 503 },
    ]);
  });

  it('invalid JSON', () => {
    const parsed = parseAdsErrorBody('{"code": "X", ', 400);
    expect(parsed.shape).toBe('invalid_json');
    expect(parsed.details[0]?.issue).toBe('The response body is not valid JSON: {"code": "X",');
  });

  it('JSON that names no error', () => {
    expect(parseAdsErrorBody([1, 2], 500).details).toEqual([
      { path: '', issue: 'The response body (array) names no error.', received_type: 'array', http_status: 500 },
    ]);
  });

  it('207 item errors: one detail per failed item', () => {
    const parsed = parseAdsErrorBody(
      {
        error: [
          {
            index: 3,
            errors: [
              { code: 'A', message: 'one' },
              { code: 'B', message: 'two', fieldLocation: 'ads[3].creative' },
            ],
          },
        ],
      },
      207,
      { 'x-amzn-requestid': 'H1' },
    );
    expect(parsed.shape).toBe('item_errors');
    expect(parsed.details).toEqual([
      {
        path: '',
        issue: 'one',
        received_type: 'object',
        upstream_code: 'A',
        request_id: 'H1',
        http_status: 207,
        item_index: 3,
      },
      {
        path: 'ads/3/creative',
        issue: 'two',
        received_type: 'object',
        upstream_code: 'B',
        request_id: 'H1',
        http_status: 207,
        item_index: 3,
      },
    ]);
  });

  it('redacts secrets echoed in messages and caps long text', () => {
    const parsed = parseAdsErrorBody(
      {
        code: 'X',
        details: `sent Bearer Atza|IwEBIabc123 and secret amzn1.oa2-cs.v1.0123456789abcdef ${'y'.repeat(900)}`,
      },
      400,
    );
    const issue = String(parsed.details[0]?.issue);
    expect(issue).not.toContain('IwEBIabc123');
    expect(issue).not.toContain('0123456789abcdef');
    expect(issue).toContain('[REDACTED]');
    expect(issue.length).toBe(500);
    expect(issue.endsWith('…')).toBe(true);
  });

  it('redacts an echoed Authorization header value', () => {
    const parsed = parseAdsErrorBody(
      { message: 'not a valid key=value pair (missing equal-sign) in Authorization header: Atza|IwEBIzz99' },
      403,
    );
    expect(String(parsed.details[0]?.issue)).toBe(
      'not a valid key=value pair (missing equal-sign) in Authorization header: [REDACTED]',
    );
  });

  it('redacts camelCase credential fields', () => {
    const parsed = parseAdsErrorBody(
      { message: 'config {"refreshToken": "Qx9-secret-value", "clientSecret":"s3cr3t"}' },
      400,
    );
    const issue = String(parsed.details[0]?.issue);
    expect(issue).not.toContain('Qx9-secret-value');
    expect(issue).not.toContain('s3cr3t');
  });
});
