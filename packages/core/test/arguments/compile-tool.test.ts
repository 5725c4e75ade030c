import { describe, expect, it } from 'vitest';

import { compileTool } from '../../src/arguments/index.js';
import { CAMPAIGN_SCHEMA, DEFAULTS, ORDER_SEARCH_SCHEMA, failed, passed, tool } from './fixtures.js';

describe('strict-mode injection into the published schema', () => {
  it('injects additionalProperties: false when strict and the schema is silent', () => {
    const published = tool(ORDER_SEARCH_SCHEMA).publishedInputSchema;
    expect(published).toEqual({ ...ORDER_SEARCH_SCHEMA, additionalProperties: false });
  });

  it('injects nothing when strict mode is off', () => {
    expect(tool(ORDER_SEARCH_SCHEMA, { strictUnknownFields: false }).publishedInputSchema).toEqual(ORDER_SEARCH_SCHEMA);
  });

  it.each([
    ['false', false],
    ['true', true],
    ['a sub-schema', { type: 'string' }],
  ])('leaves additionalProperties: %s as the author wrote it', (_label, value) => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: value };
    const published = tool(schema).publishedInputSchema;
    expect(published).toEqual(schema);
    expect(published['additionalProperties']).toEqual(value);
  });

  it('closes a schema with patternProperties but no additionalProperties, and leaves unevaluatedProperties as written', () => {
    const patterns = { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x-': {} } };
    expect(tool(patterns).publishedInputSchema).toEqual({ ...patterns, additionalProperties: false });
    expect(tool(patterns, { strictUnknownFields: false }).publishedInputSchema).toEqual(patterns);
    const unevaluated = { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false };
    expect(tool(unevaluated).publishedInputSchema).toEqual(unevaluated);
  });

  it('injects unevaluatedProperties: false when properties come from a $ref or allOf, so valid keys stay valid', () => {
    const published = tool(CAMPAIGN_SCHEMA).publishedInputSchema;
    expect(published).toEqual({ ...CAMPAIGN_SCHEMA, unevaluatedProperties: false });
    const composed = {
      type: 'object',
      allOf: [
        { properties: { profileId: { type: 'integer' } }, required: ['profileId'] },
        { properties: { nextToken: { type: 'string' } } },
      ],
    };
    const compiled = tool(composed);
    expect(compiled.publishedInputSchema).toEqual({ ...composed, unevaluatedProperties: false });
    passed(compiled.check({ profileId: 1, nextToken: 'n' }));
    expect(failed(compiled.check({ profileId: 1, other: true })).error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
  });

  it('treats properties of top-level anyOf branches as known keys', () => {
    const schema = {
      type: 'object',
      properties: { reportId: { type: 'string' } },
      anyOf: [{ properties: { startDate: { type: 'string' } }, required: ['startDate'] }, { required: ['reportId'] }],
    };
    const compiled = tool(schema);
    expect(compiled.publishedInputSchema['unevaluatedProperties']).toBe(false);
    const result = passed(compiled.check({ StartDate: '2025-01-01' }));
    expect(result.args).toEqual({ startDate: '2025-01-01' });
  });

  it('keeps every keyword of the author’s schema and never mutates it', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://example.test/tools/list_campaigns',
      title: 'List campaigns',
      description: 'Lists campaigns.',
      type: 'object',
      $defs: { State: { enum: ['ENABLED', 'PAUSED'], description: 'Campaign state.' } },
      properties: {
        state: { $ref: '#/$defs/State' },
        name: { type: 'string', 'x-amzn-filterable': true, example: 'Spring' },
      },
      examples: [{ state: 'ENABLED' }],
    };
    const before = structuredClone(schema);
    const compiled = tool(schema);
    expect(schema).toEqual(before);
    expect(compiled.publishedInputSchema).not.toBe(schema);
    expect(compiled.publishedInputSchema).toEqual({ ...before, additionalProperties: false });
    // The published copy is independent of the author's object.
    (schema.properties.name as Record<string, unknown>)['maxLength'] = 1;
    expect(
      (compiled.publishedInputSchema['properties'] as Record<string, Record<string, unknown>>)['name'],
    ).not.toHaveProperty('maxLength');
    passed(compiled.check({ state: 'PAUSED', name: 'Long campaign name' }));
  });

  it.each(['lazy', 'deferred'] as const)(
    'with schemaOwnership: transfer (%s), keeps the caller\u2019s objects and still never changes them',
    (compile) => {
      const schema = {
        type: 'object',
        $schema: 'http://json-schema.org/draft-07/schema#',
        properties: {
          ids: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
          limit: { type: 'integer', maximum: 10, exclusiveMaximum: true },
          mode: { allOf: [{ type: 'string' }, { minLength: 2 }] },
          state: { $ref: '#/$defs/State' },
        },
        $defs: { State: { enum: ['ENABLED', 'PAUSED'] } },
        required: ['ids'],
      };
      const before = structuredClone(schema);
      const compiled = tool(schema, { schemaOwnership: 'transfer', compile });
      // the published schema is a new top-level object over the caller's own sub-objects
      expect(compiled.publishedInputSchema).not.toBe(schema);
      expect(compiled.publishedInputSchema['properties']).toBe(schema.properties);
      expect(compiled.publishedInputSchema).toEqual({ ...before, additionalProperties: false });
      // preparing (tuple items, draft-04 bounds, allOf wrapping, $schema) and compiling copy on write
      passed(compiled.check({ ids: ['A1'], limit: 9, mode: 'ab', state: 'PAUSED' }));
      expect(
        failed(compiled.check({ ids: ['A1', 'A2'], limit: 10, mode: 'a', state: 'GONE', extra: 1 })).details.map(
          (detail) => detail['extra'] ?? detail.path,
        ),
      ).toEqual(['extra', 'state', 'mode', 'ids', 'limit']);
      expect(schema).toEqual(before);
    },
  );

  it('can compile two tools whose schemas share an $id', () => {
    const schema = { $id: 'https://example.test/shared', type: 'object', properties: { a: { type: 'string' } } };
    passed(tool(schema).check({ a: 'x' }));
    passed(tool(structuredClone(schema)).check({ a: 'y' }));
  });
});

describe('compileTool rejects schemas that cannot describe tool arguments', () => {
  it.each([
    ['a top-level array type', { type: 'array' }, /top-level type "object"/],
    ['no type at all', { properties: { a: {} } }, /top-level type "object"/],
    [
      'an invalid keyword value',
      { type: 'object', properties: { a: { type: 'objekt' } } },
      /not a valid JSON Schema|schema is invalid/,
    ],
    ['a dangling $ref', { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }, /Missing/],
  ])('throws TypeError for %s', (_label, schema, message) => {
    expect(() => compileTool('broken_tool', schema, DEFAULTS)).toThrow(TypeError);
    expect(() => compileTool('broken_tool', schema, DEFAULTS)).toThrow(message);
  });

  it('throws TypeError for a non-object schema', () => {
    expect(() => compileTool('broken_tool', null as unknown as Record<string, unknown>, DEFAULTS)).toThrow(TypeError);
    expect(() => compileTool('broken_tool', [] as unknown as Record<string, unknown>, DEFAULTS)).toThrow(TypeError);
  });

  it('accepts a root without type whose $ref target is an object', () => {
    const compiled = tool({
      $ref: '#/$defs/Args',
      $defs: { Args: { type: 'object', properties: { a: { type: 'string' } } } },
    });
    expect(compiled.name).toBe('test_tool');
    passed(compiled.check({ a: 'x' }));
  });
});
