import { describe, expect, it } from 'vitest';

import {
  boundEnvelope,
  MAX_DETAIL_STRING_LENGTH,
  MAX_SUMMARY_LENGTH,
  MAX_TOOL_LENGTH,
} from '../src/envelope-builder.js';
import { createEnvelopeServer, EnvelopeError } from '../src/index.js';
import { createRedactor } from '../src/adapter-entry.js';
import { connectInMemory } from './fixtures/connect.js';
import { testAdapter } from './fixtures/test-adapter.js';

describe('secrets registered by value', () => {
  it('are replaced by the redactor they were registered with, whatever their shape; short values are ignored', () => {
    const redactor = createRedactor();
    redactor.registerSecret('opaque-value-7f3a91');
    redactor.registerSecret('short');
    expect(redactor.string('upstream said: opaque-value-7f3a91 is wrong; short stays')).toBe(
      'upstream said: [REDACTED] is wrong; short stays',
    );
    expect(redactor.value({ a: ['x opaque-value-7f3a91 y'] })).toEqual({ a: ['x [REDACTED] y'] });
  });

  it('are not known to another redactor', () => {
    const mine = createRedactor();
    const other = createRedactor();
    mine.registerSecret('opaque-value-only-mine-42');
    expect(mine.string('x opaque-value-only-mine-42')).toBe('x [REDACTED]');
    expect(other.string('x opaque-value-only-mine-42')).toBe('x opaque-value-only-mine-42');
    expect(other.mayRedact('x opaque-value-only-mine-42')).toBe(false);
  });
});

describe('known secrets in other spellings', () => {
  const token = 'tok_IwEBIUnitTestAccessToken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';

  it('are found without their public prefix, with dots as slashes, and in pieces of 31 characters or more', () => {
    const redactor = createRedactor({ publicPrefixes: [/^tok_/, /^cs\.v\d+\./] });
    redactor.registerSecret(token);
    redactor.registerSecret('cs.v1.unitsecret00112233445566778899');
    const bare = token.slice(4);
    expect(redactor.string(`t=${bare};`)).toBe('t=[REDACTED];');
    expect(redactor.string('path cs/v1/unitsecret00112233445566778899 end')).toBe('path [REDACTED] end');
    expect(redactor.string('unitsecret00112233445566778899')).toBe('[REDACTED]');
    expect(redactor.value({ a: token.slice(0, 36), b: token.slice(36) })).toEqual({ a: '[REDACTED]', b: '[REDACTED]' });
    // a piece shorter than a window stays: it cannot be told from ordinary text
    expect(redactor.string('IwEBIUnit')).toBe('IwEBIUnit');
  });

  it('a secret is replaced whole even when another known secret shares a long piece of it', () => {
    // the shared piece is one window of the first secret: replaced first, it would cut the second apart
    const redactor = createRedactor({ publicPrefixes: [/^tok_/] });
    redactor.registerSecret('tok_IwEBIShared+piece/With=Odd+Chars/first0123456789KLMNOP');
    redactor.registerSecret('tok_IwEBIOthers+piece/With=Odd+Chars/second9876543210ABCDEF');
    expect(redactor.string('v=IwEBIOthers+piece/With=Odd+Chars/second9876543210ABCDEF;')).toBe('v=[REDACTED];');
    expect(redactor.string('v=IwEBIOthers%2Bpiece%2FWith%3DOdd%2BChars%2Fsecond9876543210ABCDEF;')).toBe(
      'v=[REDACTED];',
    );
    expect(redactor.string('v=IwEBIOthers%2bpiece%2fWith%3dOdd%2bChars%2fsecond9876543210ABCDEF;')).toBe(
      'v=[REDACTED];',
    );
  });

  it('mayRedact is false for text none of the rules or secrets touch, true otherwise', () => {
    const redactor = createRedactor({ patterns: [/tok_[a-z0-9]+/] });
    redactor.registerSecret(token);
    expect(redactor.mayRedact('{"payload":{"orders":[1,2,3]}}')).toBe(false);
    expect(redactor.mayRedact(`{"x":"${token.slice(20, 52)}"}`)).toBe(true);
    expect(redactor.mayRedact('{"client_id_secret":"x"}')).toBe(true);
    expect(redactor.mayRedact('{"id":"tok_abc"}')).toBe(true);
  });
});

describe('what an adapter adds to the redactor', () => {
  const redactor = createRedactor({
    patterns: [/(?<keep>sig=)[a-f0-9]+/],
    secretHeaders: ['x-vendor-token'],
    secretKeys: ['session_blob'],
  });

  it('a pattern with a keep group keeps that group and replaces the rest of the match', () => {
    expect(redactor.string('https://h.test/r?sig=00ffaa&keep=1')).toBe('https://h.test/r?sig=[REDACTED]&keep=1');
  });

  it('secret headers are redacted in every spelling a default header is', () => {
    expect(redactor.string('x-vendor-token: v-123 next')).toBe('x-vendor-token: [REDACTED]');
    expect(redactor.string('{"X-Vendor-Token":"v-123"}')).toBe('{"X-Vendor-Token":"[REDACTED]"}');
    expect(redactor.string('h=x-vendor-token%3Dv-123&n=1')).toBe('h=x-vendor-token%3D[REDACTED]&n=1');
    expect(redactor.value({ headers: { 'X-Vendor-Token': 'opaque' } })).toEqual({
      headers: { 'X-Vendor-Token': '[REDACTED]' },
    });
  });

  it('secret keys have their string values replaced whole', () => {
    expect(redactor.value({ session_blob: 'anything at all', other: 'kept' })).toEqual({
      session_blob: '[REDACTED]',
      other: 'kept',
    });
  });

  it('triggered patterns run only on strings their trigger matches', () => {
    const guarded = createRedactor({ triggeredPatterns: [{ trigger: /key-/, patterns: [/[a-z]+-\d{4}/g] }] });
    expect(guarded.string('key-1234 and abc-5678')).toBe('[REDACTED] and [REDACTED]');
    expect(guarded.string('abc-5678 alone')).toBe('abc-5678 alone');
    expect([guarded.mayRedact('abc-5678 alone'), guarded.mayRedact('key-1234')]).toEqual([false, true]);
  });

  it('a redactor without them leaves the same text alone', () => {
    const plain = createRedactor();
    expect(plain.string('x-vendor-token: v-123 sig=00ffaa')).toBe('x-vendor-token: v-123 sig=00ffaa');
    expect(plain.value({ session_blob: 'anything at all' })).toEqual({ session_blob: 'anything at all' });
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
            context.recordResponseMeta({
              rate_limit: { limit_per_second: 'Bearer leaked-token-1' },
              warnings: [
                { kind: 'upstream_warning', summary: '199 - token Bearer leaked-token-2', details: [], hints: [] },
              ],
            });
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
      _meta: {
        rate_limit: { limit_per_second: 'Bearer [REDACTED]' },
        warnings: [{ kind: 'upstream_warning', summary: '199 - token Bearer [REDACTED]', details: [], hints: [] }],
      },
    });
    expect(JSON.stringify(result)).not.toContain('leaked-token');
    await connected.close();
  });
});

describe('size bounds', () => {
  it('caps summary, tool and every string inside details', () => {
    const bounded = boundEnvelope({
      error_kind: 'mcp_input_validation',
      tool: 't'.repeat(5000),
      summary: 's'.repeat(5000),
      details: [
        {
          path: 'k'.repeat(5000),
          issue: 'i',
          received_type: 'string',
          extra: 'e'.repeat(5000),
          nested: { deep: 'd'.repeat(5000) },
        },
      ],
      hints: [],
      examples: [],
      error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
      retryable: false,
      _envelope_version: 2,
    });
    expect([bounded.tool.length, bounded.summary.length]).toEqual([MAX_TOOL_LENGTH, MAX_SUMMARY_LENGTH]);
    const detail = bounded.details[0]!;
    expect([
      detail.path.length,
      (detail['extra'] as string).length,
      (detail['nested'] as { deep: string }).deep.length,
    ]).toEqual([MAX_DETAIL_STRING_LENGTH, MAX_DETAIL_STRING_LENGTH, MAX_DETAIL_STRING_LENGTH]);
    expect(bounded.tool.endsWith('…')).toBe(true);
  });

  it('a megabyte-long unknown key or tool name gives a small reply', async () => {
    const server = createEnvelopeServer({
      info: { name: 'bounds', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'echo',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          handler: (args) => ({ text: args['text'] }),
        },
      ],
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

  it('cuts a long key inside a detail even when every value in it is short', async () => {
    const longKey = 'f'.repeat(1_000_000);
    const server = createEnvelopeServer({
      info: { name: 'bounds', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'reject',
          inputSchema: { type: 'object' },
          // a handler that passes on the field names an upstream rejected, as the upstream spelled them
          handler: () => {
            throw new EnvelopeError({
              error_kind: 'upstream_http',
              error_code: 'UPSTREAM_HTTP_400',
              summary: 'The upstream rejected a field.',
              details: [{ path: '', issue: 'unknown field', received_type: 'object', fields: { [longKey]: 'bad' } }],
            });
          },
        },
      ],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'reject', arguments: {} });
    const envelope = result.structuredContent as { error_code: string; details: { fields: Record<string, string> }[] };
    // a client that states no contract version reads version 1, in the test adapter's SP spelling
    expect(envelope.error_code).toBe('SP_API_HTTP_400');
    expect(Object.keys(envelope.details[0]!.fields).map((key) => key.length)).toEqual([MAX_DETAIL_STRING_LENGTH]);
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
    await connected.close();
  });
});
