/**
 * `@mcp-envelope/amazon`: what the servers that front Amazon APIs share because both are Amazon:
 * the Login with Amazon token client and its failure classification, the Amazon secret rules for
 * each server's redactor, and the regions with their token endpoints and hosts.
 *
 * @packageDocumentation
 */
export {
  classifyAmazonCredentialFailure,
  classifyLwaError,
  classifyLwaFailure,
  DEFAULT_LWA_TOKEN_URL,
  isAmazonCredentialError,
  LWA_ENV_VARIABLES,
  LWA_REQUEST_ID_HEADERS,
  LwaError,
  LwaSettingsError,
  lwaSettingsFromEnv,
  LwaTokenClient,
  MAX_TOKEN_RESPONSE_BYTES,
} from './lwa-client.js';
export { LwaTokenClients } from './lwa-clients.js';
export type {
  LwaFailureClassification,
  LwaFailureReason,
  LwaHints,
  LwaSettings,
  SecretRegistry,
} from './lwa-client.js';
export {
  AMAZON_PUBLIC_PREFIXES,
  AMAZON_REDACTION_PATTERNS,
  AMAZON_REDACTION_TRIGGER,
  AMAZON_SECRET_HEADERS,
  amazonRedactorOptions,
  createAmazonRedactor,
} from './redaction.js';
export { AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS, amazonResponseMeta, perSecondRateLimit } from './headers.js';
export { ADS_API_SANDBOX_HOST, AMAZON_REGIONS } from './regions.js';
export type { AmazonRegion } from './regions.js';
