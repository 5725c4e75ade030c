/**
 * Pin tests: every vocabulary of the contract written out literally. A change to any list here is
 * a change to the wire contract and has to be made on purpose, in both places.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, expectTypeOf, it } from 'vitest';

import {
  CANONICAL_ERROR_CODES,
  CONTRACT_VERSION,
  CONTRACT_VERSIONS,
  ENV_SWITCHES,
  ERROR_ENVELOPE_SCHEMA,
  ERROR_ENVELOPE_SCHEMA_V1,
  ERROR_ENVELOPE_SCHEMA_V2,
  ERROR_KINDS,
  ERROR_KINDS_V1,
  HINT_CATEGORIES,
  NORMALIZED_EVENT_KINDS,
  NORMALIZED_KINDS,
  RESERVED_ERROR_CODES,
  RESERVED_NORMALIZED_KINDS,
  SCHEMA_DOMAIN_CODES,
  SCHEMA_ERROR_CODES,
  SCHEMA_FALLBACK_CODE,
  SCHEMA_KEYWORD_CODES,
  UPSTREAM_HTTP_CODE_PREFIX,
  WARNING_KINDS,
  upstreamHttpCode,
} from '../src/index.js';
import { SCHEMA_CODE_TABLE } from '../src/schemas.js';
import type {
  CanonicalErrorCode,
  ContractVersion,
  EnvSwitch,
  ErrorCode,
  ErrorKind,
  ErrorKindV1,
  HintCategory,
  NormalizedEventKind,
  ReservedErrorCode,
  SchemaErrorCode,
  SchemaKeyword,
  UpstreamHttpCode,
  WarningKind,
} from '../src/index.js';

/** Reads one of the package's JSON documents straight from disk, bypassing `src/schemas.ts`. */
function readSchemaFile(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

interface EnvelopeSchemaFile {
  $id: string;
  required: string[];
  properties: { _envelope_version: { const: unknown } };
  $defs: {
    errorKind: { enum: string[] };
    normalizedEvent: {
      properties: { kind: { enum: string[] } };
      allOf: { if: { properties: { kind: { const: string } } }; then: { required: string[] } }[];
    };
  };
}

interface CodesFile {
  contract_version: unknown;
  error_kind: unknown;
  retryable: unknown;
  mapping: Record<string, { error_code: string }>;
  fallback: { error_code: string };
  domain_codes: Record<string, unknown>;
}

const envelopeSchemaFile = readSchemaFile('error-envelope-v2.schema.json') as unknown as EnvelopeSchemaFile;
const envelopeSchemaFileV1 = readSchemaFile('error-envelope.schema.json') as unknown as EnvelopeSchemaFile;
const codesFile = readSchemaFile('jsonschema-error-codes.json') as unknown as CodesFile;

describe('pinned vocabularies', () => {
  it('CONTRACT_VERSION is 2, CONTRACT_VERSIONS [1, 2] (frozen)', () => {
    expect(CONTRACT_VERSION).toBe(2);
    expect(CONTRACT_VERSIONS).toEqual([1, 2]);
    expect(Object.isFrozen(CONTRACT_VERSIONS)).toBe(true);
  });

  it('ERROR_KINDS: the eight v2 kinds, in order, none naming a vendor', () => {
    expect(ERROR_KINDS).toEqual([
      'mcp_input_validation',
      'tool_not_found',
      'upstream_http',
      'upstream_client',
      'auth_error',
      'rate_limited',
      'sandbox_runtime',
      'internal_error',
    ]);
  });

  it('ERROR_KINDS_V1: the ten v1 kinds, in their published order', () => {
    expect(ERROR_KINDS_V1).toEqual([
      'mcp_input_validation',
      'tool_not_found',
      'sp_api_http',
      'ads_api_http',
      'sp_api_client',
      'ads_api_client',
      'auth_error',
      'rate_limited',
      'sandbox_runtime',
      'internal_error',
    ]);
  });

  it('CANONICAL_ERROR_CODES: code -> kind, in order', () => {
    expect(Object.entries(CANONICAL_ERROR_CODES)).toEqual([
      ['INPUT_VALIDATION_FAILED', 'mcp_input_validation'],
      ['TOOL_NOT_FOUND', 'tool_not_found'],
      ['AUTHENTICATION_ERROR', 'auth_error'],
      ['INTERNAL_ERROR', 'internal_error'],
      ['TOOL_EXECUTION_FAILED', 'upstream_client'],
      ['BODY_COERCION_INVALID_JSON', 'upstream_client'],
      ['RATE_LIMITED', 'rate_limited'],
      ['CODE_MODE_SANDBOX_LIMITATION', 'sandbox_runtime'],
      ['SERVER_BUSY', 'rate_limited'],
    ]);
  });

  it('RESERVED_ERROR_CODES', () => {
    expect(RESERVED_ERROR_CODES).toEqual(['OAUTH_ERROR', 'TOKEN_ERROR', 'PERMISSION_DENIED']);
  });

  it('SCHEMA_KEYWORD_CODES: 18 keywords -> codes, in order', () => {
    expect(Object.entries(SCHEMA_KEYWORD_CODES)).toEqual([
      ['type', 'SCHEMA_TYPE_MISMATCH'],
      ['required', 'SCHEMA_REQUIRED'],
      ['maxItems', 'SCHEMA_MAX_ITEMS'],
      ['minItems', 'SCHEMA_MIN_ITEMS'],
      ['maxLength', 'SCHEMA_MAX_LENGTH'],
      ['minLength', 'SCHEMA_MIN_LENGTH'],
      ['maximum', 'SCHEMA_MAXIMUM'],
      ['minimum', 'SCHEMA_MINIMUM'],
      ['enum', 'SCHEMA_ENUM_MISMATCH'],
      ['pattern', 'SCHEMA_PATTERN_MISMATCH'],
      ['format', 'SCHEMA_FORMAT_INVALID'],
      ['additionalProperties', 'SCHEMA_ADDITIONAL_PROPERTIES'],
      ['oneOf', 'SCHEMA_ONE_OF_FAILED'],
      ['anyOf', 'SCHEMA_ANY_OF_FAILED'],
      ['allOf', 'SCHEMA_ALL_OF_FAILED'],
      ['uniqueItems', 'SCHEMA_UNIQUE_ITEMS'],
      ['const', 'SCHEMA_CONST_MISMATCH'],
      ['multipleOf', 'SCHEMA_MULTIPLE_OF'],
    ]);
  });

  it('SCHEMA_FALLBACK_CODE', () => {
    expect(SCHEMA_FALLBACK_CODE).toBe('SCHEMA_VALIDATION_FAILED');
  });

  it('SCHEMA_DOMAIN_CODES', () => {
    expect(SCHEMA_DOMAIN_CODES).toEqual(['SCHEMA_IDENTITY_NOT_FOUND', 'SCHEMA_PROFILE_NOT_FOUND']);
  });

  it('SCHEMA_ERROR_CODES: keyword codes, then the fallback, then domain codes', () => {
    expect(SCHEMA_ERROR_CODES).toEqual([
      'SCHEMA_TYPE_MISMATCH',
      'SCHEMA_REQUIRED',
      'SCHEMA_MAX_ITEMS',
      'SCHEMA_MIN_ITEMS',
      'SCHEMA_MAX_LENGTH',
      'SCHEMA_MIN_LENGTH',
      'SCHEMA_MAXIMUM',
      'SCHEMA_MINIMUM',
      'SCHEMA_ENUM_MISMATCH',
      'SCHEMA_PATTERN_MISMATCH',
      'SCHEMA_FORMAT_INVALID',
      'SCHEMA_ADDITIONAL_PROPERTIES',
      'SCHEMA_ONE_OF_FAILED',
      'SCHEMA_ANY_OF_FAILED',
      'SCHEMA_ALL_OF_FAILED',
      'SCHEMA_UNIQUE_ITEMS',
      'SCHEMA_CONST_MISMATCH',
      'SCHEMA_MULTIPLE_OF',
      'SCHEMA_VALIDATION_FAILED',
      'SCHEMA_IDENTITY_NOT_FOUND',
      'SCHEMA_PROFILE_NOT_FOUND',
    ]);
  });

  it('NORMALIZED_EVENT_KINDS: kind -> required fields, in order', () => {
    expect(Object.entries(NORMALIZED_EVENT_KINDS)).toEqual([
      ['renamed', ['from', 'to']],
      ['dropped_alias', ['from', 'canonical']],
      ['coerced', ['field', 'from_type', 'to_type']],
      ['unknown_field_passed_through', ['field']],
      ['unknown_field_rejected', ['field']],
    ]);
  });

  it('NORMALIZED_KINDS', () => {
    expect(NORMALIZED_KINDS).toEqual([
      'renamed',
      'dropped_alias',
      'coerced',
      'unknown_field_passed_through',
      'unknown_field_rejected',
    ]);
  });

  it('RESERVED_NORMALIZED_KINDS', () => {
    expect(RESERVED_NORMALIZED_KINDS).toEqual(['unknown_field_dropped']);
  });

  it('HINT_CATEGORIES', () => {
    expect(HINT_CATEGORIES).toEqual(['case_mismatch', 'did_you_mean', 'enum_suggest', 'missing_required']);
  });

  it('WARNING_KINDS: kind -> servers that may emit it', () => {
    expect(Object.entries(WARNING_KINDS)).toEqual([
      ['upstream_warning', ['sp', 'ads']],
      ['cached_or_stale_data', ['sp', 'ads']],
      ['partial_results', ['sp', 'ads']],
      ['deprecated_parameter_accepted', ['sp', 'ads']],
      ['marketplace_not_enabled_for_identity', ['sp']],
      ['profile_scope_warning', ['ads']],
      ['identity_unverified', ['sp']],
    ]);
  });

  it('ENV_SWITCHES: name -> default', () => {
    expect(Object.entries(ENV_SWITCHES)).toEqual([
      ['MCP_SCHEMA_KEY_NORMALIZATION_ENABLED', true],
      ['MCP_SCHEMA_KEY_NORMALIZATION_META', false],
      ['MCP_STRICT_UNKNOWN_FIELDS', true],
    ]);
  });

  it('UPSTREAM_HTTP_CODE_PREFIX', () => {
    expect(UPSTREAM_HTTP_CODE_PREFIX).toBe('UPSTREAM_HTTP_');
  });

  it('no reserved code or kind is also an active one', () => {
    expect(RESERVED_ERROR_CODES.filter((code) => Object.hasOwn(CANONICAL_ERROR_CODES, code))).toEqual([]);
    expect(RESERVED_NORMALIZED_KINDS.filter((kind) => Object.hasOwn(NORMALIZED_EVENT_KINDS, kind))).toEqual([]);
  });
});

describe('upstreamHttpCode', () => {
  it.each([
    [404, 'UPSTREAM_HTTP_404'],
    [401, 'UPSTREAM_HTTP_401'],
    [503, 'UPSTREAM_HTTP_503'],
    [100, 'UPSTREAM_HTTP_100'],
    [599, 'UPSTREAM_HTTP_599'],
  ] as const)('%i -> %s', (status, code) => {
    expect(upstreamHttpCode(status)).toBe(code);
  });

  it.each([
    [99, 'HTTP status must be an integer from 100 to 599, got 99'],
    [600, 'HTTP status must be an integer from 100 to 599, got 600'],
    [404.5, 'HTTP status must be an integer from 100 to 599, got 404.5'],
    [Number.NaN, 'HTTP status must be an integer from 100 to 599, got NaN'],
    [Number.POSITIVE_INFINITY, 'HTTP status must be an integer from 100 to 599, got Infinity'],
    [-404, 'HTTP status must be an integer from 100 to 599, got -404'],
  ])('throws RangeError for status %s', (status, message) => {
    expect(() => upstreamHttpCode(status)).toThrow(new RangeError(message));
  });

  it('returns the template-literal type', () => {
    expectTypeOf(upstreamHttpCode(404)).toEqualTypeOf<UpstreamHttpCode>();
  });
});

describe('the JSON documents match the TypeScript tables', () => {
  it('the envelope schema lists the nine required fields', () => {
    expect(envelopeSchemaFile.required).toEqual([
      'error_kind',
      'tool',
      'summary',
      'details',
      'hints',
      'examples',
      'error_code',
      'retryable',
      '_envelope_version',
    ]);
  });

  it("the envelope schemas' error_kind enums equal ERROR_KINDS (v2) and ERROR_KINDS_V1 (v1)", () => {
    expect(envelopeSchemaFile.$defs.errorKind.enum).toEqual([...ERROR_KINDS]);
    expect(envelopeSchemaFileV1.$defs.errorKind.enum).toEqual([...ERROR_KINDS_V1]);
  });

  it('the v1 schema lists the same nine required fields as v2', () => {
    expect(envelopeSchemaFileV1.required).toEqual(envelopeSchemaFile.required);
  });

  it("the envelope schema's normalized kind enum equals NORMALIZED_KINDS", () => {
    expect(envelopeSchemaFile.$defs.normalizedEvent.properties.kind.enum).toEqual([...NORMALIZED_KINDS]);
  });

  it("the envelope schema's per-kind required fields equal NORMALIZED_EVENT_KINDS", () => {
    const fromSchema = Object.fromEntries(
      envelopeSchemaFile.$defs.normalizedEvent.allOf.map((rule) => [rule.if.properties.kind.const, rule.then.required]),
    );
    expect(fromSchema).toEqual(NORMALIZED_EVENT_KINDS);
  });

  it("the envelope schemas' _envelope_version consts are 2 (CONTRACT_VERSION) and 1", () => {
    expect(envelopeSchemaFile.properties._envelope_version.const).toBe(CONTRACT_VERSION);
    expect(envelopeSchemaFileV1.properties._envelope_version.const).toBe(1);
  });

  it('jsonschema-error-codes.json mapping (keyword -> error_code) equals SCHEMA_KEYWORD_CODES, in order', () => {
    const fromFile = Object.entries(codesFile.mapping).map(([keyword, entry]) => [keyword, entry.error_code]);
    expect(fromFile).toEqual(Object.entries(SCHEMA_KEYWORD_CODES));
  });

  it('jsonschema-error-codes.json fallback and domain codes equal the TS constants', () => {
    expect(codesFile.fallback.error_code).toBe(SCHEMA_FALLBACK_CODE);
    expect(Object.keys(codesFile.domain_codes)).toEqual([...SCHEMA_DOMAIN_CODES]);
  });

  it('jsonschema-error-codes.json declares the kind, retryability and version of every SCHEMA_* envelope', () => {
    // the table was published with version 1 and reads the same in version 2
    expect([codesFile.contract_version, codesFile.error_kind, codesFile.retryable]).toEqual([
      1,
      'mcp_input_validation',
      false,
    ]);
  });

  it('the loaded copies in src/schemas.ts are the files on disk', () => {
    expect(ERROR_ENVELOPE_SCHEMA).toEqual(envelopeSchemaFile);
    expect(ERROR_ENVELOPE_SCHEMA_V2).toBe(ERROR_ENVELOPE_SCHEMA);
    expect(ERROR_ENVELOPE_SCHEMA_V1).toEqual(envelopeSchemaFileV1);
    expect(SCHEMA_CODE_TABLE).toEqual(codesFile);
    expect(envelopeSchemaFile.$id).toBe('https://mcp-envelope.dev/schemas/v2/error-envelope.schema.json');
    expect(envelopeSchemaFileV1.$id).toBe('https://mcp-envelope.dev/schemas/v1/error-envelope.schema.json');
  });
});

describe('type-level pins', () => {
  it('the upstream HTTP code type accepts numeric suffixes only', () => {
    expectTypeOf<'UPSTREAM_HTTP_404'>().toExtend<UpstreamHttpCode>();
    expectTypeOf<'UPSTREAM_HTTP_x'>().not.toExtend<UpstreamHttpCode>();
    expectTypeOf<'UPSTREAM_HTTP_'>().not.toExtend<UpstreamHttpCode>();
    expectTypeOf<'SP_API_HTTP_404'>().not.toExtend<UpstreamHttpCode>();
  });

  it('ErrorCode covers canonical, reserved, SCHEMA_* and upstream HTTP codes', () => {
    expectTypeOf<'RATE_LIMITED'>().toExtend<ErrorCode>();
    expectTypeOf<'PERMISSION_DENIED'>().toExtend<ErrorCode>();
    expectTypeOf<'SCHEMA_IDENTITY_NOT_FOUND'>().toExtend<ErrorCode>();
    expectTypeOf<'UPSTREAM_HTTP_500'>().toExtend<ErrorCode>();
    expectTypeOf<'RATE_LIMIT'>().not.toExtend<ErrorCode>();
    expectTypeOf<'PERMISSION_DENIED'>().not.toExtend<CanonicalErrorCode>();
  });

  it('the literal unions are exactly the pinned lists', () => {
    expectTypeOf<ContractVersion>().toEqualTypeOf<1 | 2>();
    expectTypeOf<ErrorKind>().toEqualTypeOf<
      | 'mcp_input_validation'
      | 'tool_not_found'
      | 'upstream_http'
      | 'upstream_client'
      | 'auth_error'
      | 'rate_limited'
      | 'sandbox_runtime'
      | 'internal_error'
    >();
    expectTypeOf<ErrorKindV1>().toEqualTypeOf<
      | 'mcp_input_validation'
      | 'tool_not_found'
      | 'sp_api_http'
      | 'ads_api_http'
      | 'sp_api_client'
      | 'ads_api_client'
      | 'auth_error'
      | 'rate_limited'
      | 'sandbox_runtime'
      | 'internal_error'
    >();
    expectTypeOf<CanonicalErrorCode>().toEqualTypeOf<
      | 'INPUT_VALIDATION_FAILED'
      | 'TOOL_NOT_FOUND'
      | 'AUTHENTICATION_ERROR'
      | 'INTERNAL_ERROR'
      | 'TOOL_EXECUTION_FAILED'
      | 'BODY_COERCION_INVALID_JSON'
      | 'RATE_LIMITED'
      | 'CODE_MODE_SANDBOX_LIMITATION'
      | 'SERVER_BUSY'
    >();
    expectTypeOf<ReservedErrorCode>().toEqualTypeOf<'OAUTH_ERROR' | 'TOKEN_ERROR' | 'PERMISSION_DENIED'>();
    expectTypeOf<SchemaKeyword>().toEqualTypeOf<
      | 'type'
      | 'required'
      | 'maxItems'
      | 'minItems'
      | 'maxLength'
      | 'minLength'
      | 'maximum'
      | 'minimum'
      | 'enum'
      | 'pattern'
      | 'format'
      | 'additionalProperties'
      | 'oneOf'
      | 'anyOf'
      | 'allOf'
      | 'uniqueItems'
      | 'const'
      | 'multipleOf'
    >();
    expectTypeOf<SchemaErrorCode>().toEqualTypeOf<
      | 'SCHEMA_TYPE_MISMATCH'
      | 'SCHEMA_REQUIRED'
      | 'SCHEMA_MAX_ITEMS'
      | 'SCHEMA_MIN_ITEMS'
      | 'SCHEMA_MAX_LENGTH'
      | 'SCHEMA_MIN_LENGTH'
      | 'SCHEMA_MAXIMUM'
      | 'SCHEMA_MINIMUM'
      | 'SCHEMA_ENUM_MISMATCH'
      | 'SCHEMA_PATTERN_MISMATCH'
      | 'SCHEMA_FORMAT_INVALID'
      | 'SCHEMA_ADDITIONAL_PROPERTIES'
      | 'SCHEMA_ONE_OF_FAILED'
      | 'SCHEMA_ANY_OF_FAILED'
      | 'SCHEMA_ALL_OF_FAILED'
      | 'SCHEMA_UNIQUE_ITEMS'
      | 'SCHEMA_CONST_MISMATCH'
      | 'SCHEMA_MULTIPLE_OF'
      | 'SCHEMA_VALIDATION_FAILED'
      | 'SCHEMA_IDENTITY_NOT_FOUND'
      | 'SCHEMA_PROFILE_NOT_FOUND'
    >();
    expectTypeOf<NormalizedEventKind>().toEqualTypeOf<
      'renamed' | 'dropped_alias' | 'coerced' | 'unknown_field_passed_through' | 'unknown_field_rejected'
    >();
    expectTypeOf<HintCategory>().toEqualTypeOf<
      'case_mismatch' | 'did_you_mean' | 'enum_suggest' | 'missing_required'
    >();
    expectTypeOf<WarningKind>().toEqualTypeOf<
      | 'upstream_warning'
      | 'cached_or_stale_data'
      | 'partial_results'
      | 'deprecated_parameter_accepted'
      | 'marketplace_not_enabled_for_identity'
      | 'profile_scope_warning'
      | 'identity_unverified'
    >();
    expectTypeOf<EnvSwitch>().toEqualTypeOf<
      'MCP_SCHEMA_KEY_NORMALIZATION_ENABLED' | 'MCP_SCHEMA_KEY_NORMALIZATION_META' | 'MCP_STRICT_UNKNOWN_FIELDS'
    >();
  });
});
