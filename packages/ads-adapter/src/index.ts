/**
 * `@mcp-envelope/ads-adapter`: the Amazon Ads API adapter for `@mcp-envelope/core`, and the
 * reference Amazon Ads API MCP server (`mcp-envelope-ads`).
 *
 * @packageDocumentation
 */

// The adapter core plugs in.
export { adsAdapter } from './adapter.js';

// Pure functions for servers that need them directly: response meta, error bodies,
// classification, media types, partial results.
export { parseAdsResponseMeta } from './response-meta.js';
export { parseAdsErrorBody } from './error-body.js';
export type { AdsErrorBody, AdsErrorBodyShape, AdsUpstreamError } from './error-body.js';
export { classifyAdsFailure, classifyAdsHttpFailure } from './classify.js';
export { expectedMediaType } from './media-types.js';
export { adsPartialResultsWarning } from './partial-results.js';

// Data.
export { ADS_REDACTIONS } from './redaction.js';
export {
  ADS_CURATED_ENUMS,
  ADS_HINTS,
  ADS_KEY_RENAMES,
  ADS_MEDIA_TYPES,
  ADS_REGION_ALIASES,
  ADS_REGIONS,
} from './hint-tables.js';
export type { AdsRegion } from './hint-tables.js';

// The reference server (`mcp-envelope-ads`), for embedding or testing in-process.
export { createAdsServer } from './server/create-server.js';
export type { AdsServer, AdsServerOptions } from './server/create-server.js';
export { SELECTABLE_ADS_REGIONS } from './server/settings.js';
export type { AdsCommandLineSettings, AdsServerSettings, SelectableAdsRegion } from './server/settings.js';
export type { AdsProfile, AdsRoute, AdsSession, AdsSessions } from './server/session.js';
export type { ModelLoadResult } from './server/models.js';
export type { AdsAccountHeader, AdsOperation } from './server/operation.js';
