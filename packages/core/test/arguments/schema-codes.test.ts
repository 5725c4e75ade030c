import { describe, expect, it } from 'vitest';

import { VIOLATION_ORDER } from '../../src/arguments/index.js';
import { CAMPAIGN_SCHEMA, LISTING_SCHEMA, REPORT_SCHEMA, failed, passed, tool } from './fixtures.js';

const listing = tool(LISTING_SCHEMA);

/** Checks `{ sku: 'SKU-1', ...extra }` against the listing schema and returns the failure. */
function listingFailure(extra: Record<string, unknown>) {
  return failed(listing.check({ sku: 'SKU-1', ...extra }));
}

describe('one SCHEMA_* code per keyword', () => {
  it('accepts a valid call', () => {
    const result = passed(
      listing.check({
        sku: 'SKU-1',
        marketplaceIds: ['ATVPDKIKX0DER'],
        title: 'Green tea',
        quantity: 12,
        price: 9.99,
        condition: 'New',
        asin: 'B0ABCDEFGH',
        listedAt: '2025-03-01T10:00:00Z',
        channel: 'amazon',
        identifier: 'B0X',
        target: 7,
        keyword: 'tea',
        tags: ['a', 'b'],
        packSize: 12,
        dimensions: { unit: 'cm', length: 3 },
        note: 'fragile',
        attributes: { flavour_name: 'mint' },
      }),
    );
    expect(result.events).toEqual([]);
  });

  it('SCHEMA_TYPE_MISMATCH', () => {
    const result = failed(listing.check({ sku: 42 }));
    expect(result.error_code).toBe('SCHEMA_TYPE_MISMATCH');
    expect(result.summary).toBe('sku should be string, not integer. Correct sku and call again.');
    expect(result.details).toEqual([
      {
        path: 'sku',
        issue: 'sku should be string, not integer.',
        received_type: 'integer',
        field: 'sku',
        expected_type: 'string',
        did_you_mean: '42',
        expected: 'a value of type string',
        received_value: 42,
      },
    ]);
  });

  it('SCHEMA_TYPE_MISMATCH with a type list joins the expected types with |', () => {
    const result = failed(
      tool({ type: 'object', properties: { note: { type: ['string', 'null'] } } }).check({ note: 1.5 }),
    );
    expect(result.details).toEqual([
      {
        path: 'note',
        issue: 'note should be string|null, not number.',
        received_type: 'number',
        field: 'note',
        expected_type: 'string|null',
        did_you_mean: '1.5',
        expected: 'a value of type string or null',
        received_value: 1.5,
      },
    ]);
  });

  it('SCHEMA_REQUIRED', () => {
    const result = failed(listing.check({}));
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.summary).toBe('sku is required and was not sent. Correct sku and call again.');
    expect(result.details).toEqual([
      {
        path: 'sku',
        issue: 'sku is required and was not sent.',
        received_type: 'undefined',
        field: 'sku',
        expected: 'a value of type string',
      },
    ]);
  });

  it('SCHEMA_MAX_ITEMS', () => {
    const result = listingFailure({ marketplaceIds: ['A', 'B', 'C', 'D'] });
    expect(result.error_code).toBe('SCHEMA_MAX_ITEMS');
    expect(result.details).toEqual([
      {
        path: 'marketplaceIds',
        issue: 'marketplaceIds holds 4 items; at most 3 are allowed.',
        received_type: 'array',
        field: 'marketplaceIds',
        limit: 3,
        actual: 4,
        did_you_mean: ['A', 'B', 'C'],
        expected: 'at most 3 items',
        received_value: ['A', 'B', 'C', 'D'],
      },
    ]);
  });

  it('SCHEMA_MIN_ITEMS', () => {
    const result = listingFailure({ marketplaceIds: [] });
    expect(result.error_code).toBe('SCHEMA_MIN_ITEMS');
    expect(result.details).toEqual([
      {
        path: 'marketplaceIds',
        issue: 'marketplaceIds holds 0 items; at least 1 are needed.',
        received_type: 'array',
        field: 'marketplaceIds',
        limit: 1,
        actual: 0,
        expected: 'at least 1 item',
        received_value: [],
      },
    ]);
  });

  it('SCHEMA_MAX_LENGTH, counting code points as Ajv does', () => {
    const result = listingFailure({ title: 'Organic green tea' });
    expect(result.error_code).toBe('SCHEMA_MAX_LENGTH');
    expect(result.details).toEqual([
      {
        path: 'title',
        issue: 'title is 17 characters long; at most 10 are allowed.',
        received_type: 'string',
        field: 'title',
        limit: 10,
        actual: 17,
        did_you_mean: 'Organic ', // the cut word is dropped: it may be a token's head
        expected: 'at most 10 characters',
        received_value: 'Organic green tea',
      },
    ]);
    const emoji = listingFailure({ title: '🍵'.repeat(11) });
    expect(emoji.details[0]).toMatchObject({ limit: 10, actual: 11 });
  });

  it('SCHEMA_MIN_LENGTH', () => {
    const result = listingFailure({ title: 'T' });
    expect(result.error_code).toBe('SCHEMA_MIN_LENGTH');
    expect(result.details).toEqual([
      {
        path: 'title',
        issue: 'title is 1 characters long; at least 2 are needed.',
        received_type: 'string',
        field: 'title',
        limit: 2,
        actual: 1,
        expected: 'at least 2 characters',
        received_value: 'T',
      },
    ]);
  });

  it('SCHEMA_MAXIMUM', () => {
    const result = listingFailure({ quantity: 1000 });
    expect(result.error_code).toBe('SCHEMA_MAXIMUM');
    expect(result.details).toEqual([
      {
        path: 'quantity',
        issue: 'quantity is above its maximum of 999.',
        received_type: 'integer',
        field: 'quantity',
        limit: 999,
        did_you_mean: 999,
        expected: 'a number no greater than 999',
        received_value: 1000,
      },
    ]);
  });

  it('SCHEMA_MINIMUM', () => {
    const result = listingFailure({ quantity: -1 });
    expect(result.error_code).toBe('SCHEMA_MINIMUM');
    expect(result.details).toEqual([
      {
        path: 'quantity',
        issue: 'quantity is below its minimum of 0.',
        received_type: 'integer',
        field: 'quantity',
        limit: 0,
        did_you_mean: 0,
        expected: 'a number no smaller than 0',
        received_value: -1,
      },
    ]);
  });

  it('exclusiveMaximum and exclusiveMinimum map to SCHEMA_MAXIMUM / SCHEMA_MINIMUM with exclusive: true', () => {
    const above = listingFailure({ price: 10000 });
    expect(above.error_code).toBe('SCHEMA_MAXIMUM');
    expect(above.details).toEqual([
      {
        path: 'price',
        issue: 'price is above its maximum of 10000 (exclusive).',
        received_type: 'integer',
        field: 'price',
        limit: 10000,
        exclusive: true,
        expected: 'a number below 10000',
        received_value: 10000,
      },
    ]);
    const below = listingFailure({ price: 0 });
    expect(below.error_code).toBe('SCHEMA_MINIMUM');
    expect(below.details).toEqual([
      {
        path: 'price',
        issue: 'price is below its minimum of 0 (exclusive).',
        received_type: 'integer',
        field: 'price',
        limit: 0,
        exclusive: true,
        expected: 'a number above 0',
        received_value: 0,
      },
    ]);
  });

  it('SCHEMA_ENUM_MISMATCH', () => {
    const result = listingFailure({ condition: 'Mint' });
    expect(result.error_code).toBe('SCHEMA_ENUM_MISMATCH');
    expect(result.details).toEqual([
      {
        path: 'condition',
        issue: 'condition is not one of the allowed values.',
        received_type: 'string',
        field: 'condition',
        allowed: ['New', 'Used', 'Refurbished'],
        expected: 'one of: New, Used, Refurbished',
        received_value: 'Mint',
      },
    ]);
  });

  it('SCHEMA_PATTERN_MISMATCH', () => {
    const result = listingFailure({ asin: 'X123' });
    expect(result.error_code).toBe('SCHEMA_PATTERN_MISMATCH');
    expect(result.details).toEqual([
      {
        path: 'asin',
        issue: 'asin does not have the required form.',
        received_type: 'string',
        field: 'asin',
        pattern: '^B0[0-9A-Z]{8}$',
        expected: 'a string matching ^B0[0-9A-Z]{8}$',
        received_value: 'X123',
      },
    ]);
  });

  it('SCHEMA_FORMAT_INVALID', () => {
    const result = listingFailure({ listedAt: 'yesterday' });
    expect(result.error_code).toBe('SCHEMA_FORMAT_INVALID');
    expect(result.details).toEqual([
      {
        path: 'listedAt',
        issue: 'listedAt is not a valid date-time.',
        received_type: 'string',
        field: 'listedAt',
        format: 'date-time',
        expected: 'a valid date-time',
        received_value: 'yesterday',
      },
    ]);
  });

  it('SCHEMA_ADDITIONAL_PROPERTIES', () => {
    const result = listingFailure({ colour: 'red' });
    expect(result.error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
    expect(result.details).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: colour.',
        received_type: 'string',
        field: '',
        extra: 'colour',
        expected: 'only the keys the schema declares',
        received_value: 'red',
      },
    ]);
  });

  it('SCHEMA_ADDITIONAL_PROPERTIES: one detail per unknown key, at the path of the object holding it', () => {
    const nested = tool({
      type: 'object',
      properties: {
        options: { type: 'object', properties: { mode: { type: 'string' } }, additionalProperties: false },
      },
    });
    const result = failed(nested.check({ colour: 'red', size: 3, options: { mode: 'a', typo_key: 1, depth: 2 } }));
    expect(result.details.map((detail) => [detail.path, detail['field'], detail['extra']])).toEqual([
      // sorted by the key's own position: a defined property's subtree before unknown top-level keys
      ['options', 'options', 'depth'],
      ['options', 'options', 'typo_key'],
      ['', '', 'colour'],
      ['', '', 'size'],
    ]);
  });

  it('SCHEMA_ONE_OF_FAILED when no branch matches, and when several do', () => {
    const none = listingFailure({ identifier: 'short' });
    expect(none.error_code).toBe('SCHEMA_ONE_OF_FAILED');
    expect(none.details).toEqual([
      {
        path: 'identifier',
        issue: "identifier must match exactly one of the schema's alternatives and does not.",
        received_type: 'string',
        field: 'identifier',
        branches: [
          { branch: 0, error_code: 'SCHEMA_PATTERN_MISMATCH', path: 'identifier' },
          { branch: 1, error_code: 'SCHEMA_MIN_LENGTH', path: 'identifier' },
        ],
        // both branches take a string and fail once: the lower index is the nearest
        nearest_branch: 0,
        branch_details: [
          {
            path: 'identifier',
            issue: 'identifier does not have the required form.',
            received_type: 'string',
            field: 'identifier',
            pattern: '^B0',
            expected: 'a string matching ^B0',
            received_value: 'short',
          },
        ],
        expected: 'a value matching exactly one of the 2 alternatives',
        received_value: 'short',
      },
    ]);
    const both = listingFailure({ identifier: 'B0LONGIDENTIFIER' });
    expect(both.details).toEqual([
      {
        path: 'identifier',
        issue: "identifier must match exactly one of the schema's alternatives and does not.",
        received_type: 'string',
        field: 'identifier',
        branches: [],
        passing: [0, 1],
        expected: 'a value matching exactly one of the 2 alternatives',
        received_value: 'B0LONGIDENTIFIER',
      },
    ]);
  });

  it('SCHEMA_ANY_OF_FAILED', () => {
    const result = listingFailure({ target: true });
    expect(result.error_code).toBe('SCHEMA_ANY_OF_FAILED');
    expect(result.details).toEqual([
      {
        path: 'target',
        issue: "target matches none of the schema's alternatives.",
        received_type: 'boolean',
        field: 'target',
        branches: [
          { branch: 0, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'target' },
          { branch: 1, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'target' },
        ],
        nearest_branch: 0,
        branch_details: [
          {
            path: 'target',
            issue: 'target should be string, not boolean.',
            received_type: 'boolean',
            field: 'target',
            expected_type: 'string',
            received_value: true,
            expected: 'a value of type string',
            did_you_mean: 'true',
          },
        ],
        did_you_mean: 'true',
        expected: 'a value matching at least one of the 2 alternatives',
        received_value: true,
      },
    ]);
  });

  it('SCHEMA_ALL_OF_FAILED', () => {
    const result = listingFailure({ keyword: 'ab' });
    expect(result.error_code).toBe('SCHEMA_ALL_OF_FAILED');
    expect(result.details).toEqual([
      {
        path: 'keyword',
        issue: 'keyword breaks one of the constraints it must meet together.',
        received_type: 'string',
        field: 'keyword',
        branches: [{ branch: 1, error_code: 'SCHEMA_MIN_LENGTH', path: 'keyword' }],
        branch_details: [
          {
            path: 'keyword',
            issue: 'keyword is 2 characters long; at least 3 are needed.',
            received_type: 'string',
            field: 'keyword',
            limit: 3,
            actual: 2,
            received_value: 'ab',
            expected: 'at least 3 characters',
          },
        ],
        expected: 'a value matching all of the parts',
        received_value: 'ab',
      },
    ]);
  });

  it('SCHEMA_UNIQUE_ITEMS, with the duplicate indexes as actual', () => {
    const result = listingFailure({ tags: ['gift', 'tea', 'gift'] });
    expect(result.error_code).toBe('SCHEMA_UNIQUE_ITEMS');
    expect(result.details).toEqual([
      {
        path: 'tags',
        issue: 'tags contains the same item more than once.',
        received_type: 'array',
        field: 'tags',
        actual: [0, 2],
        did_you_mean: ['gift', 'tea'],
        expected: 'items that are all different',
        received_value: ['gift', 'tea', 'gift'],
      },
    ]);
  });

  it('SCHEMA_CONST_MISMATCH', () => {
    const result = listingFailure({ channel: 'ebay' });
    expect(result.error_code).toBe('SCHEMA_CONST_MISMATCH');
    expect(result.details).toEqual([
      {
        path: 'channel',
        issue: 'channel must be exactly amazon.',
        received_type: 'string',
        field: 'channel',
        allowed: ['amazon'],
        did_you_mean: 'amazon',
        expected: 'exactly amazon',
        received_value: 'ebay',
      },
    ]);
  });

  it('SCHEMA_MULTIPLE_OF', () => {
    const result = listingFailure({ packSize: 10 });
    expect(result.error_code).toBe('SCHEMA_MULTIPLE_OF');
    expect(result.details).toEqual([
      {
        path: 'packSize',
        issue: 'packSize is not a multiple of 6.',
        received_type: 'integer',
        field: 'packSize',
        limit: 6,
        did_you_mean: 12,
        expected: 'a multiple of 6',
        received_value: 10,
      },
    ]);
  });

  it('SCHEMA_VALIDATION_FAILED for dependentRequired, at the missing field', () => {
    const result = listingFailure({ dimensions: { length: 10 } });
    expect(result.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(result.details).toEqual([
      {
        path: 'dimensions/unit',
        issue: 'dimensions/unit failed the schema keyword dependentRequired.',
        received_type: 'undefined',
        keyword: 'dependentRequired',
        field: 'unit',
        required_by: 'length',
        expected: 'unit sent too',
      },
    ]);
  });

  it('SCHEMA_VALIDATION_FAILED for not', () => {
    const result = listingFailure({ note: '' });
    expect(result.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(result.details).toEqual([
      {
        path: 'note',
        issue: 'note failed the schema keyword not.',
        received_type: 'string',
        field: 'note',
        keyword: 'not',
        received_value: '',
      },
    ]);
  });

  it('SCHEMA_VALIDATION_FAILED for propertyNames, with the inner pattern error folded in', () => {
    const result = listingFailure({ attributes: { 'Flavour-Name': 'mint' } });
    expect(result.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(result.details).toEqual([
      {
        path: 'attributes',
        issue: 'attributes failed the schema keyword propertyNames.',
        received_type: 'object',
        field: 'attributes',
        keyword: 'propertyNames',
        extra: 'Flavour-Name',
        received_value: { 'Flavour-Name': 'mint' },
      },
    ]);
  });
});

describe('paths', () => {
  const report = tool(REPORT_SCHEMA);

  it('reports a nested type error at filters/0/marketplaceId', () => {
    const result = failed(
      report.check({ reportType: 'GET_FLAT_FILE_OPEN_LISTINGS_DATA', filters: [{ marketplaceId: 5 }] }),
    );
    expect(result.details).toEqual([
      {
        path: 'filters/0/marketplaceId',
        issue: 'filters/0/marketplaceId should be string, not integer.',
        received_type: 'integer',
        field: 'filters/0/marketplaceId',
        expected_type: 'string',
        did_you_mean: '5',
        expected: 'a value of type string',
        received_value: 5,
      },
    ]);
  });

  it('reports a nested missing field and a nested extra key at their own paths', () => {
    const result = failed(
      report.check({ reportType: 'R', filters: [{ marketplaceId: 'A' }, { region: 'na', marketplaceID: 'B' }] }),
    );
    expect(result.details).toEqual([
      {
        path: 'filters/1/marketplaceId',
        issue: 'filters/1/marketplaceId is required and was not sent.',
        received_type: 'undefined',
        field: 'marketplaceId',
        expected: 'a value of type string',
      },
      {
        path: 'filters/1',
        issue: 'filters/1 has a key the schema does not define: marketplaceID.',
        received_type: 'string',
        field: 'filters/1',
        extra: 'marketplaceID',
        did_you_mean: 'marketplaceId',
        expected: 'only the keys the schema declares',
        received_value: 'B',
      },
    ]);
  });

  it('unescapes ~1 and ~0 in keys', () => {
    const result = failed(tool({ type: 'object', properties: {} }).check({ 'a/b~c': 1 }));
    expect(result.details.map((detail) => [detail.path, detail['extra']])).toEqual([['', 'a/b~c']]);
  });

  it('unescapes ~1 and ~0 in the instance path of a nested violation', () => {
    const schema = {
      type: 'object',
      properties: { 'a/b~c': { type: 'object', properties: { '~x': { type: 'string' } } } },
    };
    const result = failed(tool(schema).check({ 'a/b~c': { '~x': 1 } }));
    expect(result.details.map((detail) => [detail.path, detail.received_type])).toEqual([['a/b~c/~x', 'integer']]);
  });

  it('reports a combinator at its parent path, folding branch errors from $ref targets', () => {
    const result = failed(tool(CAMPAIGN_SCHEMA).check({ profileId: 1, budget: { amount: 'ten' } }));
    expect(result.error_code).toBe('SCHEMA_ANY_OF_FAILED');
    expect(result.details).toEqual([
      {
        path: 'budget',
        issue: "budget matches none of the schema's alternatives.",
        received_type: 'object',
        field: 'budget',
        branches: [
          { branch: 0, error_code: 'SCHEMA_REQUIRED', path: 'budget/currency' },
          { branch: 0, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'budget/amount' },
          { branch: 1, error_code: 'SCHEMA_TYPE_MISMATCH', path: 'budget' },
        ],
        // branch 1 fails once but wants another type; branch 0 takes the object sent
        nearest_branch: 0,
        branch_details: [
          {
            path: 'budget/currency',
            issue: 'budget/currency is required and was not sent.',
            received_type: 'undefined',
            field: 'currency',
            expected: 'a value of type string',
          },
          {
            path: 'budget/amount',
            issue: 'budget/amount should be number, not string.',
            received_type: 'string',
            field: 'budget/amount',
            expected_type: 'number',
            received_value: 'ten',
            expected: 'a value of type number',
          },
        ],
        expected: 'a value matching at least one of the 2 alternatives',
        received_value: { amount: 'ten' },
      },
    ]);
  });

  it('keeps then/else errors and drops the if wrapper', () => {
    const schema = {
      type: 'object',
      properties: { fulfillment: { enum: ['AFN', 'MFN'] }, shipFrom: { type: 'string' } },
      if: { properties: { fulfillment: { const: 'MFN' } }, required: ['fulfillment'] },
      then: { required: ['shipFrom'] },
    };
    const result = failed(tool(schema).check({ fulfillment: 'MFN' }));
    expect(result.details).toEqual([
      {
        path: 'shipFrom',
        issue: 'shipFrom is required and was not sent.',
        received_type: 'undefined',
        field: 'shipFrom',
        expected: 'a value',
      },
    ]);
  });
});

describe('the stable violation order', () => {
  it('is exported as a constant, required first', () => {
    expect(VIOLATION_ORDER.map((entry) => entry.category)).toEqual([
      'required',
      'unknown_key',
      'type',
      'value',
      'combinator',
      'other',
    ]);
    expect(VIOLATION_ORDER[1].keywords).toEqual(['additionalProperties', 'unevaluatedProperties']);
  });

  it('picks error_code by category and sorts every detail the same way', () => {
    const result = failed(
      listing.check({ title: 'x', condition: 'Mint', colour: 'red', quantity: 'many', target: true }),
    );
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.summary).toBe(
      'sku is required and was not sent. (and 5 more) Correct sku, colour, quantity and the other fields in details, then call again.',
    );
    // an unknown key's detail sits at the path of its object, so the key itself is read from `extra`
    expect(result.details.map((detail) => detail['extra'] ?? detail.path)).toEqual([
      'sku',
      'colour',
      'quantity',
      'condition',
      'target',
      'title',
    ]);
    const withoutRequired = failed(listing.check({ sku: 'S', title: 'x', condition: 'Mint', colour: 'red' }));
    expect(withoutRequired.error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
    expect(withoutRequired.details.map((detail) => detail['extra'] ?? detail.path)).toEqual([
      'colour',
      'condition',
      'title',
    ]);
    const typeBeforeEnum = failed(listing.check({ sku: 'S', condition: 'Mint', quantity: 'many' }));
    expect(typeBeforeEnum.error_code).toBe('SCHEMA_TYPE_MISMATCH');
  });

  it('orders by the schema’s property order, not the call’s key order; unknown keys last, by name', () => {
    const result = failed(listing.check({ zeta: 1, quantity: 'x', alpha: 2, sku: 5 }));
    expect(result.details.map((detail) => detail['extra'] ?? detail.path)).toEqual([
      'alpha',
      'zeta',
      'sku',
      'quantity',
    ]);
  });

  it('orders array indexes numerically and breaks ties by keyword name', () => {
    const filters = Array.from({ length: 11 }, (_, index) => ({
      marketplaceId: index === 2 || index === 10 ? 7 : 'M',
    }));
    const result = failed(tool(REPORT_SCHEMA).check({ reportType: 'R', filters }));
    expect(result.details.map((detail) => detail.path)).toEqual([
      'filters/2/marketplaceId',
      'filters/10/marketplaceId',
    ]);
    const code = tool({ type: 'object', properties: { code: { type: 'string', pattern: '^[0-9]+$', minLength: 5 } } });
    expect(failed(code.check({ code: 'ab' })).details.map((detail) => Object.keys(detail)[4])).toEqual([
      'limit',
      'pattern',
    ]);
  });
});

describe('schemas with $ref, $defs and other drafts', () => {
  it('validates through $ref and $defs and rejects unknown keys via the injected unevaluatedProperties', () => {
    const compiled = tool(CAMPAIGN_SCHEMA);
    passed(
      compiled.check({
        profileId: 7,
        maxResults: 10,
        stateFilter: ['ENABLED'],
        budget: { amount: 5, currency: 'USD' },
      }),
    );
    const result = failed(compiled.check({ profileId: 7, stateFilter: ['RUNNING'], campaignName: 'Spring' }));
    expect(result.details).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: campaignName.',
        received_type: 'string',
        field: '',
        extra: 'campaignName',
        expected: 'no other keys',
        received_value: 'Spring',
      },
      {
        path: 'stateFilter/0',
        issue: 'stateFilter/0 is not one of the allowed values.',
        received_type: 'string',
        field: 'stateFilter/0',
        allowed: ['ENABLED', 'PAUSED', 'ARCHIVED'],
        expected: 'one of: ENABLED, PAUSED, ARCHIVED',
        received_value: 'RUNNING',
      },
    ]);
  });

  it('compiles a draft-07 schema (definitions, tuple items) and keeps its $schema in the published copy', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { Sku: { type: 'string', minLength: 3 } },
      properties: {
        sku: { $ref: '#/definitions/Sku' },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      },
    };
    const compiled = tool(schema);
    expect(compiled.publishedInputSchema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(compiled.publishedInputSchema['properties']).toEqual(schema.properties);
    passed(compiled.check({ sku: 'ABC', pair: ['a', 1] }));
    expect(failed(compiled.check({ sku: 'AB' })).details).toEqual([
      {
        path: 'sku',
        issue: 'sku is 2 characters long; at least 3 are needed.',
        received_type: 'string',
        field: 'sku',
        limit: 3,
        actual: 2,
        expected: 'at least 3 characters',
        received_value: 'AB',
      },
    ]);
    expect(
      failed(compiled.check({ pair: ['a', 'b'] })).details.map((detail) => [detail.path, detail['expected_type']]),
    ).toEqual([['pair/1', 'integer']]);
    expect(failed(compiled.check({ pair: ['a', 1, 'extra'] })).details).toEqual([
      {
        path: 'pair',
        issue: 'pair failed the schema keyword items.',
        received_type: 'array',
        field: 'pair',
        keyword: 'items',
        limit: 2,
        received_value: ['a', 1, 'extra'],
      },
    ]);
  });

  it('reads draft-04 boolean exclusiveMaximum', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { discount: { type: 'number', maximum: 50, exclusiveMaximum: true } },
    };
    const compiled = tool(schema);
    passed(compiled.check({ discount: 49.5 }));
    expect(failed(compiled.check({ discount: 50 })).details).toEqual([
      {
        path: 'discount',
        issue: 'discount is above its maximum of 50 (exclusive).',
        received_type: 'integer',
        field: 'discount',
        limit: 50,
        exclusive: true,
        expected: 'a number below 50',
        received_value: 50,
      },
    ]);
  });

  it('ignores OpenAPI keywords and honours nullable', () => {
    const schema = {
      type: 'object',
      'x-amzn-api': 'orders',
      properties: { note: { type: 'string', nullable: true, example: 'gift', 'x-order': 1 } },
      discriminator: { propertyName: 'kind' },
    };
    passed(tool(schema).check({ note: null }));
  });

  it('compiles a pattern that is only valid without the u flag', () => {
    const compiled = tool({ type: 'object', properties: { slug: { type: 'string', pattern: '^[\\w-.]+$' } } });
    passed(compiled.check({ slug: 'a-b.c' }));
    expect(failed(compiled.check({ slug: 'a b' })).error_code).toBe('SCHEMA_PATTERN_MISMATCH');
  });
});

describe('pathological input', () => {
  it('turns a validator crash on deep recursive input into SCHEMA_VALIDATION_FAILED', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } };
    let deep: Record<string, unknown> = { name: 'leaf' };
    for (let level = 0; level < 100_000; level += 1) deep = { child: deep };
    const result = failed(tool(schema).check(deep));
    expect(result.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(result.details).toEqual([
      {
        path: '',
        issue: 'arguments failed the schema keyword validation_aborted.',
        received_type: 'object',
        field: '',
        keyword: 'validation_aborted',
      },
    ]);
  });

  it('validates deep input that the schema does not descend into', () => {
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 100_000; level += 1) deep = { inner: deep };
    passed(listing.check({ sku: 'S', attributes: { nested: deep } }));
  });

  it('counts every violation of a huge array but builds only the first 200 details', () => {
    const result = failed(
      tool(REPORT_SCHEMA).check({
        reportType: 'R',
        filters: Array.from({ length: 10_000 }, () => ({ marketplaceId: 1 })),
      }),
    );
    expect(result.details).toHaveLength(200);
    expect(result.details[199]?.path).toBe('filters/199/marketplaceId');
    expect(result.omittedDetails).toBe(9_800);
    expect(result.summary).toBe(
      'filters/0/marketplaceId should be string, not integer. (and 9999 more) Correct filters/0/marketplaceId, filters/1/marketplaceId, filters/2/marketplaceId and the other fields in details, then call again.',
    );
  });

  it('does not throw when reading the arguments throws', () => {
    const hostile = {
      get marketplaceIds(): never {
        throw new Error('getter exploded');
      },
    };
    const result = failed(listing.check(hostile));
    expect(result.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(result.details[0]).toMatchObject({ path: '', keyword: 'validation_aborted' });
    expect(JSON.stringify(result)).not.toContain('exploded');
  });
});
