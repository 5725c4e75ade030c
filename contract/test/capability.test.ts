import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';

import { ENVELOPE_CAPABILITY_KEY, envelopeCapability } from '../src/index.js';

const ALL_NORMALIZED = [
  'renamed',
  'dropped_alias',
  'coerced',
  'unknown_field_passed_through',
  'unknown_field_rejected',
];

describe('envelopeCapability', () => {
  it('uses the key openbridge_envelope', () => {
    expect(ENVELOPE_CAPABILITY_KEY).toBe('openbridge_envelope');
  });

  it('puts the kinds in taxonomy order and drops repeats', () => {
    expect(
      envelopeCapability([
        'internal_error',
        'rate_limited',
        'mcp_input_validation',
        'sp_api_http',
        'rate_limited',
        'tool_not_found',
      ]),
    ).toEqual({
      openbridge_envelope: {
        contract_version: 1,
        error_kinds: ['mcp_input_validation', 'tool_not_found', 'sp_api_http', 'rate_limited', 'internal_error'],
        normalized_kinds: ALL_NORMALIZED,
      },
    });
  });

  it('gives the same list for the same kinds in any order', () => {
    const first = envelopeCapability(['auth_error', 'ads_api_http', 'mcp_input_validation']);
    const second = envelopeCapability(['mcp_input_validation', 'auth_error', 'ads_api_http', 'auth_error']);
    expect(second).toEqual(first);
    expect(first.openbridge_envelope.error_kinds).toEqual(['mcp_input_validation', 'ads_api_http', 'auth_error']);
  });

  it('defaults normalized_kinds to all five', () => {
    expect(envelopeCapability(['internal_error']).openbridge_envelope.normalized_kinds).toEqual(ALL_NORMALIZED);
  });

  it('orders and dedupes a given normalized_kinds list', () => {
    expect(
      envelopeCapability(['internal_error'], ['unknown_field_rejected', 'renamed', 'renamed']).openbridge_envelope
        .normalized_kinds,
    ).toEqual(['renamed', 'unknown_field_rejected']);
  });

  it('accepts empty lists and any iterable', () => {
    expect(envelopeCapability([], [])).toEqual({
      openbridge_envelope: { contract_version: 1, error_kinds: [], normalized_kinds: [] },
    });
    function* kinds(): Generator<string> {
      yield 'sandbox_runtime';
      yield 'mcp_input_validation';
    }
    expect(envelopeCapability(kinds(), new Set(['coerced'])).openbridge_envelope).toEqual({
      contract_version: 1,
      error_kinds: ['mcp_input_validation', 'sandbox_runtime'],
      normalized_kinds: ['coerced'],
    });
  });

  it.each([
    ['precondition_failed', '"precondition_failed" is not an error_kind of contract version 1'],
    ['Rate_Limited', '"Rate_Limited" is not an error_kind of contract version 1'],
    ['', '"" is not an error_kind of contract version 1'],
  ])('throws TypeError for error_kind "%s"', (kind, message) => {
    expect(() => envelopeCapability(['mcp_input_validation', kind])).toThrow(new TypeError(message));
  });

  it.each([
    ['unknown_field_dropped', '"unknown_field_dropped" is not a normalized event kind of contract version 1'],
    ['to', '"to" is not a normalized event kind of contract version 1'],
  ])('throws TypeError for normalized kind "%s"', (kind, message) => {
    expect(() => envelopeCapability(['internal_error'], ['renamed', kind])).toThrow(new TypeError(message));
  });

  it('reaches an SDK client under capabilities.experimental', async () => {
    const capability = envelopeCapability([
      'mcp_input_validation',
      'tool_not_found',
      'ads_api_http',
      'auth_error',
      'rate_limited',
      'internal_error',
    ]);

    const server = new Server(
      { name: 'capability-probe', version: '0.0.1' },
      { capabilities: { tools: {}, experimental: capability } },
    );
    const client = new Client({ name: 'capability-reader', version: '0.0.1' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    try {
      expect(client.getServerCapabilities()?.experimental).toEqual({
        openbridge_envelope: {
          contract_version: 1,
          error_kinds: [
            'mcp_input_validation',
            'tool_not_found',
            'ads_api_http',
            'auth_error',
            'rate_limited',
            'internal_error',
          ],
          normalized_kinds: ALL_NORMALIZED,
        },
      });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
