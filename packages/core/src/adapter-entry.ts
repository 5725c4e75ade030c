/**
 * `@mcp-envelope/core/adapter`: what an adapter author uses to build a rich adapter for
 * `@mcp-envelope/core`: the argument pipeline its tools are compiled with, the header rules and
 * upstream-body helpers its classification is made of, the redactor, the per-session state table,
 * and the settings error the limiter throws. A server author who only writes tools and a small
 * adapter needs at most `responseMetaFromHeaders` (an upstream's `Retry-After`, rate-limit and
 * `Warning` headers as `_meta`); the types the adapter seam itself is made of are on
 * `@mcp-envelope/core`.
 *
 * @packageDocumentation
 */

// The argument pipeline an adapter compiles its tools with.
export { compileTool, createPipelineCaches, jsonTypeOf } from './arguments/index.js';
export type {
  ArgumentCheck,
  ArgumentPipelineOptions,
  CompiledTool,
  JsonSchemaObject,
  PipelineCaches,
} from './arguments/index.js';
// the parts of PipelineCaches, named so that their type can be written
export type { DefinitionVerdict, DefinitionVerdicts } from './arguments/types.js';
export type { SchemaCompiler } from './arguments/schema-validation.js';
export type { AdapterHintTables } from './hint-tables.js';

// Header rules: case-insensitive lookup, rate-limit telemetry, Retry-After.
export { headerRecord } from './upstream.js';
// The start-up check of a configured endpoint URL (upstream base, token endpoint, credentials service).
export { endpointUrlProblem, isLoopbackUrl } from './endpoint-url.js';
export {
  headerValue,
  lowerCaseHeaders,
  MAX_RETRY_AFTER_SECONDS,
  responseMetaFromHeaders,
  retryAfterSeconds,
} from './http-meta/index.js';
export type { HeaderSource, RateLimitHeaderNames } from './http-meta/index.js';
// The HTTP kit: what every REST upstream speaks (problem+json, rate-limit dialects, 403 rate
// limits, Link pagination) and a default classification built from it.
export {
  classifyRestFailure,
  classifyRestStatus,
  DEFAULT_REST_HINTS,
  EPOCH_RESET_THRESHOLD,
  MAX_REST_ERROR_DETAILS,
  nextPageLink,
  parseLinkHeader,
  parseProblemDetails,
  pointerPath,
  rateLimitSignal,
  readRateLimit,
  restErrorDetails,
  restResponseMeta,
} from './http-kit/index.js';
export type {
  ProblemDetails,
  RateLimitReading,
  RateLimitSignal,
  RestClassificationHints,
  RestClassificationOptions,
  RestErrorBody,
  RestStatusClassification,
  WebLink,
} from './http-kit/index.js';
// 2xx bodies that report a failure: the common forms and the status their code words mean.
export { inBandError, inBandStatus, restInBandFailure } from './http-kit/index.js';
export type { InBandErrorOptions } from './http-kit/index.js';
// The adapter seam the helpers take and return (also on `@mcp-envelope/core`, for adapters that need none of them).
export type {
  BodyCoercionFailure,
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  CredentialFailure,
  EnvelopeAdapter,
  FailedRequest,
  HeaderRecord,
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
export type { ToolHandlerContext } from './server.js';
export type { UpstreamFetchInit } from './upstream.js';
export type { RateLimitPlan, RateLimitStore, RateLimitTake } from './rate-limit/store.js';

// Upstream bodies and the classification of an upstream status or a client-side failure.
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

// Secrets: a server's redactor, and text redaction for what it logs.
export { createRedactor, createTextRedaction } from './redact.js';
export type { Redactor, RedactorOptions, SecretLifetime, TriggeredPatterns } from './redact.js';

// What one MCP session of a server chose, kept for that session only.
export { MAX_SESSION_STATES, SessionStates } from './session-states.js';

// The error the limiter's settings throw when a plan or an option is out of range.
export { RateLimitSettingsError } from './rate-limit/settings.js';
export type { RateLimitOptions, RateLimitSettings } from './rate-limit/settings.js';

// The error the bounds on calls in flight throw at start for a value out of range.
export { ConcurrencySettingsError } from './concurrency.js';
