import { describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import { parseBooleanSwitch, resolveLimits, resolveSettings } from '../src/options.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';
import { testAdapter } from './fixtures/test-adapter.js';

const session = useTestSession();
const start = session.start;

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await session.current.client.callTool({ name, arguments: args });
  return result.structuredContent as Record<string, unknown>;
}

describe('MCP_SCHEMA_KEY_NORMALIZATION_ENABLED', () => {
  it('on (default): a PascalCase key is renamed before validation and the call succeeds', async () => {
    await start();
    expect(await call('list_orders', { MarketplaceIds: ['A1'] })).toEqual({
      orders: [],
      marketplaceIds: ['A1'],
      status: 'any',
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 4 } },
    });
  });

  it('false: the same key is not renamed, so strict validation rejects the call', async () => {
    await start({ env: { MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'false' } });
    const envelope = await call('list_orders', { MarketplaceIds: ['A1'] });
    expect(envelope['error_code']).toBe('SCHEMA_REQUIRED');
    expect(envelope['details']).toEqual([
      {
        path: 'marketplaceIds',
        issue: 'marketplaceIds is required and was not sent.',
        received_type: 'undefined',
        field: 'marketplaceIds',
        expected: 'a value of type array',
      },
      {
        path: '',
        issue: 'arguments has a key the schema does not define: MarketplaceIds.',
        received_type: 'array',
        field: '',
        extra: 'MarketplaceIds',
        did_you_mean: 'marketplaceIds',
        expected: 'only the keys the schema declares',
        received_value: ['A1'],
      },
    ]);
  });
});

describe('MCP_SCHEMA_KEY_NORMALIZATION_META', () => {
  it('off (default): no _meta.normalized on success or failure', async () => {
    await start();
    expect(await call('list_orders', { MarketplaceIds: ['A1'] })).not.toHaveProperty('_meta.normalized');
    expect(Object.hasOwn(await call('list_orders', { marketplaceIds: ['A1'], extra: 1 }), '_meta')).toBe(false);
  });

  it('true: events go into success _meta, error _meta and the advertised normalized_kinds', async () => {
    await start({ env: { MCP_SCHEMA_KEY_NORMALIZATION_META: 'TRUE' } });
    expect(session.current.client.getServerCapabilities()?.experimental?.['openbridge_envelope']).toEqual({
      contract_version: 1,
      error_kinds: [
        'mcp_input_validation',
        'tool_not_found',
        'sp_api_http',
        'sp_api_client',
        'auth_error',
        'rate_limited',
        'sandbox_runtime',
        'internal_error',
      ],
      normalized_kinds: ['renamed', 'dropped_alias', 'coerced', 'unknown_field_rejected'],
      contract_versions: [1, 2],
      upstreams: ['sp-api'],
      error_kinds_by_version: {
        '1': [
          'mcp_input_validation',
          'tool_not_found',
          'sp_api_http',
          'sp_api_client',
          'auth_error',
          'rate_limited',
          'sandbox_runtime',
          'internal_error',
        ],
        '2': [
          'mcp_input_validation',
          'tool_not_found',
          'upstream_http',
          'upstream_client',
          'auth_error',
          'rate_limited',
          'sandbox_runtime',
          'internal_error',
        ],
      },
    });
    expect(await call('list_orders', { MarketplaceIds: ['A1'] })).toEqual({
      orders: [],
      marketplaceIds: ['A1'],
      status: 'any',
      _meta: {
        normalized: [{ kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' }],
        rate_limit: { limit_per_second: 0.5, remaining: 4 },
      },
    });
    expect((await call('list_orders', { marketplaceIds: 'A1', status: 'Shipped' }))['_meta']).toEqual({
      normalized: [
        { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
      ],
    });
    expect((await call('list_orders', { marketplaceIds: ['A1'], marketplace_ids: ['B2'] }))['_meta']).toEqual({
      normalized: [
        {
          kind: 'dropped_alias',
          from: 'marketplace_ids',
          canonical: 'marketplaceIds',
          reason: 'canonical_key_present',
        },
      ],
      rate_limit: { limit_per_second: 0.5, remaining: 4 },
    });
    expect((await call('list_orders', { marketplaceIds: ['A1'], extra: 1 }))['_meta']).toEqual({
      normalized: [{ kind: 'unknown_field_rejected', field: 'extra', reason: 'no_schema_match' }],
    });
  });
});

describe('MCP_STRICT_UNKNOWN_FIELDS', () => {
  it('on (default): an unknown key is rejected with SCHEMA_ADDITIONAL_PROPERTIES', async () => {
    await start();
    expect(await call('list_orders', { marketplaceIds: ['A1'], extra: 1 })).toEqual({
      error_kind: 'mcp_input_validation',
      tool: 'list_orders',
      summary: 'arguments has a key the schema does not define: extra. Correct extra and call again.',
      details: [
        {
          path: '',
          issue: 'arguments has a key the schema does not define: extra.',
          received_type: 'integer',
          field: '',
          extra: 'extra',
          received_value: 1,
          expected: 'only the keys the schema declares',
        },
      ],
      hints: ["Drop extra, or check its spelling against the tool's schema."],
      examples: [],
      error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
      retryable: false,
      _envelope_version: 1,
    });
  });

  it('off: the unknown key passes through (and is reported when META is on)', async () => {
    await start({ env: { MCP_STRICT_UNKNOWN_FIELDS: 'off', MCP_SCHEMA_KEY_NORMALIZATION_META: 'on' } });
    expect(await call('list_orders', { marketplaceIds: ['A1'], extra: 1 })).toEqual({
      orders: [],
      marketplaceIds: ['A1'],
      status: 'any',
      _meta: {
        normalized: [{ kind: 'unknown_field_passed_through', field: 'extra', reason: 'no_schema_match' }],
        rate_limit: { limit_per_second: 0.5, remaining: 4 },
      },
    });
    const listed = (await session.current.client.listTools()).tools.find((tool) => tool.name === 'list_orders')!;
    expect(Object.hasOwn(listed.inputSchema, 'additionalProperties')).toBe(false);
    expect(session.current.client.getServerCapabilities()?.experimental?.['openbridge_envelope']).toMatchObject({
      normalized_kinds: [
        'renamed',
        'dropped_alias',
        'coerced',
        'unknown_field_passed_through',
        'unknown_field_rejected',
      ],
    });
  });
});

describe('reading and overriding the switches', () => {
  it('reads true/false words in any case and treats empty as unset', () => {
    expect(['true', 'On', 'YES', '1', ' on '].map(parseBooleanSwitch)).toEqual([true, true, true, true, true]);
    expect(['false', 'Off', 'no', '0'].map(parseBooleanSwitch)).toEqual([false, false, false, false]);
    expect([undefined, '', '  '].map(parseBooleanSwitch)).toEqual([undefined, undefined, undefined]);
    expect(parseBooleanSwitch('maybe')).toBe('invalid');
  });

  it('falls back to the default on an unreadable value and logs one warning naming the variable', () => {
    const log = captureLog();
    expect(
      resolveSettings({ MCP_STRICT_UNKNOWN_FIELDS: 'maybe', MCP_SCHEMA_KEY_NORMALIZATION_META: '2' }, {}, log.logger),
    ).toEqual({
      MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: true,
      MCP_SCHEMA_KEY_NORMALIZATION_META: false,
      MCP_STRICT_UNKNOWN_FIELDS: true,
    });
    expect(log.lines.map((line) => [line['level'], line['variable']])).toEqual([
      [40, 'MCP_SCHEMA_KEY_NORMALIZATION_META'],
      [40, 'MCP_STRICT_UNKNOWN_FIELDS'],
    ]);
  });

  it('lets explicit options win over the environment', async () => {
    await start({
      env: {
        MCP_STRICT_UNKNOWN_FIELDS: 'false',
        MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'false',
        MCP_MAX_UPSTREAM_BODY_BYTES: '1000',
        MCP_MAX_RESULT_BYTES: '2000',
        MCP_MAX_CONCURRENT_CALLS: '50',
        MCP_MAX_CONCURRENT_CALLS_PER_TOOL: '20',
        MCP_RATE_LIMIT_STORE_TIMEOUT_MS: '3000',
      },
      strictUnknownFields: true,
      normalizationMeta: true,
      maxResultBytes: 5000,
      maxConcurrentCallsPerTool: 4,
      rateLimitStoreTimeoutMs: 4000,
    });
    const result = await session.current.client.callTool({ name: 'get_envelope_contract', arguments: {} });
    expect((result.structuredContent as { settings: unknown }).settings).toEqual({
      MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: false,
      MCP_SCHEMA_KEY_NORMALIZATION_META: true,
      MCP_STRICT_UNKNOWN_FIELDS: true,
      MCP_MAX_UPSTREAM_BODY_BYTES: 1000,
      MCP_MAX_RESULT_BYTES: 5000,
      MCP_MAX_CONCURRENT_CALLS: 50,
      MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 4,
      MCP_TOOL_FAILURE_META: false,
      MCP_RATE_LIMIT: true,
      MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
      MCP_RATE_LIMIT_STORE: 'memory',
      MCP_RATE_LIMIT_STORE_TIMEOUT_MS: 4000,
      rate_limit_store_fallback: false,
    });
  });

  it('reads the size limits as positive integers of bytes; anything else keeps the default with one warning', () => {
    const log = captureLog();
    expect(
      resolveLimits({ MCP_MAX_UPSTREAM_BODY_BYTES: '1e6', MCP_MAX_RESULT_BYTES: ' 65536 ' }, {}, log.logger),
    ).toEqual({ MCP_MAX_UPSTREAM_BODY_BYTES: 4_194_304, MCP_MAX_RESULT_BYTES: 65_536 });
    expect(log.lines.map((line) => [line['level'], line['variable']])).toEqual([[40, 'MCP_MAX_UPSTREAM_BODY_BYTES']]);
    expect(() => resolveLimits({}, { maxUpstreamBodyBytes: 0 }, log.logger)).toThrow(
      'the option for MCP_MAX_UPSTREAM_BODY_BYTES must be a positive integer of bytes, got 0',
    );
  });

  it('reads process.env when no env is given', () => {
    const saved = process.env['MCP_SCHEMA_KEY_NORMALIZATION_META'];
    process.env['MCP_SCHEMA_KEY_NORMALIZATION_META'] = 'yes';
    try {
      const server = createEnvelopeServer({
        info: { name: 'env-test', version: '0.0.1' },
        adapter: testAdapter,
        tools: [],
        options: { logger: captureLog().logger },
      });
      expect(server.settings.MCP_SCHEMA_KEY_NORMALIZATION_META).toBe(true);
    } finally {
      if (saved === undefined) delete process.env['MCP_SCHEMA_KEY_NORMALIZATION_META'];
      else process.env['MCP_SCHEMA_KEY_NORMALIZATION_META'] = saved;
    }
  });
});
