import { describe, expect, it } from 'vitest';

import { readSuccessBody } from '../../src/index.js';
import { classifyClientFailure, requestPath, responseMetaFromHeaders } from '../../src/adapter-entry.js';
import { networkErrorCode, requestHost } from '../../src/upstream-body/index.js';
import type { ClientFailureFamily } from '../../src/adapter-entry.js';

const FAMILY: ClientFailureFamily = {
  upstream: 'example-api',
  upstreamLabel: 'the Example API',
  hints: { network: 'Check the network.', timeout: 'Ask for less.', bodyCoercion: 'Send an object.' },
};
const REQUEST = { method: 'post', url: 'https://api.example.test/v2/items/list?token=abc' };

describe('classifyClientFailure', () => {
  it('network failures name the system code, never the message', () => {
    const cause = Object.assign(new TypeError('fetch failed: secret-host-detail'), { cause: { code: 'ECONNREFUSED' } });
    expect(classifyClientFailure({ type: 'network', cause, request: REQUEST }, FAMILY)).toEqual({
      error_kind: 'upstream_client',
      upstream: 'example-api',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      summary: 'Could not reach api.example.test (POST /v2/items/list) (ECONNREFUSED); no HTTP answer arrived.',
      details: [{ path: '', issue: 'network error ECONNREFUSED', received_type: 'null', network_code: 'ECONNREFUSED' }],
      hints: ['Check the network.'],
    });
    expect(classifyClientFailure({ type: 'network', cause: new Error('x') }, FAMILY).summary).toBe(
      'Could not reach the Example API; no HTTP answer arrived.',
    );
  });

  it('timeouts carry timeout_ms', () => {
    expect(classifyClientFailure({ type: 'timeout', timeoutMs: 2500, request: REQUEST }, FAMILY)).toEqual({
      error_kind: 'upstream_client',
      upstream: 'example-api',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      summary: 'No answer from api.example.test (POST /v2/items/list) within 2500 ms.',
      details: [{ path: '', issue: 'timed out after 2500 ms', received_type: 'null', timeout_ms: 2500 }],
      hints: ['Ask for less.'],
    });
  });

  it('broken JSON text in a body argument', () => {
    expect(classifyClientFailure({ type: 'body_coercion', path: 'body', received: '{"a":' }, FAMILY)).toEqual({
      error_kind: 'upstream_client',
      upstream: 'example-api',
      error_code: 'BODY_COERCION_INVALID_JSON',
      retryable: false,
      summary:
        'The argument body is text that looks like JSON but does not parse; nothing was sent to the Example API.',
      details: [
        { path: 'body', issue: 'the value looks like JSON text but does not parse as JSON', received_type: 'string' },
      ],
      hints: ['Send an object.'],
    });
  });
});

describe('request description helpers', () => {
  it('requestPath drops scheme, host, query and trailing slashes', () => {
    expect(requestPath('https://h.test/a/b/?x=1#f')).toBe('/a/b');
    expect(requestPath('https://h.test')).toBe('/');
    expect(requestPath('a/b')).toBe('/a/b');
  });

  it('requestHost falls back when the URL is missing or broken', () => {
    expect(requestHost('http://127.0.0.1:8080/x', 'fallback')).toBe('127.0.0.1:8080');
    expect(requestHost(undefined, 'fallback')).toBe('fallback');
    expect(requestHost('not a url', 'fallback')).toBe('fallback');
  });

  it('networkErrorCode walks the cause chain and ignores non-codes', () => {
    expect(networkErrorCode({ cause: { cause: { code: 'UND_ERR_SOCKET' } } })).toBe('UND_ERR_SOCKET');
    expect(networkErrorCode({ code: 'lower case' })).toBeUndefined();
    expect(networkErrorCode('ECONNRESET')).toBeUndefined();
  });
});

describe('responseMetaFromHeaders', () => {
  it('assembles rate_limit, retry_after_seconds and warnings from one response', () => {
    const names = { limit: ['x-ratelimit-limit'], remaining: ['x-ratelimit-remaining'], reset: ['x-ratelimit-reset'] };
    expect(
      responseMetaFromHeaders(
        { 'X-RateLimit-Limit': '5', 'Retry-After': '2', Warning: '199 - "stale"' },
        new Date(0),
        names,
      ),
    ).toEqual({
      rate_limit: { limit_per_second: 5 },
      retry_after_seconds: 2,
      warnings: [
        {
          kind: 'upstream_warning',
          summary: '199 - "stale"',
          details: [{ code: '199', agent: '-', text: 'stale' }],
          hints: [],
        },
      ],
    });
    expect(responseMetaFromHeaders(undefined, new Date(0), names)).toEqual({});
  });
});

describe('readSuccessBody', () => {
  it('parses JSON, keeps text, and turns an empty body into {}', async () => {
    expect(await readSuccessBody(new Response('{"a":1}'))).toEqual({ a: 1 });
    expect(await readSuccessBody(new Response('plain'))).toBe('plain');
    expect(await readSuccessBody(new Response(''))).toEqual({});
  });
});
