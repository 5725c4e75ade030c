/**
 * The contract's closed vocabularies as `as const` tables with derived literal unions.
 *
 * Every list here is pinned by a test whose expectations are literals (see
 * `test/taxonomy.test.ts`), so a change to the wire vocabulary cannot slip in unnoticed.
 *
 * @packageDocumentation
 */
import { deepFrozen } from './frozen.js';

/**
 * The contract version every envelope carries as `_envelope_version` and every server advertises
 * as `contract_version`. Implements CONTRACT.md "Versioning".
 */
export const CONTRACT_VERSION = 1 as const;

/** The type of {@link CONTRACT_VERSION}: the integer literal `1`. */
export type ContractVersion = typeof CONTRACT_VERSION;

/**
 * The closed `error_kind` taxonomy (10 values). A conforming server never emits a value outside
 * this list. Implements CONTRACT.md "error_kind".
 */
export const ERROR_KINDS = deepFrozen([
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
] as const);

/** One value of the closed `error_kind` taxonomy. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * The cross-server canonical `error_code` values and the `error_kind` each one pairs with.
 * `TOOL_EXECUTION_FAILED` and `BODY_COERCION_INVALID_JSON` pair with the emitting server's own
 * client kind (`sp_api_client` or `ads_api_client`), written here as `'*_api_client'`.
 * Implements CONTRACT.md "Canonical error codes".
 */
export const CANONICAL_ERROR_CODES = deepFrozen({
  INPUT_VALIDATION_FAILED: 'mcp_input_validation',
  TOOL_NOT_FOUND: 'tool_not_found',
  AUTHENTICATION_ERROR: 'auth_error',
  INTERNAL_ERROR: 'internal_error',
  TOOL_EXECUTION_FAILED: '*_api_client',
  BODY_COERCION_INVALID_JSON: '*_api_client',
  RATE_LIMITED: 'rate_limited',
  CODE_MODE_SANDBOX_LIMITATION: 'sandbox_runtime',
} as const);

/** One cross-server canonical `error_code`. */
export type CanonicalErrorCode = keyof typeof CANONICAL_ERROR_CODES;

/**
 * Codes the contract reserves for later use. Servers do not emit them in v1; clients must
 * tolerate them. Implements CONTRACT.md "Reserved codes".
 */
export const RESERVED_ERROR_CODES = deepFrozen(['OAUTH_ERROR', 'TOKEN_ERROR', 'PERMISSION_DENIED'] as const);

/** One reserved `error_code`. */
export type ReservedErrorCode = (typeof RESERVED_ERROR_CODES)[number];

/**
 * JSON Schema keyword -> `SCHEMA_*` error code, for pre-flight schema validation failures
 * (`error_kind: mcp_input_validation`, never retryable). The same table, with summary templates
 * and hints, ships as `schemas/jsonschema-error-codes.json`; a test keeps the two identical.
 * Implements CONTRACT.md "Schema validation codes".
 */
export const SCHEMA_KEYWORD_CODES = deepFrozen({
  type: 'SCHEMA_TYPE_MISMATCH',
  required: 'SCHEMA_REQUIRED',
  maxItems: 'SCHEMA_MAX_ITEMS',
  minItems: 'SCHEMA_MIN_ITEMS',
  maxLength: 'SCHEMA_MAX_LENGTH',
  minLength: 'SCHEMA_MIN_LENGTH',
  maximum: 'SCHEMA_MAXIMUM',
  minimum: 'SCHEMA_MINIMUM',
  enum: 'SCHEMA_ENUM_MISMATCH',
  pattern: 'SCHEMA_PATTERN_MISMATCH',
  format: 'SCHEMA_FORMAT_INVALID',
  additionalProperties: 'SCHEMA_ADDITIONAL_PROPERTIES',
  oneOf: 'SCHEMA_ONE_OF_FAILED',
  anyOf: 'SCHEMA_ANY_OF_FAILED',
  allOf: 'SCHEMA_ALL_OF_FAILED',
  uniqueItems: 'SCHEMA_UNIQUE_ITEMS',
  const: 'SCHEMA_CONST_MISMATCH',
  multipleOf: 'SCHEMA_MULTIPLE_OF',
} as const);

/** A JSON Schema keyword that has its own `SCHEMA_*` code. */
export type SchemaKeyword = keyof typeof SCHEMA_KEYWORD_CODES;

/** The code for any keyword without its own entry in {@link SCHEMA_KEYWORD_CODES}. */
export const SCHEMA_FALLBACK_CODE = 'SCHEMA_VALIDATION_FAILED' as const;

/**
 * Domain validator codes: closed-enum checks against runtime data that share the `SCHEMA_*`
 * envelope shape but match no JSON Schema keyword.
 */
export const SCHEMA_DOMAIN_CODES = deepFrozen(['SCHEMA_IDENTITY_NOT_FOUND', 'SCHEMA_PROFILE_NOT_FOUND'] as const);

/** Every `SCHEMA_*` code: one per keyword, the fallback and the domain codes. */
export type SchemaErrorCode =
  (typeof SCHEMA_KEYWORD_CODES)[SchemaKeyword] | typeof SCHEMA_FALLBACK_CODE | (typeof SCHEMA_DOMAIN_CODES)[number];

/** Every `SCHEMA_*` code as a list, in the table's order, then the fallback, then domain codes. */
export const SCHEMA_ERROR_CODES: readonly SchemaErrorCode[] = deepFrozen([
  ...Object.values(SCHEMA_KEYWORD_CODES),
  SCHEMA_FALLBACK_CODE,
  ...SCHEMA_DOMAIN_CODES,
]);

/** `SP_API_HTTP_<status>`: upstream SP-API answered with that HTTP status. */
export type SpApiHttpCode = `SP_API_HTTP_${number}`;
/** `ADS_API_HTTP_<status>`: upstream Amazon Ads API answered with that HTTP status. */
export type AdsApiHttpCode = `ADS_API_HTTP_${number}`;
/** `OPENBRIDGE_HTTP_<status>`: an internal service (identity and the like) answered with that status. */
export type OpenbridgeHttpCode = `OPENBRIDGE_HTTP_${number}`;

/** Any per-server upstream HTTP code. */
export type UpstreamHttpCode = SpApiHttpCode | AdsApiHttpCode | OpenbridgeHttpCode;

/** The prefixes of the per-server upstream HTTP codes, by the server family that emits them. */
export const UPSTREAM_HTTP_CODE_PREFIXES = deepFrozen({
  sp: 'SP_API_HTTP_',
  ads: 'ADS_API_HTTP_',
  openbridge: 'OPENBRIDGE_HTTP_',
} as const);

/** Every `error_code` the contract defines. The schema admits any UPPER_SNAKE code beyond these. */
export type ErrorCode = CanonicalErrorCode | ReservedErrorCode | SchemaErrorCode | UpstreamHttpCode;

/**
 * Builds the per-server upstream HTTP code for a status, e.g. `upstreamHttpCode('sp', 404)`
 * -> `'SP_API_HTTP_404'`.
 *
 * @param server - which prefix to use: `sp`, `ads` or `openbridge`.
 * @param status - the HTTP status code (an integer from 100 to 599).
 * @returns the code string.
 * @throws RangeError when `status` is not an integer from 100 to 599.
 */
export function upstreamHttpCode(server: 'sp', status: number): SpApiHttpCode;
export function upstreamHttpCode(server: 'ads', status: number): AdsApiHttpCode;
export function upstreamHttpCode(server: 'openbridge', status: number): OpenbridgeHttpCode;
export function upstreamHttpCode(server: keyof typeof UPSTREAM_HTTP_CODE_PREFIXES, status: number): UpstreamHttpCode;
export function upstreamHttpCode(server: keyof typeof UPSTREAM_HTTP_CODE_PREFIXES, status: number): UpstreamHttpCode {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RangeError(`HTTP status must be an integer from 100 to 599, got ${String(status)}`);
  }
  return `${UPSTREAM_HTTP_CODE_PREFIXES[server]}${status}` as UpstreamHttpCode;
}

/**
 * The five `_meta.normalized[].kind` values, each with the fields its event requires.
 * Implements CONTRACT.md "Normalization events" (five kinds, `canonical` not `to`).
 */
export const NORMALIZED_EVENT_KINDS = deepFrozen({
  renamed: ['from', 'to'],
  dropped_alias: ['from', 'canonical'],
  coerced: ['field', 'from_type', 'to_type'],
  unknown_field_passed_through: ['field'],
  unknown_field_rejected: ['field'],
} as const);

/** One `_meta.normalized[].kind` value. */
export type NormalizedEventKind = keyof typeof NORMALIZED_EVENT_KINDS;

/** The normalized event kinds as a list, in the table's order. */
export const NORMALIZED_KINDS: readonly NormalizedEventKind[] = deepFrozen(
  Object.keys(NORMALIZED_EVENT_KINDS) as NormalizedEventKind[],
);

/** A kind the contract reserves for a later version; never emitted in v1. */
export const RESERVED_NORMALIZED_KINDS = deepFrozen(['unknown_field_dropped'] as const);

/**
 * The four hint categories. In v1 hints travel as plain strings; the category names what kind
 * of help a hint gives. Implements CONTRACT.md "Hints".
 */
export const HINT_CATEGORIES = deepFrozen([
  'case_mismatch',
  'did_you_mean',
  'enum_suggest',
  'missing_required',
] as const);

/** One hint category. */
export type HintCategory = (typeof HINT_CATEGORIES)[number];

/**
 * `_meta.warnings[].kind` values: `upstream_warning` (from an HTTP `Warning` header, both
 * servers) and the reserved domain kinds. Servers may emit a reserved kind when they detect its
 * condition; clients must tolerate any of them. Implements CONTRACT.md "Warnings".
 */
export const WARNING_KINDS = deepFrozen({
  upstream_warning: ['sp', 'ads'],
  cached_or_stale_data: ['sp', 'ads'],
  partial_results: ['sp', 'ads'],
  deprecated_parameter_accepted: ['sp', 'ads'],
  marketplace_not_enabled_for_identity: ['sp'],
  profile_scope_warning: ['ads'],
  identity_unverified: ['sp'],
} as const);

/** One `_meta.warnings[].kind` value. */
export type WarningKind = keyof typeof WARNING_KINDS;

/**
 * The env switches that control pre-flight normalization, with their defaults. Both servers read
 * these exact names with these exact meanings. Implements CONTRACT.md "Configuration".
 */
export const ENV_SWITCHES = deepFrozen({
  MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: true,
  MCP_SCHEMA_KEY_NORMALIZATION_META: false,
  MCP_STRICT_UNKNOWN_FIELDS: true,
} as const);

/** The name of one env switch. */
export type EnvSwitch = keyof typeof ENV_SWITCHES;
