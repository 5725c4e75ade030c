import { describe, expect, it } from 'vitest';

import { orderByCloseness } from '../../src/arguments/did-you-mean.js';
import { closestMatch, foldKey, jsonTypeOf } from '../../src/arguments/index.js';
import { ORDER_SEARCH_SCHEMA, REPORT_SCHEMA, failed, tool } from './fixtures.js';

const ORDER_STATUS_SCHEMA = {
  type: 'object',
  properties: {
    marketplaceIds: { type: 'array', items: { type: 'string' } },
    orderStatus: { type: 'string', enum: ['Pending', 'Unshipped', 'Shipped'] },
    region: { enum: ['na', 'eu', 'fe'] },
    reportType: { type: 'string', description: 'One of the report types listed in the documentation.' },
  },
  required: ['marketplaceIds'],
};

describe('hint categories', () => {
  it('missing_required names the field and its type, one hint per field', () => {
    const schema = {
      type: 'object',
      properties: {
        marketplaceIds: { type: 'array', items: { type: 'string' } },
        profileId: { type: ['integer', 'string'] },
        filter: { $ref: '#/$defs/Filter' },
        anything: {},
      },
      $defs: { Filter: { type: 'object' } },
      required: ['marketplaceIds', 'profileId', 'filter', 'anything'],
    };
    const result = failed(tool(schema).check({}));
    expect(result.hints.slice(0, 4)).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'Add the required field profileId (integer or string).',
      'Add the required field filter (object).',
      'Add the required field anything.',
    ]);
  });

  it('missing_required also covers nested objects', () => {
    const result = failed(tool(REPORT_SCHEMA).check({ reportType: 'R', filters: [{ region: 'na' }] }));
    expect(result.hints[0]).toBe('Add the required field filters/0/marketplaceId (string).');
  });

  it('case_mismatch for a key that differs only in case or separators when normalization is off', () => {
    const result = failed(
      tool(ORDER_SEARCH_SCHEMA, { normalizationEnabled: false }).check({ marketplaceIds: ['X'], Next_Token: 'n' }),
    );
    expect(result.hints).toContain('Use nextToken instead of Next_Token.');
  });

  it('case_mismatch lists every candidate of an ambiguous key', () => {
    const schema = { type: 'object', properties: { sku_id: { type: 'string' }, skuId: { type: 'string' } } };
    const result = failed(tool(schema).check({ SKUID: 'X' }));
    expect(result.hints[0]).toBe('Use sku_id or skuId instead of SKUID.');
  });

  it('case_mismatch from the adapter keyRenames table when normalization is off', () => {
    const compiled = tool(ORDER_SEARCH_SCHEMA, {
      normalizationEnabled: false,
      hints: { keyRenames: { MarketplaceId: 'marketplaceIds' } },
    });
    const result = failed(compiled.check({ MarketplaceId: 'X' }));
    expect(result.hints).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'Use marketplaceIds instead of MarketplaceId.',
      "Drop MarketplaceId, or check its spelling against the tool's schema.",
    ]);
  });

  it('did_you_mean for an unknown key close to a property', () => {
    const result = failed(tool(ORDER_SEARCH_SCHEMA).check({ marketplaceId: ['ATVPDKIKX0DER'] }));
    expect(result.hints).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'Did you mean marketplaceIds? Got marketplaceId.',
      "Drop marketplaceId, or check its spelling against the tool's schema.",
    ]);
  });

  it('did_you_mean for a nested unknown key, against its sibling properties', () => {
    const result = failed(
      tool(REPORT_SCHEMA).check({ reportType: 'R', filters: [{ marketplaceId: 'A', regoin: 'na' }] }),
    );
    expect(result.hints[0]).toBe('Did you mean region? Got regoin.');
  });

  it('did_you_mean from the adapter valueAliases on an enum failure', () => {
    const compiled = tool(ORDER_STATUS_SCHEMA, {
      hints: { valueAliases: { region: { us: 'na', 'north america': 'na' } } },
    });
    const result = failed(compiled.check({ marketplaceIds: ['X'], region: 'North America' }));
    expect(result.hints).toEqual([
      'Did you mean na? Got North America.',
      'North America is not valid for region. Valid: na, eu, fe.',
    ]);
  });

  it('did_you_mean for an enum value that is close to an allowed one', () => {
    const result = failed(tool(ORDER_STATUS_SCHEMA).check({ marketplaceIds: ['X'], orderStatus: 'shipped' }));
    expect(result.hints).toEqual([
      'Did you mean Shipped? Got shipped.',
      'shipped is not valid for orderStatus. Valid: Shipped, Unshipped, Pending.',
    ]);
  });

  it('enum_suggest keeps the schema order when nothing is close', () => {
    const result = failed(tool(ORDER_STATUS_SCHEMA).check({ marketplaceIds: ['X'], orderStatus: 'ORDERED' }));
    expect(result.hints).toEqual(['ORDERED is not valid for orderStatus. Valid: Pending, Unshipped, Shipped.']);
  });

  it('enum_suggest names the array property, not the item index', () => {
    const result = failed(
      tool(ORDER_SEARCH_SCHEMA).check({ marketplaceIds: ['X'], orderStatuses: ['Shipped', 'CONFIRMED'] }),
    );
    expect(result.hints[0]).toBe(
      'CONFIRMED is not valid for orderStatuses. Valid: Pending, Unshipped, Shipped, Canceled.',
    );
  });

  it('enum_suggest lists at most 10 values, the closest first', () => {
    const countries = ['US', 'CA', 'MX', 'BR', 'UK', 'DE', 'FR', 'IT', 'ES', 'NL', 'SE', 'PL', 'JP', 'AU'];
    const compiled = tool({ type: 'object', properties: { country: { enum: countries } } });
    const result = failed(compiled.check({ country: 'JQ' }));
    expect(result.hints[1]).toBe(
      'JQ is not valid for country. Valid: JP, US, CA, MX, BR, UK, DE, FR, IT, ES and 4 more.',
    );
  });

  it('enum_suggest from the adapter curatedEnums, as a hint only', () => {
    const compiled = tool(ORDER_STATUS_SCHEMA, {
      hints: { curatedEnums: { reportType: ['GET_MERCHANT_LISTINGS_ALL_DATA', 'GET_FLAT_FILE_OPEN_LISTINGS_DATA'] } },
    });
    const failure = failed(compiled.check({ reportType: 'GET_MERCHANT_LISTING_ALL_DATA' }));
    expect(failure.hints).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'GET_MERCHANT_LISTING_ALL_DATA is not valid for reportType. Valid: GET_MERCHANT_LISTINGS_ALL_DATA, GET_FLAT_FILE_OPEN_LISTINGS_DATA.',
    ]);
    // Not enforced: the same value passes when nothing else is wrong.
    expect(compiled.check({ marketplaceIds: ['X'], reportType: 'GET_MERCHANT_LISTING_ALL_DATA' }).ok).toBe(true);
  });

  it('orders the categories, then canonical hints by code, then the adapter’s extra hints; no duplicates', () => {
    const compiled = tool(ORDER_STATUS_SCHEMA, {
      normalizationEnabled: false,
      hints: {
        valueAliases: { region: { us: 'na' } },
        extraHintsByCode: {
          SCHEMA_ENUM_MISMATCH: ['Region codes are lower case.'],
          SCHEMA_REQUIRED: ['Call list_marketplaces to find your marketplace IDs.', 'Region codes are lower case.'],
        },
      },
    });
    const result = failed(compiled.check({ MarketplaceIDs: ['X'], orderStatus: 'ORDERED', region: 'us', regon: 'na' }));
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.hints).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'Use marketplaceIds instead of MarketplaceIDs.',
      'Did you mean region? Got regon.',
      'Did you mean na? Got us.',
      'ORDERED is not valid for orderStatus. Valid: Pending, Unshipped, Shipped.',
      'us is not valid for region. Valid: na, eu, fe.',
      "Drop MarketplaceIDs, or check its spelling against the tool's schema.",
      'Call list_marketplaces to find your marketplace IDs.',
      'Region codes are lower case.',
    ]);
  });

  it('fills the canonical hint of every distinct code from the first detail with that code', () => {
    const compiled = tool({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, n: { type: 'integer', maximum: 9 } },
    });
    const result = failed(compiled.check({ a: 1, b: 2, n: 10 }));
    expect(result.hints).toEqual(['Send a as string.', 'Send a value for n no greater than 9.']);
  });
});

describe('closestMatch', () => {
  it('returns the closest candidate within the threshold, ignoring case', () => {
    expect(closestMatch('get_ordres', ['get_order_items', 'get_orders', 'list_reports'])).toBe('get_orders');
    expect(closestMatch('GET_ORDERS', ['get_orders'])).toBe('get_orders');
    expect(closestMatch('marketplaceId', ['marketplaceIds', 'nextToken'])).toBe('marketplaceIds');
  });

  it('uses the threshold max(1, floor(length / 3))', () => {
    // 'abcdef' (6): threshold 2.
    expect(closestMatch('abcdef', ['abcdxy'])).toBe('abcdxy');
    expect(closestMatch('abcdef', ['abxyzf'])).toBeUndefined();
    // 'ab' (2): threshold 1.
    expect(closestMatch('ab', ['ax'])).toBe('ax');
    expect(closestMatch('ab', ['xy'])).toBeUndefined();
  });

  it('breaks ties by candidate order and handles empty input', () => {
    expect(closestMatch('cat', ['bat', 'hat'])).toBe('bat');
    expect(closestMatch('cat', ['hat', 'bat'])).toBe('hat');
    expect(closestMatch('anything', [])).toBeUndefined();
    expect(closestMatch('', ['a', 'bb'])).toBe('a');
  });

  it('skips candidates whose length alone is out of reach, so a huge input stays cheap', () => {
    expect(closestMatch('x'.repeat(200_000), ['get_orders'])).toBeUndefined();
  });
});

describe('helpers', () => {
  it('orderByCloseness puts close values first and keeps the rest in order', () => {
    // 'Shiped' (6 characters): threshold 2; 'Unshipped' is 3 characters longer, so not close.
    expect(orderByCloseness('Shiped', ['Pending', 'Unshipped', 'Shipped'])).toEqual([
      'Shipped',
      'Pending',
      'Unshipped',
    ]);
    expect(orderByCloseness('zzz', ['a', 'b'])).toEqual(['a', 'b']);
  });

  it('foldKey lower-cases and strips _ - space and .', () => {
    expect(foldKey('Marketplace_IDs')).toBe('marketplaceids');
    expect(foldKey('max-results.per page')).toBe('maxresultsperpage');
  });

  it('jsonTypeOf names JSON types, never classes', () => {
    expect([1, 1.5, 'x', true, null, [], {}, undefined, new Date(0), 10n].map(jsonTypeOf)).toEqual([
      'integer',
      'number',
      'string',
      'boolean',
      'null',
      'array',
      'object',
      'undefined',
      'object',
      'integer',
    ]);
  });
});
