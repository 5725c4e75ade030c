/**
 * `@mcp-envelope/contract`: the shapes every conforming MCP server and client share.
 *
 * @packageDocumentation
 */
// freezing for tables shared by every server in a process
export { deepFrozen } from './frozen.js';
// the object check every package of the project reads JSON with
export { isRecord } from './shapes.js';
export {
  CANONICAL_ERROR_CODES,
  CONTRACT_VERSION,
  CONTRACT_VERSIONS,
  ENV_SWITCHES,
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
  upstreamHttpCode,
  WARNING_KINDS,
} from './taxonomy.js';
export type {
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
} from './taxonomy.js';
export type {
  AnyErrorEnvelope,
  CoercedEvent,
  DroppedAliasEvent,
  EnvelopeDetail,
  EnvelopeMeta,
  EnvelopeWarning,
  EnvelopeMetaV1,
  ErrorEnvelope,
  ErrorEnvelopeV1,
  NormalizedEvent,
  NormalizedEventOfKind,
  RateLimitMeta,
  RateLimitMetaV1,
  RenamedEvent,
  SuccessMeta,
  UnknownFieldPassedThroughEvent,
  UnknownFieldRejectedEvent,
} from './envelope.js';

// The JSON documents, the validator and the capability servers advertise.
export {
  ERROR_ENVELOPE_SCHEMA,
  ERROR_ENVELOPE_SCHEMA_V1,
  ERROR_ENVELOPE_SCHEMA_V2,
  fillTemplate,
  schemaCodeEntry,
} from './schemas.js';
export type { SchemaCodeEntry } from './schemas.js';
export {
  isEnvelope,
  isEnvelopeMeta,
  isEnvelopeV1,
  isEnvelopeV2,
  validateEnvelope,
  validateEnvelopeVersion,
  validateMeta,
} from './validate.js';
export type { EnvelopeValidation, EnvelopeViolation, MetaValidation } from './validate.js';
export { ENVELOPE_CAPABILITY_KEY, ENVELOPE_EXTENSION_ID, envelopeCapability } from './capability.js';
export type { EnvelopeCapabilityInput, EnvelopeCapabilityValue } from './capability.js';
// The ToolFailure mirror: an envelope as the open MCP ToolFailure proposal spells a failure.
export {
  TOOL_FAILURE_CLASSES,
  TOOL_FAILURE_META_KEY,
  TOOL_FAILURE_SCHEMA,
  toolFailureClass,
  toolFailureOf,
} from './tool-failure.js';
export type { ToolFailure, ToolFailureClass } from './tool-failure.js';
// Contract version 1 beside version 2: the projection, the upgrade and the choice of version.
export {
  contractVersionsFor,
  negotiateContractVersion,
  speaksV1,
  statedContractVersions,
  toV1Envelope,
  toV1Meta,
  upgradeEnvelope,
  V1_UPSTREAMS,
} from './v1.js';
export type { V1UpstreamSpelling } from './v1.js';
export {
  activeMigrations,
  compareVersions,
  coveringMigration,
  isMigrationOpen,
  legacyErrorKindFor,
  MIGRATIONS,
  toV1EnvelopeOfServer,
} from './migrations.js';
export type { MigrationEntry, MigrationSubject, V1FormServer } from './migrations.js';

// The client helpers (no `node:` imports: they run in browsers and edge runtimes).
export { isReceivedEnvelope, retryAfterSecondsOf } from './received-envelope.js';
export type { ReceivedEnvelope, ReceivedMeta } from './received-envelope.js';
export { ToolCallError, ToolEnvelopeError } from './client-errors.js';
export type { EnvelopeChannel, FailureChannel, InBandError } from './client-errors.js';
export {
  CLIENT_CONTRACT_VERSIONS,
  callOrThrow,
  callWithEnvelope,
  envelopeFromJsonRpcError,
  parseEnvelopeText,
  statesContract,
  unwrapOrThrow,
  unwrapToolResult,
} from './client.js';
export type { CallOptions, ToolCallingClient, ToolResultLike, UnwrappedToolResult } from './client.js';
export { MAX_SCANNED_TEXT_LENGTH } from './json-scan.js';
