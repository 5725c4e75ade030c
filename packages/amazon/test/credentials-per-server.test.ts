import { createEnvelopeServer } from '@mcp-envelope/core';
import type { EnvelopeAdapter, EnvelopeServer, Redactor } from '@mcp-envelope/core';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  classifyAmazonCredentialFailure,
  createAmazonRedactor,
  isAmazonCredentialError,
  LwaError,
  LwaTokenClient,
} from '../src/index.js';
import { REPLAY_ACCESS_TOKEN, startAmazonReplay } from '../src/testing.js';

const adapter: EnvelopeAdapter = {
  id: 'amazon-test',
  errorKinds: ['auth_error'],
  // no contract version 1 spelling: this server answers in v2 only
  upstreams: ['amazon-test-api'],
  classify: (failure) =>
    failure.type === 'credential'
      ? classifyAmazonCredentialFailure(failure, { invalid_grant: 'Authorize the test application again.' })
      : {
          error_kind: 'auth_error',
          error_code: 'AUTHENTICATION_ERROR',
          retryable: false,
          summary: 'unexpected',
          details: [],
          hints: [],
        },
  parseResponseMeta: () => ({}),
  isCredentialError: isAmazonCredentialError,
};

let replay: UpstreamReplay;
beforeAll(async () => {
  replay = await startAmazonReplay();
});
afterAll(async () => {
  await replay.close();
});
beforeEach(() => {
  replay.setTokenResponse(undefined);
});

/** A server whose LWA client registers with `redactor`; its tool answers with whatever an upstream echoed. */
function server(
  redactor: Redactor,
  refreshToken: string,
  echoed: () => string,
): { envelope: EnvelopeServer; tokens: LwaTokenClient } {
  const tokens = new LwaTokenClient(
    {
      clientId: 'amzn1.application-oa2-client.t',
      clientSecret: 'amzn1.oa2-cs.v1.testsecret0000000000001',
      refreshToken,
      tokenUrl: replay.tokenUrl,
    },
    redactor,
  );
  const envelope = createEnvelopeServer({
    info: { name: 'amazon-test', version: '0.0.1' },
    adapter,
    redactor,
    tools: [
      {
        name: 'call',
        inputSchema: { type: 'object' },
        handler: async () => ({ token: await tokens.accessToken(), upstream_said: echoed() }),
      },
    ],
    options: { env: {}, migrations: [] },
  });
  return { envelope, tokens };
}

/** A real SDK client connected to `envelope` in memory; closing it closes both ends. */
async function connect(
  envelope: EnvelopeServer,
): Promise<{ callTool: Client['callTool']; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await envelope.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.1' });
  await client.connect(clientSide);
  return {
    callTool: (params, resultSchema, options) => client.callTool(params, resultSchema, options),
    close: async () => {
      await client.close();
      await envelope.close();
    },
  };
}

describe('LWA secrets belong to the server whose client holds them', () => {
  it('two servers in one process: each redacts its own refresh token and access token, not the other one', async () => {
    const first = server(createAmazonRedactor(), 'one-refresh-3f9a1c7e', () => 'echo two-refresh-b82d40aa');
    const second = server(createAmazonRedactor(), 'two-refresh-b82d40aa', () => 'echo one-refresh-3f9a1c7e');
    const one = await connect(first.envelope);
    const two = await connect(second.envelope);
    // the access token has no Amazon shape here, so only registration can hide it
    replay.setTokenResponse({ status: 200, body: { access_token: 'opaque-access-token-value-77', expires_in: 3600 } });
    const fromOne = await one.callTool({ name: 'call', arguments: {} });
    expect(fromOne.structuredContent).toEqual({ token: '[REDACTED]', upstream_said: 'echo two-refresh-b82d40aa' });
    const fromTwo = await two.callTool({ name: 'call', arguments: {} });
    // server two fetched the same access token and registered it with its own redactor
    expect(fromTwo.structuredContent).toEqual({ token: '[REDACTED]', upstream_said: 'echo one-refresh-3f9a1c7e' });
    replay.setTokenResponse(undefined);
    await one.close();
    await two.close();
  });

  it('the replay hands out the LWA-shaped token at the LWA path', async () => {
    expect(replay.tokenUrl).toBe(`${replay.url}/auth/o2/token`);
    const tokens = new LwaTokenClient(
      { clientId: 'a', clientSecret: 'b', refreshToken: 'c', tokenUrl: replay.tokenUrl },
      createAmazonRedactor(),
    );
    expect(await tokens.accessToken()).toBe(REPLAY_ACCESS_TOKEN);
  });

  it('an LwaError a handler lets escape reaches the adapter as a credential failure', async () => {
    replay.setTokenResponse({ status: 400, body: { error: 'invalid_grant', error_description: 'expired' } });
    const { envelope } = server(createAmazonRedactor(), 'opaque-refresh-rejected-0003', () => '');
    const client = await connect(envelope);
    const result = await client.callTool({ name: 'call', arguments: {} });
    replay.setTokenResponse(undefined);
    expect(result.structuredContent).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      summary: 'The LWA token endpoint rejected the credentials (invalid_grant).',
      _envelope_version: 2,
    });
    // the server's own credentials failed, not an upstream API: the envelope names none
    expect(Object.hasOwn(result.structuredContent ?? {}, 'upstream')).toBe(false);
    expect((result.structuredContent as { hints: string[] }).hints.at(-1)).toBe(
      'Authorize the test application again.',
    );
    await client.close();
  });
});

describe('classifyAmazonCredentialFailure', () => {
  it('adds the server hint for the OAuth code and the wait a busy endpoint named', () => {
    const rejected = classifyAmazonCredentialFailure(
      {
        type: 'credential',
        error: new LwaError('token_rejected', 'rejected', { oauthError: 'invalid_grant', status: 400 }),
      },
      { invalid_grant: 'Authorize again.' },
    );
    expect([
      rejected.error_kind,
      rejected.error_code,
      rejected.retryable,
      rejected.hints.length,
      rejected.hints.at(-1),
    ]).toEqual(['auth_error', 'AUTHENTICATION_ERROR', false, 2, 'Authorize again.']);
    const busy = classifyAmazonCredentialFailure({
      type: 'credential',
      error: new LwaError('token_endpoint_unavailable', 'busy', { status: 429, retryAfterSeconds: 3 }),
    });
    expect([busy.retryable, busy.meta]).toEqual([true, { retry_after_seconds: 3 }]);
  });

  it('an OAuth error named like an Object.prototype member gets no server hint', () => {
    const classified = classifyAmazonCredentialFailure(
      { type: 'credential', error: new LwaError('token_rejected', 'x', { oauthError: 'constructor', status: 400 }) },
      {},
    );
    expect(classified.hints).toEqual(['Check the LWA credentials and authorize the application again.']);
  });
});

describe('LWA answers that are not about the credentials', () => {
  it('429 is the endpoint being busy: unavailable and retryable', async () => {
    const client = new LwaTokenClient(
      {
        clientId: 'a',
        clientSecret: 'b',
        refreshToken: 'c',
        fetch: () => Promise.resolve(new Response('{"error":"too_many_requests"}', { status: 429 })),
      },
      createAmazonRedactor(),
    );
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect([error.reason, error.status]).toEqual(['token_endpoint_unavailable', 429]);
  });

  it('an oversized answer is not read whole', async () => {
    const huge = JSON.stringify({ error: 'x'.repeat(200_000) });
    const client = new LwaTokenClient(
      {
        clientId: 'a',
        clientSecret: 'b',
        refreshToken: 'c',
        fetch: () => Promise.resolve(new Response(huge, { status: 400 })),
      },
      createAmazonRedactor(),
    );
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect([error.reason, error.oauthError, error.message.length < 300]).toEqual(['token_rejected', undefined, true]);
  });

  it('the client registers its client secret, refresh token and every access token with its redactor', async () => {
    const redactor = createAmazonRedactor();
    const client = new LwaTokenClient(
      {
        clientId: 'client-id-1',
        clientSecret: 'client-secret-value-81',
        refreshToken: 'refresh-value-without-prefix-82',
        fetch: () =>
          Promise.resolve(
            new Response(JSON.stringify({ access_token: 'plain-access-token-83', expires_in: 3600 }), { status: 200 }),
          ),
      },
      redactor,
    );
    await client.accessToken();
    expect(redactor.string('client-secret-value-81 / refresh-value-without-prefix-82 / plain-access-token-83')).toBe(
      '[REDACTED] / [REDACTED] / [REDACTED]',
    );
  });
});
