import { describe, expect, it } from 'vitest';

import type { UpstreamHttpFailure } from '../../src/adapter.js';
import { classifyRestFailure, restErrorDetails } from '../../src/http-kit/index.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const NOW_EPOCH = NOW.getTime() / 1000;
const OPTIONS = { upstream: 'example-api', apiName: 'Example API' } as const;
const CONTEXT = { tool: 'list_items', now: NOW };

function http(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamHttpFailure {
  return {
    type: 'upstream_http',
    status,
    headers,
    body,
    request: { method: 'GET', url: 'https://api.example.test/items?token=x' },
  };
}

describe('classifyRestFailure: rate limits of any status', () => {
  it('a 403 with remaining 0 and an epoch reset is rate_limited, retryable, the wait in _meta', () => {
    const classified = classifyRestFailure(
      http(
        403,
        { message: 'API rate limit exceeded for user ID 1.' },
        {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(NOW_EPOCH + 120),
        },
      ),
      CONTEXT,
      OPTIONS,
    );
    expect(classified).toEqual({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      upstream: 'example-api',
      summary:
        'Example API rate limit exceeded on GET /items (HTTP 403); retry after 120 s: API rate limit exceeded for user ID 1.',
      details: [
        {
          path: '',
          issue: 'API rate limit exceeded for user ID 1.',
          received_type: 'object',
          http_status: 403,
          rate_limit_reason: 'remaining-zero',
        },
      ],
      hints: [
        'The upstream rate limit is spent: wait 120 s (_meta.retry_after_seconds), then send the call again; calls sent sooner are refused the same way.',
      ],
      meta: { retry_after_seconds: 120 },
    });
  });

  it('a 429 without headers is rate_limited without a wait', () => {
    const classified = classifyRestFailure(http(429, ''), CONTEXT, OPTIONS);
    expect(classified).toMatchObject({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true });
    expect(classified.meta).toBeUndefined();
    expect(classified.details[0]).toMatchObject({ http_status: 429, rate_limit_reason: 'status-429' });
  });
});

describe('classifyRestFailure: the status table and error bodies', () => {
  it('a plain 403 stays auth_error / UPSTREAM_HTTP_403, not retryable', () => {
    expect(
      classifyRestFailure(http(403, { message: 'Resource not accessible by integration' }), CONTEXT, OPTIONS),
    ).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'UPSTREAM_HTTP_403',
      retryable: false,
      upstream: 'example-api',
    });
  });

  it('a 422 with GitHub-style errors[] gives one detail per field', () => {
    const classified = classifyRestFailure(
      http(422, {
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }, 'labels must be an array'],
      }),
      CONTEXT,
      OPTIONS,
    );
    expect(classified.error_code).toBe('UPSTREAM_HTTP_422');
    expect(classified.retryable).toBe(false);
    expect(classified.details).toEqual([
      { path: '', issue: 'Validation Failed', received_type: 'object', http_status: 422 },
      {
        path: 'title',
        issue: 'missing_field (Issue)',
        received_type: 'object',
        http_status: 422,
        upstream_code: 'missing_field',
        resource: 'Issue',
      },
      { path: '', issue: 'labels must be an array', received_type: 'string', http_status: 422 },
    ]);
  });

  it('a problem+json 400 with an errors extension of pointers gives their paths', () => {
    const body = {
      type: 'https://example.net/validation-error',
      title: 'Your request is not valid.',
      errors: [
        { detail: 'must be a positive integer', pointer: '#/age' },
        { detail: "must be 'green', 'red' or 'blue'", pointer: '#/profile/color' },
      ],
    };
    expect(restErrorDetails(body, 400, 'application/problem+json').details).toEqual([
      {
        path: '',
        issue: 'Your request is not valid.',
        received_type: 'object',
        http_status: 400,
        problem_type: 'https://example.net/validation-error',
        title: 'Your request is not valid.',
      },
      { path: 'age', issue: 'must be a positive integer', received_type: 'object', http_status: 400 },
      { path: 'profile/color', issue: "must be 'green', 'red' or 'blue'", received_type: 'object', http_status: 400 },
    ]);
  });

  it('a 503 HTML page is upstream_http, retryable, summarized without markup', () => {
    const classified = classifyRestFailure(
      http(503, '<html><title>Service Unavailable</title><body>down</body></html>', { 'content-type': 'text/html' }),
      CONTEXT,
      OPTIONS,
    );
    expect(classified).toMatchObject({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_503',
      retryable: true,
      summary: 'Example API answered HTTP 503 to GET /items',
      details: [{ path: '', issue: 'HTML error page: Service Unavailable', received_type: 'string', http_status: 503 }],
    });
  });

  it('a timeout goes through the client-failure table with the upstream named', () => {
    expect(
      classifyRestFailure(
        { type: 'timeout', timeoutMs: 500, request: { method: 'GET', url: 'https://api.example.test/x' } },
        CONTEXT,
        OPTIONS,
      ),
    ).toMatchObject({
      error_kind: 'upstream_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
      upstream: 'example-api',
    });
  });
});
