import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, expectTypeOf, it } from 'vitest';

import { ERROR_ENVELOPE_SCHEMA, isEnvelope, isEnvelopeMeta, validateEnvelope, validateMeta } from '../src/index.js';
import type { EnvelopeMeta, EnvelopeViolation, ErrorEnvelope } from '../src/index.js';
import { FULL_ENVELOPE, MINIMAL_ENVELOPE, without } from './envelope-fixtures.js';

const ERROR_KIND_LIST =
  '["mcp_input_validation","tool_not_found","sp_api_http","ads_api_http","sp_api_client","ads_api_client","auth_error","rate_limited","sandbox_runtime","internal_error"]';
const NORMALIZED_KIND_LIST =
  '["renamed","dropped_alias","coerced","unknown_field_passed_through","unknown_field_rejected"]';

/** The violations of a value, or `[]` when it is valid. */
function violations(value: unknown): readonly EnvelopeViolation[] {
  const result = validateEnvelope(value);
  return result.valid ? [] : result.errors;
}

function metaViolations(value: unknown): readonly EnvelopeViolation[] {
  const result = validateMeta(value);
  return result.valid ? [] : result.errors;
}

function withMeta(meta: Record<string, unknown>): Record<string, unknown> {
  return { ...MINIMAL_ENVELOPE, _meta: meta };
}

function withNormalized(event: Record<string, unknown>): Record<string, unknown> {
  return withMeta({ normalized: [event] });
}

const WARNING = { kind: 'upstream_warning', summary: '199 - "served from a replica"', details: [], hints: [] } as const;

describe('the envelope schema', () => {
  // validateEnvelope compiles it without a meta-schema check (see validate.ts), so it is checked here
  it('is a valid JSON Schema 2020-12 document', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    expect(ajv.validateSchema(ERROR_ENVELOPE_SCHEMA)).toBe(true);
    expect(ajv.validateSchema({ ...ERROR_ENVELOPE_SCHEMA, type: 'envelope' })).toBe(false);
  });
});

describe('validateEnvelope accepts', () => {
  it('the minimal envelope (nine required fields only)', () => {
    expect(validateEnvelope(MINIMAL_ENVELOPE)).toEqual({ valid: true });
  });

  it('an envelope with every optional part and unknown extra keys', () => {
    expect(validateEnvelope(FULL_ENVELOPE)).toEqual({ valid: true });
  });

  it.each([
    ['tool "unknown_tool"', { ...MINIMAL_ENVELOPE, tool: 'unknown_tool' }],
    ['an upstream HTTP code', { ...MINIMAL_ENVELOPE, error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_404' }],
    ['a code with digits after the first letter', { ...MINIMAL_ENVELOPE, error_code: 'X9_CODE' }],
    [
      'a detail with an empty path and extra keys',
      { ...MINIMAL_ENVELOPE, details: [{ path: '', issue: 'x', received_type: 'null', limit: 3 }] },
    ],
    ['an empty _meta', withMeta({})],
    ['rate_limit with only reset_at', withMeta({ rate_limit: { reset_at: 'soon' } })],
    ['rate_limit with raw string values', withMeta({ rate_limit: { limit_per_second: 'n/a', remaining: '12 ' } })],
    ['retry_after_seconds 0', withMeta({ retry_after_seconds: 0 })],
    ['a reserved warning kind', withMeta({ warnings: [{ ...WARNING, kind: 'profile_scope_warning' }] })],
    ['a warning kind nobody defined yet', withMeta({ warnings: [{ ...WARNING, kind: 'brand_new_kind' }] })],
    ['a normalized event with extra keys', withNormalized({ kind: 'renamed', from: 'A', to: 'a', at: 'preflight' })],
  ])('%s', (_label, envelope) => {
    expect(validateEnvelope(envelope)).toEqual({ valid: true });
  });
});

describe('validateEnvelope rejects', () => {
  it.each([
    'error_kind',
    'tool',
    'summary',
    'details',
    'hints',
    'examples',
    'error_code',
    'retryable',
    '_envelope_version',
  ])('an envelope without %s', (field) => {
    expect(violations(without(MINIMAL_ENVELOPE, field))).toEqual([
      { path: '', keyword: 'required', message: `missing required property "${field}"` },
    ]);
  });

  it('a value that is not an object', () => {
    expect(violations('{"error_kind":"internal_error"}')).toEqual([
      { path: '', keyword: 'type', message: 'must be object' },
    ]);
    expect(violations(null)).toEqual([{ path: '', keyword: 'type', message: 'must be object' }]);
    expect(violations([MINIMAL_ENVELOPE])).toEqual([{ path: '', keyword: 'type', message: 'must be object' }]);
  });

  it('an error_kind outside the taxonomy', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, error_kind: 'precondition_failed' })).toEqual([
      { path: '/error_kind', keyword: 'enum', message: `must be one of ${ERROR_KIND_LIST}` },
    ]);
  });

  it('an error_kind with the wrong case', () => {
    expect(
      violations({ ...MINIMAL_ENVELOPE, error_kind: 'RATE_LIMITED' }).map(({ path, keyword }) => ({ path, keyword })),
    ).toEqual([{ path: '/error_kind', keyword: 'enum' }]);
  });

  it.each([
    ['lower-case', 'schema_required'],
    ['with a dash', 'SCHEMA-REQUIRED'],
    ['starting with a digit', '429_RATE'],
    ['with a space', 'RATE LIMITED'],
  ])('an error_code %s', (_label, code) => {
    expect(violations({ ...MINIMAL_ENVELOPE, error_code: code })).toEqual([
      { path: '/error_code', keyword: 'pattern', message: 'must match pattern "^[A-Z][A-Z0-9_]*$"' },
    ]);
  });

  it('an empty error_code', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, error_code: '' }).map(({ path, keyword }) => ({ path, keyword }))).toEqual(
      [
        { path: '/error_code', keyword: 'minLength' },
        { path: '/error_code', keyword: 'pattern' },
      ],
    );
  });

  it('an empty tool', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, tool: '' })).toEqual([
      { path: '/tool', keyword: 'minLength', message: 'must NOT have fewer than 1 characters' },
    ]);
  });

  it('an empty summary', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, summary: '' })).toEqual([
      { path: '/summary', keyword: 'minLength', message: 'must NOT have fewer than 1 characters' },
    ]);
  });

  it.each(['path', 'issue', 'received_type'])('a details item without %s', (field) => {
    const detail = without({ path: 'marketplaceIds', issue: 'too many items', received_type: 'array' }, field);
    expect(
      violations({ ...MINIMAL_ENVELOPE, details: [{ path: 'a', issue: 'fine', received_type: 'string' }, detail] }),
    ).toEqual([{ path: '/details/1', keyword: 'required', message: `missing required property "${field}"` }]);
  });

  it('a details item that is a string', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, details: ['marketplaceIds is wrong'] })).toEqual([
      { path: '/details/0', keyword: 'type', message: 'must be object' },
    ]);
  });

  it('a details item whose received_type is not a string', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, details: [{ path: 'a', issue: 'b', received_type: null }] })).toEqual([
      { path: '/details/0/received_type', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('hints with a non-string entry', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, hints: ['Add keywords.', 3] })).toEqual([
      { path: '/hints/1', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('hints given as one string instead of a list', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, hints: 'Add keywords.' })).toEqual([
      { path: '/hints', keyword: 'type', message: 'must be array' },
    ]);
  });

  it('examples given as an object', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, examples: { keywords: 'lamp' } })).toEqual([
      { path: '/examples', keyword: 'type', message: 'must be array' },
    ]);
  });

  it('retryable as a string', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, retryable: 'false' })).toEqual([
      { path: '/retryable', keyword: 'type', message: 'must be boolean' },
    ]);
  });

  it.each([
    ['2', 2],
    ['"1"', '1'],
    ['1.5', 1.5],
    ['0', 0],
  ])('_envelope_version %s', (_label, version) => {
    expect(violations({ ...MINIMAL_ENVELOPE, _envelope_version: version })).toEqual([
      { path: '/_envelope_version', keyword: 'const', message: 'must be 1' },
    ]);
  });

  it('a legacy_error_kind outside the taxonomy', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, legacy_error_kind: 'upstream_http' })).toEqual([
      { path: '/legacy_error_kind', keyword: 'enum', message: `must be one of ${ERROR_KIND_LIST}` },
    ]);
  });

  it('_meta that is not an object', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, _meta: [] })).toEqual([
      { path: '/_meta', keyword: 'type', message: 'must be object' },
    ]);
  });

  it('an extra key in rate_limit', () => {
    expect(violations(withMeta({ rate_limit: { remaining: 4, burst: 10 } }))).toEqual([
      { path: '/_meta/rate_limit', keyword: 'additionalProperties', message: 'unexpected property "burst"' },
    ]);
  });

  it('an empty rate_limit object', () => {
    expect(violations(withMeta({ rate_limit: {} }))).toEqual([
      { path: '/_meta/rate_limit', keyword: 'minProperties', message: 'must NOT have fewer than 1 properties' },
    ]);
  });

  it('remaining as a boolean', () => {
    expect(violations(withMeta({ rate_limit: { remaining: false } }))).toEqual([
      { path: '/_meta/rate_limit/remaining', keyword: 'type', message: 'must be number,string' },
    ]);
  });

  it('limit_per_second as null', () => {
    expect(violations(withMeta({ rate_limit: { limit_per_second: null } }))).toEqual([
      { path: '/_meta/rate_limit/limit_per_second', keyword: 'type', message: 'must be number,string' },
    ]);
  });

  it('reset_at as a number', () => {
    expect(violations(withMeta({ rate_limit: { reset_at: 1741079700 } }))).toEqual([
      { path: '/_meta/rate_limit/reset_at', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('a negative retry_after_seconds', () => {
    expect(violations(withMeta({ retry_after_seconds: -0.5 }))).toEqual([
      { path: '/_meta/retry_after_seconds', keyword: 'minimum', message: 'must be >= 0' },
    ]);
  });

  it('retry_after_seconds as a string', () => {
    expect(violations(withMeta({ retry_after_seconds: '2' }))).toEqual([
      { path: '/_meta/retry_after_seconds', keyword: 'type', message: 'must be number' },
    ]);
  });

  it.each([
    ['renamed', 'from', { kind: 'renamed', to: 'marketplaceIds' }],
    ['renamed', 'to', { kind: 'renamed', from: 'MarketplaceIds' }],
    ['dropped_alias', 'canonical', { kind: 'dropped_alias', from: 'sku_list' }],
    ['dropped_alias', 'from', { kind: 'dropped_alias', canonical: 'sellerSkus' }],
    ['coerced', 'field', { kind: 'coerced', from_type: 'string', to_type: 'array' }],
    ['coerced', 'from_type', { kind: 'coerced', field: 'marketplaceIds', to_type: 'array' }],
    ['coerced', 'to_type', { kind: 'coerced', field: 'marketplaceIds', from_type: 'string' }],
    ['unknown_field_passed_through', 'field', { kind: 'unknown_field_passed_through' }],
    ['unknown_field_rejected', 'field', { kind: 'unknown_field_rejected' }],
  ])('a %s event without %s', (_kind, missing, event) => {
    expect(violations(withNormalized(event))).toEqual([
      { path: '/_meta/normalized/0', keyword: 'required', message: `missing required property "${missing}"` },
    ]);
  });

  it('a dropped_alias event that carries to instead of canonical', () => {
    expect(violations(withNormalized({ kind: 'dropped_alias', from: 'sku_list', to: 'sellerSkus' }))).toEqual([
      { path: '/_meta/normalized/0', keyword: 'required', message: 'missing required property "canonical"' },
    ]);
  });

  it('a coerced event with none of its fields lists all three', () => {
    expect(violations(withNormalized({ kind: 'coerced' }))).toEqual([
      { path: '/_meta/normalized/0', keyword: 'required', message: 'missing required property "field"' },
      { path: '/_meta/normalized/0', keyword: 'required', message: 'missing required property "from_type"' },
      { path: '/_meta/normalized/0', keyword: 'required', message: 'missing required property "to_type"' },
    ]);
  });

  it.each(['unknown_field_dropped', 'deleted', 'Renamed', ''])('normalized kind "%s"', (kind) => {
    expect(violations(withNormalized({ kind, field: 'x', from: 'a', to: 'b' }))).toEqual([
      { path: '/_meta/normalized/0/kind', keyword: 'enum', message: `must be one of ${NORMALIZED_KIND_LIST}` },
    ]);
  });

  it('a normalized event without kind', () => {
    expect(violations(withNormalized({ from: 'A', to: 'a' }))).toEqual([
      { path: '/_meta/normalized/0', keyword: 'required', message: 'missing required property "kind"' },
    ]);
  });

  it('a renamed event whose from is not a string', () => {
    expect(violations(withNormalized({ kind: 'renamed', from: 7, to: 'a' }))).toEqual([
      { path: '/_meta/normalized/0/from', keyword: 'type', message: 'must be string' },
    ]);
  });

  it.each(['kind', 'summary', 'details', 'hints'])('a warning without %s', (field) => {
    expect(violations(withMeta({ warnings: [without(WARNING, field)] }))).toEqual([
      { path: '/_meta/warnings/0', keyword: 'required', message: `missing required property "${field}"` },
    ]);
  });

  it('a warning with an empty kind', () => {
    expect(violations(withMeta({ warnings: [{ ...WARNING, kind: '' }] }))).toEqual([
      { path: '/_meta/warnings/0/kind', keyword: 'minLength', message: 'must NOT have fewer than 1 characters' },
    ]);
  });

  it('a warning with a non-string hint', () => {
    expect(violations(withMeta({ warnings: [{ ...WARNING, hints: [{ text: 'x' }] }] }))).toEqual([
      { path: '/_meta/warnings/0/hints/0', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('an empty correlation_id', () => {
    expect(violations(withMeta({ correlation_id: '' }))).toEqual([
      { path: '/_meta/correlation_id', keyword: 'minLength', message: 'must NOT have fewer than 1 characters' },
    ]);
  });

  it('an empty or non-string validator (the keyword behind SCHEMA_VALIDATION_FAILED)', () => {
    expect(violations(withMeta({ validator: 'dependentRequired' }))).toEqual([]);
    expect(violations(withMeta({ validator: '' }))).toEqual([
      { path: '/_meta/validator', keyword: 'minLength', message: 'must NOT have fewer than 1 characters' },
    ]);
    expect(violations(withMeta({ validator: 3 }))).toEqual([
      { path: '/_meta/validator', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('reports every violation at once', () => {
    const broken = { ...without(MINIMAL_ENVELOPE, 'summary'), retryable: 1, _meta: { retry_after_seconds: -1 } };
    expect(violations(broken)).toEqual([
      { path: '', keyword: 'required', message: 'missing required property "summary"' },
      { path: '/retryable', keyword: 'type', message: 'must be boolean' },
      { path: '/_meta/retry_after_seconds', keyword: 'minimum', message: 'must be >= 0' },
    ]);
  });
});

describe('validateMeta on the _meta of success results', () => {
  it.each([
    ['an empty object', {}],
    [
      'rate limit telemetry',
      { rate_limit: { limit_per_second: 0.0167, remaining: 0, reset_at: '2025-03-04T09:15:00Z' } },
    ],
    ['a renamed event', { normalized: [{ kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds' }] }],
    ['a warning and retry hint', { warnings: [WARNING], retry_after_seconds: 0.25 }],
    ['keys the contract does not define', { progressToken: 'p-1', 'io.example/trace': { id: 'x' } }],
  ])('accepts %s', (_label, meta) => {
    expect(validateMeta(meta)).toEqual({ valid: true });
  });

  it.each([
    ['null', null, [{ path: '', keyword: 'type', message: 'must be object' }]],
    ['an array', [], [{ path: '', keyword: 'type', message: 'must be object' }]],
    ['a string', 'rate_limit', [{ path: '', keyword: 'type', message: 'must be object' }]],
    [
      'normalized as an object',
      { normalized: { kind: 'renamed' } },
      [{ path: '/normalized', keyword: 'type', message: 'must be array' }],
    ],
    [
      'an empty rate_limit',
      { rate_limit: {} },
      [{ path: '/rate_limit', keyword: 'minProperties', message: 'must NOT have fewer than 1 properties' }],
    ],
    [
      'reset_at as a number',
      { rate_limit: { reset_at: 5 } },
      [{ path: '/rate_limit/reset_at', keyword: 'type', message: 'must be string' }],
    ],
    [
      'a negative retry_after_seconds',
      { retry_after_seconds: -3 },
      [{ path: '/retry_after_seconds', keyword: 'minimum', message: 'must be >= 0' }],
    ],
    [
      'an unknown normalized kind',
      { normalized: [{ kind: 'unknown_field_dropped', field: 'x' }] },
      [{ path: '/normalized/0/kind', keyword: 'enum', message: `must be one of ${NORMALIZED_KIND_LIST}` }],
    ],
    [
      'a warning without hints',
      { warnings: [without(WARNING, 'hints')] },
      [{ path: '/warnings/0', keyword: 'required', message: 'missing required property "hints"' }],
    ],
  ])('rejects %s', (_label, meta, expected) => {
    expect(metaViolations(meta)).toEqual(expected);
  });
});

describe('type guards', () => {
  it('isEnvelope tells envelopes from everything else', () => {
    expect(isEnvelope(MINIMAL_ENVELOPE)).toBe(true);
    expect(isEnvelope(FULL_ENVELOPE)).toBe(true);
    expect(isEnvelope(without(MINIMAL_ENVELOPE, 'hints'))).toBe(false);
    expect(isEnvelope({ ...MINIMAL_ENVELOPE, _envelope_version: 2 })).toBe(false);
    expect(isEnvelope(JSON.stringify(MINIMAL_ENVELOPE))).toBe(false);
    expect(isEnvelope(undefined)).toBe(false);
  });

  it('isEnvelope narrows unknown to ErrorEnvelope', () => {
    const value: unknown = JSON.parse(JSON.stringify(MINIMAL_ENVELOPE));
    if (!isEnvelope(value)) throw new Error('expected an envelope');
    expectTypeOf(value).toEqualTypeOf<ErrorEnvelope>();
    expect(value.error_code).toBe('SCHEMA_REQUIRED');
  });

  it('isEnvelopeMeta tells _meta objects from everything else', () => {
    expect(isEnvelopeMeta({})).toBe(true);
    expect(isEnvelopeMeta(FULL_ENVELOPE._meta)).toBe(true);
    expect(isEnvelopeMeta({ rate_limit: {} })).toBe(false);
    expect(isEnvelopeMeta({ correlation_id: 12 })).toBe(false);
    expect(isEnvelopeMeta(null)).toBe(false);
  });

  it('isEnvelopeMeta narrows unknown to EnvelopeMeta', () => {
    const value: unknown = { retry_after_seconds: 2 };
    if (!isEnvelopeMeta(value)) throw new Error('expected a _meta object');
    expectTypeOf(value).toEqualTypeOf<EnvelopeMeta>();
    expect(value.retry_after_seconds).toBe(2);
  });

  it('the validators agree with the guards', () => {
    expect(validateEnvelope(FULL_ENVELOPE).valid).toBe(isEnvelope(FULL_ENVELOPE));
    expect(validateMeta({ rate_limit: {} }).valid).toBe(isEnvelopeMeta({ rate_limit: {} }));
  });
});
