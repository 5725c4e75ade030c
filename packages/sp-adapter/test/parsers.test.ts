import { validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { classifySpFailure } from '../src/classify.js';
import { parseSpErrorBody } from '../src/error-body.js';
import { parseSpResponseMeta, spRequestId } from '../src/response-meta.js';

const NOW = new Date('2026-04-12T10:00:00Z');

/** A header name in a random casing. */
function anyCasing(name: string): fc.Arbitrary<string> {
  return fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) =>
      Array.from({ length: name.length }, (_unused, index) =>
        upper[index] === true ? name.charAt(index).toUpperCase() : name.charAt(index).toLowerCase(),
      ).join(''),
    );
}

const SP_HEADER_NAMES = [
  'x-amzn-RateLimit-Limit',
  'x-amzn-RateLimit-Remaining',
  'x-amzn-RateLimit-Reset',
  'Retry-After',
  'x-amz-retry-after',
  'Warning',
  'Date',
  'x-amzn-RequestId',
  'x-amz-rid',
  'x-amz-apigw-id',
];

const headerValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.double().map(String),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
  fc.constantFrom(
    '',
    '   ',
    '2.0, 2.0',
    '1e309',
    '-1',
    'NaN',
    'Infinity',
    '0x10',
    '199 - "a, b", 299 x "c"',
    '"unterminated',
    '199',
  ),
);

const headerRecord = fc.dictionary(
  fc.oneof(fc.constantFrom(...SP_HEADER_NAMES).chain(anyCasing), fc.string({ minLength: 1 })),
  headerValue,
  { maxKeys: 8 },
);

describe('parseSpResponseMeta', () => {
  it.each([
    [
      'Go-canonical names',
      { 'X-Amzn-Ratelimit-Limit': '0.0167' },
      { rate_limit: { limit: 0.0167, window_seconds: 1, limit_per_second: 0.0167 } },
    ],
    [
      'lower-case names',
      { 'x-amzn-ratelimit-limit': '5', 'x-amzn-ratelimit-remaining': '0' },
      { rate_limit: { limit: 5, window_seconds: 1, limit_per_second: 5, remaining: 0 } },
    ],
    ['upper-case names', { 'X-AMZN-RATELIMIT-RESET': '1712919600' }, { rate_limit: { reset_at: '1712919600' } }],
    [
      'a folded repeated limit',
      { 'x-amzn-RateLimit-Limit': '2.0, 2.0' },
      { rate_limit: { limit: '2.0, 2.0', window_seconds: 1, limit_per_second: '2.0, 2.0' } },
    ],
    ['an empty limit', { 'x-amzn-RateLimit-Limit': ' ' }, {}],
    ['no headers', {}, {}],
    ['Retry-After seconds', { 'Retry-After': '7' }, { retry_after_seconds: 7 }],
    ['Retry-After decimals', { 'retry-after': '1.25' }, { retry_after_seconds: 1.25 }],
    [
      'Retry-After HTTP-date against Date',
      { Date: 'Sun, 12 Apr 2026 09:00:00 GMT', 'Retry-After': 'Sun, 12 Apr 2026 09:02:00 GMT' },
      { retry_after_seconds: 120 },
    ],
    [
      'Retry-After HTTP-date against now',
      { 'Retry-After': 'Sun, 12 Apr 2026 10:00:30 GMT' },
      { retry_after_seconds: 30 },
    ],
    ['Retry-After in the past', { 'Retry-After': 'Sun, 12 Apr 2026 09:00:00 GMT' }, { retry_after_seconds: 0 }],
    ['Retry-After garbage', { 'Retry-After': 'soon' }, {}],
    ['Retry-After negative', { 'Retry-After': '-3' }, {}],
    ['x-amz-retry-after milliseconds', { 'X-Amz-Retry-After': '250' }, { retry_after_seconds: 0.25 }],
    [
      'Retry-After wins over x-amz-retry-after',
      { 'Retry-After': '2', 'x-amz-retry-after': '9000' },
      { retry_after_seconds: 2 },
    ],
  ])('%s', (_name, headers, expected) => {
    expect(parseSpResponseMeta(headers, NOW)).toEqual(expected);
  });

  it('reads several warnings from one header and from repeated headers', () => {
    const fromHeaders = new Headers();
    fromHeaders.append('Warning', '110 - "Response is stale"');
    fromHeaders.append('Warning', '299 sp "Deprecated: use searchOrders", 199 - "x"');
    expect(parseSpResponseMeta(fromHeaders, NOW).warnings?.map((warning) => warning.summary)).toEqual([
      '110 - "Response is stale"',
      '299 sp "Deprecated: use searchOrders"',
      '199 - "x"',
    ]);
    expect(parseSpResponseMeta({ warning: ['199 a "one"', '199 b "two"'] }, NOW).warnings).toHaveLength(2);
  });

  it('never throws and its output is always a valid _meta, for any headers', () => {
    fc.assert(
      fc.property(
        headerRecord,
        fc.date({ noInvalidDate: true, min: new Date('1970-01-01'), max: new Date('2100-01-01') }),
        (headers, now) => {
          const meta = parseSpResponseMeta(headers, now);
          expect(validateMeta(meta)).toEqual({ valid: true });
          if (meta.rate_limit !== undefined) expect(Object.keys(meta.rate_limit).length).toBeGreaterThan(0);
          if (meta.retry_after_seconds !== undefined) expect(meta.retry_after_seconds).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('spRequestId', () => {
  it.each([
    [{ 'x-amzn-RequestId': 'r-1', 'x-amz-rid': 'r-2', 'x-amz-apigw-id': 'r-3' }, 'r-1'],
    [{ 'X-AMZ-RID': 'r-2', 'x-amz-apigw-id': 'r-3' }, 'r-2'],
    [{ 'X-Amz-Apigw-Id': 'r-3=' }, 'r-3='],
    [{ 'x-amzn-RequestId': '  ', 'x-amz-rid': 'r-2' }, 'r-2'],
    [{ 'x-amzn-requestid': 'first, second' }, 'first'],
    [{}, undefined],
  ])('%j -> %j', (headers, expected) => {
    expect(spRequestId(headers)).toBe(expected);
  });
});

describe('parseSpErrorBody', () => {
  const context = { status: 400, requestId: 'req-7' };

  it.each([
    [
      'errors list',
      { errors: [{ code: 'InvalidInput', message: 'Bad date', details: 'CreatedAfter' }] },
      'errors',
      [
        {
          path: '',
          issue: 'Bad date',
          received_type: 'object',
          upstream_code: 'InvalidInput',
          http_status: 400,
          request_id: 'req-7',
          upstream_details: 'CreatedAfter',
        },
      ],
    ],
    [
      'payload and errors',
      {
        payload: {},
        errors: [
          { code: 'A', message: 'one' },
          { code: 'B', message: 'two' },
        ],
      },
      'payload_errors',
      [
        { path: '', issue: 'one', received_type: 'object', upstream_code: 'A', http_status: 400, request_id: 'req-7' },
        { path: '', issue: 'two', received_type: 'object', upstream_code: 'B', http_status: 400, request_id: 'req-7' },
      ],
    ],
    [
      'bare error',
      { code: 'InvalidInput', message: 'Nope', details: { field: 'x' } },
      'bare_error',
      [
        {
          path: '',
          issue: 'Nope',
          received_type: 'object',
          upstream_code: 'InvalidInput',
          http_status: 400,
          request_id: 'req-7',
          upstream_details: '{"field":"x"}',
        },
      ],
    ],
    [
      'gateway message',
      { message: 'Missing Authentication Token' },
      'gateway_message',
      [
        {
          path: '',
          issue: 'Missing Authentication Token',
          received_type: 'object',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'gateway Message',
      { Message: 'User is not authorized to access this resource' },
      'gateway_message',
      [
        {
          path: '',
          issue: 'User is not authorized to access this resource',
          received_type: 'object',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'OAuth error',
      { error: 'invalid_grant', error_description: 'bad grant' },
      'oauth_error',
      [
        {
          path: '',
          issue: 'bad grant',
          received_type: 'object',
          upstream_code: 'invalid_grant',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'array of errors',
      [{ code: 'X', message: 'm' }, 5],
      'error_array',
      [{ path: '', issue: 'm', received_type: 'object', upstream_code: 'X', http_status: 400, request_id: 'req-7' }],
    ],
    [
      'errors of strings',
      { errors: ['plain text error'] },
      'errors',
      [{ path: '', issue: 'plain text error', received_type: 'string', http_status: 400, request_id: 'req-7' }],
    ],
    [
      'error without message',
      { errors: [{ code: 'QuotaExceeded' }] },
      'errors',
      [
        {
          path: '',
          issue: 'Upstream error QuotaExceeded',
          received_type: 'object',
          upstream_code: 'QuotaExceeded',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'empty errors and other keys',
      { errors: [], status: 'x' },
      'other_json',
      [
        {
          path: '',
          issue: 'HTTP 400 with a JSON object with no error list (keys: errors, status)',
          received_type: 'object',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'a number',
      42,
      'other_json',
      [
        {
          path: '',
          issue: 'HTTP 400 with a JSON integer with no error list',
          received_type: 'integer',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'JSON text',
      '{"errors":[{"code":"C","message":"from text"}]}',
      'errors',
      [
        {
          path: '',
          issue: 'from text',
          received_type: 'object',
          upstream_code: 'C',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'bytes',
      new TextEncoder().encode('{"message":"bytes"}'),
      'gateway_message',
      [{ path: '', issue: 'bytes', received_type: 'object', http_status: 400, request_id: 'req-7' }],
    ],
    [
      'HTML',
      '<html><head><title>Oops &amp; sorry</title></head></html>',
      'html',
      [
        {
          path: '',
          issue: 'HTML error page: Oops & sorry',
          received_type: 'string',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'text',
      'Service Unavailable',
      'text',
      [{ path: '', issue: 'Service Unavailable', received_type: 'string', http_status: 400, request_id: 'req-7' }],
    ],
    [
      'invalid JSON',
      '{"errors": [',
      'invalid_json',
      [
        {
          path: '',
          issue: 'Body is not valid JSON: {"errors": [',
          received_type: 'string',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'empty',
      '',
      'empty',
      [
        {
          path: '',
          issue: 'HTTP 400 with an empty body',
          received_type: 'null',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
    [
      'null',
      null,
      'empty',
      [
        {
          path: '',
          issue: 'HTTP 400 with an empty body',
          received_type: 'null',
          http_status: 400,
          request_id: 'req-7',
        },
      ],
    ],
  ])('%s', (_name, body, shape, details) => {
    const parsed = parseSpErrorBody(body, context);
    expect(parsed.shape).toBe(shape);
    expect(parsed.details).toEqual(details);
  });

  it('caps and redacts upstream messages', () => {
    const parsed = parseSpErrorBody(
      {
        errors: [{ code: 'X', message: `${'long '.repeat(200)}Atza|IwEBsecretTokenValue`, details: 'Bearer abc.def' }],
      },
      { status: 400 },
    );
    const detail = parsed.details[0]!;
    expect(detail.issue.length).toBeLessThanOrEqual(300);
    expect(detail['upstream_details']).toBe('Bearer [REDACTED]');
    expect(JSON.stringify(parsed)).not.toContain('secretTokenValue');
  });

  it('keeps at most 20 upstream errors', () => {
    const errors = Array.from({ length: 30 }, (_unused, index) => ({ code: 'E', message: `error ${index}` }));
    expect(parseSpErrorBody({ errors }, { status: 400 }).details).toHaveLength(20);
  });

  it('never throws and always yields schema-valid details, for any body', () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.string(),
      fc.uint8Array().map((bytes) => bytes),
      fc.record({
        errors: fc.array(
          fc.dictionary(fc.constantFrom('code', 'message', 'details', 'Code', 'Message'), fc.jsonValue()),
        ),
      }),
      fc.record({ message: fc.jsonValue() }),
      fc.constantFrom(undefined, null, '', '<html>', '{"errors":', 'not json'),
    );
    fc.assert(
      fc.property(body, fc.integer({ min: 400, max: 599 }), (value, status) => {
        const parsed = parseSpErrorBody(value, { status });
        expect(parsed.details.length).toBeGreaterThan(0);
        const classified = classifySpFailure(
          {
            type: 'upstream_http',
            status,
            headers: {},
            body: value,
            request: { method: 'GET', url: 'https://sellingpartnerapi-na.amazon.com/x' },
          },
          { tool: 't', now: NOW },
        );
        const envelope = { ...classified, tool: 't', examples: [], _envelope_version: 2 };
        expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
        expect(classified.upstream).toBe('sp-api');
      }),
      { numRuns: 1000 },
    );
  });
});
