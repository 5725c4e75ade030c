import { describe, expect, it } from 'vitest';

import { CAMPAIGN_SCHEMA, ORDER_SEARCH_SCHEMA, failed, passed, tool } from './fixtures.js';

describe('pre-flight normalization events', () => {
  it('renames a key that matches one property ignoring case', () => {
    const result = passed(tool(ORDER_SEARCH_SCHEMA).check({ MarketplaceIds: ['ATVPDKIKX0DER'] }));
    expect(result.args).toEqual({ marketplaceIds: ['ATVPDKIKX0DER'] });
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' },
    ]);
  });

  it('ignores the separators _ - space and . when matching', () => {
    const result = passed(
      tool(ORDER_SEARCH_SCHEMA).check({
        marketplace_ids: ['A1F83G8C2ARO7P'],
        'Max-Results-Per-Page': 20,
        'next token': 'abc',
        'created.after': '2025-01-02T03:04:05Z',
      }),
    );
    expect(result.args).toEqual({
      marketplaceIds: ['A1F83G8C2ARO7P'],
      maxResultsPerPage: 20,
      nextToken: 'abc',
      createdAfter: '2025-01-02T03:04:05Z',
    });
    expect(result.events.map((event) => event.kind)).toEqual(['renamed', 'renamed', 'renamed', 'renamed']);
  });

  it('leaves symbol keys out, whether or not another key is renamed, and reads each getter once', () => {
    const tag = Symbol('tag');
    const canonical = passed(tool(ORDER_SEARCH_SCHEMA).check({ marketplaceIds: ['X'], [tag]: 1 }));
    const renamed = passed(tool(ORDER_SEARCH_SCHEMA).check({ MarketplaceIds: ['X'], [tag]: 1 }));
    const unnormalized = passed(
      tool(ORDER_SEARCH_SCHEMA, { normalizationEnabled: false }).check({ marketplaceIds: ['X'], [tag]: 1 }),
    );
    for (const result of [canonical, renamed, unnormalized]) {
      expect(result.args).toEqual({ marketplaceIds: ['X'] });
      expect(Object.getOwnPropertySymbols(result.args)).toEqual([]);
    }
    let reads = 0;
    const withGetter = {
      get marketplaceIds(): string[] {
        reads += 1;
        return ['X'];
      },
      NextToken: 'n',
    };
    expect(passed(tool(ORDER_SEARCH_SCHEMA).check(withGetter)).args).toEqual({ marketplaceIds: ['X'], nextToken: 'n' });
    expect(reads).toBe(1);
  });

  it('records the coercion of a canonical key whether it comes before or after a renamed one', () => {
    const expected = { marketplaceIds: ['X'], createdAfter: '2025-01-02T03:04:05Z' };
    const coerced = {
      kind: 'coerced',
      field: 'marketplaceIds',
      from_type: 'string',
      to_type: 'array',
      reason: 'scalar_to_array',
    };
    const renamed = { kind: 'renamed', from: 'created_after', to: 'createdAfter', reason: 'schema_canonical_key' };
    const first = passed(
      tool(ORDER_SEARCH_SCHEMA).check({ marketplaceIds: 'X', created_after: '2025-01-02T03:04:05Z' }),
    );
    expect(first.args).toEqual(expected);
    expect(first.events).toEqual([coerced, renamed]);
    const second = passed(
      tool(ORDER_SEARCH_SCHEMA).check({ created_after: '2025-01-02T03:04:05Z', marketplaceIds: 'X' }),
    );
    expect(second.args).toEqual(expected);
    expect(second.events).toEqual([renamed, coerced]);
  });

  it('keeps the renamed key at the position of the alias', () => {
    const result = passed(
      tool(ORDER_SEARCH_SCHEMA).check({ nextToken: 'n', MarketplaceIds: ['X'], maxResultsPerPage: 5 }),
    );
    expect(Object.keys(result.args)).toEqual(['nextToken', 'marketplaceIds', 'maxResultsPerPage']);
  });

  it('renames through the adapter keyRenames table before the case-insensitive match', () => {
    const compiled = tool(ORDER_SEARCH_SCHEMA, {
      hints: { keyRenames: { MarketplaceId: 'marketplaceIds', Bogus: 'notAProperty' } },
    });
    const result = passed(compiled.check({ MarketplaceId: ['ATVPDKIKX0DER'] }));
    expect(result.args).toEqual({ marketplaceIds: ['ATVPDKIKX0DER'] });
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'MarketplaceId', to: 'marketplaceIds', reason: 'schema_canonical_key' },
    ]);
    // A rename whose target is not a property is not applied.
    const unknown = failed(compiled.check({ marketplaceIds: ['X'], Bogus: 1 }));
    expect(unknown.events).toEqual([{ kind: 'unknown_field_rejected', field: 'Bogus', reason: 'no_schema_match' }]);
  });

  it('drops an alias when the canonical key is also present (canonical wins, whatever the order)', () => {
    const compiled = tool(ORDER_SEARCH_SCHEMA);
    const aliasLast = passed(compiled.check({ marketplaceIds: ['CANONICAL'], MarketplaceIds: ['ALIAS'] }));
    expect(aliasLast.args).toEqual({ marketplaceIds: ['CANONICAL'] });
    expect(aliasLast.events).toEqual([
      { kind: 'dropped_alias', from: 'MarketplaceIds', canonical: 'marketplaceIds', reason: 'canonical_key_present' },
    ]);
    const aliasFirst = passed(compiled.check({ MARKETPLACE_IDS: ['ALIAS'], marketplaceIds: ['CANONICAL'] }));
    expect(aliasFirst.args).toEqual({ marketplaceIds: ['CANONICAL'] });
    expect(aliasFirst.events).toEqual([
      { kind: 'dropped_alias', from: 'MARKETPLACE_IDS', canonical: 'marketplaceIds', reason: 'canonical_key_present' },
    ]);
  });

  it('renames the first of two aliases and drops the second', () => {
    const result = passed(tool(ORDER_SEARCH_SCHEMA).check({ MarketplaceIds: ['FIRST'], marketplace_ids: ['SECOND'] }));
    expect(result.args).toEqual({ marketplaceIds: ['FIRST'] });
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' },
      { kind: 'dropped_alias', from: 'marketplace_ids', canonical: 'marketplaceIds', reason: 'canonical_key_present' },
    ]);
  });

  it('wraps a scalar sent for an array-typed property', () => {
    const result = passed(tool(ORDER_SEARCH_SCHEMA).check({ marketplaceIds: 'ATVPDKIKX0DER' }));
    expect(result.args).toEqual({ marketplaceIds: ['ATVPDKIKX0DER'] });
    expect(result.events).toEqual([
      { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
    ]);
  });

  it('renames, then wraps, reporting both events in that order', () => {
    const result = passed(tool(ORDER_SEARCH_SCHEMA).check({ MarketplaceIds: 'ATVPDKIKX0DER' }));
    expect(result.args).toEqual({ marketplaceIds: ['ATVPDKIKX0DER'] });
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' },
      { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
    ]);
  });

  it('wraps only scalars whose type the property does not also accept, and never null', () => {
    const schema = {
      type: 'object',
      properties: {
        asins: { type: ['array', 'string'] },
        weights: { type: ['array', 'number'] },
        ids: { type: 'array' },
      },
    };
    const compiled = tool(schema);
    expect(passed(compiled.check({ asins: 'B000000001' })).events).toEqual([]);
    const number = passed(compiled.check({ asins: 7, weights: 3, ids: true }));
    expect(number.args).toEqual({ asins: [7], weights: 3, ids: [true] });
    expect(number.events).toEqual([
      { kind: 'coerced', field: 'asins', from_type: 'integer', to_type: 'array', reason: 'scalar_to_array' },
      { kind: 'coerced', field: 'ids', from_type: 'boolean', to_type: 'array', reason: 'scalar_to_array' },
    ]);
    const nullValue = failed(compiled.check({ ids: null }));
    expect(nullValue.events).toEqual([]);
    expect(nullValue.error_code).toBe('SCHEMA_TYPE_MISMATCH');
  });

  it('reports an unknown key as rejected in strict mode, and validation rejects it', () => {
    const result = failed(tool(ORDER_SEARCH_SCHEMA).check({ marketplaceIds: ['X'], sellerSku: 'SKU-1' }));
    expect(result.events).toEqual([{ kind: 'unknown_field_rejected', field: 'sellerSku', reason: 'no_schema_match' }]);
    expect(result.error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
    expect(result.details).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: sellerSku.',
        received_type: 'string',
        field: '',
        extra: 'sellerSku',
        expected: 'only the keys the schema declares',
        received_value: 'SKU-1',
      },
    ]);
  });

  it('passes an unknown key through when strict mode is off', () => {
    const result = passed(
      tool(ORDER_SEARCH_SCHEMA, { strictUnknownFields: false }).check({ marketplaceIds: ['X'], sellerSku: 'SKU-1' }),
    );
    expect(result.args).toEqual({ marketplaceIds: ['X'], sellerSku: 'SKU-1' });
    expect(result.events).toEqual([
      { kind: 'unknown_field_passed_through', field: 'sellerSku', reason: 'no_schema_match' },
    ]);
  });

  it('reports rejected when the author wrote additionalProperties: false, even with strict mode off', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    const result = failed(tool(schema, { strictUnknownFields: false }).check({ b: 1 }));
    expect(result.events).toEqual([{ kind: 'unknown_field_rejected', field: 'b', reason: 'no_schema_match' }]);
    expect(result.error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
  });

  it('leaves a key that matches two properties unchanged (ambiguous)', () => {
    const schema = { type: 'object', properties: { sku_id: { type: 'string' }, skuId: { type: 'string' } } };
    const strict = failed(tool(schema).check({ SKUID: 'X' }));
    expect(strict.events).toEqual([
      { kind: 'unknown_field_rejected', field: 'SKUID', reason: 'ambiguous_schema_match' },
    ]);
    expect(strict.details.map((detail) => [detail.path, detail['extra']])).toEqual([['', 'SKUID']]);
    const lenient = passed(tool(schema, { strictUnknownFields: false }).check({ SKUID: 'X' }));
    expect(lenient.args).toEqual({ SKUID: 'X' });
    expect(lenient.events).toEqual([
      { kind: 'unknown_field_passed_through', field: 'SKUID', reason: 'ambiguous_schema_match' },
    ]);
  });

  it('passes extra keys through with an event when additionalProperties is true, strict mode or not', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true };
    const result = passed(tool(schema).check({ a: 'x', sellerSku: 'SKU-1' }));
    expect(result.args).toEqual({ a: 'x', sellerSku: 'SKU-1' });
    expect(result.events).toEqual([
      { kind: 'unknown_field_passed_through', field: 'sellerSku', reason: 'no_schema_match' },
    ]);
    expect(passed(tool(schema, { strictUnknownFields: false }).check({ sellerSku: 'SKU-1' })).events).toEqual(
      result.events,
    );
  });

  it('passes extra keys through with an event when additionalProperties is a sub-schema, which still validates them', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } };
    const compiled = tool(schema);
    const passedThrough = [{ kind: 'unknown_field_passed_through', field: 'note', reason: 'no_schema_match' }];
    expect(passed(compiled.check({ note: 'fine' })).events).toEqual(passedThrough);
    const result = failed(compiled.check({ note: 5 }));
    expect(result.events).toEqual(passedThrough);
    expect(result.error_code).toBe('SCHEMA_TYPE_MISMATCH');
    expect(result.details).toEqual([
      {
        path: 'note',
        issue: 'note should be string, not integer.',
        received_type: 'integer',
        field: 'note',
        expected_type: 'string',
        did_you_mean: '5',
        expected: 'a value of type string',
        received_value: 5,
      },
    ]);
  });

  it('allows keys matching patternProperties without an event; strict mode rejects a key matching neither a property nor a pattern', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' } },
      patternProperties: { '^x-': { type: 'string' } },
    };
    expect(passed(tool(schema).check({ 'x-trace-id': 'abc' })).events).toEqual([]);
    const strict = failed(tool(schema).check({ 'x-trace-id': 'abc', other: 1 }));
    expect(strict.events).toEqual([{ kind: 'unknown_field_rejected', field: 'other', reason: 'no_schema_match' }]);
    expect(strict.details).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: other.',
        received_type: 'integer',
        field: '',
        extra: 'other',
        expected: 'only the keys the schema declares',
        received_value: 1,
      },
    ]);
    const lenient = passed(tool(schema, { strictUnknownFields: false }).check({ 'x-trace-id': 'abc', other: 1 }));
    expect(lenient.args).toEqual({ 'x-trace-id': 'abc', other: 1 });
    expect(lenient.events).toEqual([
      { kind: 'unknown_field_passed_through', field: 'other', reason: 'no_schema_match' },
    ]);
  });

  it('wraps a scalar sent for a nullable array written as anyOf or oneOf of array and null (Optional[List[str]])', () => {
    const optionalList = { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], default: null };
    const schema = {
      type: 'object',
      properties: { tags: optionalList, codes: { oneOf: [{ $ref: '#/$defs/codes' }, { type: 'null' }] } },
      $defs: { codes: { type: 'array', items: { type: 'integer' } } },
    };
    const result = passed(tool(schema).check({ tags: 'red', codes: 7 }));
    expect(result.args).toEqual({ tags: ['red'], codes: [7] });
    expect(result.events).toEqual([
      { kind: 'coerced', field: 'tags', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
      { kind: 'coerced', field: 'codes', from_type: 'integer', to_type: 'array', reason: 'scalar_to_array' },
    ]);
    expect(passed(tool(schema).check({ tags: null })).args).toEqual({ tags: null });
    // a branch that takes the scalar as it is, or names no type, means nothing needs wrapping
    const either = {
      type: 'object',
      properties: {
        tags: { anyOf: [{ type: 'array' }, { type: 'string' }] },
        any: { anyOf: [{ type: 'array' }, { minLength: 1 }] },
      },
    };
    expect(passed(tool(either).check({ tags: 'red', any: 'x' })).events).toEqual([]);
  });

  it('normalizes properties that come from a top-level $ref and allOf', () => {
    const result = passed(tool(CAMPAIGN_SCHEMA).check({ ProfileId: 42, max_results: 10, stateFilter: 'ENABLED' }));
    expect(result.args).toEqual({ profileId: 42, maxResults: 10, stateFilter: ['ENABLED'] });
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'ProfileId', to: 'profileId', reason: 'schema_canonical_key' },
      { kind: 'renamed', from: 'max_results', to: 'maxResults', reason: 'schema_canonical_key' },
      { kind: 'coerced', field: 'stateFilter', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
    ]);
  });
});

describe('normalization switched off', () => {
  it('emits no events, renames nothing, wraps nothing and still copies the arguments', () => {
    const compiled = tool(ORDER_SEARCH_SCHEMA, { normalizationEnabled: false, strictUnknownFields: false });
    const input = { marketplaceIds: ['X'], NextToken: 'abc' };
    const result = passed(compiled.check(input));
    expect(result.events).toEqual([]);
    expect(result.args).toEqual({ marketplaceIds: ['X'], NextToken: 'abc' });
    expect(result.args).not.toBe(input);
    const scalar = failed(compiled.check({ marketplaceIds: 'X' }));
    expect(scalar.events).toEqual([]);
    expect(scalar.error_code).toBe('SCHEMA_TYPE_MISMATCH');
  });

  it('lets strict validation reject a case-mismatched key with a case_mismatch hint', () => {
    const result = failed(tool(ORDER_SEARCH_SCHEMA, { normalizationEnabled: false }).check({ MarketplaceIds: ['X'] }));
    expect(result.events).toEqual([]);
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.details.map((detail) => [detail.path, detail.received_type])).toEqual([
      ['marketplaceIds', 'undefined'],
      ['', 'array'],
    ]);
    expect(result.hints).toEqual([
      'Add the required field marketplaceIds (array of string).',
      'Use marketplaceIds instead of MarketplaceIds.',
      "Drop MarketplaceIds, or check its spelling against the tool's schema.",
    ]);
  });
});

describe('argument shapes', () => {
  it('treats undefined arguments as an empty object', () => {
    const optional = tool({ type: 'object', properties: { nextToken: { type: 'string' } } });
    expect(passed(optional.check(undefined)).args).toEqual({});
    const result = failed(tool(ORDER_SEARCH_SCHEMA).check(undefined));
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.summary).toBe('marketplaceIds is required and was not sent. Correct marketplaceIds and call again.');
  });

  it.each([
    ['an array', ['marketplaceIds'], 'array'],
    ['a string', 'marketplaceIds=X', 'string'],
    ['null', null, 'null'],
    ['a number', 3, 'integer'],
  ])('reports %s as SCHEMA_TYPE_MISMATCH at the root path', (_label, args, receivedType) => {
    const result = failed(tool(ORDER_SEARCH_SCHEMA).check(args));
    expect(result.events).toEqual([]);
    expect(result.error_code).toBe('SCHEMA_TYPE_MISMATCH');
    expect(result.details).toEqual([
      {
        path: '',
        issue: `arguments should be object, not ${receivedType}.`,
        received_type: receivedType,
        field: '',
        expected_type: 'object',
        received_value: args,
        expected: 'a value of type object',
      },
    ]);
    expect(result.summary).toBe(`arguments should be object, not ${receivedType}. Correct arguments and call again.`);
  });

  it('never mutates the caller’s object, on success or failure, with or without normalization', () => {
    for (const options of [{}, { normalizationEnabled: false }, { strictUnknownFields: false }]) {
      const compiled = tool(ORDER_SEARCH_SCHEMA, options);
      for (const input of [
        { MarketplaceIds: 'X', marketplace_ids: ['Y'], orderStatuses: 'Pending', extra: { nested: [1, 2] } },
        { marketplaceIds: ['X'], maxResultsPerPage: 500 },
      ]) {
        const before = structuredClone(input);
        compiled.check(input);
        expect(input).toEqual(before);
      }
    }
  });
});

describe('prototype-pollution keys stay plain data', () => {
  const pollutingJson =
    '{"marketplaceIds":["X"],"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';

  it.each([
    ['normalization on, strict off', { strictUnknownFields: false }],
    ['normalization off, strict off', { normalizationEnabled: false, strictUnknownFields: false }],
  ])('keeps __proto__, constructor and prototype as own keys (%s)', (_label, options) => {
    const input = JSON.parse(pollutingJson) as Record<string, unknown>;
    const before = structuredClone(input);
    const result = passed(tool(ORDER_SEARCH_SCHEMA, options).check(input));
    expect(Object.keys(result.args)).toEqual(['marketplaceIds', '__proto__', 'constructor', 'prototype']);
    expect(Object.getPrototypeOf(result.args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result.args, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getOwnPropertyDescriptor(result.args, 'constructor')?.value).toEqual({
      prototype: { polluted: 'yes' },
    });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(input).toEqual(before);
    expect(Object.keys(input)).toEqual(['marketplaceIds', '__proto__', 'constructor', 'prototype']);
  });

  it('reports them as unknown keys in strict mode, on the slow path next to a rename', () => {
    const input = JSON.parse(
      `{"MarketplaceIds":"X",${pollutingJson.slice(pollutingJson.indexOf('"__proto__"'))}`,
    ) as Record<string, unknown>;
    const result = failed(tool(ORDER_SEARCH_SCHEMA).check(input));
    expect(result.events).toEqual([
      { kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' },
      { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
      { kind: 'unknown_field_rejected', field: '__proto__', reason: 'no_schema_match' },
      { kind: 'unknown_field_rejected', field: 'constructor', reason: 'no_schema_match' },
      { kind: 'unknown_field_rejected', field: 'prototype', reason: 'no_schema_match' },
    ]);
    expect(result.details.map((detail) => [detail.path, detail['extra'], detail.received_type])).toEqual([
      ['', '__proto__', 'object'],
      ['', 'constructor', 'object'],
      ['', 'prototype', 'object'],
    ]);
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('does not honour a schema property named __proto__ (Ajv ignores it), so the key stays unknown data', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"array"},"sku":{"type":"string"}}}',
    ) as Record<string, unknown>;
    const result = failed(tool(schema).check(JSON.parse('{"__proto__":"x","sku":"A"}')));
    expect(result.events).toEqual([{ kind: 'unknown_field_rejected', field: '__proto__', reason: 'no_schema_match' }]);
    expect(result.details).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: __proto__.',
        received_type: 'string',
        field: '',
        extra: '__proto__',
        expected: 'only the keys the schema declares',
        received_value: 'x',
      },
    ]);
    const lenient = passed(tool(schema, { strictUnknownFields: false }).check(JSON.parse('{"__proto__":"x"}')));
    expect(Object.getOwnPropertyDescriptor(lenient.args, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(lenient.args)).toBe(Object.prototype);
  });
});

describe('properties named like Object.prototype members', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      toString: { type: 'string' },
      constructor: { type: 'string' },
      valueOf: { type: 'integer' },
    },
    required: ['name', 'valueOf'],
  };

  it('are absent unless the arguments have them as own keys', () => {
    const result = failed(tool(schema).check({ name: 'x' }));
    expect(result.error_code).toBe('SCHEMA_REQUIRED');
    expect(result.details).toEqual([
      {
        path: 'valueOf',
        issue: 'valueOf is required and was not sent.',
        received_type: 'undefined',
        field: 'valueOf',
        expected: 'a value of type integer',
      },
    ]);
  });

  it('are validated as the values sent when present', () => {
    expect(passed(tool(schema).check({ name: 'x', valueOf: 3, toString: 'shown', constructor: 'c' })).args).toEqual({
      name: 'x',
      valueOf: 3,
      toString: 'shown',
      constructor: 'c',
    });
    const wrong = failed(tool(schema).check({ name: 'x', valueOf: 3, constructor: 5 }));
    expect(wrong.details).toEqual([
      {
        path: 'constructor',
        issue: 'constructor should be string, not integer.',
        received_type: 'integer',
        field: 'constructor',
        expected_type: 'string',
        did_you_mean: '5',
        expected: 'a value of type string',
        received_value: 5,
      },
    ]);
  });
});

describe('the copier of a repeated key sequence', () => {
  const schema = {
    type: 'object',
    properties: {
      sku: { type: 'string' },
      marketplaceIds: { type: 'array', items: { type: 'string' } },
      limit: { type: 'integer' },
    },
  };

  it('copies repeated shapes into new objects, and still wraps a scalar sent in the same shape', () => {
    const compiled = tool(schema);
    const first = { sku: 'A', marketplaceIds: ['X'], limit: 1 };
    for (let round = 0; round < 3; round += 1) {
      const input = { sku: `A${round}`, marketplaceIds: ['X'], limit: round };
      const result = passed(compiled.check(input));
      expect(result.args).toEqual(input);
      expect(result.args).not.toBe(input);
      expect(result.events).toEqual([]);
    }
    const scalar = passed(compiled.check({ sku: 'B', marketplaceIds: 'Y', limit: 2 }));
    expect(scalar.args).toEqual({ sku: 'B', marketplaceIds: ['Y'], limit: 2 });
    expect(scalar.events).toEqual([
      { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
    ]);
    // another order is another sequence, and the first one still copies correctly afterwards
    expect(passed(compiled.check({ limit: 3, sku: 'C' })).args).toEqual({ limit: 3, sku: 'C' });
    expect(passed(compiled.check(first)).args).toEqual(first);
    expect(Object.keys(passed(compiled.check(first)).args)).toEqual(['sku', 'marketplaceIds', 'limit']);
  });
});
