/**
 * Two SP servers of different sellers (their own LWA_* credentials, no identity list) sharing one
 * rate-limit store, as replicas of two sellers on one Redis would: each seller spends its own
 * bucket of an operation, never the other's.
 */
import { createMemoryRateLimitStore } from '@mcp-envelope/core';
import { describe, expect, it } from 'vitest';

import { connect, envelopeOf, lwaEnv, modelsWithPlan, useSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';

const GET_ORDERS = { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-01-01T00:00:00Z' };

const upstream = useSpUpstream();

describe('sellers sharing one rate-limit store', () => {
  it('keeps the buckets of two LWA sellers apart, and refuses a seller past its own budget', async () => {
    const models = await modelsWithPlan();
    const store = createMemoryRateLimitStore();
    const seller = (refreshToken: string): Promise<Connected> =>
      connect({
        models,
        upstream: upstream().url,
        env: {
          ...lwaEnv(upstream()),
          LWA_REFRESH_TOKEN: refreshToken,
          MCP_RATE_LIMIT: 'on',
          MCP_RATE_LIMIT_MAX_WAIT_MS: '0',
        },
        envelope: { rateLimitStore: store },
      });
    const first = await seller('Atzr|seller-one-refresh-token');
    const second = await seller('Atzr|seller-two-refresh-token');
    try {
      expect((await first.call('ordersV0_getOrders', GET_ORDERS)).isError).toBeUndefined();
      const refused = envelopeOf(await first.call('ordersV0_getOrders', GET_ORDERS));
      expect(refused).toMatchObject({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true });
      // the other seller's bucket is untouched by the first seller's call
      expect((await second.call('ordersV0_getOrders', GET_ORDERS)).isError).toBeUndefined();
      expect(upstream().requests.filter((request) => request.path === '/orders/v0/orders')).toHaveLength(2);
    } finally {
      await first.close();
      await second.close();
      await store.close();
    }
  });
});
