/**
 * `@mcp-envelope/core/testing`: test infrastructure shared by the adapters' tests and the
 * conformance gate. A loopback upstream replay server ({@link startUpstreamReplay}) and the
 * fixture tools the official MCP conformance suite calls ({@link officialSuiteTools}), with the
 * prompt and resource listings its 2026-07-28 scenarios read ({@link officialSuiteServerExtension}),
 * and a throwaway loopback `redis-server` ({@link startRedisServer}). Nothing
 * here is loaded by `@mcp-envelope/core` itself.
 *
 * @packageDocumentation
 */
export { DEFAULT_REPLAY_ACCESS_TOKEN, DEFAULT_REPLAY_TOKEN_PATH, startUpstreamReplay } from './upstream-replay.js';
export type {
  RecordedResponse,
  ReplayAnswerSource,
  ReplayRequest,
  ReplayRoute,
  ReplayUsagePlan,
  UpstreamReplay,
  UpstreamReplayOptions,
} from './upstream-replay.js';
export { startRedisServer } from './redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis-server.js';
export { officialSuiteTools } from './official-suite-tools.js';
export { officialSuiteServerExtension } from './official-suite-extension.js';
// what officialSuiteTools returns, so a test can type the list it builds from them
export type { EnvelopeTool, SdkServer, ToolHandlerContext } from '../server.js';
export type { RateLimitPlan } from '../rate-limit/store.js';
export type { JsonSchemaObject } from '../arguments/types.js';
export type { ResponseMeta } from '../adapter.js';
export type { UpstreamFetchInit } from '../upstream.js';
