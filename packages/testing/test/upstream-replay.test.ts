import { afterEach, describe, expect, it } from 'vitest';

import { DEFAULT_REPLAY_ACCESS_TOKEN, routeMatches, startUpstreamReplay } from '../src/upstream-replay.js';
import type { UpstreamReplay } from '../src/index.js';

const open: UpstreamReplay[] = [];

async function replay(...parameters: Parameters<typeof startUpstreamReplay>): Promise<UpstreamReplay> {
  const started = await startUpstreamReplay(...parameters);
  open.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function get(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; type: string | null; body: string; headers: Headers }> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
    headers: response.headers,
  };
}

describe('routes', () => {
  it('answers by method and path with the recorded status, headers and body', async () => {
    const server = await replay({
      routes: [
        {
          method: 'get',
          path: '/orders/v0/orders',
          response: {
            status: 429,
            headers: { 'Retry-After': '3', 'x-amzn-RequestId': 'req-7' },
            body: { errors: [{ code: 'QuotaExceeded' }] },
          },
        },
      ],
    });
    const answer = await get(`${server.url}/orders/v0/orders?MarketplaceIds=A1PA6795UKMFR9`);
    expect([answer.status, answer.type, answer.body]).toEqual([
      429,
      'application/json',
      '{"errors":[{"code":"QuotaExceeded"}]}',
    ]);
    expect([answer.headers.get('retry-after'), answer.headers.get('x-amzn-requestid')]).toEqual(['3', 'req-7']);
    expect(
      server.requests.map((request) => [request.method, request.path, request.rawQuery, request.answeredBy]),
    ).toEqual([['GET', '/orders/v0/orders', 'MarketplaceIds=A1PA6795UKMFR9', 'route']]);
  });

  it('a route naming query parameters matches only requests carrying those values', async () => {
    const server = await replay({
      routes: [{ path: '/items', query: { page: '2' }, response: { status: 200, body: 'second page' } }],
    });
    expect((await get(`${server.url}/items?page=2&size=5`)).body).toBe('second page');
    expect((await get(`${server.url}/items?page=3`)).status).toBe(599);
  });

  it('a route added later wins; a string body keeps its recorded content type or none', async () => {
    const server = await replay({ routes: [{ path: '/a', response: { status: 200, body: 'first' } }] });
    server.route({
      path: '/a',
      response: { status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>down</h1>' },
    });
    const answer = await get(`${server.url}/a`);
    expect([answer.status, answer.type, answer.body]).toEqual([503, 'text/html', '<h1>down</h1>']);
    server.route({ path: '/plain', response: { status: 500, body: '' } });
    const plain = await get(`${server.url}/plain`);
    expect([plain.status, plain.type, plain.body]).toEqual([500, null, '']);
  });

  it('ignores recorded framing headers that would contradict the body sent', async () => {
    const server = await replay({
      routes: [
        {
          path: '/x',
          response: { status: 200, headers: { 'Content-Length': '9999', Connection: 'close' }, body: { ok: true } },
        },
      ],
    });
    const answer = await get(`${server.url}/x`);
    expect([answer.status, answer.body, answer.headers.get('content-length')]).toEqual([200, '{"ok":true}', '11']);
  });

  it('routeMatches compares method case-insensitively and named query values exactly', () => {
    const route = { method: 'post', path: '/p', query: { a: '1' }, response: { status: 200 } };
    expect(routeMatches(route, 'POST', '/p', new URLSearchParams('a=1&b=2'))).toBe(true);
    expect(routeMatches(route, 'GET', '/p', new URLSearchParams('a=1'))).toBe(false);
    expect(routeMatches(route, 'POST', '/p', new URLSearchParams('a=10'))).toBe(false);
    expect(routeMatches(route, 'POST', '/q', new URLSearchParams('a=1'))).toBe(false);
  });
});

describe('queue, standing answer, unscripted requests', () => {
  it('serves queued answers first in first out, then the standing answer, then 599', async () => {
    const server = await replay();
    server.enqueue({ status: 200, body: { n: 1 } }, { status: 201, body: { n: 2 } });
    expect((await get(`${server.url}/q`)).body).toBe('{"n":1}');
    expect((await get(`${server.url}/q`)).status).toBe(201);
    const unscripted = await get(`${server.url}/q?x=1`, { method: 'DELETE' });
    expect([unscripted.status, unscripted.body]).toEqual([599, '{"message":"unscripted request DELETE /q?x=1"}']);
    server.respond({ status: 204 });
    expect((await get(`${server.url}/anything`)).status).toBe(204);
    server.reset();
    expect((await get(`${server.url}/anything`)).status).toBe(599);
    expect(server.requests.map((request) => request.answeredBy)).toEqual([
      'queue',
      'queue',
      'unscripted',
      'standing',
      'unscripted',
    ]);
  });

  it('dropConnection closes the socket without an HTTP answer', async () => {
    const server = await replay({ routes: [{ path: '/gone', response: { status: 200, dropConnection: true } }] });
    const failure = await fetch(`${server.url}/gone`).then(
      () => 'answered',
      (error: unknown) => (error instanceof TypeError ? error.message : 'other'),
    );
    expect(failure).toBe('fetch failed');
    expect(server.requests.map((request) => request.answeredBy)).toEqual(['route']);
  });

  it('waits delayMs before answering', async () => {
    const server = await replay({ standing: { status: 200, body: 'late', delayMs: 150 } });
    const start = performance.now();
    expect((await get(`${server.url}/slow`)).body).toBe('late');
    // 10 ms of slack: the event loop reads its clock once per turn, so a timer may fire a little early by ours
    expect(performance.now() - start).toBeGreaterThanOrEqual(140);
  });
});

describe('whenRequests', () => {
  it('resolves once enough matching requests have arrived, before their delayed answers, and at once after', async () => {
    const server = await replay({ standing: { status: 200, body: 'late', delayMs: 60_000 } });
    const aborting = new AbortController();
    const send = (path: string): Promise<unknown> =>
      fetch(`${server.url}${path}`, { signal: aborting.signal }).catch(() => undefined);
    const pending = [send('/other')];
    await server.whenRequests(1);
    const widgets = server.whenRequests(2, (request) => request.path.startsWith('/widgets/'));
    pending.push(send('/widgets/1'), send('/widgets/2'));
    await widgets;
    // none of them is answered yet: the requests are logged when they arrive
    expect(server.requests.map((request) => request.path).sort()).toEqual(['/other', '/widgets/1', '/widgets/2']);
    // already true: resolves without another request
    await server.whenRequests(3);
    aborting.abort();
    await Promise.all(pending);
  });
});

describe('the token endpoint', () => {
  it('hands out the replay token and records the form body apart from API requests', async () => {
    const server = await replay();
    const answer = await fetch(server.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'refresh-r' }),
    });
    expect(await answer.json()).toEqual({
      access_token: DEFAULT_REPLAY_ACCESS_TOKEN,
      token_type: 'bearer',
      expires_in: 3600,
    });
    expect(server.tokenUrl).toBe(`${server.url}/oauth2/token`);
    expect(server.tokenRequests.map((request) => new URLSearchParams(request.body).get('grant_type'))).toEqual([
      'refresh_token',
    ]);
    expect(server.requests).toEqual([]);
  });

  it('answers what setTokenResponse says until it is reset, on a custom path', async () => {
    const server = await replay({ tokenPath: '/oauth/token', accessToken: 'vendor-custom' });
    server.setTokenResponse({ status: 400, body: { error: 'invalid_grant' } });
    expect((await get(server.tokenUrl, { method: 'POST' })).status).toBe(400);
    server.setTokenResponse(undefined);
    expect(JSON.parse((await get(server.tokenUrl, { method: 'POST' })).body)).toEqual({
      access_token: 'vendor-custom',
      token_type: 'bearer',
      expires_in: 3600,
    });
  });
});
