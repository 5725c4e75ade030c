/**
 * `@mcp-envelope/ads-adapter`: the Amazon Ads API adapter for `@mcp-envelope/core`, and the
 * reference Amazon Ads API MCP server (`mcp-envelope-ads`). Implements issue 5.
 *
 * @packageDocumentation
 */

// The adapter core plugs in.
export { adsAdapter, ADS_HINT_TABLES, ADS_PROFILE_NOT_FOUND_CODE } from './adapter.js';

// Pure functions: response meta, error bodies, classification, media types, partial results.
export { adsRequestId, isThrottledResponse, parseAdsResponseMeta } from './response-meta.js';
export { adsErrorsOf, locationToPath, MAX_ADS_ERROR_DETAILS, parseAdsErrorBody } from './error-body.js';
export type { AdsErrorBody, AdsErrorBodyShape, AdsUpstreamError } from './error-body.js';
export { ADS_ERROR_KINDS, ADS_UPSTREAM_FAMILY, classifyAdsFailure, classifyAdsHttpFailure, diagnoseAuthFailure, isProfileScopeProblem } from './classify.js';
export type { AdsAuthDiagnosis } from './classify.js';
export { expectedMediaType } from './media-types.js';
export { adsPartialResultsWarning } from './partial-results.js';
export { ADS_REDACTIONS, adsRedactor } from './redaction.js';

// Data.
export {
  ADS_AUTH_DIAGNOSES,
  ADS_CURATED_ENUMS,
  ADS_HINTS,
  ADS_KEY_RENAMES,
  ADS_MEDIA_TYPES,
  ADS_PROFILE_SCOPE_PATTERN,
  ADS_REGION_ALIASES,
  ADS_REGION_IDS,
  ADS_REGIONS,
  ADS_REQUEST_HEADERS,
  ADS_RESPONSE_HEADERS,
  ADS_STATUS_REASONS,
  DEFAULT_ADS_REGION,
} from './hint-tables.js';
export type { AdsRegion } from './hint-tables.js';

// The reference server (`mcp-envelope-ads`), for embedding or testing in-process.
export { ADS_PACKAGE_VERSION, ADS_SERVER_NAME, createAdsServer } from './server/create-server.js';
export type { AdsServer, AdsServerOptions } from './server/create-server.js';
export { adsServerSettings, DEFAULT_UPSTREAM_TIMEOUT_MS, SELECTABLE_ADS_REGIONS } from './server/settings.js';
export type { AdsCommandLineSettings, AdsServerSettings, SelectableAdsRegion } from './server/settings.js';
export { AdsSession } from './server/session.js';
export type { AdsProfile } from './server/session.js';
export { BUILT_IN_OPERATIONS } from './server/catalog.js';
export { loadModelOperations } from './server/models.js';
export type { ModelLoadResult } from './server/models.js';
export type { AdsAccountHeader, AdsOperation } from './server/operation.js';
