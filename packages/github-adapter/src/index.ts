/**
 * `@mcp-envelope/github-adapter`: everything GitHub specific for `@mcp-envelope/core`, and the
 * reference GitHub MCP server (`mcp-envelope-github`), generated from GitHub's own OpenAPI
 * description.
 *
 * @packageDocumentation
 */

// The adapter core plugs in, its classifier and the redaction rules.
export { createGithubAdapter, githubAdapter, GITHUB_SERVER_ID } from './adapter.js';
export {
  classifyGithubFailure,
  classifyGithubHttpFailure,
  GITHUB_ERROR_KINDS,
  GITHUB_HINTS,
  GITHUB_UPSTREAM,
  GITHUB_UPSTREAMS,
  SECONDARY_RATE_LIMIT_WAIT_SECONDS,
} from './classify.js';
export type { GithubClassifyOptions } from './classify.js';
export { fieldPointer, githubErrorDetails } from './error-body.js';
export { GITHUB_RATE_LIMIT_WINDOWS, githubClock, parseGithubResponseMeta } from './response-meta.js';
export { GITHUB_REDACTION_PATTERNS, redactGithubText } from './redaction.js';

// GitHub's description -> tools.
export {
  GITHUB_LEFT_OUT_OPERATIONS,
  githubDescriptionPath,
  loadGithubOperations,
  PAGE_CURSOR_PROPERTY,
} from './tools.js';
export type { GithubCatalog, GithubOperation } from './tools.js';
export { decodePageCursor, encodePageCursor, NEXT_PAGE_CURSOR_KEY } from './pagination.js';

// The reference server (`mcp-envelope-github`), for embedding or testing in-process.
export {
  createGithubServer,
  DEFAULT_GITHUB_UPSTREAM,
  GITHUB_ADAPTER_VERSION,
  GITHUB_SERVER_NAME,
  GithubSettingsError,
  githubSettingsFromEnv,
} from './server.js';
export type { GithubServer, GithubServerOptions } from './server.js';
