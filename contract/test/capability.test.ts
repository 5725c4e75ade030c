import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';

import { ENVELOPE_CAPABILITY_KEY, ENVELOPE_EXTENSION_ID, envelopeCapability } from '../src/index.js';

const ALL_NORMALIZED = [
  'renamed',
  'dropped_alias',
  'coerced',
  'unknown_field_passed_through',
  'unknown_field_rejected',
];

/** The kinds a reference server of the family can emit, in v2 terms. */
const SERVER_KINDS = [
  'mcp_input_validation',
  'tool_not_found',
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
  'internal_error',
] as const;

describe('envelopeCapability', () => {
  it('uses the key openbridge_envelope and the extension id io.github.mcp-envelope/envelope', () => {
    expect(ENVELOPE_CAPABILITY_KEY).toBe('openbridge_envelope');
    expect(ENVELOPE_EXTENSION_ID).toBe('io.github.mcp-envelope/envelope');
  });

  it('an SP-like server (sp-api and its identity service): v1 by default, both versions, v1 kinds derived', () => {
    expect(envelopeCapability({ errorKinds: SERVER_KINDS, upstreams: ['sp-api', 'openbridge'] })).toEqual({
      openbridge_envelope: {
        contract_version: 1,
        error_kinds: [
          'mcp_input_validation',
          'tool_not_found',
          'sp_api_http',
          'sp_api_client',
          'auth_error',
          'rate_limited',
          'internal_error',
        ],
        normalized_kinds: ALL_NORMALIZED,
        contract_versions: [1, 2],
        upstreams: ['sp-api', 'openbridge'],
        error_kinds_by_version: {
          '1': [
            'mcp_input_validation',
            'tool_not_found',
            'sp_api_http',
            'sp_api_client',
            'auth_error',
            'rate_limited',
            'internal_error',
          ],
          '2': [...SERVER_KINDS],
        },
      },
    });
  });

  it('an Ads-like server: the Ads v1 kinds', () => {
    expect(
      envelopeCapability({ errorKinds: ['upstream_http', 'mcp_input_validation'], upstreams: ['ads-api'] })
        .openbridge_envelope,
    ).toEqual({
      contract_version: 1,
      error_kinds: ['mcp_input_validation', 'ads_api_http'],
      normalized_kinds: ALL_NORMALIZED,
      contract_versions: [1, 2],
      upstreams: ['ads-api'],
      error_kinds_by_version: {
        '1': ['mcp_input_validation', 'ads_api_http'],
        '2': ['mcp_input_validation', 'upstream_http'],
      },
    });
  });

  it('a GitHub-like server (an upstream v1 never knew): v2 only, no v1 view', () => {
    expect(envelopeCapability({ errorKinds: SERVER_KINDS, upstreams: ['github'] })).toEqual({
      openbridge_envelope: {
        contract_version: 2,
        error_kinds: [...SERVER_KINDS],
        normalized_kinds: ALL_NORMALIZED,
        contract_versions: [2],
        upstreams: ['github'],
        error_kinds_by_version: { '2': [...SERVER_KINDS] },
      },
    });
  });

  it('a server mixing a v1 upstream with a new one speaks v2 only', () => {
    const value = envelopeCapability({
      errorKinds: ['upstream_http'],
      upstreams: ['sp-api', 'github'],
    }).openbridge_envelope;
    expect([value.contract_version, value.contract_versions, value.error_kinds]).toEqual([2, [2], ['upstream_http']]);
  });

  it('a server without an upstream speaks v2 only', () => {
    expect(envelopeCapability({ errorKinds: ['internal_error'] }).openbridge_envelope).toEqual({
      contract_version: 2,
      error_kinds: ['internal_error'],
      normalized_kinds: ALL_NORMALIZED,
      contract_versions: [2],
      upstreams: [],
      error_kinds_by_version: { '2': ['internal_error'] },
    });
  });

  it('puts the kinds in taxonomy order, drops repeats, and gives the same lists in any order', () => {
    const first = envelopeCapability({
      errorKinds: ['auth_error', 'upstream_http', 'mcp_input_validation', 'auth_error'],
      upstreams: ['ads-api', 'ads-api'],
    });
    const second = envelopeCapability({
      errorKinds: ['mcp_input_validation', 'upstream_http', 'auth_error'],
      upstreams: ['ads-api'],
    });
    expect(second).toEqual(first);
    expect(first.openbridge_envelope.error_kinds_by_version['2']).toEqual([
      'mcp_input_validation',
      'upstream_http',
      'auth_error',
    ]);
    expect(first.openbridge_envelope.upstreams).toEqual(['ads-api']);
  });

  it('orders and dedupes a given normalized_kinds list, and accepts any iterable', () => {
    function* kinds(): Generator<string> {
      yield 'sandbox_runtime';
      yield 'mcp_input_validation';
    }
    const value = envelopeCapability({
      errorKinds: kinds(),
      normalizedKinds: new Set(['unknown_field_rejected', 'renamed']),
      upstreams: new Set(['example-api']),
    }).openbridge_envelope;
    expect([value.error_kinds, value.normalized_kinds]).toEqual([
      ['mcp_input_validation', 'sandbox_runtime'],
      ['renamed', 'unknown_field_rejected'],
    ]);
    expect(envelopeCapability({ errorKinds: [], normalizedKinds: [] }).openbridge_envelope.normalized_kinds).toEqual(
      [],
    );
  });

  it.each([
    ['precondition_failed', '"precondition_failed" is not an error_kind of contract version 2'],
    ['sp_api_http', '"sp_api_http" is not an error_kind of contract version 2'],
    ['github_api_http', '"github_api_http" is not an error_kind of contract version 2'],
    ['Rate_Limited', '"Rate_Limited" is not an error_kind of contract version 2'],
    ['', '"" is not an error_kind of contract version 2'],
  ])('throws TypeError for error_kind "%s"', (kind, message) => {
    expect(() => envelopeCapability({ errorKinds: ['mcp_input_validation', kind] })).toThrow(new TypeError(message));
  });

  it.each([
    ['unknown_field_dropped', '"unknown_field_dropped" is not a normalized event kind of contract version 2'],
    ['to', '"to" is not a normalized event kind of contract version 2'],
  ])('throws TypeError for normalized kind "%s"', (kind, message) => {
    expect(() => envelopeCapability({ errorKinds: ['internal_error'], normalizedKinds: ['renamed', kind] })).toThrow(
      new TypeError(message),
    );
  });

  it.each(['SP-API', '', '-sp', 'sp api', '__proto__', 'a'.repeat(65)])(
    'throws TypeError for upstream "%s"',
    (upstream) => {
      expect(() => envelopeCapability({ errorKinds: ['upstream_http'], upstreams: [upstream] })).toThrow(
        new TypeError(`"${upstream}" is not an upstream name (lower case letters, digits, ".", "_", "-"; at most 64)`),
      );
    },
  );

  it('an upstream named like an Object.prototype key has no v1 spelling', () => {
    for (const upstream of ['constructor', 'tostring', 'hasownproperty']) {
      expect(envelopeCapability({ errorKinds: ['upstream_http'], upstreams: [upstream] }).openbridge_envelope).toEqual({
        contract_version: 2,
        error_kinds: ['upstream_http'],
        normalized_kinds: ALL_NORMALIZED,
        contract_versions: [2],
        upstreams: [upstream],
        error_kinds_by_version: { '2': ['upstream_http'] },
      });
    }
  });

  it('reaches an SDK client under capabilities.experimental; a v1 reader finds its three fields unchanged', async () => {
    const capability = envelopeCapability({
      errorKinds: ['mcp_input_validation', 'upstream_http', 'rate_limited'],
      upstreams: ['ads-api'],
    });
    const server = new Server(
      { name: 'capability-probe', version: '0.0.1' },
      { capabilities: { tools: {}, experimental: capability } },
    );
    const client = new Client({ name: 'capability-reader', version: '0.0.1' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    try {
      const read = client.getServerCapabilities()?.experimental?.['openbridge_envelope'] as Record<string, unknown>;
      expect({
        contract_version: read['contract_version'],
        error_kinds: read['error_kinds'],
        normalized_kinds: read['normalized_kinds'],
      }).toEqual({
        contract_version: 1,
        error_kinds: ['mcp_input_validation', 'ads_api_http', 'rate_limited'],
        normalized_kinds: ALL_NORMALIZED,
      });
      expect(read['error_kinds_by_version']).toEqual({
        '1': ['mcp_input_validation', 'ads_api_http', 'rate_limited'],
        '2': ['mcp_input_validation', 'upstream_http', 'rate_limited'],
      });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
