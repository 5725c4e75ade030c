import { NORMALIZED_KINDS, validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { JsonSchemaObject } from '../../src/arguments/index.js';
import { CAMPAIGN_SCHEMA, LISTING_SCHEMA, ORDER_SEARCH_SCHEMA, REPORT_SCHEMA, tool } from './fixtures.js';

const RECEIVED_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null', 'undefined'];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Keys a caller might send for a schema: exact, case-changed, separated, near misses, prototype keys, noise. */
function keyArbitrary(names: readonly string[]): fc.Arbitrary<string> {
  const exact = fc.constantFrom(...names);
  return fc.oneof(
    { weight: 4, arbitrary: exact },
    { weight: 2, arbitrary: exact.map((name) => name.toUpperCase()) },
    { weight: 2, arbitrary: exact.map((name) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`) },
    { weight: 1, arbitrary: exact.map((name) => name.replace(/([A-Z])/g, '_$1').toLowerCase()) },
    { weight: 2, arbitrary: exact.map((name) => name.slice(0, -1)) },
    { weight: 1, arbitrary: exact.map((name) => `${name}x`) },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

/** Values: any JSON, plus the values these schemas are about. */
const valueArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Pending',
      'Shipped',
      'ENABLED',
      'na',
      'New',
      'amazon',
      '2025-01-02T03:04:05Z',
      'B0ABCDEFGH',
    ),
  },
  { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 6 }), { maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.record({ marketplaceId: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] }), {
      maxLength: 3,
    }),
  },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 20_000 }) },
);

/** An arguments object built the way JSON.parse builds one: every key an own data property. */
function argumentsArbitrary(names: readonly string[]): fc.Arbitrary<unknown> {
  const object = fc.array(fc.tuple(keyArbitrary(names), valueArbitrary), { maxLength: 10 }).map((entries) => {
    const built: Record<string, unknown> = {};
    for (const [key, value] of entries) {
      Object.defineProperty(built, key, { value, writable: true, enumerable: true, configurable: true });
    }
    return built;
  });
  return fc.oneof(
    { weight: 9, arbitrary: object },
    { weight: 1, arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)) },
  );
}

const KEY_VARIANTS = {
  exact: (name: string) => name,
  upper: (name: string) => name.toUpperCase(),
  pascal: (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`,
  snake: (name: string) => name.replace(/([A-Z])/g, '_$1').toLowerCase(),
} as const;

/** A valid call with some keys spelled differently, some one-item arrays sent as scalars, maybe an extra key. */
function nearValidArbitrary(valid: Readonly<Record<string, unknown>>, names: readonly string[]): fc.Arbitrary<unknown> {
  const keys = Object.keys(valid);
  return fc
    .record({
      variants: fc.array(fc.constantFrom(...(Object.keys(KEY_VARIANTS) as (keyof typeof KEY_VARIANTS)[])), {
        minLength: keys.length,
        maxLength: keys.length,
      }),
      unwrap: fc.array(fc.boolean(), { minLength: keys.length, maxLength: keys.length }),
      extra: fc.option(fc.tuple(keyArbitrary(names), valueArbitrary), { freq: 4 }),
    })
    .map(({ variants, unwrap, extra }) => {
      const built: Record<string, unknown> = {};
      keys.forEach((key, index) => {
        const value = valid[key];
        const sent =
          unwrap[index] === true && Array.isArray(value) && value.length === 1 && typeof value[0] !== 'object'
            ? value[0]
            : value;
        const spelled = KEY_VARIANTS[variants[index] ?? 'exact'](key);
        Object.defineProperty(built, spelled, {
          value: structuredClone(sent),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      });
      if (extra !== null)
        Object.defineProperty(built, extra[0], {
          value: extra[1],
          writable: true,
          enumerable: true,
          configurable: true,
        });
      return built;
    });
}

function topLevelNames(schema: JsonSchemaObject): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record['properties'] === 'object' && record['properties'] !== null) {
      for (const name of Object.keys(record['properties'])) names.add(name);
    }
  };
  visit(schema);
  const definitions = schema['$defs'];
  if (typeof definitions === 'object' && definitions !== null)
    for (const node of Object.values(definitions)) visit(node);
  return [...names];
}

const SCHEMAS: readonly [string, JsonSchemaObject, Record<string, unknown>][] = [
  [
    'flat order search',
    ORDER_SEARCH_SCHEMA,
    { marketplaceIds: ['ATVPDKIKX0DER'], orderStatuses: ['Pending'], maxResultsPerPage: 10, nextToken: 'abc' },
  ],
  [
    'nested report',
    REPORT_SCHEMA,
    { reportType: 'R', filters: [{ marketplaceId: 'A', region: 'eu' }], options: { format: 'CSV' } },
  ],
  [
    'enums, arrays and combinators',
    LISTING_SCHEMA,
    { sku: 'S', marketplaceIds: ['A'], condition: 'New', tags: ['x'], target: 'y' },
  ],
  ['$ref and combinators', CAMPAIGN_SCHEMA, { profileId: 1, stateFilter: ['PAUSED'], maxResults: 5 }],
];

const OPTION_SETS = [
  { normalizationEnabled: true, strictUnknownFields: true },
  { normalizationEnabled: true, strictUnknownFields: false },
  { normalizationEnabled: false, strictUnknownFields: true },
] as const;

describe.each(SCHEMAS)('check() on random arguments: %s', (_label, schema, valid) => {
  const names = topLevelNames(schema);
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

  it.each(OPTION_SETS)('never throws, never mutates, and returns a well-formed result (%o)', (options) => {
    const compiled = tool(schema, {
      ...options,
      hints: { valueAliases: { region: { us: 'na' } }, keyRenames: { MarketplaceId: 'marketplaceIds' } },
    });
    const seen = { ok: 0, failed: 0, events: 0 };
    fc.assert(
      fc.property(fc.oneof(argumentsArbitrary(names), nearValidArbitrary(valid, names)), (args) => {
        const before = structuredClone(args);
        const result = compiled.check(args);
        seen[result.ok ? 'ok' : 'failed'] += 1;
        if (result.events.length > 0) seen.events += 1;
        expect(args).toEqual(before);
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
        for (const event of result.events) expect(NORMALIZED_KINDS).toContain(event.kind);
        if (result.events.length > 0) expect(validateMeta({ normalized: result.events })).toEqual({ valid: true });
        if (result.ok) {
          expect(Object.getPrototypeOf(result.args)).toBe(Object.prototype);
          if (typeof args === 'object' && args !== null) expect(result.args).not.toBe(args);
          return;
        }
        expect(result.error_code).toMatch(/^SCHEMA_[A-Z_]+$/);
        expect(result.details.length).toBeGreaterThan(0);
        for (const detail of result.details) {
          expect(typeof detail.path).toBe('string');
          expect(typeof detail.issue).toBe('string');
          expect(RECEIVED_TYPES).toContain(detail.received_type);
        }
        expect(result.summary.length).toBeGreaterThan(0);
        expect(new Set(result.hints).size).toBe(result.hints.length);
        const envelope = JSON.parse(
          JSON.stringify({
            error_kind: 'mcp_input_validation',
            tool: 'test_tool',
            summary: result.summary,
            details: result.details.slice(0, 50),
            hints: result.hints.slice(0, 10).map((hint) => hint.slice(0, 300)),
            examples: [],
            error_code: result.error_code,
            retryable: false,
            _envelope_version: 2,
          }),
        ) as unknown;
        expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
      }),
      { numRuns: 150 },
    );
    // The generator reaches both outcomes, and normalization has something to do.
    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.ok + seen.failed).toBe(150);
    if (options.normalizationEnabled) {
      expect(seen.ok).toBeGreaterThan(0);
      expect(seen.events).toBeGreaterThan(0);
    }
  });
});
