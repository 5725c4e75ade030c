import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { createSpServer, loadBuiltInCatalog } from '../src/index.js';
import { SpSettingsError, spSettingsFromEnv } from '../src/server.js';
import { REPLAY_ACCESS_TOKEN } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { connect, envelopeOf, lwaEnv, startSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';
import { createChanges } from '@mcp-envelope/testing';

let upstream: UpstreamReplay;
const open: Connected[] = [];

beforeAll(async () => {
  upstream = await startSpUpstream();
});

afterEach(async () => {
  upstream.setTokenResponse(undefined);
  await Promise.all(open.splice(0).map((connected) => connected.close()));
});

afterAll(async () => {
  await upstream.close();
});

async function server(options: Parameters<typeof connect>[0]): Promise<Connected> {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}

const GET_ORDERS = { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-04-01T00:00:00Z' };

describe('tools/list', () => {
  it('publishes the built-in catalog, set_region and get_envelope_contract', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const { tools } = await connected.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'catalogItems20220401_getCatalogItem',
      'catalogItems20220401_searchCatalogItems',
      'fbaInventory_getInventorySummaries',
      'feeds20210630_createFeedDocument',
      'fulfillmentInbound20240320_getShipment',
      'get_envelope_contract',
      'listingsItems20210801_putListingsItem',
      'notifications_createDestination',
      'orders20260101_searchOrders',
      'ordersV0_getOrder',
      'ordersV0_getOrderItems',
      'ordersV0_getOrders',
      'reports20210630_createReport',
      'reports20210630_getReport',
      'reports20210630_getReports',
      'sellers_getMarketplaceParticipations',
      'set_region',
    ]);
    const getOrders = tools.find((tool) => tool.name === 'ordersV0_getOrders')!;
    const properties = getOrders.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(getOrders.inputSchema.required).toEqual(['MarketplaceIds']);
    expect(getOrders.inputSchema['additionalProperties']).toBe(false);
    expect((properties['OrderStatuses']!['items'] as Record<string, unknown>)['enum']).toEqual([
      'PendingAvailability',
      'Pending',
      'Unshipped',
      'PartiallyShipped',
      'Shipped',
      'InvoiceUnconfirmed',
      'Canceled',
      'Unfulfillable',
    ]);
    expect(properties['MarketplaceIds']!['maxItems']).toBe(50);
    expect(getOrders.annotations?.readOnlyHint).toBe(true);
    expect(getOrders.description).toContain('(SP-API GET /orders/v0/orders)');
  });

  it('advertises the SP kinds of both versions and its upstreams in the capability and in get_envelope_contract', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const capability = connected.client.getServerCapabilities()?.experimental?.['openbridge_envelope'] as Record<
      string,
      unknown
    >;
    expect(capability['error_kinds']).toEqual([
      'mcp_input_validation',
      'tool_not_found',
      'sp_api_http',
      'sp_api_client',
      'auth_error',
      'rate_limited',
      'internal_error',
    ]);
    expect([capability['contract_version'], capability['contract_versions'], capability['upstreams']]).toEqual([
      1,
      [1, 2],
      ['sp-api', 'openbridge'],
    ]);
    expect(capability['error_kinds_by_version']).toEqual({
      '1': capability['error_kinds'],
      '2': [
        'mcp_input_validation',
        'tool_not_found',
        'upstream_http',
        'upstream_client',
        'auth_error',
        'rate_limited',
        'internal_error',
      ],
    });
    const contract = await connected.call('get_envelope_contract', {});
    const stated = contract.structuredContent as Record<string, unknown>;
    for (const key of ['contract_version', 'error_kinds', 'contract_versions', 'upstreams', 'error_kinds_by_version'])
      expect(stated[key]).toEqual(capability[key]);
  });
});

describe('LWA', () => {
  it('answers a clear auth_error naming every missing variable, without calling SP-API', async () => {
    const connected = await server({
      env: { LWA_CLIENT_ID: 'amzn1.application-oa2-client.x' },
      upstream: upstream.url,
    });
    const before = upstream.requests.length;
    const envelope = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
    expect(envelope.error_kind).toBe('auth_error');
    expect(envelope.error_code).toBe('AUTHENTICATION_ERROR');
    expect(envelope.retryable).toBe(false);
    expect(envelope.summary).toContain('LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN');
    expect(envelope.details.map((detail) => detail.path)).toEqual(['LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN']);
    expect(envelope.hints[0]).toContain('LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN');
    expect(upstream.requests).toHaveLength(before);
  });

  it('turns a rejected refresh (invalid_grant) into auth_error with re-authorization hints', async () => {
    upstream.setTokenResponse({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : refresh_token' },
    });
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const envelope = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      false,
    ]);
    expect(envelope.details[0]?.['upstream_code']).toBe('invalid_grant');
    expect(envelope.hints.join(' ')).toContain('authorize');
    expect(JSON.stringify(envelope)).not.toContain('fake-refresh-token');
  });

  it('marks an unavailable token endpoint as retryable', async () => {
    upstream.setTokenResponse({ status: 503, body: '' });
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const envelope = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      true,
    ]);
  });

  it('sends the refresh grant once, caches the token, and drops it after a 403', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const tokensBefore = upstream.tokenRequests.length;
    upstream.respond({ status: 200, body: { payload: {} } });
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    expect(upstream.tokenRequests).toHaveLength(tokensBefore + 1);
    const grant = new URLSearchParams(upstream.tokenRequests.at(-1)!.body);
    expect(grant.get('grant_type')).toBe('refresh_token');
    expect(grant.get('refresh_token')).toBe('Atzr|fake-refresh-token');
    upstream.respond({
      status: 403,
      headers: { 'content-type': 'application/json' },
      body: {
        errors: [
          {
            code: 'Unauthorized',
            message: 'Access to requested resource is denied.',
            details: 'The access token you provided has expired.',
          },
        ],
      },
    });
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    upstream.respond({ status: 200, body: { payload: {} } });
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    expect(upstream.tokenRequests).toHaveLength(tokensBefore + 2);
  });
});

/**
 * The real fetch, watched for requests to `tokenUrl`: how many were sent, and a promise for the
 * `count`-th answer, its body already read, so a test waits for the token endpoint's answer to
 * have reached the server instead of sleeping. Undone by `vi.unstubAllGlobals()`.
 */
function watchTokenRequests(tokenUrl: string): { sent: () => number; answered: (count: number) => Promise<void> } {
  const realFetch = globalThis.fetch;
  const answers: Promise<unknown>[] = [];
  const { changed, until } = createChanges();
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    if ((input instanceof Request ? input.url : input.toString()) !== tokenUrl) return realFetch(input, init);
    const answer = realFetch(input, init).then(
      async (response) =>
        new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers }),
    );
    answers.push(answer.catch(() => undefined));
    changed();
    return answer;
  });
  return {
    sent: () => answers.length,
    answered: async (count) => {
      await until(() => answers.length >= count);
      await answers[count - 1];
      // the server reads the buffered body in microtasks, all run before the next turn of the loop
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('the access token is fetched while the client reads the tool list', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('asks for it once after tools/list, and the first call uses it', async () => {
    const tokens = watchTokenRequests(upstream.tokenUrl);
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const before = upstream.tokenRequests.length;
    // connected and initialized: nothing asked for a token yet
    expect(tokens.sent()).toBe(0);
    await connected.client.listTools();
    await tokens.answered(1);
    expect(upstream.tokenRequests).toHaveLength(before + 1);
    upstream.respond({ status: 200, body: { payload: { Orders: [] } } });
    const result = await connected.call('ordersV0_getOrders', GET_ORDERS);
    expect(result.isError).toBeUndefined();
    expect(upstream.requests.at(-1)?.headers['x-amz-access-token']).toBe(REPLAY_ACCESS_TOKEN);
    expect(upstream.tokenRequests).toHaveLength(before + 1);
  });

  it('a token refused then is asked for again by the first call, which reports the refusal', async () => {
    upstream.setTokenResponse({
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
    });
    const tokens = watchTokenRequests(upstream.tokenUrl);
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const before = upstream.tokenRequests.length;
    await connected.client.listTools();
    // the refusal has arrived (a call made while the request is out shares its answer)
    await tokens.answered(1);
    expect(upstream.tokenRequests).toHaveLength(before + 1);
    const envelope = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      false,
    ]);
    expect(upstream.tokenRequests).toHaveLength(before + 2);
  });

  it('asks for nothing when the LWA_* variables are missing', async () => {
    const tokens = watchTokenRequests(upstream.tokenUrl);
    const connected = await server({
      env: { MCP_RATE_LIMIT: 'off', LWA_TOKEN_URL: upstream.tokenUrl },
      upstream: upstream.url,
    });
    const before = upstream.tokenRequests.length;
    await connected.client.listTools();
    // a request tools/list started would have been sent by the time the next request is answered
    await connected.client.ping();
    expect(tokens.sent()).toBe(0);
    expect(upstream.tokenRequests).toHaveLength(before);
  });
});

describe('client-side failures', () => {
  it('a closed port -> sp_api_client / TOOL_EXECUTION_FAILED, retryable', async () => {
    const closed = await startSpUpstream();
    const url = closed.url;
    await closed.close();
    const connected = await server({ env: lwaEnv(upstream), upstream: url });
    const envelope = envelopeOf(await connected.call('sellers_getMarketplaceParticipations', {}));
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'sp_api_client',
      'TOOL_EXECUTION_FAILED',
      true,
    ]);
    expect(envelope.details[0]?.['network_code']).toBe('ECONNREFUSED');
  });

  it('a slow upstream -> sp_api_client / TOOL_EXECUTION_FAILED after the timeout', async () => {
    upstream.respond({ status: 200, body: { payload: {} }, delayMs: 1500 });
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url, timeoutMs: 200 });
    const envelope = envelopeOf(await connected.call('sellers_getMarketplaceParticipations', {}));
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'sp_api_client',
      'TOOL_EXECUTION_FAILED',
      true,
    ]);
    expect(envelope.details[0]?.['timeout_ms']).toBe(200);
  });

  it('a body given as broken JSON text -> BODY_COERCION_INVALID_JSON, nothing sent', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const before = upstream.requests.length;
    const envelope = envelopeOf(
      await connected.call('reports20210630_createReport', { body: '{"reportType": GET_MERCHANT_LISTINGS_ALL_DATA}' }),
    );
    expect([envelope.error_kind, envelope.error_code, envelope.retryable]).toEqual([
      'sp_api_client',
      'BODY_COERCION_INVALID_JSON',
      false,
    ]);
    expect(envelope.details[0]?.path).toBe('body');
    expect(upstream.requests).toHaveLength(before);
  });

  it('a body given as valid JSON text is parsed, checked and sent', async () => {
    upstream.respond({ status: 202, body: { reportId: '77' } });
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const result = await connected.call('reports20210630_createReport', {
      body: '{"reportType":"GET_FBA_MYI_ALL_INVENTORY_DATA","marketplaceIds":["A1VC38T7YXB528"]}',
    });
    expect(result.structuredContent).toEqual({ reportId: '77' });
    expect(JSON.parse(upstream.requests.at(-1)!.body)).toEqual({
      reportType: 'GET_FBA_MYI_ALL_INVENTORY_DATA',
      marketplaceIds: ['A1VC38T7YXB528'],
    });
    const invalid = envelopeOf(
      await connected.call('reports20210630_createReport', { body: '{"marketplaceIds":["A1VC38T7YXB528"]}' }),
    );
    expect([invalid.error_kind, invalid.error_code]).toEqual(['mcp_input_validation', 'SCHEMA_REQUIRED']);
    expect(invalid.details[0]?.path).toBe('body/reportType');
  });
});

describe('pre-flight checks with the SP tables', () => {
  it('renames camelCase keys to the PascalCase parameters of a v0 operation', async () => {
    upstream.respond({ status: 200, body: { payload: {} } });
    const connected = await server({
      env: { ...lwaEnv(upstream), MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' },
      upstream: upstream.url,
    });
    const result = await connected.call('ordersV0_getOrders', {
      marketplaceIds: ['ATVPDKIKX0DER'],
      createdAfter: '2026-04-01T00:00:00Z',
    });
    expect(result.isError).toBeFalsy();
    expect(Object.fromEntries(upstream.requests.at(-1)!.query)).toEqual({
      MarketplaceIds: 'ATVPDKIKX0DER',
      CreatedAfter: '2026-04-01T00:00:00Z',
    });
    expect((result.structuredContent as Record<string, Record<string, unknown>>)['_meta']!['normalized']).toEqual([
      { kind: 'renamed', from: 'marketplaceIds', to: 'MarketplaceIds', reason: 'schema_canonical_key' },
      { kind: 'renamed', from: 'createdAfter', to: 'CreatedAfter', reason: 'schema_canonical_key' },
    ]);
  });

  it('rejects a status the model lists only in prose, with valid values', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const envelope = envelopeOf(
      await connected.call('ordersV0_getOrders', { ...GET_ORDERS, OrderStatuses: ['Shiped'] }),
    );
    expect([envelope.error_kind, envelope.error_code]).toEqual(['mcp_input_validation', 'SCHEMA_ENUM_MISMATCH']);
    expect(envelope.hints).toContain('Did you mean Shipped? Got Shiped.');
    expect(envelope.hints.join(' ')).toContain('Valid:');
  });

  it('suggests the marketplace id for a country code', async () => {
    const connected = await server({ env: lwaEnv(upstream), upstream: upstream.url });
    const envelope = envelopeOf(
      await connected.call('ordersV0_getOrders', { MarketplaceIds: ['US'], CreatedAfter: '2026-04-01T00:00:00Z' }),
    );
    expect(envelope.error_code).toBe('SCHEMA_ENUM_MISMATCH');
    expect(envelope.hints).toContain('Did you mean ATVPDKIKX0DER? Got US.');
  });
});

describe('set_region', () => {
  it('switches the region and suggests the code for a region name', async () => {
    const connected = await server({ env: lwaEnv(upstream) });
    expect(connected.server.baseUrl()).toBe('https://sellingpartnerapi-na.amazon.com');
    const result = await connected.call('set_region', { region: 'fe', sandbox: true });
    expect(result.structuredContent).toEqual({
      region: 'fe',
      sandbox: true,
      endpoint: 'https://sandbox.sellingpartnerapi-fe.amazon.com',
      upstream_override: false,
    });
    // the choice is the session's: the server's default for other sessions stays
    expect(connected.server.baseUrl()).toBe('https://sellingpartnerapi-na.amazon.com');
    const envelope = envelopeOf(await connected.call('set_region', { region: 'Europe' }));
    expect(envelope.error_code).toBe('SCHEMA_ENUM_MISMATCH');
    expect(envelope.hints).toContain('Did you mean eu? Got Europe.');
  });

  it('starts in the region of SP_API_REGION', async () => {
    const connected = await server({ env: { ...lwaEnv(upstream), SP_API_REGION: 'EU' } });
    expect(connected.server.state.region).toBe('eu');
    expect(connected.server.baseUrl()).toBe('https://sellingpartnerapi-eu.amazon.com');
  });
});

describe('settings', () => {
  it('reads SP_API_REGION, SP_API_SANDBOX and SP_API_TIMEOUT_MS', () => {
    expect(spSettingsFromEnv({ SP_API_REGION: 'japan', SP_API_SANDBOX: 'yes', SP_API_TIMEOUT_MS: '5000' })).toEqual({
      region: 'fe',
      sandbox: true,
      timeoutMs: 5000,
    });
    expect(spSettingsFromEnv({})).toEqual({});
    expect(() => spSettingsFromEnv({ SP_API_REGION: 'moon' })).toThrow(SpSettingsError);
    expect(() => spSettingsFromEnv({ SP_API_SANDBOX: 'maybe' })).toThrow(SpSettingsError);
    expect(() => spSettingsFromEnv({ SP_API_TIMEOUT_MS: '-1' })).toThrow(SpSettingsError);
  });

  it('fails fast on an unreadable region', async () => {
    const models = await loadBuiltInCatalog();
    expect(() => createSpServer({ models, env: { SP_API_REGION: 'moon' } })).toThrow(
      'SP_API_REGION must be one of na, eu, fe',
    );
  });
});
