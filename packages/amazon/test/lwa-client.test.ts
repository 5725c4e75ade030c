import { createServer } from 'node:http';
import { createConnection } from 'node:net';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  createAmazonRedactor,
  LwaError,
  LwaTokenClient,
  LwaTokenClients,
  classifyLwaFailure,
  LwaSettingsError,
  lwaSettingsFromEnv,
} from '../src/index.js';
import { startSilentTokenEndpoint } from '../src/testing.js';

interface Reply {
  status: number;
  body: string;
  /** Whether the endpoint holds its answer until the test calls `answerHeld()`. */
  held?: boolean;
}

let reply: Reply;
let requests: URLSearchParams[] = [];
/** Wakes whoever waits for the endpoint to receive a request. */
const arrivals: (() => void)[] = [];
/** The answers a `held` reply keeps back until the test lets them go. */
const heldAnswers: (() => void)[] = [];

/** Resolves once the endpoint has received `count` requests. */
async function received(count: number): Promise<void> {
  while (requests.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
}

/** Sends the answers held back so far. */
function answerHeld(): void {
  for (const answer of heldAnswers.splice(0)) answer();
}
let baseUrl = '';
const server = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  request.on('end', () => {
    requests.push(new URLSearchParams(raw));
    for (const wake of arrivals.splice(0)) wake();
    const { status, body, held } = reply;
    const answer = (): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body);
    };
    if (held === true) heldAnswers.push(answer);
    else answer();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/o2/token`;
});
afterAll(async () => {
  answerHeld();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});
beforeEach(() => {
  answerHeld();
  requests = [];
  reply = {
    status: 200,
    body: JSON.stringify({ access_token: 'Atza|access-one', token_type: 'bearer', expires_in: 3600 }),
  };
});

const credentials = {
  clientId: 'amzn1.application-oa2-client.test',
  clientSecret: 'secret-value-1',
  refreshToken: 'Atzr|refresh-one',
};

describe('LwaTokenClient', () => {
  it('sends the refresh grant and caches the token until shortly before expiry', async () => {
    let clock = 1_000_000;
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl, now: () => clock }, createAmazonRedactor());
    expect(await client.accessToken()).toBe('Atza|access-one');
    expect(Object.fromEntries(requests[0]!)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'Atzr|refresh-one',
      client_id: 'amzn1.application-oa2-client.test',
      client_secret: 'secret-value-1',
    });
    clock += 3_000_000; // 3000 s later: still inside 3600 - 60
    expect(await client.accessToken()).toBe('Atza|access-one');
    expect(requests).toHaveLength(1);
    clock += 600_000; // 3600 s: past the refresh point
    reply = { status: 200, body: JSON.stringify({ access_token: 'Atza|access-two', expires_in: 3600 }) };
    expect(await client.accessToken()).toBe('Atza|access-two');
    expect(requests).toHaveLength(2);
  });

  it('lets each caller stop waiting when its signal aborts, and gives the request up when the last one does', async () => {
    const silent = await startSilentTokenEndpoint();
    // the real fetch, watched: which signal each token request was sent with
    const sent: AbortSignal[] = [];
    const watchedFetch: typeof fetch = (input, init) => {
      if (init?.signal) sent.push(init.signal);
      return fetch(input, init);
    };
    const client = new LwaTokenClient(
      { ...credentials, tokenUrl: silent.tokenUrl, fetch: watchedFetch },
      createAmazonRedactor(),
    );
    try {
      const [first, second] = [new AbortController(), new AbortController()];
      const firstToken = client.accessToken(first.signal).catch((caught: unknown) => caught);
      const secondToken = client.accessToken(second.signal).catch((caught: unknown) => caught);
      await silent.whenConnections(1);
      first.abort();
      const error = await firstToken;
      // settled by its own abort, not by the request's 10 s timeout: the message says which
      expect(LwaError.isInstance(error) && error.reason).toBe('token_endpoint_unavailable');
      expect((error as Error).message).toBe(
        'the call stopped waiting for the LWA token request (it was cancelled, or the server is closing)',
      );
      // the other caller still waits for the one request
      expect(sent.map((signal) => signal.aborted)).toEqual([false]);
      second.abort();
      await expect(secondToken).resolves.toMatchObject({ reason: 'token_endpoint_unavailable' });
      // nobody waits any more: the request was given up
      expect(sent.map((signal) => signal.aborted)).toEqual([true]);
      // and a later caller sends a request of its own
      const later = new AbortController();
      const laterToken = client.accessToken(later.signal).catch((caught: unknown) => caught);
      expect(sent.map((signal) => signal.aborted)).toEqual([true, false]);
      later.abort();
      await laterToken;
    } finally {
      silent.close();
    }
  });

  it('keeps the request going for the callers still waiting when one of them gives up', async () => {
    reply = { ...reply, held: true };
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const cancelled = new AbortController();
    const given = client.accessToken(cancelled.signal).catch((caught: unknown) => caught);
    const withSignal = client.accessToken(new AbortController().signal);
    const withoutSignal = client.accessToken();
    // the request is at the endpoint, its answer held back
    await received(1);
    cancelled.abort();
    expect(await given).toMatchObject({ reason: 'token_endpoint_unavailable' });
    answerHeld();
    expect(await Promise.all([withSignal, withoutSignal])).toEqual(['Atza|access-one', 'Atza|access-one']);
    expect(requests).toHaveLength(1);
  });

  it('never gives up a request that a caller without a signal waits for', async () => {
    reply = { ...reply, held: true };
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const withoutSignal = client.accessToken();
    const cancelled = new AbortController();
    const given = client.accessToken(cancelled.signal).catch((caught: unknown) => caught);
    cancelled.abort();
    expect(await given).toMatchObject({ reason: 'token_endpoint_unavailable' });
    await received(1);
    answerHeld();
    expect(await withoutSignal).toBe('Atza|access-one');
    expect(requests).toHaveLength(1);
  });

  it('answers a caller whose signal aborted before it asked without sending a request', async () => {
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const error = await client.accessToken(AbortSignal.abort()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'token_endpoint_unavailable' });
    // the next caller starts a request of its own rather than joining the one given up
    expect(await client.accessToken()).toBe('Atza|access-one');
    expect(requests).toHaveLength(1);
  });

  it('shares one request between concurrent callers, and invalidate forces a refresh', async () => {
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const tokens = await Promise.all([client.accessToken(), client.accessToken(), client.accessToken()]);
    expect(tokens).toEqual(['Atza|access-one', 'Atza|access-one', 'Atza|access-one']);
    expect(requests).toHaveLength(1);
    client.invalidate();
    await client.accessToken();
    expect(requests).toHaveLength(2);
  });

  it('names the missing variables without calling the endpoint', async () => {
    const client = new LwaTokenClient({ clientId: 'id', clientSecret: ' ', tokenUrl: baseUrl }, createAmazonRedactor());
    const error = await client.accessToken().catch((caught: unknown) => caught);
    expect(LwaError.isInstance(error)).toBe(true);
    expect((error as LwaError).reason).toBe('missing_credentials');
    expect((error as LwaError).missing).toEqual(['LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN']);
    expect(requests).toHaveLength(0);
  });

  it('reports an OAuth rejection without echoing any secret', async () => {
    reply = {
      status: 400,
      body: JSON.stringify({
        error: 'invalid_grant',
        error_description: 'The request has an invalid grant parameter : refresh_token',
      }),
    };
    const error = (await new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor())
      .accessToken()
      .catch((caught: unknown) => caught)) as LwaError;
    expect(error.reason).toBe('token_rejected');
    expect(error.oauthError).toBe('invalid_grant');
    expect(error.status).toBe(400);
    expect(error.message).not.toContain('Atzr|');
    expect(error.message).not.toContain('secret-value-1');
  });

  it('treats 5xx and unreachable endpoints as unavailable', async () => {
    reply = { status: 503, body: '<html>down</html>' };
    const unavailable = (await new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor())
      .accessToken()
      .catch((caught: unknown) => caught)) as LwaError;
    expect(unavailable.reason).toBe('token_endpoint_unavailable');
    expect(unavailable.status).toBe(503);
    const unreachable = (await new LwaTokenClient(
      { ...credentials, tokenUrl: 'http://127.0.0.1:1/token' },
      createAmazonRedactor(),
    )
      .accessToken()
      .catch((caught: unknown) => caught)) as LwaError;
    expect(unreachable.reason).toBe('token_endpoint_unavailable');
    expect(unreachable.message).toBe('the LWA token endpoint could not be reached');
  });

  it('reads its settings from env names', () => {
    expect(
      lwaSettingsFromEnv({
        LWA_CLIENT_ID: 'a',
        LWA_CLIENT_SECRET: 'b',
        LWA_REFRESH_TOKEN: 'c',
        LWA_TOKEN_URL: 'http://127.0.0.1:8080/auth/o2/token',
      }),
    ).toEqual({
      clientId: 'a',
      clientSecret: 'b',
      refreshToken: 'c',
      tokenUrl: 'http://127.0.0.1:8080/auth/o2/token',
    });
  });
});

describe('LWA_TOKEN_URL', () => {
  const advice =
    'set it to the token endpoint itself, e.g. https://api.amazon.com/auth/o2/token (its value is not shown, as it may hold a secret)';

  it.each([
    ['api.amazon.com/auth/o2/token', 'is not an absolute URL'],
    ['not a url', 'is not an absolute URL'],
    ['ftp://api.amazon.com/auth/o2/token', 'must be an http(s) URL'],
    ['Atzr|IwEBIA-secret-refresh-token', 'is not an absolute URL'],
    ['https://client:amzn1.oa2-cs.v1.secret@api.amazon.com/auth/o2/token', 'must not carry a user name or password'],
    ['https://api.amazon.com/auth/o2/token?client_secret=s3cret', 'must not carry a query string or a fragment'],
    ['https://api.amazon.com/auth/o2/token#s3cret', 'must not carry a query string or a fragment'],
    // a pasted line with more on it: the URL parser would encode the space, or drop the line break,
    // and send the rest to the token endpoint as part of its path
    ['https://api.amazon.com/auth/o2/token Atzr|IwEBIA-secret-refresh-token', 'must not contain blanks or line breaks'],
    [
      'https://api.amazon.com/auth/o2/token\nLWA_CLIENT_SECRET=amzn1.oa2-cs.v1.s3cret',
      'must not contain blanks or line breaks',
    ],
    ['https://api.amazon.com/auth/o2/to\tken', 'must not contain blanks or line breaks'],
    // a token sent over plain http to another host can be read on the way
    [
      'http://api.amazon.com/auth/o2/token',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
  ])('refuses %j: the message names the variable and never the value', (value, problem) => {
    const read = (): unknown => lwaSettingsFromEnv({ LWA_TOKEN_URL: value });
    expect(read).toThrow(LwaSettingsError);
    expect(read).toThrow(`LWA_TOKEN_URL ${problem}: ${advice}`);
  });

  it('reads an unset, empty or blank value as the default endpoint, and trims a usable one', () => {
    expect(lwaSettingsFromEnv({}).tokenUrl).toBeUndefined();
    expect(lwaSettingsFromEnv({ LWA_TOKEN_URL: '' }).tokenUrl).toBeUndefined();
    expect(lwaSettingsFromEnv({ LWA_TOKEN_URL: '  ' }).tokenUrl).toBeUndefined();
    expect(lwaSettingsFromEnv({ LWA_TOKEN_URL: ' https://api.amazon.co.uk/auth/o2/token ' }).tokenUrl).toBe(
      'https://api.amazon.co.uk/auth/o2/token',
    );
  });
});

describe('classifyLwaFailure', () => {
  it('missing credentials', () => {
    expect(classifyLwaFailure(new LwaError('missing_credentials', 'x', { missing: ['LWA_REFRESH_TOKEN'] }))).toEqual({
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      summary: 'No LWA credentials: LWA_REFRESH_TOKEN is not set.',
      details: [{ path: 'LWA_REFRESH_TOKEN', issue: 'LWA_REFRESH_TOKEN is not set', received_type: 'undefined' }],
      hints: ["Set LWA_REFRESH_TOKEN in the server's environment and restart it."],
    });
  });

  it('invalid_grant asks for re-authorization; invalid_client for the client credentials', () => {
    const grant = classifyLwaFailure(
      new LwaError('token_rejected', 'rejected', { oauthError: 'invalid_grant', status: 400 }),
    );
    expect(grant.summary).toBe('The LWA token endpoint rejected the credentials (invalid_grant).');
    expect(grant.details).toEqual([
      { path: '', issue: 'rejected', received_type: 'object', upstream_code: 'invalid_grant', http_status: 400 },
    ]);
    expect(grant.hints[0]).toMatch(/^The refresh token is expired, revoked/);
    const client = classifyLwaFailure(
      new LwaError('token_rejected', 'rejected', { oauthError: 'invalid_client', status: 401 }),
    );
    expect(client.hints[0]).toMatch(/^LWA_CLIENT_ID or LWA_CLIENT_SECRET is wrong/);
  });

  it('an unavailable endpoint is retryable', () => {
    const result = classifyLwaFailure(new LwaError('token_endpoint_unavailable', 'down', { status: 503 }));
    expect(result.retryable).toBe(true);
    expect(result.details).toEqual([{ path: '', issue: 'down', received_type: 'null', http_status: 503 }]);
  });
});

describe('LwaError', () => {
  it('holds none of the credentials a token endpoint echoes back', async () => {
    const echo = `refresh_token=${credentials.refreshToken} client_secret=${credentials.clientSecret}`;
    reply = {
      status: 400,
      body: JSON.stringify({ error: 'invalid_grant', error_description: `bad grant: ${echo}`, request_id: echo }),
    };
    const client = new LwaTokenClient({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect(error.message).toBe(
      'the LWA token endpoint rejected the refresh (invalid_grant): bad grant: refresh_token=[REDACTED] client_secret=[REDACTED]',
    );
    expect(error.requestId).toBe('refresh_token=[REDACTED] client_secret=[REDACTED]');
  });
});

describe('LwaTokenClients', () => {
  it('builds one client per key over the shared settings, keeps it, and builds a new one after forget', async () => {
    const clients = new LwaTokenClients<number>({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    const first = clients.client(1, { refreshToken: 'Atzr|refresh-one' });
    expect(clients.client(1, { refreshToken: 'Atzr|refresh-one' })).toBe(first);
    const second = clients.client(2, { refreshToken: 'Atzr|refresh-two' });
    expect(second).not.toBe(first);
    await second.accessToken();
    expect(requests.map((request) => request.get('refresh_token'))).toEqual(['Atzr|refresh-two']);
    clients.forget(1);
    expect(clients.client(1, { refreshToken: 'Atzr|refresh-one' })).not.toBe(first);
  });

  it('replaces the client of a key when its changes differ: a rotated refresh token gets its own token', async () => {
    const clients = new LwaTokenClients<number>({ ...credentials, tokenUrl: baseUrl }, createAmazonRedactor());
    await clients.client(1, { refreshToken: 'Atzr|seller-a' }).accessToken();
    reply = { status: 200, body: JSON.stringify({ access_token: 'Atza|for-seller-b', expires_in: 3600 }) };
    const rotated = clients.client(1, { refreshToken: 'Atzr|seller-b' });
    expect(await rotated.accessToken()).toBe('Atza|for-seller-b');
    expect(requests.map((request) => request.get('refresh_token'))).toEqual(['Atzr|seller-a', 'Atzr|seller-b']);
    // the same changes again keep the new client and its cached token
    expect(clients.client(1, { refreshToken: 'Atzr|seller-b' })).toBe(rotated);
    expect(clients.client(1, { refreshToken: 'Atzr|seller-b', tokenUrl: baseUrl })).not.toBe(rotated);
  });
});

describe('startSilentTokenEndpoint', () => {
  it('accepts connections, counts them and never answers, until closed', async () => {
    const silent = await startSilentTokenEndpoint();
    expect(silent.tokenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/o2\/token$/);
    const aborting = new AbortController();
    const answer = fetch(silent.tokenUrl, { method: 'POST', signal: aborting.signal }).catch((error: unknown) => error);
    // a raw client sees every byte the endpoint writes, so "no answer" is an empty read, not a timed wait
    const { port } = new URL(silent.tokenUrl);
    const raw = createConnection(Number(port), '127.0.0.1');
    let received = '';
    raw.on('data', (chunk: Buffer) => (received += chunk.toString()));
    // the endpoint destroys a held connection with its request unread, which the client may see as a reset
    const rawErrors: unknown[] = [];
    raw.on('error', (error: NodeJS.ErrnoException) => rawErrors.push(error.code));
    const rawClosed = new Promise((resolve) => raw.once('close', resolve));
    raw.write('POST /auth/o2/token HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
    await silent.whenConnections(2);
    expect(silent.connections()).toBe(2);
    silent.close();
    // closing drops the held connections, so the request fails rather than hanging, and nothing was written
    expect(await answer).toBeInstanceOf(TypeError);
    await rawClosed;
    expect(received).toBe('');
    expect(rawErrors.filter((code) => code !== 'ECONNRESET')).toEqual([]);
  });

  it('drops a connection its client resets, and goes on', async () => {
    const silent = await startSilentTokenEndpoint();
    try {
      const { port } = new URL(silent.tokenUrl);
      const socket = createConnection(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /auth/o2/token HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
      // once the endpoint holds the connection, a reset reaches it as an ECONNRESET error
      await silent.whenConnections(1);
      socket.resetAndDestroy();
      // still serving: without an error listener the reset would have ended this test process
      const again = new AbortController();
      const answer = fetch(silent.tokenUrl, { method: 'POST', signal: again.signal }).catch((error: unknown) => error);
      await silent.whenConnections(2);
      expect(silent.connections()).toBe(2);
      // the reset was sent before the second connection, so the endpoint has read it by now; one more
      // turn of the event loop lets its error (emitted on the next tick) run before the test ends
      await new Promise((resolve) => setImmediate(resolve));
      again.abort();
      await answer;
    } finally {
      silent.close();
    }
  });
});
