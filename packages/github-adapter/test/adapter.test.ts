/**
 * The GitHub adapter's own rules, in-process: the classifier's rate-limit waits and hints, the
 * response meta, token redaction, the page cursor, the settings and the tool generation.
 */
import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { UpstreamHttpFailure } from '@mcp-envelope/core';
import { compileTool, createPipelineCaches } from '@mcp-envelope/core/adapter';
import { describe, expect, it } from 'vitest';

import {
  classifyGithubFailure,
  createGithubServer,
  decodePageCursor,
  encodePageCursor,
  fieldPointer,
  GITHUB_HINTS,
  GITHUB_LEFT_OUT_OPERATIONS,
  githubSettingsFromEnv,
  loadGithubOperations,
  parseGithubResponseMeta,
  redactGithubText,
} from '../src/index.js';

const NOW = new Date('2026-09-03T12:00:00Z');
const EPOCH = NOW.getTime() / 1000;

function failure(status: number, headers: Record<string, string>, body: unknown): UpstreamHttpFailure {
  return {
    type: 'upstream_http',
    status,
    headers,
    body,
    request: { method: 'GET', url: 'https://api.github.com/repos/octo-org/hello-world' },
  };
}

const classify = (status: number, headers: Record<string, string>, body: unknown) =>
  classifyGithubFailure(failure(status, headers, body), { tool: 'repos_get', now: NOW });

describe('rate limits by 403 and 429', () => {
  it('waits until the reset when no request is left (primary), whatever the local clock says', () => {
    const verdict = classifyGithubFailure(
      failure(
        403,
        {
          // GitHub's clock is 10 s behind this one: the wait is counted on GitHub's
          date: 'Thu, 03 Sep 2026 11:59:50 GMT',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(EPOCH + 290),
        },
        { message: 'API rate limit exceeded for user ID 1.' },
      ),
      { tool: 'repos_get', now: NOW },
    );
    expect([verdict.error_kind, verdict.error_code, verdict.retryable, verdict.meta]).toEqual([
      'rate_limited',
      'RATE_LIMITED',
      true,
      { retry_after_seconds: 300 },
    ]);
    expect(verdict.hints[0]).toBe(GITHUB_HINTS.primaryRateLimit);
  });

  it('waits Retry-After for a secondary limit, and GitHub’s minute when it names no wait', () => {
    const text = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' };
    const left = { 'x-ratelimit-remaining': '4000', 'x-ratelimit-reset': String(EPOCH + 1800) };
    expect(classify(403, { ...left, 'retry-after': '45' }, text).meta).toEqual({ retry_after_seconds: 45 });
    expect(classify(403, left, text).meta).toEqual({ retry_after_seconds: 60 });
    expect(classify(429, {}, text).meta).toEqual({ retry_after_seconds: 60 });
    expect(classify(403, left, text).hints[0]).toBe(GITHUB_HINTS.secondaryRateLimit);
  });

  it('leaves a 403 without any sign of a rate limit an auth_error naming the permission GitHub accepts', () => {
    const verdict = classify(
      403,
      { 'x-accepted-github-permissions': 'contents=read', 'x-ratelimit-remaining': '4999' },
      {
        message: 'Resource not accessible by personal access token',
        documentation_url: 'https://docs.github.com/rest',
      },
    );
    expect([verdict.error_kind, verdict.error_code, verdict.retryable, verdict.upstream]).toEqual([
      'auth_error',
      'UPSTREAM_HTTP_403',
      false,
      'github',
    ]);
    expect(verdict.hints).toEqual([
      'The token lacks a permission this call needs; GitHub accepts any of: contents=read.',
      "GitHub's documentation for this answer: https://docs.github.com/rest",
    ]);
  });

  it('names the scopes a classic token lacks', () => {
    const verdict = classify(
      403,
      { 'x-accepted-oauth-scopes': 'repo', 'x-oauth-scopes': 'read:user' },
      { message: 'Forbidden' },
    );
    expect(verdict.hints[0]).toBe(
      'The token lacks a scope this call needs: GitHub accepts repo; the token has read:user.',
    );
  });
});

describe('response meta', () => {
  it('states the budget window GitHub documents for the resource, and keeps reset_at as GitHub wrote it', () => {
    const headers = {
      'x-ratelimit-limit': '30',
      'x-ratelimit-remaining': '29',
      'x-ratelimit-used': '1',
      'x-ratelimit-reset': String(EPOCH + 42),
      'x-ratelimit-resource': 'search',
    };
    expect(parseGithubResponseMeta(headers, NOW)).toEqual({
      rate_limit: {
        limit: 30,
        window_seconds: 60,
        remaining: 29,
        used: 1,
        resource: 'search',
        reset_at: String(EPOCH + 42),
        reset_after_seconds: 42,
      },
    });
    expect(
      parseGithubResponseMeta({ 'x-ratelimit-limit': '5000', 'x-ratelimit-resource': 'somethingNew' }, NOW),
    ).toEqual({
      rate_limit: { limit: 5000, resource: 'somethingNew' },
    });
  });
});

describe('details and redaction', () => {
  it('writes GitHub field names as paths under the body argument', () => {
    expect(fieldPointer('commits[0].sha', 'body')).toBe('body/commits/0/sha');
    expect(fieldPointer('title', undefined)).toBe('title');
  });

  it.each([
    ['ghp_', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['gho_', 'gho_0123456789abcdefghijABCDEFGHIJ012345'],
    ['ghu_', 'ghu_0123456789abcdefghijABCDEFGHIJ012345'],
    ['ghs_', 'ghs_0123456789abcdefghijABCDEFGHIJ012345'],
    ['ghr_', 'ghr_0123456789abcdefghijABCDEFGHIJ012345'],
    ['github_pat_', 'github_pat_11ABCDEFG0123456789abc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW'],
    ['v1 installation', 'v1.0123456789abcdef0123456789abcdef01234567'],
    ['token scheme', 'token 0123456789abcdef0123456789abcdef01234567'],
  ])('replaces a %s token in any text', (_name, token) => {
    const redacted = redactGithubText(`failed: ${token}, try again`);
    expect(redacted).not.toContain(token.slice(-20));
    expect(redacted).toContain('[REDACTED]');
  });

  it('leaves words that only look like a prefix alone', () => {
    expect(redactGithubText('the ghp_ prefix marks a classic token; see v1.2.3')).toBe(
      'the ghp_ prefix marks a classic token; see v1.2.3',
    );
  });
});

describe('the page cursor', () => {
  it('keeps the path and query of the next link, without a prefix the upstream has', () => {
    const cursor = encodePageCursor(
      'issues_listForRepo',
      'https://ghe.example/api/v3/repositories/7/issues?page=2',
      'https://ghe.example/api/v3',
    );
    expect(decodePageCursor('issues_listForRepo', cursor)).toBe('/repositories/7/issues?page=2');
  });

  it('refuses a dot segment written percent-encoded, which fetch would resolve out of the upstream prefix', () => {
    const forged = (path: string): string =>
      Buffer.from(JSON.stringify({ v: 1, t: 'issues_listForRepo', p: path })).toString('base64url');
    // on https://ghe.example/api/v3 these would reach https://ghe.example/api/x or /x
    for (const path of ['/%2e%2e/x', '/.%2E/x', '/%2E./%2e%2e/x', '/repos/a/%2E%2e/%2e%2E/x'])
      expect(() => decodePageCursor('issues_listForRepo', forged(path))).toThrow(
        'page_cursor is not a cursor this tool gave: it does not hold a plain path.',
      );
    expect(decodePageCursor('issues_listForRepo', forged('/repos/a/b/issues?q=%2e%2e'))).toBe(
      '/repos/a/b/issues?q=%2e%2e',
    );
  });
});

describe('settings', () => {
  it('reads the token and the timeout, and refuses what cannot be used without quoting it', () => {
    expect(githubSettingsFromEnv({ GITHUB_TOKEN: ' ghp_x ', GITHUB_TIMEOUT_MS: '2500' })).toEqual({
      token: 'ghp_x',
      timeoutMs: 2500,
    });
    expect(() => githubSettingsFromEnv({ GITHUB_TOKEN: 'ghp_a b' })).toThrow(
      'GITHUB_TOKEN holds a blank or a line break inside it',
    );
    expect(() => githubSettingsFromEnv({ GITHUB_TOKEN: 'ghp_x', GITHUB_TIMEOUT_MS: '1.5' })).toThrow(
      'GITHUB_TIMEOUT_MS must be a positive integer (milliseconds)',
    );
  });
});

describe('tools from GitHub’s description', () => {
  const catalog = loadGithubOperations();

  it('serves every operation but the two that do not fit a JSON call, with unique names', () => {
    expect(catalog.packageVersion).toBe('23.0.2');
    expect(catalog.operations).toHaveLength(1221);
    expect(catalog.leftOut.map((entry) => entry.operationId).sort()).toEqual(
      Object.keys(GITHUB_LEFT_OUT_OPERATIONS).sort(),
    );
    expect(new Set(catalog.operations.map((operation) => operation.toolName)).size).toBe(1221);
    expect(catalog.operations.every((operation) => /^[A-Za-z0-9_]{1,128}$/.test(operation.toolName))).toBe(true);
  });

  it("has an input schema every tool compiles with core's argument pipeline (checked lazily at the first call)", () => {
    const caches = createPipelineCaches();
    const failures = catalog.operations.flatMap((operation) => {
      try {
        const tool = compileTool(operation.toolName, operation.inputSchema, {
          normalizationEnabled: true,
          strictUnknownFields: true,
          caches,
        });
        // an empty call: valid only for tools without required arguments, and never a throw
        tool.check({});
        return [];
      } catch (error) {
        return [`${operation.toolName}: ${String(error)}`];
      }
    });
    expect(failures).toEqual([]);
  }, 180_000);

  it('gives paged listings the cursor argument, and no other tool', () => {
    const list = catalog.operations.find((operation) => operation.toolName === 'issues_listForRepo');
    const get = catalog.operations.find((operation) => operation.toolName === 'repos_get');
    expect(list?.paginated).toBe(true);
    expect(Object.keys(list?.inputSchema['properties'] ?? {})).toContain('page_cursor');
    expect(get?.paginated).toBe(false);
    expect(Object.keys(get?.inputSchema['properties'] ?? {})).toEqual(['owner', 'repo']);
    expect(catalog.operations.filter((operation) => operation.paginated)).toHaveLength(280);
  });
});

describe('the conformance descriptor', () => {
  it('is exported, names the package bin, and takes the replay URL as --upstream', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      bin: Record<string, string>;
      exports: Record<string, unknown>;
    };
    const descriptor = JSON.parse(readFileSync(new URL('../conformance/server.json', import.meta.url), 'utf8')) as {
      id: string;
      bin: string;
      args: string[];
      credentials: string[];
      cases: string;
    };
    expect(manifest.exports['./conformance/server.json']).toBe('./conformance/server.json');
    expect(Object.keys(manifest.bin)).toEqual([descriptor.bin]);
    expect([descriptor.id, descriptor.args, descriptor.credentials, descriptor.cases]).toEqual([
      'github',
      ['--upstream', '{upstream}'],
      [],
      'conformance/cases',
    ]);
  });
});

describe('--conformance-fixtures', () => {
  it("adds the official suite's tools, whose thrown error is an internal_error envelope", async () => {
    const catalog = loadGithubOperations();
    const server = createGithubServer({
      catalog: { ...catalog, operations: catalog.operations.filter((operation) => operation.toolName === 'repos_get') },
      env: { GITHUB_TOKEN: 'ghp_fixture0000000000000000000000000001' },
      conformanceFixtures: true,
      envelope: { logger: { error: (): void => undefined, warn: (): void => undefined } },
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.envelope.connect(serverTransport);
    const client = new Client({ name: 'github-fixtures-test', version: '1.0.0' });
    await client.connect(clientTransport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names[0]).toBe('repos_get');
      expect(names).toContain('test_error_handling');
      const result = await client.callTool({ name: 'test_error_handling', arguments: {} });
      const envelope = result.structuredContent as Record<string, unknown>;
      expect([result.isError, envelope['error_kind'], envelope['error_code']]).toEqual([
        true,
        'internal_error',
        'INTERNAL_ERROR',
      ]);
    } finally {
      await client.close();
      await server.envelope.close();
    }
  });
});
