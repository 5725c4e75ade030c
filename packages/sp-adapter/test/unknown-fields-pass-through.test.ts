/**
 * With `MCP_STRICT_UNKNOWN_FIELDS=false`, a top-level key the schema lacks is recorded as
 * `unknown_field_passed_through` and must really reach SP-API: as a query parameter of its own
 * name (top-level arguments are the operation's parameters; the JSON body is an argument of its
 * own). The loopback upstream records the request it got.
 */
import { describe, expect, it } from 'vitest';

import { connect, lwaEnv, useSpUpstream } from './helpers/sp-client.js';

const upstream = useSpUpstream();

describe('an unknown top-level key with MCP_STRICT_UNKNOWN_FIELDS=false on the SP server', () => {
  it('reaches SP-API as a query parameter, beside the declared ones, and the event says so', async () => {
    const connected = await connect({
      upstream: upstream().url,
      env: { ...lwaEnv(upstream()), MCP_STRICT_UNKNOWN_FIELDS: 'false', MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' },
    });
    try {
      const before = upstream().requests.length;
      const result = await connected.call('ordersV0_getOrders', {
        MarketplaceIds: ['ATVPDKIKX0DER'],
        CreatedAfter: '2026-01-01T00:00:00Z',
        NewlyAddedFilter: 'a b&c',
        NewlyAddedList: ['X1', 'Y2'],
      });
      expect(result.isError).toBeUndefined();
      const normalized = (result.structuredContent?.['_meta'] as { normalized?: unknown[] } | undefined)?.normalized;
      expect(normalized).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'unknown_field_passed_through', field: 'NewlyAddedFilter' }),
        ]),
      );
      const sent = upstream()
        .requests.slice(before)
        .filter((request) => request.path === '/orders/v0/orders');
      expect(sent).toHaveLength(1);
      expect(sent[0]?.method).toBe('GET');
      expect(sent[0]?.rawQuery).toBe(
        'CreatedAfter=2026-01-01T00%3A00%3A00Z&MarketplaceIds=ATVPDKIKX0DER&NewlyAddedFilter=a%20b%26c&NewlyAddedList=X1,Y2',
      );
    } finally {
      await connected.close();
    }
  });
});
