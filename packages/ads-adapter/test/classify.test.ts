import { validateEnvelope } from '@mcp-envelope/contract';
import type { ClassifiedError } from '@mcp-envelope/core';
import { describe, expect, it } from 'vitest';

import {
  ADS_ERROR_KINDS,
  classifyAdsFailure,
  classifyAdsHttpFailure,
  diagnoseAuthFailure,
  isProfileScopeProblem,
} from '../src/classify.js';
import { adsAdapter } from '../src/adapter.js';
import { parseAdsErrorBody } from '../src/error-body.js';
import { ADS_REGION_ALIASES } from '../src/hint-tables.js';
import { expectedMediaType } from '../src/media-types.js';
import { requestPath } from '@mcp-envelope/core/adapter';

const NOW = new Date('2026-01-20T08:00:00Z');
const HOST = 'https://advertising-api-eu.amazon.com';

function http(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  method = 'POST',
  path = '/sp/campaigns/list',
): ClassifiedError {
  return classifyAdsHttpFailure(
    { type: 'upstream_http', status, headers, body, request: { method, url: `${HOST}${path}?nextToken=abc` } },
    NOW,
  );
}

function asEnvelope(classified: ClassifiedError): Record<string, unknown> {
  const { meta, ...rest } = classified;
  return {
    ...rest,
    tool: 'a_tool',
    examples: [],
    _envelope_version: 2,
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

describe('status table', () => {
  const cases: readonly [number, string, string, boolean][] = [
    [400, 'upstream_http', 'UPSTREAM_HTTP_400', false],
    [401, 'auth_error', 'UPSTREAM_HTTP_401', false],
    [403, 'auth_error', 'UPSTREAM_HTTP_403', false],
    [404, 'upstream_http', 'UPSTREAM_HTTP_404', false],
    [405, 'upstream_http', 'UPSTREAM_HTTP_405', false],
    [406, 'upstream_http', 'UPSTREAM_HTTP_406', false],
    [408, 'upstream_http', 'UPSTREAM_HTTP_408', true],
    [409, 'upstream_http', 'UPSTREAM_HTTP_409', false],
    [413, 'upstream_http', 'UPSTREAM_HTTP_413', false],
    [415, 'upstream_http', 'UPSTREAM_HTTP_415', false],
    [422, 'upstream_http', 'UPSTREAM_HTTP_422', false],
    [425, 'upstream_http', 'UPSTREAM_HTTP_425', false],
    [429, 'rate_limited', 'RATE_LIMITED', true],
    [500, 'upstream_http', 'UPSTREAM_HTTP_500', true],
    [502, 'upstream_http', 'UPSTREAM_HTTP_502', true],
    [503, 'upstream_http', 'UPSTREAM_HTTP_503', true],
    [504, 'upstream_http', 'UPSTREAM_HTTP_504', true],
    [599, 'upstream_http', 'UPSTREAM_HTTP_599', true],
  ];
  for (const [status, kind, code, retryable] of cases) {
    it(`${status} -> ${kind} / ${code} / retryable ${retryable}, from ads-api`, () => {
      const classified = http(status, { message: 'x' });
      expect([classified.error_kind, classified.error_code, classified.retryable, classified.upstream]).toEqual([
        kind,
        code,
        retryable,
        'ads-api',
      ]);
      expect(classified.details[0]?.['http_status']).toBe(status);
      expect(validateEnvelope(asEnvelope(classified))).toEqual({ valid: true, version: 2 });
    });
  }

  it('a 403 with X-RateLimit-Remaining 0 and a reset, without the throttled flag, is a rate limit', () => {
    const reset = String(NOW.getTime() / 1000 + 30);
    const classified = http(
      403,
      { message: 'Forbidden' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    );
    expect([classified.error_kind, classified.error_code, classified.retryable, classified.upstream]).toEqual([
      'rate_limited',
      'RATE_LIMITED',
      true,
      'ads-api',
    ]);
    expect(classified.summary).toBe(
      'The Amazon Ads API throttled POST /sp/campaigns/list (HTTP 403 Forbidden): Forbidden',
    );
    expect(validateEnvelope(asEnvelope(classified))).toEqual({ valid: true, version: 2 });
  });

  it('summary names method, path without query, status and the upstream message', () => {
    expect(http(409, { code: 'CONFLICT', details: 'Campaign was changed' }).summary).toBe(
      'The Amazon Ads API answered POST /sp/campaigns/list with HTTP 409 Conflict: Campaign was changed',
    );
  });
});

describe('status hints', () => {
  const cases: readonly [string, number, unknown, string, string, string][] = [
    [
      '406 names the media type',
      406,
      { message: 'Not Acceptable' },
      'POST',
      '/sb/v4/campaigns/list',
      'POST /sb/v4/campaigns/list expects Content-Type and Accept: application/vnd.sbcampaignresource.v4+json.',
    ],
    [
      '415 on an unknown endpoint explains the pattern',
      415,
      { message: 'Unsupported' },
      'POST',
      '/some/new/endpoint',
      'application/vnd.<resource>.v<N>+json',
    ],
    [
      '415 on get report',
      415,
      '',
      'GET',
      '/reporting/reports/abc-1',
      'GET /reporting/reports/abc-1 expects Content-Type and Accept: application/vnd.createasyncreportrequest.v3+json.',
    ],
    ['409', 409, { code: 'CONFLICT', message: 'x' }, 'PUT', '/sp/campaigns', 'read it again'],
    ['413', 413, { code: 'CONTENT_TOO_LARGE', message: 'x' }, 'POST', '/sp/keywords', 'send fewer items per call'],
    ['422', 422, { code: 'X', message: 'x' }, 'POST', '/sp/keywords', 'a field value was rejected'],
    ['500 timeout text', 500, { message: 'Execution timed out' }, 'POST', '/sp/keywords', 'gateway gave up waiting'],
    [
      '400 duplicate text',
      400,
      { code: '400', detail: 'The Request is a duplicate of : 1-2-3' },
      'POST',
      '/reporting/reports',
      'poll the existing report id',
    ],
  ];
  for (const [name, status, body, method, path, fragment] of cases) {
    it(name, () => {
      const classified = http(status, body, {}, method, path);
      expect(classified.hints.join('\n')).toContain(fragment);
    });
  }
});

describe('401/403 diagnosis', () => {
  const cases: readonly [unknown, string | undefined][] = [
    [{ code: 'UNAUTHORIZED', details: 'Scope header is missing' }, 'scope_missing'],
    [{ code: 'UNAUTHORIZED', details: 'Amazon-Advertising-API-Scope header is required' }, 'scope_missing'],
    [{ code: 'UNAUTHORIZED', details: 'Not authorized to access scope 123' }, 'scope_not_authorized'],
    [{ code: 'UNAUTHORIZED', details: 'No matching advertiser found for scope' }, 'scope_not_authorized'],
    [{ code: 'UNAUTHORIZED', message: 'Invalid scope' }, 'scope_not_authorized'],
    [{ message: 'The access token has expired' }, 'token_expired'],
    [{ code: '401', details: 'Token is invalid or revoked' }, 'token_expired'],
    [{ code: '401', details: 'Authentication failed' }, 'client_id_rejected'],
    [{ code: 'UNAUTHORIZED', details: 'Invalid client id' }, 'client_id_rejected'],
    [
      { message: "'x' not a valid key=value pair (missing equal-sign) in Authorization header" },
      'authorization_header_malformed',
    ],
    [{ message: 'Missing Authentication Token' }, 'authorization_header_malformed'],
    [
      { code: 'NOT_AUTHORIZED', details: 'User is not allowed to access the requested products.' },
      'resource_permission',
    ],
    [{ message: 'Forbidden' }, 'resource_permission'],
    [{ code: 'UNAUTHORIZED' }, undefined],
    ['', undefined],
  ];
  for (const [body, expected] of cases) {
    it(`${JSON.stringify(body)} -> ${String(expected)}`, () => {
      expect(diagnoseAuthFailure(parseAdsErrorBody(body, 401))).toBe(expected);
    });
  }

  it('an undiagnosed 401 gets the checklist hint', () => {
    const classified = http(401, { code: 'UNAUTHORIZED' });
    expect(classified.hints).toEqual([
      'Check, in order: LWA_CLIENT_ID is the client id of an application approved for the Ads API; LWA_REFRESH_TOKEN was issued to that application; the active profile (set_active_profile) belongs to the authorized account and to the current region.',
    ]);
  });
});

describe('profile-scope 400s', () => {
  const cases: readonly [number, unknown, boolean][] = [
    [400, { code: '400', details: 'Advertiser ID cannot be decrypted' }, true],
    [400, { code: 'INVALID_ARGUMENT', details: 'Invalid advertiserId' }, true],
    [400, { code: 'INVALID_ARGUMENT', details: 'Invalid marketplace id' }, true],
    [400, { code: 'UNSUPPORTED_MARKETPLACE', message: 'x' }, true],
    [400, { error: [{ index: 0, errors: [{ code: 'UNSUPPORTED_MARKETPLACE', message: 'y' }] }] }, true],
    [400, { code: 'INVALID_ARGUMENT', details: 'name too long' }, false],
    [422, { code: '422', details: 'Invalid marketplace id' }, false],
  ];
  for (const [status, body, expected] of cases) {
    it(`${status} ${JSON.stringify(body)} -> ${expected}`, () => {
      expect(isProfileScopeProblem(status, parseAdsErrorBody(body, status))).toBe(expected);
    });
  }

  it('keeps upstream Warning headers before the profile warning', () => {
    const classified = http(
      400,
      { code: '400', details: 'Advertiser ID cannot be decrypted' },
      { Warning: '199 - "stale"' },
    );
    expect(classified.meta?.warnings?.map((warning) => warning.kind)).toEqual([
      'upstream_warning',
      'profile_scope_warning',
    ]);
    expect(validateEnvelope(asEnvelope(classified))).toEqual({ valid: true, version: 2 });
  });
});

describe('client-side failures', () => {
  it('network failure: upstream_client / TOOL_EXECUTION_FAILED from ads-api, retryable, the system code only', () => {
    const cause = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1 secret=abc'), { code: 'ECONNREFUSED' }),
    });
    const classified = classifyAdsFailure(
      {
        type: 'network',
        cause,
        request: { method: 'get', url: 'https://advertising-api-fe.amazon.com/v2/profiles?token=x' },
      },
      { tool: 'list_profiles', now: NOW },
    );
    expect(classified).toEqual({
      error_kind: 'upstream_client',
      upstream: 'ads-api',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      summary:
        'Could not reach advertising-api-fe.amazon.com (GET /v2/profiles) (ECONNREFUSED); no HTTP answer arrived.',
      details: [{ path: '', issue: 'network error ECONNREFUSED', received_type: 'null', network_code: 'ECONNREFUSED' }],
      hints: [
        'The Ads API host could not be reached: check the network, the region (set_region) and any --upstream override, then retry.',
      ],
    });
  });

  it('network failure without request or code', () => {
    const classified = classifyAdsFailure({ type: 'network', cause: 'weird' }, { tool: 't', now: NOW });
    expect(classified.details).toEqual([
      { path: '', issue: 'the request failed before any HTTP answer', received_type: 'null' },
    ]);
    expect(classified.summary).toBe('Could not reach the Amazon Ads API; no HTTP answer arrived.');
  });

  it('timeout: retryable upstream_client from ads-api', () => {
    const classified = classifyAdsFailure(
      { type: 'timeout', timeoutMs: 1500, request: { method: 'POST', url: 'http://127.0.0.1:9/sp/campaigns/list' } },
      { tool: 't', now: NOW },
    );
    expect([
      classified.error_kind,
      classified.upstream,
      classified.error_code,
      classified.retryable,
      classified.summary,
    ]).toEqual([
      'upstream_client',
      'ads-api',
      'TOOL_EXECUTION_FAILED',
      true,
      'No answer from 127.0.0.1:9 (POST /sp/campaigns/list) within 1500 ms.',
    ]);
    expect(classified.details).toEqual([
      { path: '', issue: 'timed out after 1500 ms', received_type: 'null', timeout_ms: 1500 },
    ]);
  });

  it('body coercion: BODY_COERCION_INVALID_JSON, not retryable', () => {
    const classified = classifyAdsFailure(
      { type: 'body_coercion', path: 'body/campaigns', received: '[{"name":' },
      { tool: 't', now: NOW },
    );
    expect([classified.error_kind, classified.upstream, classified.error_code, classified.retryable]).toEqual([
      'upstream_client',
      'ads-api',
      'BODY_COERCION_INVALID_JSON',
      false,
    ]);
    expect(classified.details).toEqual([
      {
        path: 'body/campaigns',
        issue: 'the value looks like JSON text but does not parse as JSON',
        received_type: 'string',
      },
    ]);
  });

  it('every kind it returns is advertised, with its one upstream', () => {
    expect(ADS_ERROR_KINDS).toEqual(['upstream_http', 'upstream_client', 'auth_error', 'rate_limited']);
    expect(adsAdapter.upstreams).toEqual(['ads-api']);
  });
});

describe('media types', () => {
  const cases: readonly [string, string, string | undefined][] = [
    ['POST', '/sp/campaigns/list', 'application/vnd.spCampaign.v3+json'],
    ['post', 'https://advertising-api.amazon.com/sp/campaigns?x=1', 'application/vnd.spCampaign.v3+json'],
    ['PUT', '/sp/campaigns/', 'application/vnd.spCampaign.v3+json'],
    ['GET', '/sp/campaigns', undefined],
    ['GET', '/reporting/reports/0f-1e', 'application/vnd.createasyncreportrequest.v3+json'],
    ['GET', '/reporting/reports/', undefined],
    ['POST', '/sb/v4/campaigns/list', 'application/vnd.sbcampaignresource.v4+json'],
    ['GET', '/v2/profiles', undefined],
  ];
  for (const [method, url, expected] of cases) {
    it(`${method} ${url} -> ${String(expected)}`, () => {
      expect(expectedMediaType(method, url)).toBe(expected);
    });
  }

  it('requestPath strips scheme, host, query, fragment and trailing slashes', () => {
    expect(requestPath('https://h.example:8443/a/b/?q=1#f')).toBe('/a/b');
    expect(requestPath('http://h')).toBe('/');
    expect(requestPath('x/y')).toBe('/x/y');
  });
});

describe('region aliases', () => {
  it('every alias leads to a selectable region', () => {
    expect(new Set(Object.values(ADS_REGION_ALIASES))).toEqual(new Set(['na', 'eu', 'fe']));
    expect([
      ADS_REGION_ALIASES.us,
      ADS_REGION_ALIASES.in,
      ADS_REGION_ALIASES.jp,
      ADS_REGION_ALIASES['far east'],
    ]).toEqual(['na', 'eu', 'fe', 'fe']);
  });
});
