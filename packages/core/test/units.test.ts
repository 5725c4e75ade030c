import { ERROR_ENVELOPE_SCHEMA_V1, ERROR_ENVELOPE_SCHEMA_V2 } from '@mcp-envelope/contract';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';

import { carriedEnvelope } from '../src/classify.js';
import { boundEnvelope } from '../src/envelope-builder.js';
import { EnvelopeError, UpstreamClientError, UpstreamHttpError } from '../src/index.js';
import { createRedactor } from '../src/adapter-entry.js';
import { embedSchema, widenOutputSchema } from '../src/output-schema.js';

const BASE = {
  error_kind: 'upstream_http',
  tool: 't',
  summary: 's',
  details: [],
  hints: [],
  examples: [],
  error_code: 'UPSTREAM_HTTP_400',
  retryable: false,
  _envelope_version: 2,
  upstream: 'sp-api',
} as const;

/** {@link BASE} as a reader of contract version 1 gets it. */
const BASE_V1 = {
  error_kind: 'sp_api_http',
  tool: 't',
  summary: 's',
  details: [],
  hints: [],
  examples: [],
  error_code: 'SP_API_HTTP_400',
  retryable: false,
  _envelope_version: 1,
} as const;

describe('redaction', () => {
  const redactor = createRedactor({ patterns: [/acct-\d{6}/] });

  it('redacts each default secret shape and the extra patterns', () => {
    expect(redactor.string('Authorization: Bearer abc.def')).toBe('Authorization: [REDACTED]');
    expect(redactor.string('{"authorization":"AWS4-HMAC-SHA256 Credential=AKIA/x, Signature=ff00"}')).toBe(
      '{"authorization":"[REDACTED]"}',
    );
    expect(redactor.string('sent bearer eyJ0eXAi.payload.sig to it')).toBe('sent bearer [REDACTED] to it');
    expect(redactor.string('grant_type=refresh_token&refresh_token=Rt123&client_secret=cs9')).toBe(
      'grant_type=refresh_token&refresh_token=[REDACTED]&client_secret=[REDACTED]',
    );
    expect(redactor.string('{"access_token": "at-1", "expires_in": 3600}')).toBe(
      '{"access_token": "[REDACTED]", "expires_in": 3600}',
    );
    expect(redactor.string('account acct-123456 locked')).toBe('account [REDACTED] locked');
    expect(redactor.string('nothing secret here: 429 Too Many Requests')).toBe(
      'nothing secret here: 429 Too Many Requests',
    );
  });

  it('redacts the same secrets when an upstream echoes them URL-encoded', () => {
    expect(redactor.string('GET /orders?NextToken=Bearer%20eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig123&MaxResults=5')).toBe(
      'GET /orders?NextToken=Bearer%20[REDACTED]&MaxResults=5',
    );
    expect(redactor.string('q=Bearer+abc%2Bdef%3D%3D&x=1')).toBe('q=Bearer+[REDACTED]&x=1');
    expect(redactor.string('h=Authorization%3A%20Bearer%20abc.def&next=2')).toBe(
      'h=Authorization%3A%20[REDACTED]&next=2',
    );
    expect(redactor.string('100%20percent of orders')).toBe('100%20percent of orders');
  });

  it('redacts a secret glued to the text before it', () => {
    expect(redactor.string('myBearer SECRETTOKEN123 _Bearer OTHER456')).toBe('myBearer [REDACTED] _Bearer [REDACTED]');
    expect(redactor.string('db_password=hunter22 my_password: pw-9 aws_access_token=AT-1')).toBe(
      'db_password=[REDACTED] my_password: [REDACTED] aws_access_token=[REDACTED]',
    );
    expect(redactor.string('proxy_authorization: Basic dXNlcjpwYXNz')).toBe('proxy_authorization: [REDACTED]');
    expect(redactor.string('{"myAccessToken":"at-77","ClientSecret":"cs-88"}')).toBe(
      '{"myAccessToken":"[REDACTED]","ClientSecret":"[REDACTED]"}',
    );
    expect(redactor.string('passwordless sign-in is on')).toBe('passwordless sign-in is on');
  });

  it('redacts quoted values whole, URL-encoded separators, and the other usual credential names', () => {
    expect(redactor.string('{"password":"correct horse battery","user":"ann"}')).toBe(
      '{"password":"[REDACTED]","user":"ann"}',
    );
    expect(redactor.string("password: 'a b c' next")).toBe("password: '[REDACTED]' next");
    expect(redactor.string('cut "clientSecret": "cs-123 end')).toBe('cut "clientSecret": "[REDACTED]" end');
    expect(redactor.string('Bearer abc!def$ghi rest')).toBe('Bearer [REDACTED] rest');
    expect(redactor.string('q?access_token%3DX1y2&password%3Dpw&x-api-key%3dKq1&a=1')).toBe(
      'q?access_token%3D[REDACTED]&password%3D[REDACTED]&x-api-key%3d[REDACTED]&a=1',
    );
    expect(redactor.string('passwd=p1 pwd=p2 api_key=k1 apikey: k2 client-secret=c1 refresh-token=r1')).toBe(
      'passwd=[REDACTED] pwd=[REDACTED] api_key=[REDACTED] apikey: [REDACTED] client-secret=[REDACTED] refresh-token=[REDACTED]',
    );
    expect(redactor.string('x-api-key: k-123')).toBe('x-api-key: [REDACTED]');
    expect(redactor.string('Cookie: a=1; session=s3cr3t')).toBe('Cookie: [REDACTED]');
    expect(redactor.string('{"set-cookie": "sid=abc; Path=/"}')).toBe('{"set-cookie": "[REDACTED]"}');
  });

  it('redacts values with escaped quotes, JSON inside JSON strings, quoted header values and credential-named keys', () => {
    expect(redactor.string('{\\"password\\":\\"hunter2xyz\\"}')).toBe('{\\"password\\":[REDACTED]\\"}');
    expect(redactor.string('{"password":"ab\\"cd-secret"}')).toBe('{"password":"[REDACTED]"}');
    expect(redactor.string('{"authorization":"tok\\"123secret"}')).toBe('{"authorization":"[REDACTED]"}');
    expect(redactor.string('{"Cookie":"session=ab\\"c123"}')).toBe('{"Cookie":"[REDACTED]"}');
    expect(redactor.string('Authorization: "tok123secret" next')).toBe('Authorization: [REDACTED] next');
    expect(redactor.string('cookie=session-abc123')).toBe('cookie=[REDACTED]');
    expect(redactor.string('%22password%22%3A%22hunter2%22')).toBe('%22password%22%3A[REDACTED]');
    expect(redactor.string('password%20%3D%20hunter2')).toBe('password%20%3D%20[REDACTED]');
    expect(redactor.string('Bearer "tok123"')).toBe('Bearer [REDACTED]"');
    expect(redactor.string('The request has an invalid grant parameter : refresh_token')).toBe(
      'The request has an invalid grant parameter : refresh_token',
    );
    expect(
      redactor.value({
        headers: { Authorization: 'opaque-1', 'x-api-key': 'k-2', Cookie: 'sid=3' },
        password: 'pw-4',
        db_password: 'pw-5',
        note: 'keep',
        refresh_token_expires_in: 3600,
      }),
    ).toEqual({
      headers: { Authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', Cookie: '[REDACTED]' },
      password: '[REDACTED]',
      db_password: '[REDACTED]',
      note: 'keep',
      refresh_token_expires_in: 3600,
    });
  });

  it('redacts strings anywhere inside a value, keys included (an upstream can echo a token as a key), without touching other types', () => {
    const input = { 'Bearer x': ['Bearer abc', 3, null, { note: 'acct-654321' }], flag: true };
    expect(redactor.value(input)).toEqual({
      'Bearer [REDACTED]': ['Bearer [REDACTED]', 3, null, { note: '[REDACTED]' }],
      flag: true,
    });
    expect(input['Bearer x'][0]).toBe('Bearer abc');
  });

  it('is stable when applied twice', () => {
    const once = redactor.string('Authorization: Bearer abc, acct-123456');
    expect(redactor.string(once)).toBe(once);
  });
});

describe('bounds', () => {
  it('returns the same object when within bounds', () => {
    const envelope = { ...BASE, hints: ['a'] };
    expect(boundEnvelope(envelope)).toBe(envelope);
  });

  it('cuts hints to 10 without a note when only hints overflow', () => {
    const bounded = boundEnvelope({ ...BASE, hints: Array.from({ length: 12 }, (_, index) => `h${index}`) });
    expect(bounded.hints).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9']);
  });

  it('adds the omitted-details note after the first nine hints when details overflow', () => {
    const details = Array.from({ length: 51 }, (_, index) => ({
      path: `p${index}`,
      issue: 'i',
      received_type: 'string',
    }));
    const bounded = boundEnvelope({ ...BASE, details, hints: ['only hint'] });
    expect(bounded.details).toHaveLength(50);
    expect(bounded.hints).toEqual(['only hint', '1 more details omitted']);
    // Details a check left out before building the envelope count too, even with 50 or fewer listed.
    expect(boundEnvelope({ ...BASE, details, hints: ['only hint'] }, 150).hints).toEqual([
      'only hint',
      '151 more details omitted',
    ]);
    expect(boundEnvelope({ ...BASE, details: details.slice(0, 3), hints: [] }, 7)).toMatchObject({
      details: details.slice(0, 3),
      hints: ['7 more details omitted'],
    });
  });
});

describe('errors', () => {
  it('EnvelopeError.toEnvelope and toJSON give the wire shape with defaults', () => {
    const error = new EnvelopeError({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      summary: 'blocked',
      retryable: true,
    });
    const wire = {
      error_kind: 'sandbox_runtime',
      tool: 'unknown_tool',
      summary: 'blocked',
      details: [],
      hints: [],
      examples: [],
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      retryable: true,
      _envelope_version: 2,
    };
    expect(error.toEnvelope()).toEqual(wire);
    expect(JSON.parse(JSON.stringify(error))).toEqual(wire);
    expect(error.message).toBe('blocked');
    expect(error.hasTool).toBe(false);
  });

  it('brand checks recognize instances across copies (Symbol.for) and reject look-alikes', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('@mcp-envelope/core/EnvelopeError')]: true });
    expect(EnvelopeError.isInstance(foreign)).toBe(true);
    expect(EnvelopeError.isInstance(new Error('x'))).toBe(false);
    expect(EnvelopeError.isInstance(null)).toBe(false);
    const http = new UpstreamHttpError({
      status: 503,
      headers: { 'Retry-After': '2' },
      body: 'down',
      request: { method: 'GET', url: 'https://u.test/a?secret=1#f' },
    });
    expect(UpstreamHttpError.isInstance(http)).toBe(true);
    expect(UpstreamClientError.isInstance(http)).toBe(false);
    expect(http.headers).toEqual({ 'retry-after': '2' });
    expect(http.toJSON()).toEqual({ name: 'UpstreamHttpError', status: 503, method: 'GET', url: 'https://u.test/a' });
    expect(http.toFailure()).toEqual({
      type: 'upstream_http',
      status: 503,
      headers: { 'retry-after': '2' },
      body: 'down',
      request: { method: 'GET', url: 'https://u.test/a?secret=1#f' },
    });
    const client = new UpstreamClientError({ type: 'body_coercion', path: 'body', received: '{x' });
    expect(client.message).toBe('the value at "body" is not valid JSON');
    expect(client.toJSON()).toEqual({
      name: 'UpstreamClientError',
      type: 'body_coercion',
      message: 'the value at "body" is not valid JSON',
    });
  });

  it('carriedEnvelope finds an envelope on the error, under envelope, or in JSON-RPC data', () => {
    expect(carriedEnvelope(BASE)).toBe(BASE);
    expect(carriedEnvelope({ envelope: BASE })).toBe(BASE);
    expect(carriedEnvelope(Object.assign(new Error('x'), { data: BASE }))).toBe(BASE);
    expect(carriedEnvelope({ data: { envelope: BASE } })).toBe(BASE);
    expect(carriedEnvelope({ data: { ...BASE, error_kind: 'made_up' } })).toBeUndefined();
    expect(carriedEnvelope('text')).toBeUndefined();
  });

  it('carriedEnvelope passes on no v1 envelope that has no valid v2 form (an UPSTREAM_HTTP_ code naming no upstream)', () => {
    const orphan = { ...BASE_V1, error_kind: 'internal_error', error_code: 'UPSTREAM_HTTP_500' };
    expect(carriedEnvelope({ data: orphan })).toBeUndefined();
    expect(carriedEnvelope({ data: { ...orphan, error_kind: 'sp_api_http' } })).toMatchObject({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_500',
      upstream: 'sp-api',
      _envelope_version: 2,
    });
  });
});

describe('output schema widening', () => {
  it('re-roots internal references, leaves data keywords and nested $id resources alone', () => {
    expect(
      embedSchema(
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: 'https://example.test/out',
          type: 'object',
          properties: {
            a: { $ref: '#/$defs/a' },
            b: { $ref: '#' },
            c: { const: { $ref: '#/not-a-ref' } },
            d: { $id: 'https://example.test/d', $defs: { x: { type: 'string' } }, $ref: '#/$defs/x' },
            e: { $ref: 'https://example.test/elsewhere#/x' },
          },
          $defs: { a: { type: 'string' } },
        },
        '#/anyOf/0',
      ),
    ).toEqual({
      type: 'object',
      properties: {
        a: { $ref: '#/anyOf/0/$defs/a' },
        b: { $ref: '#/anyOf/0' },
        c: { const: { $ref: '#/not-a-ref' } },
        d: { $id: 'https://example.test/d', $defs: { x: { type: 'string' } }, $ref: '#/$defs/x' },
        e: { $ref: 'https://example.test/elsewhere#/x' },
      },
      $defs: { a: { type: 'string' } },
    });
  });

  it('compiles in the draft-07 Ajv the SDK v1 client uses, accepting success and envelope, rejecting neither-nor', () => {
    const widened = widenOutputSchema({
      type: 'object',
      properties: { total: { type: 'number' } },
      required: ['total'],
      additionalProperties: false,
    });
    const validate = new Ajv({ strict: false, allErrors: true, validateSchema: false }).compile(widened);
    expect(validate({ total: 1 })).toBe(true);
    expect(validate({ total: 1, _meta: { rate_limit: { remaining: 2 } } })).toBe(true);
    expect(validate(BASE)).toBe(true);
    expect(validate(BASE_V1)).toBe(true);
    expect(validate({ total: 'x' })).toBe(false);
    expect(validate({ ...BASE, _envelope_version: 3 })).toBe(false);
    // a v1 envelope keeps v1's closed taxonomy, a v2 one v2's
    expect(validate({ ...BASE_V1, error_kind: 'upstream_http' })).toBe(false);
    expect(validate({ ...BASE, error_kind: 'sp_api_http' })).toBe(false);
  });

  it('widens a non-object root to { anyOf: [schema, envelope] }, its $ref re-rooted and its $schema kept on top', () => {
    const widened = widenOutputSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: { $ref: '#/$defs/tag' },
      $defs: { tag: { type: 'string', minLength: 1 } },
    });
    expect(widened).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      anyOf: [
        { type: 'array', items: { $ref: '#/anyOf/0/$defs/tag' }, $defs: { tag: { type: 'string', minLength: 1 } } },
        {
          anyOf: [
            embedSchema(ERROR_ENVELOPE_SCHEMA_V2, '#/anyOf/1/anyOf/0'),
            embedSchema(ERROR_ENVELOPE_SCHEMA_V1, '#/anyOf/1/anyOf/1'),
          ],
        },
      ],
    });
    const validate = new Ajv({ strict: false, allErrors: true, validateSchema: false }).compile(widened);
    expect(validate(['red'])).toBe(true);
    expect(validate(BASE)).toBe(true);
    expect(validate(BASE_V1)).toBe(true);
    expect(validate([''])).toBe(false);
    expect(validate('red')).toBe(false);
  });
});
