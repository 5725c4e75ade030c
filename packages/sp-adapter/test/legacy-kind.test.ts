/**
 * `legacy_error_kind` follows the condition, not the code: only an SP-API 429 had the kind
 * `sp_api_http` before it became `rate_limited`; the server's own limiter and the identity service
 * share the code `RATE_LIMITED` but never had that kind.
 */
import { describe, expect, it } from 'vitest';

import { connect, envelopeOf, lwaEnv, modelsWithPlan, useSpUpstream } from './helpers/sp-client.js';

const GET_ORDERS = { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-01-01T00:00:00Z' };

const upstream = useSpUpstream();

describe('legacy_error_kind of RATE_LIMITED envelopes on the SP server', () => {
  it('an upstream SP-API 429 still carries sp_api_http', async () => {
    const connected = await connect({ env: lwaEnv(upstream()), upstream: upstream().url });
    try {
      upstream().route({
        method: 'GET',
        path: '/orders/v0/orders',
        response: { status: 429, headers: { 'Retry-After': '3' }, body: { errors: [{ code: 'QuotaExceeded' }] } },
      });
      expect(envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS))).toMatchObject({
        error_kind: 'rate_limited',
        error_code: 'RATE_LIMITED',
        legacy_error_kind: 'sp_api_http',
      });
    } finally {
      upstream().route({ method: 'GET', path: '/orders/v0/orders', response: { status: 200, body: {} } });
      await connected.close();
    }
  });

  it("the server's own limiter refusal carries none", async () => {
    const connected = await connect({
      models: await modelsWithPlan(),
      upstream: upstream().url,
      env: { ...lwaEnv(upstream()), MCP_RATE_LIMIT: 'on', MCP_RATE_LIMIT_MAX_WAIT_MS: '0' },
    });
    try {
      expect((await connected.call('ordersV0_getOrders', GET_ORDERS)).isError).toBeUndefined();
      const refused = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
      expect(refused).toMatchObject({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED' });
      expect(Object.hasOwn(refused, 'legacy_error_kind')).toBe(false);
    } finally {
      await connected.close();
    }
  });

  it('an identity service 429 carries none', async () => {
    const connected = await connect({
      upstream: upstream().url,
      env: {
        ...lwaEnv(upstream()),
        SP_IDENTITY_SERVICE_URL: `${upstream().url}/idsvc`,
        SP_IDENTITY_SERVICE_TOKEN: 'idsvc-bearer-secret-0123456789',
      },
    });
    try {
      upstream().route({
        method: 'GET',
        path: '/idsvc/identities',
        response: { status: 429, headers: { 'Retry-After': '7' }, body: { message: 'slow down' } },
      });
      const limited = envelopeOf(await connected.call('list_identities', {}));
      expect(limited).toMatchObject({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED' });
      expect(limited.details[0]).toMatchObject({ http_status: 429, service: 'identity' });
      expect(Object.hasOwn(limited, 'legacy_error_kind')).toBe(false);
    } finally {
      await connected.close();
    }
  });
});
