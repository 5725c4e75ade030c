import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, expectTypeOf, it } from 'vitest';

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import {
  ERROR_ENVELOPE_SCHEMA,
  ERROR_ENVELOPE_SCHEMA_V1,
  isEnvelope,
  isEnvelopeMeta,
  isEnvelopeV1,
  isEnvelopeV2,
  validateEnvelope,
  validateEnvelopeVersion,
  validateMeta,
} from '../src/index.js';
import type {
  AnyErrorEnvelope,
  EnvelopeMeta,
  EnvelopeMetaV1,
  EnvelopeViolation,
  ErrorEnvelope,
  ErrorEnvelopeV1,
} from '../src/index.js';
import { FULL_ENVELOPE, MINIMAL_ENVELOPE, SP_NOT_FOUND_ENVELOPE, asV1, without } from './envelope-fixtures.js';

const ERROR_KIND_LIST =
  '["mcp_input_validation","tool_not_found","upstream_http","upstream_client","auth_error","rate_limited","sandbox_runtime","internal_error"]';
const ERROR_KIND_LIST_V1 =
  '["mcp_input_validation","tool_not_found","sp_api_http","ads_api_http","sp_api_client","ads_api_client","auth_error","rate_limited","sandbox_runtime","internal_error"]';
const LEGACY_KIND_LIST =
  '["mcp_input_validation","tool_not_found","upstream_http","upstream_client","auth_error","rate_limited","sandbox_runtime","internal_error","sp_api_http","ads_api_http","sp_api_client","ads_api_client"]';
const VERSION_VIOLATION = { path: '/_envelope_version', keyword: 'enum', message: 'must be the integer 1 or 2' };
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

/** SHA-256 of `schemas/error-envelope.schema.json` as version 1 was published (release 0.1.0). */
const PUBLISHED_V1_SCHEMA_SHA256 = 'ec87aa392bad99ab584449aada74ced0354c465e62f26c7b4571f857ea7e9e01';

describe('the envelope schemas', () => {
  // validateEnvelope compiles them without a meta-schema check (see validate.ts), so it is checked here
  it.each([
    ['v2', ERROR_ENVELOPE_SCHEMA],
    ['v1', ERROR_ENVELOPE_SCHEMA_V1],
  ])('the %s schema is a valid JSON Schema 2020-12 document', (_label, schema) => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(ajv.validateSchema({ ...schema, type: 'envelope' })).toBe(false);
  });

  it('the v1 schema file is byte for byte the one version 1 published', () => {
    const bytes = readFileSync(new URL('../schemas/error-envelope.schema.json', import.meta.url));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(PUBLISHED_V1_SCHEMA_SHA256);
  });
});

describe('validateEnvelope accepts', () => {
  it('the minimal envelope (nine required fields only), in either version, and tells which', () => {
    expect(validateEnvelope(MINIMAL_ENVELOPE)).toEqual({ valid: true, version: 2 });
    expect(validateEnvelope(asV1(MINIMAL_ENVELOPE))).toEqual({ valid: true, version: 1 });
  });

  it('an envelope with every optional part and unknown extra keys', () => {
    expect(validateEnvelope(FULL_ENVELOPE)).toEqual({ valid: true, version: 2 });
  });

  it('a v1 envelope with a v1 upstream kind and code', () => {
    const v1 = { ...asV1(MINIMAL_ENVELOPE), error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_404' };
    expect(validateEnvelope(v1)).toEqual({ valid: true, version: 1 });
  });

  it('a v2 upstream failure naming its upstream', () => {
    expect(validateEnvelope(SP_NOT_FOUND_ENVELOPE)).toEqual({ valid: true, version: 2 });
  });

  it.each([
    ['tool "unknown_tool"', { ...MINIMAL_ENVELOPE, tool: 'unknown_tool' }],
    [
      'an upstream HTTP code',
      { ...MINIMAL_ENVELOPE, error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_404', upstream: 'github' },
    ],
    ['an upstream client failure', { ...MINIMAL_ENVELOPE, error_kind: 'upstream_client', upstream: 'example-api' }],
    [
      'an auth_error from an upstream 401',
      { ...MINIMAL_ENVELOPE, error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_401', upstream: 'ads-api' },
    ],
    [
      'a rate_limit of any window, with a key a later minor may add',
      withMeta({
        rate_limit: {
          limit: 5000,
          window_seconds: 3600,
          remaining: 4999,
          reset_after_seconds: 3599.5,
          policy: 'primary',
        },
      }),
    ],
    ['a v1 kind as legacy_error_kind', { ...MINIMAL_ENVELOPE, legacy_error_kind: 'ads_api_client' }],
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
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
  });
});

describe('validateEnvelope rejects', () => {
  it.each(['error_kind', 'tool', 'summary', 'details', 'hints', 'examples', 'error_code', 'retryable'])(
    'an envelope without %s, in either version',
    (field) => {
      expect(violations(without(MINIMAL_ENVELOPE, field))).toEqual([
        { path: '', keyword: 'required', message: `missing required property "${field}"` },
      ]);
      expect(validateEnvelope(without(asV1(MINIMAL_ENVELOPE), field))).toEqual({
        valid: false,
        version: 1,
        errors: [{ path: '', keyword: 'required', message: `missing required property "${field}"` }],
      });
    },
  );

  it('an object whose fields are inherited, not its own (its JSON is {}), by every check', () => {
    for (const envelope of [MINIMAL_ENVELOPE, asV1(MINIMAL_ENVELOPE)]) {
      const inherited: unknown = Object.create(envelope);
      expect(JSON.stringify(inherited)).toBe('{}');
      expect(validateEnvelope(inherited)).toEqual({ valid: false, errors: [VERSION_VIOLATION] });
      expect([isEnvelope(inherited), isEnvelopeV1(inherited), isEnvelopeV2(inherited)]).toEqual([false, false, false]);
      expect(validateEnvelopeVersion(inherited, envelope._envelope_version)).toMatchObject({ valid: false });
    }
    const partly: unknown = Object.assign(
      Object.create({ hints: ['inherited'] }) as object,
      without(MINIMAL_ENVELOPE, 'hints'),
    );
    expect(violations(partly)).toEqual([
      { path: '', keyword: 'required', message: 'missing required property "hints"' },
    ]);
    // an inherited wrong value is not the object's either: its JSON has no correlation_id
    expect(validateMeta(Object.create({ correlation_id: 12 }))).toEqual({ valid: true });
  });

  it("accepts the own fields of an object of any class: an Error carrying an envelope's fields serializes to it", () => {
    const relayed = Object.assign(new Error('relayed'), MINIMAL_ENVELOPE);
    expect(validateEnvelope(relayed)).toEqual({ valid: true, version: 2 });
    expect(isEnvelope(relayed)).toBe(true);
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

  it('a v1 kind in a v2 envelope, and a v2 kind in a v1 envelope', () => {
    expect(validateEnvelope({ ...MINIMAL_ENVELOPE, error_kind: 'sp_api_http' })).toEqual({
      valid: false,
      version: 2,
      errors: [{ path: '/error_kind', keyword: 'enum', message: `must be one of ${ERROR_KIND_LIST}` }],
    });
    expect(validateEnvelope({ ...asV1(MINIMAL_ENVELOPE), error_kind: 'upstream_http' })).toEqual({
      valid: false,
      version: 1,
      errors: [{ path: '/error_kind', keyword: 'enum', message: `must be one of ${ERROR_KIND_LIST_V1}` }],
    });
  });

  it.each([
    ['upstream_http', 'INTERNAL_ERROR'],
    ['upstream_client', 'TOOL_EXECUTION_FAILED'],
    ['auth_error', 'UPSTREAM_HTTP_403'],
  ])('a %s envelope with code %s but no upstream', (kind, code) => {
    expect(violations({ ...MINIMAL_ENVELOPE, error_kind: kind, error_code: code })).toEqual([
      { path: '', keyword: 'required', message: 'missing required property "upstream"' },
    ]);
  });

  it('an upstream_http envelope with an UPSTREAM_HTTP_ code but no upstream: the violation once, not once per rule', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_404' })).toEqual([
      { path: '', keyword: 'required', message: 'missing required property "upstream"' },
    ]);
  });

  it.each(['SP-API', '', '-sp', 'sp api', 'a'.repeat(65)])('an upstream named "%s"', (upstream) => {
    expect(violations({ ...SP_NOT_FOUND_ENVELOPE, upstream }).map(({ path, keyword }) => ({ path, keyword }))).toEqual([
      { path: '/upstream', keyword: 'pattern' },
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
    ['3', 3],
    ['"1"', '1'],
    ['"2"', '2'],
    ['1.5', 1.5],
    ['0', 0],
    ['null', null],
  ])('_envelope_version %s: one violation, no version', (_label, version) => {
    expect(validateEnvelope({ ...MINIMAL_ENVELOPE, _envelope_version: version })).toEqual({
      valid: false,
      errors: [VERSION_VIOLATION],
    });
  });

  it('a missing _envelope_version: one violation, whatever else is wrong', () => {
    expect(validateEnvelope({ ...without(MINIMAL_ENVELOPE, '_envelope_version'), tool: '' })).toEqual({
      valid: false,
      errors: [VERSION_VIOLATION],
    });
  });

  it('validateEnvelopeVersion checks against the version asked for only', () => {
    expect(validateEnvelopeVersion(MINIMAL_ENVELOPE, 2)).toEqual({ valid: true, version: 2 });
    expect(validateEnvelopeVersion(MINIMAL_ENVELOPE, 1)).toEqual({
      valid: false,
      version: 1,
      errors: [{ path: '/_envelope_version', keyword: 'const', message: 'must be 1' }],
    });
  });

  it('a legacy_error_kind outside both taxonomies', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, legacy_error_kind: 'github_api_http' })).toEqual([
      { path: '/legacy_error_kind', keyword: 'enum', message: `must be one of ${LEGACY_KIND_LIST}` },
    ]);
    expect(validateEnvelope({ ...asV1(MINIMAL_ENVELOPE), legacy_error_kind: 'upstream_http' })).toEqual({
      valid: false,
      version: 1,
      errors: [{ path: '/legacy_error_kind', keyword: 'enum', message: `must be one of ${ERROR_KIND_LIST_V1}` }],
    });
  });

  it('_meta that is not an object', () => {
    expect(violations({ ...MINIMAL_ENVELOPE, _meta: [] })).toEqual([
      { path: '/_meta', keyword: 'type', message: 'must be object' },
    ]);
  });

  it('an extra key in a v1 rate_limit (v1 keeps its closed three keys; v2 admits it)', () => {
    const meta = { rate_limit: { remaining: 4, window_seconds: 60 } };
    expect(validateEnvelope({ ...asV1(MINIMAL_ENVELOPE), _meta: meta })).toEqual({
      valid: false,
      version: 1,
      errors: [
        { path: '/_meta/rate_limit', keyword: 'additionalProperties', message: 'unexpected property "window_seconds"' },
      ],
    });
    expect(violations(withMeta(meta))).toEqual([]);
  });

  it.each([
    [0, 'exclusiveMinimum'],
    [-60, 'exclusiveMinimum'],
    ['3600', 'type'],
  ])('window_seconds %s', (windowSeconds, keyword) => {
    expect(
      violations(withMeta({ rate_limit: { limit: 10, window_seconds: windowSeconds } })).map(
        ({ path, keyword: k }) => ({
          path,
          keyword: k,
        }),
      ),
    ).toEqual([{ path: '/_meta/rate_limit/window_seconds', keyword }]);
  });

  it('a negative reset_after_seconds', () => {
    expect(violations(withMeta({ rate_limit: { reset_after_seconds: -1 } }))).toEqual([
      { path: '/_meta/rate_limit/reset_after_seconds', keyword: 'minimum', message: 'must be >= 0' },
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
  it('isEnvelope tells envelopes of either version from everything else; isEnvelopeV1/V2 one version each', () => {
    expect(isEnvelope(MINIMAL_ENVELOPE)).toBe(true);
    expect(isEnvelope(asV1(MINIMAL_ENVELOPE))).toBe(true);
    expect(isEnvelope(FULL_ENVELOPE)).toBe(true);
    expect(isEnvelope(without(MINIMAL_ENVELOPE, 'hints'))).toBe(false);
    expect(isEnvelope({ ...MINIMAL_ENVELOPE, _envelope_version: 3 })).toBe(false);
    expect([isEnvelopeV2(MINIMAL_ENVELOPE), isEnvelopeV2(asV1(MINIMAL_ENVELOPE))]).toEqual([true, false]);
    expect([isEnvelopeV1(MINIMAL_ENVELOPE), isEnvelopeV1(asV1(MINIMAL_ENVELOPE))]).toEqual([false, true]);
    expect(isEnvelope(JSON.stringify(MINIMAL_ENVELOPE))).toBe(false);
    expect(isEnvelope(undefined)).toBe(false);
  });

  it('isEnvelope narrows unknown to AnyErrorEnvelope, the per-version guards to their version', () => {
    const value: unknown = JSON.parse(JSON.stringify(MINIMAL_ENVELOPE));
    if (!isEnvelope(value)) throw new Error('expected an envelope');
    expectTypeOf(value).toEqualTypeOf<AnyErrorEnvelope>();
    expect(value.error_code).toBe('SCHEMA_REQUIRED');
    if (!isEnvelopeV2(value)) throw new Error('expected a v2 envelope');
    expectTypeOf(value).toEqualTypeOf<ErrorEnvelope>();
    const old: unknown = asV1(MINIMAL_ENVELOPE);
    if (!isEnvelopeV1(old)) throw new Error('expected a v1 envelope');
    expectTypeOf(old).toEqualTypeOf<ErrorEnvelopeV1>();
  });

  it('isEnvelopeMeta tells _meta objects from everything else', () => {
    expect(isEnvelopeMeta({})).toBe(true);
    expect(isEnvelopeMeta(FULL_ENVELOPE._meta)).toBe(true);
    expect(isEnvelopeMeta({ rate_limit: {} })).toBe(false);
    expect(isEnvelopeMeta({ correlation_id: 12 })).toBe(false);
    expect(isEnvelopeMeta(null)).toBe(false);
    expect(isEnvelopeMeta({ rate_limit: { limit: 1, window_seconds: 1 } })).toBe(true);
    expect(isEnvelopeMeta({ rate_limit: { limit: 1, window_seconds: 1 } }, 1)).toBe(false);
  });

  it('isEnvelopeMeta narrows unknown to the _meta of either version', () => {
    const value: unknown = { retry_after_seconds: 2 };
    if (!isEnvelopeMeta(value)) throw new Error('expected a _meta object');
    expectTypeOf(value).toEqualTypeOf<EnvelopeMeta | EnvelopeMetaV1>();
    expect(value.retry_after_seconds).toBe(2);
  });

  it('the validators agree with the guards', () => {
    expect(validateEnvelope(FULL_ENVELOPE).valid).toBe(isEnvelope(FULL_ENVELOPE));
    expect(validateMeta({ rate_limit: { limit: 1 } }, 1)).toEqual({
      valid: false,
      errors: [{ path: '/rate_limit', keyword: 'additionalProperties', message: 'unexpected property "limit"' }],
    });
    expect(validateMeta({ rate_limit: {} }).valid).toBe(isEnvelopeMeta({ rate_limit: {} }));
  });
});
