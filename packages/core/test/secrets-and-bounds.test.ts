import { describe, expect, it } from 'vitest';

import { boundEnvelope, MAX_DETAIL_STRING_LENGTH, MAX_SUMMARY_LENGTH, MAX_TOOL_LENGTH } from '../src/envelope-builder.js';
import { createEnvelopeServer, createRedactor, LwaError, LwaTokenClient, registerSecret } from '../src/index.js';
import { classifyLwaFailure } from '../src/lwa/index.js';
import { connectInMemory } from './fixtures/connect.js';
import { testAdapter } from './fixtures/test-adapter.js';

describe('secrets registered by value', () => {
  it('are replaced by every redactor, whatever their shape; short values are ignored', () => {
    registerSecret('opaque-value-7f3a91');
    registerSecret('short');
    const redactor = createRedactor();
    expect(redactor.string('upstream said: opaque-value-7f3a91 is wrong; short stays')).toBe('upstream said: [REDACTED] is wrong; short stays');
    expect(redactor.value({ a: ['x opaque-value-7f3a91 y'] })).toEqual({ a: ['x [REDACTED] y'] });
  });

  it('the LWA client registers its client secret, refresh token and every access token', async () => {
    const client = new LwaTokenClient({
      clientId: 'client-id-1',
      clientSecret: 'client-secret-value-81',
      refreshToken: 'refresh-value-without-prefix-82',
      fetch: () => Promise.resolve(new Response(JSON.stringify({ access_token: 'plain-access-token-83', expires_in: 3600 }), { status: 200 })),
    });
    await client.accessToken();
    const redactor = createRedactor();
    expect(redactor.string('client-secret-value-81 / refresh-value-without-prefix-82 / plain-access-token-83')).toBe('[REDACTED] / [REDACTED] / [REDACTED]');
  });
});

describe('known secrets in other spellings', () => {
  const token = 'Atza|IwEBIUnitTestAccessToken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';

  it('are found without their public prefix, with dots as slashes, and in pieces of 31 characters or more', () => {
    registerSecret(token);
    registerSecret('amzn1.oa2-cs.v1.unitsecret00112233445566778899');
    const redactor = createRedactor();
    const bare = token.slice(5);
    expect(redactor.string(`t=${bare};`)).toBe('t=[REDACTED];');
    expect(redactor.string('path amzn1/oa2-cs/v1/unitsecret00112233445566778899 end')).toBe('path [REDACTED] end');
    expect(redactor.string('unitsecret00112233445566778899')).toBe('[REDACTED]');
    expect(redactor.value({ a: token.slice(0, 36), b: token.slice(36) })).toEqual({ a: '[REDACTED]', b: '[REDACTED]' });
    // a piece shorter than a window stays: it cannot be told from ordinary text
    expect(redactor.string('IwEBIUnit')).toBe('IwEBIUnit');
  });

  it('a secret is replaced whole even when another known secret shares a long piece of it', () => {
    // the shared piece is one window of the first secret: replaced first, it would cut the second apart
    registerSecret('Atzr|IwEBIShared+piece/With=Odd+Chars/first0123456789KLMNOP');
    registerSecret('Atza|IwEBIOthers+piece/With=Odd+Chars/second9876543210ABCDEF');
    const redactor = createRedactor();
    expect(redactor.string('v=IwEBIOthers+piece/With=Odd+Chars/second9876543210ABCDEF;')).toBe('v=[REDACTED];');
    expect(redactor.string('v=IwEBIOthers%2Bpiece%2FWith%3DOdd%2BChars%2Fsecond9876543210ABCDEF;')).toBe('v=[REDACTED];');
    expect(redactor.string('v=IwEBIOthers%2bpiece%2fWith%3dOdd%2bChars%2fsecond9876543210ABCDEF;')).toBe('v=[REDACTED];');
  });

  it('mayRedact is false for text none of the rules or secrets touch, true otherwise', () => {
    registerSecret(token);
    const redactor = createRedactor([/tok_[a-z0-9]+/]);
    expect(redactor.mayRedact('{"payload":{"orders":[1,2,3]}}')).toBe(false);
    expect(redactor.mayRedact(`{"x":"${token.slice(20, 52)}"}`)).toBe(true);
    expect(redactor.mayRedact('{"client_id_secret":"x"}')).toBe(true);
    expect(redactor.mayRedact('{"id":"tok_abc"}')).toBe(true);
  });
});

describe('success _meta', () => {
  it('is redacted like an envelope: an upstream header cannot carry a token to the caller', async () => {
    const server = createEnvelopeServer({
      info: { name: 'meta', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'report',
          inputSchema: { type: 'object' },
          handler: (_args, context) => {
            context.recordResponseMeta({ rate_limit: { limit_per_second: 'Atza|leaked-token-1' }, warnings: [{ kind: 'upstream_warning', summary: '199 - token Atza|leaked-token-2', details: [], hints: [] }] });
            return { total: 1 };
          },
        },
      ],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'report', arguments: {} });
    expect(result.structuredContent).toEqual({
      total: 1,
      _meta: { rate_limit: { limit_per_second: '[REDACTED]' }, warnings: [{ kind: 'upstream_warning', summary: '199 - token [REDACTED]', details: [], hints: [] }] },
    });
    expect(JSON.stringify(result)).not.toContain('leaked-token');
    await connected.close();
  });
});

describe('LWA answers that are not about the credentials', () => {
  it('429 is the endpoint being busy: unavailable and retryable', async () => {
    const client = new LwaTokenClient({ clientId: 'a', clientSecret: 'b', refreshToken: 'c', fetch: () => Promise.resolve(new Response('{"error":"too_many_requests"}', { status: 429 })) });
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect([error.reason, error.status, classifyLwaFailure(error).retryable]).toEqual(['token_endpoint_unavailable', 429, true]);
  });

  it('an oversized answer is not read whole', async () => {
    const huge = JSON.stringify({ error: 'x'.repeat(200_000) });
    const client = new LwaTokenClient({ clientId: 'a', clientSecret: 'b', refreshToken: 'c', fetch: () => Promise.resolve(new Response(huge, { status: 400 })) });
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect([error.reason, error.oauthError, error.message.length < 300]).toEqual(['token_rejected', undefined, true]);
  });

  it('an OAuth error named like an Object.prototype member gets the generic hint', () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(classifyLwaFailure(new LwaError('token_rejected', 'x', { oauthError: name, status: 400 })).hints).toEqual(['Check the LWA credentials and authorize the application again.']);
    }
  });
});

describe('size bounds', () => {
  it('caps summary, tool and every string inside details', () => {
    const bounded = boundEnvelope({
      error_kind: 'mcp_input_validation',
      tool: 't'.repeat(5000),
      summary: 's'.repeat(5000),
      details: [{ path: 'k'.repeat(5000), issue: 'i', received_type: 'string', extra: 'e'.repeat(5000), nested: { deep: 'd'.repeat(5000) } }],
      hints: [],
      examples: [],
      error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
      retryable: false,
      _envelope_version: 1,
    });
    expect([bounded.tool.length, bounded.summary.length]).toEqual([MAX_TOOL_LENGTH, MAX_SUMMARY_LENGTH]);
    const detail = bounded.details[0]!;
    expect([detail.path.length, (detail['extra'] as string).length, (detail['nested'] as { deep: string }).deep.length]).toEqual([
      MAX_DETAIL_STRING_LENGTH,
      MAX_DETAIL_STRING_LENGTH,
      MAX_DETAIL_STRING_LENGTH,
    ]);
    expect(bounded.tool.endsWith('…')).toBe(true);
  });

  it('a megabyte-long unknown key or tool name gives a small reply', async () => {
    const server = createEnvelopeServer({
      info: { name: 'bounds', version: '0.0.1' },
      adapter: testAdapter,
      tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, handler: (args) => ({ text: args['text'] }) }],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const longKey = await connected.client.callTool({ name: 'echo', arguments: { ['k'.repeat(1_000_000)]: 1 } });
    expect(longKey.isError).toBe(true);
    expect(JSON.stringify(longKey).length).toBeLessThan(20_000);
    const longName = await connected.client.callTool({ name: 'n'.repeat(1_000_000), arguments: {} });
    expect((longName.structuredContent as { tool: string }).tool).toHaveLength(MAX_TOOL_LENGTH);
    expect(JSON.stringify(longName).length).toBeLessThan(20_000);
    await connected.close();
  });
});
