import { validateEnvelope } from '@mcp-envelope/contract';
import { LwaError } from '@mcp-envelope/amazon';
import type { ClassifiedError, UpstreamHttpFailure } from '@mcp-envelope/core';
import { describe, expect, it } from 'vitest';

import { classifySpLwaFailure } from '../src/index.js';
import { classifySpFailure, spAuthHints, spMarketplaceHints } from '../src/classify.js';
import { parseSpErrorBody } from '../src/error-body.js';
import { parseSpResponseMeta } from '../src/response-meta.js';
import { ERROR_FIXTURES, UPSTREAM_FIXTURES } from './fixtures/upstream-fixtures.js';
import type { UpstreamFixture } from './fixtures/upstream-fixtures.js';

const NOW = new Date('2026-04-12T10:00:00Z');
const CONTEXT = { tool: 'ordersV0_getOrders', now: NOW };

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function failureOf(fixture: UpstreamFixture): UpstreamHttpFailure {
  const query = new URLSearchParams(fixture.request.query).toString();
  return {
    type: 'upstream_http',
    status: fixture.response.status,
    headers: lowerCased(fixture.response.headers),
    body: fixture.response.body,
    request: {
      method: fixture.request.method,
      url: `https://sellingpartnerapi-na.amazon.com${fixture.request.path}${query === '' ? '' : `?${query}`}`,
    },
  };
}

/** The v2 envelope core would build from a classification (for schema checks). */
function envelopeOf(classified: ClassifiedError): Record<string, unknown> {
  return {
    error_kind: classified.error_kind,
    ...(classified.upstream === undefined ? {} : { upstream: classified.upstream }),
    tool: 'ordersV0_getOrders',
    summary: classified.summary,
    details: classified.details,
    hints: classified.hints,
    examples: [],
    error_code: classified.error_code,
    retryable: classified.retryable,
    _envelope_version: 2,
  };
}

describe('classifySpFailure on every recorded SP-API error', () => {
  it.each(ERROR_FIXTURES.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const classified = classifySpFailure(failureOf(fixture), CONTEXT);
    const expected = fixture.expected;
    expect([classified.error_kind, classified.error_code, classified.upstream, classified.retryable]).toEqual([
      expected.error_kind,
      expected.error_code,
      'sp-api',
      expected.retryable,
    ]);
    expect(expected.upstream).toBe('sp-api');
    expect(validateEnvelope(envelopeOf(classified))).toEqual({ valid: true, version: 2 });
    const first = classified.details[0]!;
    expect(first['http_status']).toBe(fixture.response.status);
    expect(first['request_id']).toBe(expected.request_id);
    if (expected.upstream_code !== undefined) expect(first['upstream_code']).toBe(expected.upstream_code);
    if (expected.issue !== undefined) expect(first.issue).toBe(expected.issue);
    if (expected.details_count !== undefined) expect(classified.details).toHaveLength(expected.details_count);
    for (const fragment of expected.hints_include ?? []) expect(classified.hints.join('\n')).toContain(fragment);
    for (const fragment of expected.summary_excludes ?? []) expect(classified.summary).not.toContain(fragment);
    const wire = JSON.stringify(classified);
    for (const secret of expected.secrets ?? []) expect(wire).not.toContain(secret);
    expect(classified.summary).not.toMatch(/[\r\n]/);
    expect(classified.hints.length).toBeGreaterThan(0);
  });
});

describe('parseSpResponseMeta on every recorded response', () => {
  it.each(UPSTREAM_FIXTURES.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    expect(parseSpResponseMeta(fixture.response.headers, NOW)).toEqual(fixture.expected.meta);
  });
});

describe('summaries', () => {
  it('names status, request, upstream code and message in one line', () => {
    const fixture = ERROR_FIXTURES.find((candidate) => candidate.id === 'sp-404-catalog-not-found')!;
    expect(classifySpFailure(failureOf(fixture), CONTEXT).summary).toBe(
      'SP-API answered HTTP 404 Not Found to GET /catalog/2022-04-01/items/B0DPL7R4XQ (NOT_FOUND): Requested item, B0DPL7R4XQ, not found in marketplace(s) ATVPDKIKX0DER.',
    );
  });

  it('uses the status text for an HTML page', () => {
    const fixture = ERROR_FIXTURES.find((candidate) => candidate.id === 'sp-503-html-temporarily-unavailable')!;
    expect(classifySpFailure(failureOf(fixture), CONTEXT).summary).toBe(
      'SP-API answered HTTP 503 Service Unavailable to GET /reports/2021-06-30/reports/61824093571',
    );
  });

  it('states the wait of a rate limit', () => {
    const fixture = ERROR_FIXTURES.find((candidate) => candidate.id === 'sp-429-retry-after-http-date')!;
    expect(classifySpFailure(failureOf(fixture), CONTEXT).summary).toBe(
      'SP-API rate limit exceeded to GET /orders/v0/orders/902-3159896-1390916/orderItems (HTTP 429 QuotaExceeded); retry after 45 s.',
    );
  });

  it('a 403 that carries Retry-After is a rate limit (the HTTP kit reads it), with the wait', () => {
    const classified = classifySpFailure(
      {
        type: 'upstream_http',
        status: 403,
        headers: { 'retry-after': '20', 'content-type': 'application/json' },
        body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] },
        request: { method: 'GET', url: 'https://sellingpartnerapi-na.amazon.com/orders/v0/orders' },
      },
      CONTEXT,
    );
    expect(classified).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      upstream: 'sp-api',
    });
    expect(classified.summary).toBe(
      'SP-API rate limit exceeded to GET /orders/v0/orders (HTTP 403 QuotaExceeded); retry after 20 s.',
    );
  });

  it('never shows the query string', () => {
    const fixture = ERROR_FIXTURES.find((candidate) => candidate.id === 'sp-400-invalidinput-ratelimit-header')!;
    const classified = classifySpFailure(failureOf(fixture), CONTEXT);
    expect(classified.summary).toBe(
      'SP-API answered HTTP 400 Bad Request to GET /orders/v0/orders (InvalidInput): The input you have submitted is not valid. Please check your input and try again.',
    );
  });
});

describe('401/403 causes', () => {
  it.each([
    ['The access token you provided has expired.', ['expired']],
    ['The access token you provided is revoked, malformed or invalid.', ['revoked', 'invalid_token']],
    ['The request signature we calculated does not match the signature you provided.', ['invalid_signature']],
    ['The security token included in the request is invalid.', ['invalid_security_token']],
    ['Missing Authentication Token', ['missing_token']],
    ['Access to requested resource is denied.', ['access_denied']],
    ['Something else entirely', []],
  ])('%s -> %j', (message, causes) => {
    const body = parseSpErrorBody({ errors: [{ code: 'X', message }] }, { status: 403 });
    const result = spAuthHints(body);
    expect(result.causes).toEqual(causes);
    expect(result.hints).toHaveLength(Math.max(1, causes.length));
  });
});

describe('marketplace hints', () => {
  it('suggests the id for a country code and the region for a marketplace of another region', () => {
    expect(
      spMarketplaceHints({
        method: 'GET',
        url: 'https://sellingpartnerapi-na.amazon.com/orders/v0/orders?MarketplaceIds=US,uk&CreatedAfter=x',
      }),
    ).toEqual(['Did you mean ATVPDKIKX0DER? Got US.', 'Did you mean A1F83G8C2ARO7P? Got uk.']);
    expect(
      spMarketplaceHints({
        method: 'GET',
        url: 'https://sellingpartnerapi-fe.amazon.com/catalog/2022-04-01/items?marketplaceIds=A1PA6795UKMFR9',
      }),
    ).toEqual(['Marketplace A1PA6795UKMFR9 (Germany) is served by the eu endpoint, not fe: call set_region with eu.']);
    expect(
      spMarketplaceHints({ method: 'GET', url: 'http://127.0.0.1:9/orders?MarketplaceIds=ATVPDKIKX0DER' }),
    ).toEqual([]);
    expect(spMarketplaceHints({ method: 'GET', url: 'not a url' })).toEqual([]);
    expect(spMarketplaceHints(undefined)).toEqual([]);
  });

  it('adds them to a 400 from SP-API', () => {
    const classified = classifySpFailure(
      {
        type: 'upstream_http',
        status: 400,
        headers: {},
        body: { errors: [{ code: 'InvalidInput', message: 'Invalid MarketplaceId' }] },
        request: { method: 'GET', url: 'https://sellingpartnerapi-na.amazon.com/orders/v0/orders?MarketplaceIds=DE' },
      },
      CONTEXT,
    );
    expect(classified.hints).toContain('Did you mean A1PA6795UKMFR9? Got DE.');
  });
});

describe('an OAuth-shaped body from SP-API itself', () => {
  it('a 429 stays rate_limited: the status decides', () => {
    const classified = classifySpFailure(
      {
        type: 'upstream_http',
        status: 429,
        headers: { 'content-type': 'application/json' },
        body: { error: 'too_many_requests' },
        request: { method: 'GET', url: 'https://sellingpartnerapi-na.amazon.com/orders/v0/orders' },
      },
      CONTEXT,
    );
    expect([classified.error_kind, classified.error_code, classified.retryable, classified.upstream]).toEqual([
      'rate_limited',
      'RATE_LIMITED',
      true,
      'sp-api',
    ]);
  });
});

describe('client-side failures', () => {
  it('network failure -> upstream_client / TOOL_EXECUTION_FAILED from sp-api, retryable, only the system code kept', () => {
    const cause = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9 secret=abc'), { code: 'ECONNREFUSED' }),
    });
    const classified = classifySpFailure(
      {
        type: 'network',
        cause,
        request: {
          method: 'GET',
          url: 'https://sellingpartnerapi-eu.amazon.com/sellers/v1/marketplaceParticipations?x=1',
        },
      },
      CONTEXT,
    );
    expect(classified).toEqual({
      error_kind: 'upstream_client',
      upstream: 'sp-api',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      summary:
        'Could not reach sellingpartnerapi-eu.amazon.com (GET /sellers/v1/marketplaceParticipations) (ECONNREFUSED); no HTTP answer arrived.',
      details: [{ path: '', issue: 'network error ECONNREFUSED', received_type: 'null', network_code: 'ECONNREFUSED' }],
      hints: [
        'Retry after a short wait; if it keeps failing, check the network path to the SP-API endpoint (proxy, DNS, firewall) and the --upstream URL.',
      ],
    });
    expect(JSON.stringify(classified)).not.toContain('secret');
  });

  it('network failure without a code or request', () => {
    const classified = classifySpFailure({ type: 'network', cause: 'boom' }, CONTEXT);
    expect([
      classified.error_kind,
      classified.upstream,
      classified.error_code,
      classified.retryable,
      classified.summary,
    ]).toEqual([
      'upstream_client',
      'sp-api',
      'TOOL_EXECUTION_FAILED',
      true,
      'Could not reach SP-API; no HTTP answer arrived.',
    ]);
  });

  it('timeout -> upstream_client / TOOL_EXECUTION_FAILED from sp-api, retryable', () => {
    const classified = classifySpFailure(
      {
        type: 'timeout',
        timeoutMs: 2500,
        request: { method: 'POST', url: 'https://sellingpartnerapi-na.amazon.com/reports/2021-06-30/reports' },
      },
      CONTEXT,
    );
    expect(classified.error_kind).toBe('upstream_client');
    expect(classified.upstream).toBe('sp-api');
    expect(classified.error_code).toBe('TOOL_EXECUTION_FAILED');
    expect(classified.retryable).toBe(true);
    expect(classified.summary).toBe(
      'No answer from sellingpartnerapi-na.amazon.com (POST /reports/2021-06-30/reports) within 2500 ms.',
    );
    expect(classified.details).toEqual([
      { path: '', issue: 'timed out after 2500 ms', received_type: 'null', timeout_ms: 2500 },
    ]);
  });

  it('body coercion -> upstream_client / BODY_COERCION_INVALID_JSON for sp-api, not retryable', () => {
    const classified = classifySpFailure(
      { type: 'body_coercion', path: 'body', received: '{"reportType": GET_X}' },
      CONTEXT,
    );
    expect(classified.error_kind).toBe('upstream_client');
    expect(classified.upstream).toBe('sp-api');
    expect(classified.error_code).toBe('BODY_COERCION_INVALID_JSON');
    expect(classified.retryable).toBe(false);
    expect(classified.details).toEqual([
      { path: 'body', issue: 'the value looks like JSON text but does not parse as JSON', received_type: 'string' },
    ]);
    expect(classified.summary).toBe(
      'The argument body is text that looks like JSON but does not parse; nothing was sent to SP-API.',
    );
    expect(JSON.stringify(classified)).not.toContain('GET_X');
  });
});

describe('LWA token endpoint failures', () => {
  it.each([
    [
      400,
      { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : refresh_token' },
      false,
      'invalid_grant',
      'authorizes again',
    ],
    [
      401,
      { error: 'invalid_client', error_description: 'Client authentication failed' },
      false,
      'invalid_client',
      'Developer Central',
    ],
    [
      400,
      { error: 'unauthorized_client', error_description: 'Not authorized for requested operation' },
      false,
      'unauthorized_client',
      'refresh_token grant',
    ],
    [503, '', true, undefined, 'Retry'],
  ])('HTTP %i %j -> auth_error / AUTHENTICATION_ERROR', (status, body, retryable, oauthError, hint) => {
    const classified = classifySpFailure(
      {
        type: 'upstream_http',
        status,
        headers: { 'content-type': 'application/json' },
        body,
        request: { method: 'POST', url: 'https://api.amazon.com/auth/o2/token' },
      },
      CONTEXT,
    );
    expect(classified.error_kind).toBe('auth_error');
    expect(classified.error_code).toBe('AUTHENTICATION_ERROR');
    expect(classified.retryable).toBe(retryable);
    expect(classified.details[0]?.['upstream_code']).toBe(oauthError);
    expect(classified.hints.join(' ')).toContain(hint);
    // Login with Amazon is no upstream the envelope names: the credentials of the server failed
    expect(classified.upstream).toBeUndefined();
    expect(validateEnvelope(envelopeOf(classified))).toEqual({ valid: true, version: 2 });
  });

  it('an OAuth error body from anywhere is an LWA failure', () => {
    const classified = classifySpFailure(
      {
        type: 'upstream_http',
        status: 400,
        headers: {},
        body: { error: 'invalid_grant', error_description: 'expired' },
        request: { method: 'POST', url: 'http://127.0.0.1:8080/token' },
      },
      CONTEXT,
    );
    expect(classified.error_code).toBe('AUTHENTICATION_ERROR');
  });

  it('missing credentials name the variables', () => {
    const classified = classifySpLwaFailure(
      new LwaError('missing_credentials', 'not configured', { missing: ['LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN'] }),
    );
    expect(classified.error_kind).toBe('auth_error');
    expect(classified.error_code).toBe('AUTHENTICATION_ERROR');
    expect(classified.retryable).toBe(false);
    expect(classified.summary).toContain('LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN');
    expect(classified.details.map((detail) => detail.path)).toEqual(['LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN']);
  });
});
