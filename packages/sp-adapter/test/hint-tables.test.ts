import { compileTool } from '@mcp-envelope/core/adapter';
import { describe, expect, it } from 'vitest';

import { SP_HINT_TABLES } from '../src/index.js';
import { SP_CURATED_ENUMS, SP_KEY_RENAMES, SP_MARKETPLACE_ALIASES, camelCaseSpelling } from '../src/hint-tables.js';
import {
  SP_MARKETPLACE_IDS,
  SP_REGION_ALIASES,
  SP_REGION_VALUE_ALIASES,
  parseSpRegion,
  spEndpoint,
} from '../src/regions.js';

describe('key renames', () => {
  it.each([
    ['MarketplaceIds', 'marketplaceIds'],
    ['ASINList', 'asinList'],
    ['SellerSKUList', 'sellerSKUList'],
    ['IsISPU', 'isISPU'],
    ['ASIN', 'asin'],
    ['NextToken', 'nextToken'],
  ])('%s <-> %s', (pascal, camel) => {
    expect(camelCaseSpelling(pascal)).toBe(camel);
    expect(SP_KEY_RENAMES[camel]).toBe(pascal);
    expect(SP_KEY_RENAMES[pascal]).toBe(camel);
  });

  it('covers the 5 v0 models and nothing more', () => {
    expect(Object.keys(SP_KEY_RENAMES)).toHaveLength(96);
  });
});

describe('aliases', () => {
  it('maps country codes and names to marketplace ids', () => {
    expect(SP_MARKETPLACE_ALIASES['us']).toBe('ATVPDKIKX0DER');
    expect(SP_MARKETPLACE_ALIASES['uk']).toBe('A1F83G8C2ARO7P');
    expect(SP_MARKETPLACE_ALIASES['gb']).toBe('A1F83G8C2ARO7P');
    expect(SP_MARKETPLACE_ALIASES['japan']).toBe('A1VC38T7YXB528');
    expect(SP_MARKETPLACE_IDS).toHaveLength(23);
  });

  it('maps region names and country codes to region codes', () => {
    expect(parseSpRegion('EU')).toBe('eu');
    expect(parseSpRegion(' North America ')).toBe('na');
    expect(parseSpRegion('jp')).toBe('fe');
    expect(parseSpRegion('mars')).toBeUndefined();
    expect(parseSpRegion(undefined)).toBeUndefined();
    expect(SP_REGION_ALIASES.usa).toBe('na');
    expect(SP_REGION_VALUE_ALIASES['us']).toBe('na');
    expect(SP_REGION_VALUE_ALIASES['united arab emirates']).toBe('eu');
    expect(spEndpoint('eu')).toBe('https://sellingpartnerapi-eu.amazon.com');
    expect(spEndpoint('fe', true)).toBe('https://sandbox.sellingpartnerapi-fe.amazon.com');
  });

  it('pins the curated enums', () => {
    expect(SP_CURATED_ENUMS.OrderStatuses).toEqual([
      'PendingAvailability',
      'Pending',
      'Unshipped',
      'PartiallyShipped',
      'Shipped',
      'InvoiceUnconfirmed',
      'Canceled',
      'Unfulfillable',
    ]);
    expect(SP_CURATED_ENUMS.FulfillmentChannels).toEqual(['AFN', 'MFN']);
    expect(SP_CURATED_ENUMS.PaymentMethods).toEqual(['COD', 'CVS', 'Other']);
  });
});

describe('the tables in core argument checking', () => {
  const options = { normalizationEnabled: true, strictUnknownFields: true, hints: SP_HINT_TABLES };

  it('renames camelCase to the PascalCase parameter of a v0 tool', () => {
    const tool = compileTool(
      'ordersV0_getOrders',
      {
        type: 'object',
        properties: { MarketplaceIds: { type: 'array', items: { type: 'string' } } },
        required: ['MarketplaceIds'],
      },
      options,
    );
    const check = tool.check({ marketplaceIds: ['ATVPDKIKX0DER'] });
    expect(check).toEqual({
      ok: true,
      args: { MarketplaceIds: ['ATVPDKIKX0DER'] },
      events: [{ kind: 'renamed', from: 'marketplaceIds', to: 'MarketplaceIds', reason: 'schema_canonical_key' }],
    });
  });

  it('suggests the canonical region for an alias', () => {
    const tool = compileTool(
      'set_region',
      { type: 'object', properties: { region: { type: 'string', enum: ['na', 'eu', 'fe'] } }, required: ['region'] },
      options,
    );
    const check = tool.check({ region: 'Europe' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.error_code).toBe('SCHEMA_ENUM_MISMATCH');
    expect(check.hints).toContain('Did you mean eu? Got Europe.');
  });

  it('suggests the marketplace id for a country code', () => {
    const tool = compileTool(
      't',
      { type: 'object', properties: { marketplaceId: { type: 'string', enum: [...SP_MARKETPLACE_IDS] } } },
      options,
    );
    const check = tool.check({ marketplaceId: 'US' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.hints).toContain('Did you mean ATVPDKIKX0DER? Got US.');
  });
});
