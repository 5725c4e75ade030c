import { describe, expect, it } from 'vitest';

import { fillTemplate, schemaCodeEntry } from '../src/index.js';
import { SCHEMA_CODE_TABLE } from '../src/schemas.js';

/** The `{placeholder}` names a template uses, sorted and without repeats. */
function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] ?? ''))].sort();
}

describe('schemaCodeEntry', () => {
  // keyword, code, placeholders of summary_template, placeholders of hint
  it.each([
    ['type', 'SCHEMA_TYPE_MISMATCH', ['expected_type', 'path', 'received_type'], ['expected_type', 'path']],
    ['required', 'SCHEMA_REQUIRED', ['path'], ['path']],
    ['maxItems', 'SCHEMA_MAX_ITEMS', ['actual', 'limit', 'path'], ['limit', 'path']],
    ['minItems', 'SCHEMA_MIN_ITEMS', ['actual', 'limit', 'path'], ['limit', 'path']],
    ['maxLength', 'SCHEMA_MAX_LENGTH', ['actual', 'limit', 'path'], ['limit', 'path']],
    ['minLength', 'SCHEMA_MIN_LENGTH', ['actual', 'limit', 'path'], ['limit', 'path']],
    ['maximum', 'SCHEMA_MAXIMUM', ['limit', 'path'], ['limit', 'path']],
    ['minimum', 'SCHEMA_MINIMUM', ['limit', 'path'], ['limit', 'path']],
    ['enum', 'SCHEMA_ENUM_MISMATCH', ['path'], ['allowed', 'path']],
    ['pattern', 'SCHEMA_PATTERN_MISMATCH', ['path'], ['path', 'pattern']],
    ['format', 'SCHEMA_FORMAT_INVALID', ['format', 'path'], ['format', 'path']],
    ['additionalProperties', 'SCHEMA_ADDITIONAL_PROPERTIES', ['extra', 'path'], ['extra']],
    ['oneOf', 'SCHEMA_ONE_OF_FAILED', ['path'], ['path']],
    ['anyOf', 'SCHEMA_ANY_OF_FAILED', ['path'], ['path']],
    ['allOf', 'SCHEMA_ALL_OF_FAILED', ['path'], ['path']],
    ['uniqueItems', 'SCHEMA_UNIQUE_ITEMS', ['path'], ['path']],
    ['const', 'SCHEMA_CONST_MISMATCH', ['allowed', 'path'], ['allowed', 'path']],
    ['multipleOf', 'SCHEMA_MULTIPLE_OF', ['limit', 'path'], ['limit', 'path']],
  ])('%s -> %s', (keyword, code, summaryPlaceholders, hintPlaceholders) => {
    const entry = schemaCodeEntry(keyword);
    expect(entry.error_code).toBe(code);
    expect(placeholders(entry.summary_template)).toEqual(summaryPlaceholders);
    expect(placeholders(entry.hint)).toEqual(hintPlaceholders);
  });

  it('covers exactly the 18 keywords of the table', () => {
    expect(Object.keys(SCHEMA_CODE_TABLE.mapping)).toHaveLength(18);
  });

  it.each([
    'dependentRequired',
    '$ref',
    'if',
    'not',
    'contains',
    'x-amazon-marketplace',
    '',
    'MaxItems',
    'toString',
    '__proto__',
    'constructor',
    'hasOwnProperty',
  ])('unknown keyword "%s" -> the fallback', (keyword) => {
    const entry = schemaCodeEntry(keyword);
    expect(entry.error_code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(placeholders(entry.summary_template)).toEqual(['keyword', 'path']);
    expect(entry).toBe(SCHEMA_CODE_TABLE.fallback);
  });

  it('fills the maxItems hint a server would send', () => {
    expect(fillTemplate(schemaCodeEntry('maxItems').hint, { path: 'marketplaceIds', limit: 5, actual: 7 })).toBe(
      'Send no more than 5 items in marketplaceIds; split the call if you need more.',
    );
  });

  it('fills the enum hint with the allowed values as a list', () => {
    expect(
      fillTemplate(schemaCodeEntry('enum').hint, {
        path: 'orderStatuses/0',
        allowed: ['Pending', 'Shipped', 'Canceled'],
      }),
    ).toBe('Pick orderStatuses/0 from: Pending, Shipped, Canceled.');
  });

  it('fills the fallback summary with the keyword name', () => {
    expect(
      fillTemplate(schemaCodeEntry('dependentRequired').summary_template, {
        path: 'dateRange',
        keyword: 'dependentRequired',
      }),
    ).toBe('dateRange failed the schema keyword dependentRequired.');
  });

  it('every template names {path}, except the domain codes which have no field path', () => {
    for (const entry of [...Object.values(SCHEMA_CODE_TABLE.mapping), SCHEMA_CODE_TABLE.fallback]) {
      expect(placeholders(entry.summary_template)).toContain('path');
    }
    expect(Object.keys(SCHEMA_CODE_TABLE.domain_codes)).toEqual([
      'SCHEMA_IDENTITY_NOT_FOUND',
      'SCHEMA_PROFILE_NOT_FOUND',
    ]);
    expect(SCHEMA_CODE_TABLE.domain_codes['SCHEMA_PROFILE_NOT_FOUND']?.server).toBe('ads');
    expect(SCHEMA_CODE_TABLE.domain_codes['SCHEMA_IDENTITY_NOT_FOUND']?.server).toBe('sp');
  });
});

describe('fillTemplate', () => {
  it('inserts strings as they are', () => {
    expect(
      fillTemplate('{path} should be {expected_type}', { path: 'filters/0/marketplaceId', expected_type: 'string' }),
    ).toBe('filters/0/marketplaceId should be string');
  });

  it('joins arrays with ", ", JSON-encoding non-string items', () => {
    expect(fillTemplate('one of: {allowed}', { allowed: ['A', 2, null, { x: 1 }, true] })).toBe(
      'one of: A, 2, null, {"x":1}, true',
    );
    expect(fillTemplate('one of: {allowed}', { allowed: [] })).toBe('one of: ');
  });

  it('renders numbers, booleans, null and objects as JSON', () => {
    expect(fillTemplate('{limit}/{actual}', { limit: 5, actual: 0.25 })).toBe('5/0.25');
    expect(fillTemplate('{allowed}', { allowed: false })).toBe('false');
    expect(fillTemplate('{allowed}', { allowed: null })).toBe('null');
    expect(fillTemplate('{allowed}', { allowed: { mode: 'strict' } })).toBe('{"mode":"strict"}');
  });

  it('renders a present-but-undefined value as "undefined"', () => {
    expect(fillTemplate('[{extra}]', { extra: undefined })).toBe('[undefined]');
  });

  it('leaves placeholders without a value as written', () => {
    expect(fillTemplate('{path} needs {limit} items', { path: 'skus' })).toBe('skus needs {limit} items');
    expect(fillTemplate('{path}', {})).toBe('{path}');
  });

  it('ignores inherited names such as {constructor}', () => {
    expect(fillTemplate('{constructor} {toString}', {})).toBe('{constructor} {toString}');
  });

  it('fills every occurrence of a placeholder', () => {
    expect(fillTemplate('{path}: set {path} again', { path: 'x' })).toBe('x: set x again');
  });

  it('only matches lower-case snake names', () => {
    expect(fillTemplate('{Path} {path-name} { path } {path}', { Path: 'A', 'path-name': 'B', path: 'C' })).toBe(
      '{Path} {path-name} { path } C',
    );
  });

  it('does not re-expand placeholders found inside inserted values', () => {
    expect(fillTemplate('{path} {limit}', { path: '{limit}', limit: 3 })).toBe('{limit} 3');
  });

  it('fills correctly past its template cache bound, and a template seen before still fills', () => {
    for (let index = 0; index < 1200; index += 1) {
      expect(fillTemplate(`t${index} {path} {limit}`, { path: 'skus', limit: index })).toBe(`t${index} skus ${index}`);
    }
    expect(fillTemplate('t3 {path} {limit}', { path: 'asins', limit: 'x' })).toBe('t3 asins x');
  });

  it('returns a template without placeholders unchanged', () => {
    expect(fillTemplate('List the available identities.', { path: 'x' })).toBe('List the available identities.');
  });
});
