/**
 * `@mcp-envelope/core`: the server runtime both adapters plug into. A server built with
 * {@link createEnvelopeServer} answers every `tools/call` failure with a schema-valid v1 envelope,
 * normalizes and strictly validates arguments, classifies upstream failures through its adapter,
 * and carries upstream telemetry in `_meta`. Every export below has its own TSDoc.
 *
 * @packageDocumentation
 */

// The server, its tools and its wire helpers (DESIGN 3 and 4).
export { createEnvelopeServer, errorResult, CORE_ERROR_KINDS, ENVELOPE_CONTRACT_TOOL_NAME } from './server.js';
export { isToolResult, toolResult } from './tool-result.js';
export type {
  CreateEnvelopeServerInput,
  EnvelopeServer,
  EnvelopeServerOptions,
  EnvelopeTool,
  SdkServer,
  ToolHandlerContext,
} from './server.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS, DEFAULT_SHUTDOWN_GRACE_MS, loopbackHostname, parseAllowedOrigins, shutdownOnSignals } from './http-host.js';
export type { ShutdownReport, StreamableHttpHandle, StreamableHttpOptions } from './http-host.js';
export { addStreamableHttpOptions, streamableHttpOptionsFrom } from './http-cli.js';
export type { StreamableHttpCliOptions } from './http-cli.js';
export { DEFAULT_MAX_STDIO_MESSAGE_BYTES, OversizedLineFilter } from './stdio-host.js';
export type { OversizedLine, StdioOptions } from './stdio-host.js';

// The adapter seam.
export type {
  BodyCoercionFailure,
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  EnvelopeAdapter,
  FailedRequest,
  HeaderRecord,
  LwaFailure,
  NetworkFailure,
  RedirectFailure,
  ResponseMeta,
  ResponseTooLargeFailure,
  TimeoutFailure,
  UpstreamHttpFailure,
} from './adapter.js';
export type { AdapterHintTables } from './hint-tables.js';

// Errors, upstream HTTP and the per-call context.
export { EnvelopeError, UpstreamClientError, UpstreamHttpError } from './errors.js';
export type { ClientSideFailure, EnvelopeErrorInit } from './errors.js';
export {
  DEFAULT_MAX_UPSTREAM_BODY_BYTES,
  fetchInCallContext,
  headerRecord,
  MAX_ERROR_BODY_BYTES,
  MAX_UPSTREAM_BODY_SETTING,
  MAX_UPSTREAM_REDIRECTS,
  readSuccessBody,
  upstreamFetch,
} from './upstream.js';
export type { UpstreamFetchInit } from './upstream.js';
export { recordResponseMetaInto } from './context.js';
export type { CallContext } from './context.js';

// Envelope building blocks.
export { carriedEnvelope, envelopeForThrown } from './classify.js';
export type { ClassifyEnvironment } from './classify.js';
export {
  boundEnvelope,
  checkEnvelope,
  finalizeEnvelope,
  internalErrorEnvelope,
  INTERNAL_ERROR_SUMMARY,
  MAX_DETAILS,
  MAX_HINT_LENGTH,
  MAX_HINTS,
  MAX_DETAIL_STRING_LENGTH,
  MAX_SUMMARY_LENGTH,
  MAX_TOOL_LENGTH,
  PACKAGE_VERSION,
} from './envelope-builder.js';
export type { FinalizeEnvironment } from './envelope-builder.js';
export { createRedactor, FRAGMENT_LENGTH, MIN_SECRET_LENGTH, REDACTED, registerSecret } from './redact.js';
export type { Redactor } from './redact.js';
export { embedSchema, embeddedEnvelopeSchema, widenOutputSchema } from './output-schema.js';
export type { JsonSchema } from './output-schema.js';
export { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, toolSetFingerprint } from './pagination.js';

// Configuration and logging.
export { DEFAULT_MAX_RESULT_BYTES, parseBooleanSwitch, resolveLimits, resolveSettings } from './options.js';
export type { EnvelopeLimitOptions, EnvelopeLimits, EnvelopeSettings, EnvelopeSwitchOptions } from './options.js';
export { createEnvelopeLogger } from './logger.js';
export type { EnvelopeLogger } from './logger.js';

// The argument pipeline: normalization, strict validation, hints.
export * from './arguments/index.js';

// Shared upstream helpers for adapters: header rules, body parsing, status classification, LWA,
// and OpenAPI operations -> tool input schemas.
export * from './http-meta/index.js';
export * from './upstream-body/index.js';
export * from './lwa/index.js';
export * from './openapi/index.js';
