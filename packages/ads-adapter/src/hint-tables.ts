/**
 * Amazon Ads API facts as data: regions and their hosts, region aliases, key renames, curated
 * enums, the vendor media types of versioned endpoints, and the hint texts the classifier uses.
 * Nothing here is logic; the few pure functions that read these tables live in
 * `media-types.ts`, `classify.ts` and `adapter.ts`. Everything that differs between SP and Ads
 * lives only in that server's adapter.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { ADS_API_SANDBOX_HOST, AMAZON_REGIONS } from '@mcp-envelope/amazon';

/**
 * The Ads API regions: the API host of each, and the Login with Amazon token endpoint that issues
 * tokens for it. `test` is the sandbox host (it accepts tokens from the NA endpoint). Frozen: the
 * calls read it to choose where credentials go.
 */
export const ADS_REGIONS = deepFrozen({
  na: {
    host: AMAZON_REGIONS.na.adsApiHost,
    tokenUrl: AMAZON_REGIONS.na.lwaTokenUrl,
    label: AMAZON_REGIONS.na.name,
  },
  eu: {
    host: AMAZON_REGIONS.eu.adsApiHost,
    tokenUrl: AMAZON_REGIONS.eu.lwaTokenUrl,
    label: AMAZON_REGIONS.eu.name,
  },
  fe: {
    host: AMAZON_REGIONS.fe.adsApiHost,
    tokenUrl: AMAZON_REGIONS.fe.lwaTokenUrl,
    label: AMAZON_REGIONS.fe.name,
  },
  test: {
    host: ADS_API_SANDBOX_HOST,
    tokenUrl: AMAZON_REGIONS.na.lwaTokenUrl,
    label: 'Sandbox (test host)',
  },
} as const);

/** One Ads API region id: `na`, `eu`, `fe` or `test`. */
export type AdsRegion = keyof typeof ADS_REGIONS;

/** The region ids in table order. */
export const ADS_REGION_IDS = Object.keys(ADS_REGIONS) as readonly AdsRegion[];

/** The region a server starts in when `ADS_API_REGION` is unset. */
export const DEFAULT_ADS_REGION: AdsRegion = 'na';

/**
 * What people and agents call a region -> the Ads region id. Keys are lower case. Country codes
 * follow the marketplaces each Ads region serves (India is served by the EU host, Brazil and
 * Mexico by the NA host). Used for `did_you_mean` hints only; values are never rewritten. The
 * sandbox is not a region one selects (it is reached with `--upstream`), so no alias leads to it.
 */
export const ADS_REGION_ALIASES = deepFrozen({
  'north america': 'na',
  northamerica: 'na',
  'north-america': 'na',
  america: 'na',
  us: 'na',
  usa: 'na',
  ca: 'na',
  mx: 'na',
  br: 'na',
  europe: 'eu',
  emea: 'eu',
  uk: 'eu',
  gb: 'eu',
  de: 'eu',
  fr: 'eu',
  it: 'eu',
  es: 'eu',
  nl: 'eu',
  se: 'eu',
  pl: 'eu',
  be: 'eu',
  tr: 'eu',
  ae: 'eu',
  sa: 'eu',
  eg: 'eu',
  in: 'eu',
  'far east': 'fe',
  fareast: 'fe',
  'far-east': 'fe',
  apac: 'fe',
  jp: 'fe',
  au: 'fe',
  sg: 'fe',
} as const satisfies Readonly<Record<string, Exclude<AdsRegion, 'test'>>>);

/**
 * Known wrong keys -> the canonical key the Ads API uses. Ads query and body fields are
 * camelCase; agents trained on other APIs send them PascalCase (`StateFilter`, `MaxResults`).
 * Every canonical value occurs in an Ads API: `startIndex`/`count`/`stateFilter`/
 * `campaignIdFilter` (v2 list query), `maxResults`/`nextToken` and the `*Filter` objects (v3 and
 * unified v1 list bodies), `pageSize` (budget rules), `limit` (Marketing Cloud lists).
 */
export const ADS_KEY_RENAMES = deepFrozen({
  StateFilter: 'stateFilter',
  CampaignIdFilter: 'campaignIdFilter',
  AdGroupIdFilter: 'adGroupIdFilter',
  PortfolioIdFilter: 'portfolioIdFilter',
  NameFilter: 'nameFilter',
  AdProductFilter: 'adProductFilter',
  MarketplaceScopeFilter: 'marketplaceScopeFilter',
  MaxResults: 'maxResults',
  NextToken: 'nextToken',
  StartIndex: 'startIndex',
  Count: 'count',
  PageSize: 'pageSize',
  Limit: 'limit',
  ProfileId: 'profileId',
  ReportId: 'reportId',
  CampaignId: 'campaignId',
} as const);

/**
 * Values the Ads API accepts for fields whose schemas (or docs) give them only in prose. Used for
 * `enum_suggest` hints when a value is close to one of these; never enforced.
 */
export const ADS_CURATED_ENUMS = deepFrozen({
  region: ['na', 'eu', 'fe'],
  state: ['ENABLED', 'PAUSED', 'ARCHIVED'],
  targetingType: ['MANUAL', 'AUTO'],
  budgetType: ['DAILY'],
  adProduct: ['SPONSORED_PRODUCTS', 'SPONSORED_BRANDS', 'SPONSORED_DISPLAY', 'SPONSORED_TELEVISION'],
  timeUnit: ['SUMMARY', 'DAILY'],
  reportTypeId: [
    'spCampaigns',
    'spTargeting',
    'spSearchTerm',
    'spAdvertisedProduct',
    'spPurchasedProduct',
    'spGrossAndInvalids',
    'sbCampaigns',
    'sbAdGroup',
    'sbTargeting',
    'sbSearchTerm',
    'sbAds',
    'sbPurchasedProduct',
    'sdCampaigns',
    'sdAdGroup',
    'sdTargeting',
    'sdAdvertisedProduct',
    'sdPurchasedProduct',
  ],
  accountType: ['seller', 'vendor', 'agency'],
} as const);

/**
 * The vendor media types of versioned Ads endpoints: `[method, path template, media type]`.
 * `{id}` in a template matches one path segment. The same type goes in `Content-Type` (when there
 * is a body) and `Accept`. Unversioned endpoints (profiles, v2) take `application/json`.
 */
export const ADS_MEDIA_TYPES = deepFrozen([
  ['POST', '/sp/campaigns/list', 'application/vnd.spCampaign.v3+json'],
  ['POST', '/sp/campaigns', 'application/vnd.spCampaign.v3+json'],
  ['PUT', '/sp/campaigns', 'application/vnd.spCampaign.v3+json'],
  ['POST', '/sp/campaigns/delete', 'application/vnd.spCampaign.v3+json'],
  ['POST', '/sp/adGroups/list', 'application/vnd.spAdGroup.v3+json'],
  ['POST', '/sp/adGroups', 'application/vnd.spAdGroup.v3+json'],
  ['PUT', '/sp/adGroups', 'application/vnd.spAdGroup.v3+json'],
  ['POST', '/sp/adGroups/delete', 'application/vnd.spAdGroup.v3+json'],
  ['POST', '/sp/productAds/list', 'application/vnd.spProductAd.v3+json'],
  ['POST', '/sp/productAds', 'application/vnd.spProductAd.v3+json'],
  ['PUT', '/sp/productAds', 'application/vnd.spProductAd.v3+json'],
  ['POST', '/sp/productAds/delete', 'application/vnd.spProductAd.v3+json'],
  ['POST', '/sp/keywords/list', 'application/vnd.spKeyword.v3+json'],
  ['POST', '/sp/keywords', 'application/vnd.spKeyword.v3+json'],
  ['PUT', '/sp/keywords', 'application/vnd.spKeyword.v3+json'],
  ['POST', '/sp/keywords/delete', 'application/vnd.spKeyword.v3+json'],
  ['POST', '/sp/negativeKeywords/list', 'application/vnd.spNegativeKeyword.v3+json'],
  ['POST', '/sp/negativeKeywords', 'application/vnd.spNegativeKeyword.v3+json'],
  ['PUT', '/sp/negativeKeywords', 'application/vnd.spNegativeKeyword.v3+json'],
  ['POST', '/sp/negativeKeywords/delete', 'application/vnd.spNegativeKeyword.v3+json'],
  ['POST', '/sp/campaignNegativeKeywords/list', 'application/vnd.spCampaignNegativeKeyword.v3+json'],
  ['POST', '/sp/campaignNegativeKeywords', 'application/vnd.spCampaignNegativeKeyword.v3+json'],
  ['PUT', '/sp/campaignNegativeKeywords', 'application/vnd.spCampaignNegativeKeyword.v3+json'],
  ['POST', '/sp/campaignNegativeKeywords/delete', 'application/vnd.spCampaignNegativeKeyword.v3+json'],
  ['POST', '/sp/targets/list', 'application/vnd.spTargetingClause.v3+json'],
  ['POST', '/sp/targets', 'application/vnd.spTargetingClause.v3+json'],
  ['PUT', '/sp/targets', 'application/vnd.spTargetingClause.v3+json'],
  ['POST', '/sp/targets/delete', 'application/vnd.spTargetingClause.v3+json'],
  ['POST', '/sp/negativeTargets/list', 'application/vnd.spNegativeTargetingClause.v3+json'],
  ['POST', '/sp/negativeTargets', 'application/vnd.spNegativeTargetingClause.v3+json'],
  ['PUT', '/sp/negativeTargets', 'application/vnd.spNegativeTargetingClause.v3+json'],
  ['POST', '/sp/negativeTargets/delete', 'application/vnd.spNegativeTargetingClause.v3+json'],
  ['POST', '/sp/campaignNegativeTargets/list', 'application/vnd.spCampaignNegativeTargetingClause.v3+json'],
  ['POST', '/sp/campaignNegativeTargets', 'application/vnd.spCampaignNegativeTargetingClause.v3+json'],
  ['PUT', '/sp/campaignNegativeTargets', 'application/vnd.spCampaignNegativeTargetingClause.v3+json'],
  ['POST', '/sp/campaignNegativeTargets/delete', 'application/vnd.spCampaignNegativeTargetingClause.v3+json'],
  ['POST', '/sp/targets/keywords/recommendations', 'application/vnd.spkeywordsrecommendation.v5+json'],
  ['POST', '/sp/targets/bid/recommendations', 'application/vnd.spthemebasedbidrecommendation.v3+json'],
  ['POST', '/sp/campaigns/budget/usage', 'application/vnd.spcampaignbudgetusage.v1+json'],
  ['POST', '/sb/v4/campaigns/list', 'application/vnd.sbcampaignresource.v4+json'],
  ['POST', '/sb/v4/campaigns', 'application/vnd.sbcampaignresource.v4+json'],
  ['PUT', '/sb/v4/campaigns', 'application/vnd.sbcampaignresource.v4+json'],
  ['POST', '/sb/v4/adGroups/list', 'application/vnd.sbadgroupresource.v4+json'],
  ['POST', '/sb/v4/adGroups', 'application/vnd.sbadgroupresource.v4+json'],
  ['POST', '/sb/v4/ads/list', 'application/vnd.sbadresource.v4+json'],
  ['PUT', '/sb/v4/ads', 'application/vnd.sbadresource.v4+json'],
  ['POST', '/reporting/reports', 'application/vnd.createasyncreportrequest.v3+json'],
  ['GET', '/reporting/reports/{id}', 'application/vnd.createasyncreportrequest.v3+json'],
  ['POST', '/campaigns/export', 'application/vnd.campaignsexport.v1+json'],
  ['POST', '/adGroups/export', 'application/vnd.adgroupsexport.v1+json'],
  ['POST', '/targets/export', 'application/vnd.targetsexport.v1+json'],
  ['GET', '/brands', 'application/vnd.brand.v3+json'],
] as const satisfies readonly (readonly [string, string, string])[]);

/** The request headers of the Ads API, by role. */
export const ADS_REQUEST_HEADERS = {
  authorization: 'Authorization',
  clientId: 'Amazon-Advertising-API-ClientId',
  scope: 'Amazon-Advertising-API-Scope',
  /** The unified v1 APIs (`/adsApi/v1/...`) name the client id and account differently. */
  unifiedClientId: 'Amazon-Ads-ClientId',
  unifiedAccountId: 'Amazon-Ads-AccountId',
} as const;

/** The response headers the Ads API uses for rate limits and throttling (any casing). */
export const ADS_RESPONSE_HEADERS = {
  rateLimitLimit: ['x-ratelimit-limit'],
  rateLimitRemaining: ['x-ratelimit-remaining'],
  rateLimitReset: ['x-ratelimit-reset'],
  /** `true` when the gateway throttled the request, whatever `x-amzn-ErrorType` says. */
  throttled: 'amazon-advertising-api-throttled',
  requestId: ['x-amzn-requestid', 'x-amz-rid', 'x-amz-request-id'],
} as const;

/**
 * Message patterns (matched case-insensitively against every upstream message and code) that tell
 * one credential or scope problem from another. Checked in this order; the first match picks the
 * hint, the others add nothing.
 */
export const ADS_AUTH_DIAGNOSES = [
  {
    id: 'scope_missing',
    pattern: /scope header is missing|missing[^.]{0,40}scope|scope[^.]{0,40}(?:is )?(?:required|missing)/i,
    hint: 'The request carried no Amazon-Advertising-API-Scope header: call set_active_profile with one of the profile ids that list_profiles returns, then retry.',
  },
  {
    id: 'scope_not_authorized',
    pattern:
      /not authorized to access scope|no matching advertiser found for scope|invalid scope|scope[^.]{0,40}not (?:valid|authorized|found)/i,
    hint: 'The active profile (Amazon-Advertising-API-Scope) is not one this refresh token may manage: pick a profile id from list_profiles for the current region, or have the advertiser grant this application access to that profile.',
  },
  {
    id: 'token_expired',
    pattern: /expired|token[^.]{0,40}(?:invalid|revoked|malformed)|(?:invalid|revoked|malformed)[^.]{0,40}token/i,
    hint: 'The access token has expired or was revoked: the server refreshes it from LWA_REFRESH_TOKEN on the next call; if this persists, authorize the application again for a new refresh token.',
  },
  {
    id: 'client_id_rejected',
    pattern: /authentication failed|client[ _-]?id|invalid[_ ]client|clientid/i,
    hint: 'The Amazon-Advertising-API-ClientId (LWA_CLIENT_ID) was not accepted: it must be the LWA client id of an application approved for the Amazon Ads API, and the same application that issued the refresh token.',
  },
  {
    id: 'authorization_header_malformed',
    pattern: /key=value pair|authorization header|missing authentication token/i,
    hint: 'The gateway could not read the Authorization header or does not know this path: send "Authorization: Bearer <access token>" and check the method and path against the API reference.',
  },
  {
    id: 'resource_permission',
    pattern: /not allowed to access|not_authorized|access denied|forbidden|permission/i,
    hint: "The credentials are valid but this user or profile may not use this resource: check the user's permissions in the advertising console for this account, or use a profile that has access.",
  },
] as const;

/**
 * Upstream messages and codes that mean a 400 is really a profile or scope problem: the
 * Amazon-Advertising-API-Scope (profile id) does not fit the endpoint, the account type, or the
 * marketplace (`profile_scope_warning`).
 */
export const ADS_PROFILE_SCOPE_PATTERN =
  /advertiser id cannot be decrypted|invalid advertiser(?:[ _-]?id)?|invalid marketplace(?:[ _-]?id)?|advertiser[^.]{0,40}not found|marketplace[^.]{0,40}not (?:supported|valid|enabled)|UNSUPPORTED_MARKETPLACE|profile[^.]{0,40}(?:invalid|not found|not supported)/i;

/** Hint texts, one place for every sentence the Ads classifier emits. */
export const ADS_HINTS = deepFrozen({
  authFallback: [
    'Check, in order: LWA_CLIENT_ID is the client id of an application approved for the Ads API; LWA_REFRESH_TOKEN was issued to that application; the active profile (set_active_profile) belongs to the authorized account and to the current region.',
  ],
  profileScope:
    'The profile used as Amazon-Advertising-API-Scope does not fit this call (wrong region, an agency or manager profile where an advertiser profile is needed, or another marketplace): call list_profiles, then set_active_profile with a seller or vendor profile of the right marketplace.',
  rateLimited:
    'The Ads API throttled this request: wait for retry_after_seconds (or back off exponentially from 1 s when absent) before retrying, and spread calls over time.',
  throttledHeader:
    'The response carried amazon-advertising-api-throttled: true, so this is throttling even though the error type header says otherwise.',
  reportDuplicate:
    'An identical report request is already pending: poll the existing report id named in the message with get_report instead of creating a new one.',
  serverError:
    'The Ads API failed on its side: retry with exponential backoff; if it persists, report the request_id to Amazon Ads support.',
  gatewayTimeout:
    'The Ads API gateway gave up waiting (about 30 s): retry later, or ask for less data per call (smaller maxResults, shorter date range).',
  notFound:
    "Check the id and the path: ids belong to one profile and region, and the API answers only over https with the endpoint's vendor media type.",
  mediaTypeUnknown:
    "This endpoint expects a versioned vendor media type in Content-Type and Accept (application/vnd.<resource>.v<N>+json); see the endpoint's reference page.",
  notAcceptable: 'The Accept header names a media type this endpoint cannot produce.',
  unprocessable:
    'The request was understood but a field value was rejected: read details[] for the field and fix the value.',
  badRequest:
    'The Ads API rejected the request body or parameters: read details[] (upstream_code, issue) and fix the named field.',
  network:
    'The Ads API host could not be reached: check the network, the region (set_region) and any --upstream override, then retry.',
  timeout: 'The Ads API did not answer in time: retry with backoff, or ask for less data per call.',
  bodyCoercion: 'Send the value as a JSON object or array, not as a string holding broken JSON.',
  conflict: 'The resource changed or already exists: read it again, then retry with current values.',
  contentTooLarge:
    'The request body is too large: send fewer items per call (the Ads API caps batch sizes per endpoint).',
} as const);

/** Short reason phrases for the statuses the Ads API sends, used in summaries. */
export const ADS_STATUS_REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  425: 'Too Early',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
