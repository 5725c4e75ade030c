/**
 * `@mcp-envelope/testing`: test infrastructure shared by core's and the adapters' tests and the
 * conformance gate. A loopback upstream replay server ({@link startUpstreamReplay}), the fixture
 * tools the official MCP conformance suite calls ({@link officialSuiteTools}), with the prompt
 * and resource listings its 2026-07-28 scenarios read ({@link officialSuiteServerExtension}), and
 * a throwaway loopback `redis-server` ({@link startRedisServer}), and a signal a test awaits instead of
 * a timer ({@link createChanges}). It is a package of its own so
 * that `@mcp-envelope/core` ships no test code; the reference servers load the fixture tools only
 * behind their `--conformance-fixtures` switch.
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
export { createChanges } from './changes.js';
export type { Changes } from './changes.js';
export { startRedisServer } from './redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis-server.js';
export { officialSuiteTools } from './official-suite-tools.js';
export { officialSuiteServerExtension } from './official-suite-extension.js';
