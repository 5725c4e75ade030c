/**
 * `@mcp-envelope/core`: the server runtime both adapters plug into. A server built with
 * {@link createEnvelopeServer} answers every `tools/call` failure with a schema-valid v1 envelope,
 * normalizes and strictly validates arguments, classifies upstream failures through its adapter,
 * and carries upstream telemetry in `_meta`. Every export below has its own TSDoc.
 *
 * @packageDocumentation
 */

// The server, its tools and its hosts.
export { createEnvelopeServer, ENVELOPE_CONTRACT_TOOL_NAME } from './server.js';
export type {
  CreateEnvelopeServerInput,
  EnvelopeServer,
  EnvelopeServerOptions,
  EnvelopeTool,
  SdkServer,
  ToolHandlerContext,
} from './server.js';
export { inputRequiredResult, toolResult } from './tool-result.js';
// what one MCP session of a server chose, kept for that session only
export { MAX_SESSION_STATES, SessionStates } from './session-states.js';
export { shutdownOnSignals } from './http-host.js';
// the protocol era EnvelopeServer.createSdkServer builds a server for
export type { ProtocolEra } from './types.js';
// the parts of PipelineCaches, named so that their type can be written
export type { DefinitionVerdict, DefinitionVerdicts } from './arguments/types.js';
export type { SchemaCompiler } from './arguments/schema-validation.js';
export type { ShutdownReport, StreamableHttpHandle, StreamableHttpOptions } from './http-host.js';
export { addStreamableHttpOptions, streamableHttpOptionsFrom } from './http-cli.js';
export type { StreamableHttpCliOptions } from './http-cli.js';
export type { EnvelopeStdioHandle, OversizedLine, StdioOptions } from './stdio-host.js';
export type { EnvelopeLimitOptions, EnvelopeLimits, EnvelopeSettings, EnvelopeSwitchOptions } from './options.js';
// Code Mode: the switch, the sandbox limits and the names of its meta tools
export type { CodeModeOptions, CodeModeSettings } from './code-mode/index.js';
export {
  CODE_MODE_DEFAULTS,
  EXECUTE_CODE_TOOL_NAME,
  GET_TOOL_SCHEMA_TOOL_NAME,
  SEARCH_TOOLS_TOOL_NAME,
} from './code-mode/index.js';
export type { JsonSchema } from './output-schema.js';

// The adapter seam.
export type {
  BodyCoercionFailure,
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  EnvelopeAdapter,
  FailedRequest,
  HeaderRecord,
  CredentialFailure,
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
export { headerRecord, readSuccessBody, upstreamFetch } from './upstream.js';
export type { UpstreamFetchInit } from './upstream.js';

// Logging, secrets and the version envelopes carry.
export { createEnvelopeLogger } from './logger.js';
export type { EnvelopeLogger } from './logger.js';
export { createRedactor, createTextRedaction } from './redact.js';
export type { Redactor, RedactorOptions, SecretLifetime, TriggeredPatterns } from './redact.js';
export { PACKAGE_VERSION } from './envelope-builder.js';

// The argument pipeline an adapter compiles its tools with.
export { compileTool, createPipelineCaches, jsonTypeOf } from './arguments/index.js';
export type {
  ArgumentCheck,
  ArgumentPipelineOptions,
  CompiledTool,
  JsonSchemaObject,
  PipelineCaches,
} from './arguments/index.js';

// Shared upstream helpers for adapters: header rules, body parsing, status classification.
export { headerValue, lowerCaseHeaders, responseMetaFromHeaders, retryAfterSeconds } from './http-meta/index.js';
export type { HeaderSource, RateLimitHeaderNames } from './http-meta/index.js';

// The pre-flight limiter: plans, the store interface (memory here; Redis for replicas) and its settings.
export type { RateLimitPlan, RateLimitStore, RateLimitTake } from './rate-limit/store.js';
export { createMemoryRateLimitStore } from './rate-limit/memory-store.js';
export type { MemoryRateLimitStore, MemoryRateLimitStoreOptions } from './rate-limit/memory-store.js';
export { RATE_LIMIT_DEFAULTS, RateLimitSettingsError } from './rate-limit/settings.js';
export type { RateLimitOptions, RateLimitSettings } from './rate-limit/settings.js';
export {
  capText,
  classifyClientFailure,
  classifyUpstreamStatus,
  displayLocation,
  locationUrl,
  parseUpstreamBody,
  requestPath,
} from './upstream-body/index.js';
export type {
  ClientFailureFamily,
  NonHttpFailure,
  ParsedUpstreamBody,
  StatusClassification,
  UpstreamFamily,
} from './upstream-body/index.js';

// (OpenAPI operations -> tool input schemas: the `@mcp-envelope/core/openapi` entry point.)
