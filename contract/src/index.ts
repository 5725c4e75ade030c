/**
 * `@mcp-envelope/contract`: the shapes every conforming MCP server and client share.
 *
 * @packageDocumentation
 */
// freezing for tables shared by every server in a process
export { deepFrozen } from './frozen.js';
export {
  CANONICAL_ERROR_CODES,
  CONTRACT_VERSION,
  ENV_SWITCHES,
  ERROR_KINDS,
  HINT_CATEGORIES,
  NORMALIZED_EVENT_KINDS,
  NORMALIZED_KINDS,
  RESERVED_ERROR_CODES,
  RESERVED_NORMALIZED_KINDS,
  SCHEMA_DOMAIN_CODES,
  SCHEMA_ERROR_CODES,
  SCHEMA_FALLBACK_CODE,
  SCHEMA_KEYWORD_CODES,
  UPSTREAM_HTTP_CODE_PREFIXES,
  upstreamHttpCode,
  WARNING_KINDS,
} from './taxonomy.js';
export type {
  AdsApiHttpCode,
  CanonicalErrorCode,
  ContractVersion,
  EnvSwitch,
  ErrorCode,
  ErrorKind,
  HintCategory,
  NormalizedEventKind,
  OpenbridgeHttpCode,
  ReservedErrorCode,
  SchemaErrorCode,
  SchemaKeyword,
  SpApiHttpCode,
  UpstreamHttpCode,
  WarningKind,
} from './taxonomy.js';
export type {
  CoercedEvent,
  DroppedAliasEvent,
  EnvelopeDetail,
  EnvelopeMeta,
  EnvelopeWarning,
  ErrorEnvelope,
  NormalizedEvent,
  NormalizedEventOfKind,
  RateLimitMeta,
  RenamedEvent,
  SuccessMeta,
  UnknownFieldPassedThroughEvent,
  UnknownFieldRejectedEvent,
} from './envelope.js';

// The JSON documents, the validator and the capability servers advertise.
export { ERROR_ENVELOPE_SCHEMA, fillTemplate, schemaCodeEntry } from './schemas.js';
export type { SchemaCodeEntry } from './schemas.js';
export { isEnvelope, isEnvelopeMeta, validateEnvelope, validateMeta } from './validate.js';
export type { EnvelopeValidation, EnvelopeViolation } from './validate.js';
export { ENVELOPE_CAPABILITY_KEY, ENVELOPE_EXTENSION_ID, envelopeCapability } from './capability.js';
export type { EnvelopeCapabilityValue } from './capability.js';
export { activeMigrations, compareVersions, coveringMigration, legacyErrorKindFor, MIGRATIONS } from './migrations.js';
export type { MigrationEntry, MigrationSubject } from './migrations.js';

// The client helpers (no `node:` imports: they run in browsers and edge runtimes).
export { isReceivedEnvelope, retryAfterSecondsOf } from './received-envelope.js';
export type { ReceivedEnvelope, ReceivedMeta } from './received-envelope.js';
export { ToolCallError, ToolEnvelopeError } from './client-errors.js';
export type { EnvelopeChannel, FailureChannel, InBandError } from './client-errors.js';
export {
  callOrThrow,
  callWithEnvelope,
  envelopeFromJsonRpcError,
  parseEnvelopeText,
  unwrapOrThrow,
  unwrapToolResult,
} from './client.js';
export type { ToolCallingClient, ToolResultLike, UnwrappedToolResult } from './client.js';
export { MAX_SCANNED_TEXT_LENGTH } from './json-scan.js';
