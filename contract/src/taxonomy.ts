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
 * The contract version servers build envelopes in, carried as `_envelope_version` and advertised
 * as `contract_version` to clients that read it. Implements CONTRACT.md "Versioning".
 */
export const CONTRACT_VERSION = 2 as const;

/** Every contract version a reader may meet, oldest first. Implements CONTRACT.md "Versioning". */
export const CONTRACT_VERSIONS = deepFrozen([1, 2] as const);

/** One contract version: `1` or `2`. */
export type ContractVersion = (typeof CONTRACT_VERSIONS)[number];

/**
 * The closed `error_kind` taxonomy of contract version 2 (8 values). No kind names a vendor: the
 * upstream API is named by the envelope's `upstream` field. A conforming server never emits a
 * value outside this list. Implements CONTRACT.md "error_kind".
 */
export const ERROR_KINDS = deepFrozen([
  'mcp_input_validation',
  'tool_not_found',
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
  'sandbox_runtime',
  'internal_error',
] as const);

/** One value of the closed `error_kind` taxonomy of contract version 2. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * The closed `error_kind` taxonomy of contract version 1 (10 values), which named the first two
 * servers' upstreams. Servers emit these only in the v1 form of an envelope, for readers of v1.
 * Implements CONTRACT.md "Upgrading an agent from v1".
 */
export const ERROR_KINDS_V1 = deepFrozen([
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

/** One value of the contract version 1 taxonomy. */
export type ErrorKindV1 = (typeof ERROR_KINDS_V1)[number];

/**
 * The cross-server canonical `error_code` values and the `error_kind` each one pairs with.
 * Implements CONTRACT.md "Canonical error codes".
 */
export const CANONICAL_ERROR_CODES = deepFrozen({
  INPUT_VALIDATION_FAILED: 'mcp_input_validation',
  TOOL_NOT_FOUND: 'tool_not_found',
  AUTHENTICATION_ERROR: 'auth_error',
  INTERNAL_ERROR: 'internal_error',
  TOOL_EXECUTION_FAILED: 'upstream_client',
  BODY_COERCION_INVALID_JSON: 'upstream_client',
  RATE_LIMITED: 'rate_limited',
  CODE_MODE_SANDBOX_LIMITATION: 'sandbox_runtime',
  SERVER_BUSY: 'rate_limited',
} as const);

/** One cross-server canonical `error_code`. */
export type CanonicalErrorCode = keyof typeof CANONICAL_ERROR_CODES;

/**
 * Codes the contract reserves for later use. Servers do not emit them; clients must tolerate
 * them. Implements CONTRACT.md "Reserved codes".
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

/** The prefix of every upstream HTTP code in contract version 2, whatever the server. */
export const UPSTREAM_HTTP_CODE_PREFIX = 'UPSTREAM_HTTP_' as const;

/** What the v2 schema accepts as an `upstream` name: lower case letters, digits, `.`, `_`, `-`; at most 64. */
export const UPSTREAM_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** `UPSTREAM_HTTP_<status>`: the upstream API named by the envelope's `upstream` answered with that status. */
export type UpstreamHttpCode = `UPSTREAM_HTTP_${number}`;

/** Every `error_code` the contract defines. The schema admits any UPPER_SNAKE code beyond these. */
export type ErrorCode = CanonicalErrorCode | ReservedErrorCode | SchemaErrorCode | UpstreamHttpCode;

/**
 * Builds the upstream HTTP code for a status, e.g. `upstreamHttpCode(404)` -> `'UPSTREAM_HTTP_404'`.
 * Implements CONTRACT.md "Upstream HTTP codes".
 *
 * @param status - the HTTP status code (an integer from 100 to 599).
 * @returns the code string.
 * @throws RangeError when `status` is not an integer from 100 to 599.
 */
export function upstreamHttpCode(status: number): UpstreamHttpCode {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RangeError(`HTTP status must be an integer from 100 to 599, got ${String(status)}`);
  }
  return `${UPSTREAM_HTTP_CODE_PREFIX}${status}`;
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

/** A kind the contract reserves for a later version; never emitted in versions 1 and 2. */
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
 * `_meta.warnings[].kind` values, each with the reference servers that emit it today:
 * `upstream_warning` (from an HTTP `Warning` header) and the reserved domain kinds. Any server of
 * the family may emit any of these kinds when it detects the condition; clients must tolerate
 * every one of them. Implements CONTRACT.md "Warnings".
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
