/**
 * `@mcp-envelope/core`: what a server author uses to build an MCP tool server on the envelope
 * runtime. A server built with {@link createEnvelopeServer} answers every `tools/call` failure
 * with a schema-valid error envelope, normalizes and strictly validates arguments, classifies
 * upstream failures through its adapter, and carries upstream telemetry in `_meta`.
 *
 * What an adapter author needs besides (the argument pipeline, header rules, upstream-body
 * helpers, the redactor) is the `@mcp-envelope/core/adapter` entry point; the OpenAPI converter
 * is `@mcp-envelope/core/openapi`; test infrastructure is the `@mcp-envelope/testing` package.
 * Every export below has its own TSDoc.
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
// An existing SDK McpServer served by core, its code unchanged.
export { wrapMcpServer } from './wrap/wrap-mcp-server.js';
export type { WrapMcpServerInput, WrappableMcpServer } from './wrap/wrap-mcp-server.js';
export { shutdownOnSignals } from './http-host.js';
// the protocol era EnvelopeServer.createSdkServer builds a server for
export type { ProtocolEra } from './types.js';
export type { ShutdownReport, StreamableHttpHandle, StreamableHttpOptions } from './http-host.js';
export {
  addStreamableHttpOptions,
  serveFromCommandLine,
  streamableHttpOptionsFrom,
  upstreamFromCommandLine,
} from './http-cli.js';
export type { CommandLineServable, StreamableHttpCliOptions } from './http-cli.js';
export type { EnvelopeStdioHandle, OversizedLine, StdioOptions } from './stdio-host.js';
export type { EnvelopeLimitOptions, EnvelopeLimits, EnvelopeSettings, EnvelopeSwitchOptions } from './options.js';
export type { ToolFailureMetaOptions } from './options.js';
// Code Mode: the switch, the sandbox limits and the names of its meta tools
export type { CodeModeOptions, CodeModeSettings } from './code-mode/index.js';
export {
  CODE_MODE_DEFAULTS,
  EXECUTE_CODE_TOOL_NAME,
  GET_TOOL_SCHEMA_TOOL_NAME,
  SEARCH_TOOLS_TOOL_NAME,
} from './code-mode/index.js';
export type { JsonSchema } from './output-schema.js';
export type { JsonSchemaObject } from './arguments/index.js';
// Stale calls: the renamed and removed properties of the tool-contract lockfile
export { readToolHistory } from './arguments/index.js';
export type { ToolHistoryEntry } from './arguments/index.js';

// The adapter a server hands to createEnvelopeServer, and the failures it classifies.
export type {
  BodyCoercionFailure,
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  EnvelopeAdapter,
  FailedRequest,
  HeaderRecord,
  CredentialFailure,
  InBandAnswer,
  InBandMark,
  InBandVerdict,
  NetworkFailure,
  RedirectFailure,
  ResponseMeta,
  ResponseTooLargeFailure,
  TimeoutFailure,
  UpstreamHttpFailure,
} from './adapter.js';
export type { AdapterHintTables } from './hint-tables.js';

// Errors a tool throws, and the upstream call that throws them.
export { EnvelopeError, UpstreamClientError, UpstreamHttpError } from './errors.js';
export type { ClientSideFailure, EnvelopeErrorInit } from './errors.js';
export { readSuccessBody, upstreamFetch } from './upstream.js';
export type { UpstreamFetchInit } from './upstream.js';

// Logging, the redactor a server may share with its credential clients, and the version envelopes carry.
export { createEnvelopeLogger } from './logger.js';
export type { EnvelopeLogger } from './logger.js';
export type { Redactor, RedactorOptions, SecretLifetime, TriggeredPatterns } from './redact.js';
export { PACKAGE_VERSION } from './envelope-builder.js';

// The pre-flight limiter: plans, the store interface (memory here; Redis for replicas) and its settings.
export type { RateLimitPlan, RateLimitStore, RateLimitTake } from './rate-limit/store.js';
export { createMemoryRateLimitStore } from './rate-limit/memory-store.js';
export type { MemoryRateLimitStore, MemoryRateLimitStoreOptions } from './rate-limit/memory-store.js';
export { RATE_LIMIT_DEFAULTS } from './rate-limit/settings.js';
export type { RateLimitOptions, RateLimitSettings } from './rate-limit/settings.js';

// Bounds on calls in flight, errors a handler returns or throws, and partial success.
export { CONCURRENCY_DEFAULTS } from './concurrency.js';
export type { ConcurrencyOptions, ConcurrencySettings } from './concurrency.js';
export { toolError } from './tool-error.js';
export type { CodeFor, KindOfCode, ToolErrorBuilder, ToolErrorDetail } from './tool-error.js';
export { partialSuccess } from './partial-success.js';
export type { ItemFailure, PartialSuccess, PartialSuccessOptions } from './partial-success.js';
