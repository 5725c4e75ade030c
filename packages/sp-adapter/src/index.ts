/**
 * `@mcp-envelope/sp-adapter`: everything SP-API specific for `@mcp-envelope/core`, as data plus a
 * few pure functions, and the reference SP-API MCP server (`mcp-envelope-sp`).
 *
 * @packageDocumentation
 */
export * from './regions.js';
export * from './hint-tables.js';
export * from './response-meta.js';
export * from './redaction.js';
export * from './error-body.js';
export * from './classify.js';
export * from './adapter.js';
export * from './models.js';
export { defaultModelCacheDirectory, SP_MODEL_CACHE_FORMAT } from './model-cache.js';
export type { SpModelCacheEvent } from './model-cache.js';
export * from './server.js';
export * from './identities.js';
export * from './identity-tools.js';
