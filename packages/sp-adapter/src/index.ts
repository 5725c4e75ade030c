/**
 * `@mcp-envelope/sp-adapter`: everything SP-API specific for `@mcp-envelope/core`, as data plus a
 * few pure functions, and the reference SP-API MCP server (`mcp-envelope-sp`).
 *
 * @packageDocumentation
 */

// The adapter core plugs in, its hint tables and the LWA failure classifier.
export { spAdapter } from './adapter.js';
export { SP_HINT_TABLES } from './hint-tables.js';
export { classifySpLwaFailure } from './classify.js';
export { SP_MARKETPLACES, SP_REGIONS } from './regions.js';
export type { SpMarketplaceCountry, SpRegion } from './regions.js';

// The reference server (`mcp-envelope-sp`), for embedding or testing in-process.
export { createSpServer } from './server.js';
export type { AccessTokenSource, SpServer, SpServerOptions, SpServerState } from './server.js';
export type { SpIdentity, SpIdentityCredentials, SpIdentitySource } from './identities.js';

// SP-API models -> tools.
export { loadBuiltInCatalog, loadSpModels } from './models.js';
export type { LoadSpModelsOptions, SpModel, SpModelOperation } from './models.js';
export type { SpModelCacheEvent } from './model-cache.js';
