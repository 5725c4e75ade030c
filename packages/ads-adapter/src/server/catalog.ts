/**
 * The built-in tool catalog of the reference server, written from facts of the Amazon Ads API:
 * list profiles, Sponsored Products campaigns list and create (v3, vendor media type
 * `application/vnd.spCampaign.v3+json`), Sponsored Brands campaigns list (v4), and the v3
 * reporting API (create report, get report; `application/vnd.createasyncreportrequest.v3+json`).
 *
 * @packageDocumentation
 */
import { ADS_CURATED_ENUMS } from '../hint-tables.js';
import type { AdsOperation } from './operation.js';

const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A date as YYYY-MM-DD.' } as const;

function idFilter(description: string, maxItems: number): Record<string, unknown> {
  return {
    type: 'object',
    description,
    properties: { include: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems } },
    required: ['include'],
  };
}

function stateFilter(states: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    description: 'Only entities in these states.',
    properties: { include: { type: 'array', items: { type: 'string', enum: states }, minItems: 1 } },
    required: ['include'],
  };
}

const NAME_FILTER = {
  type: 'object',
  description: 'Only entities whose name matches.',
  properties: {
    queryTermMatchType: { type: 'string', enum: ['BROAD_MATCH', 'EXACT_MATCH'] },
    include: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 1 },
  },
  required: ['include'],
} as const;

const SP_CAMPAIGN = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    targetingType: { type: 'string', enum: ['MANUAL', 'AUTO'] },
    state: { type: 'string', enum: ['ENABLED', 'PAUSED', 'PROPOSED'] },
    startDate: DATE,
    endDate: DATE,
    portfolioId: { type: 'string', minLength: 1 },
    budget: {
      type: 'object',
      properties: {
        budgetType: { type: 'string', enum: ADS_CURATED_ENUMS.budgetType },
        budget: { type: 'number', exclusiveMinimum: 0 },
      },
      required: ['budgetType', 'budget'],
    },
    dynamicBidding: {
      type: 'object',
      properties: {
        strategy: { type: 'string', enum: ['LEGACY_FOR_SALES', 'AUTO_FOR_SALES', 'MANUAL', 'RULE_BASED'] },
        placementBidding: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              placement: {
                type: 'string',
                enum: ['PLACEMENT_TOP', 'PLACEMENT_PRODUCT_PAGE', 'PLACEMENT_REST_OF_SEARCH'],
              },
              percentage: { type: 'integer', minimum: 0, maximum: 900 },
            },
            required: ['placement', 'percentage'],
          },
        },
      },
    },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['name', 'targetingType', 'state', 'budget'],
} as const;

/** The built-in operations, in the order `tools/list` shows them. */
export const BUILT_IN_OPERATIONS: readonly AdsOperation[] = [
  {
    name: 'list_profiles',
    title: 'List advertising profiles',
    description:
      'Lists the advertising profiles (one per advertiser and marketplace) the credentials may use in the current region. A profile id from here goes to set_active_profile.',
    method: 'GET',
    path: '/v2/profiles',
    parameters: [
      {
        name: 'profileTypeFilter',
        property: 'profileTypeFilter',
        in: 'query',
        required: false,
        collectionFormat: 'csv',
      },
      {
        name: 'validPaymentMethodFilter',
        property: 'validPaymentMethodFilter',
        in: 'query',
        required: false,
        collectionFormat: 'csv',
      },
      { name: 'apiProgram', property: 'apiProgram', in: 'query', required: false, collectionFormat: 'csv' },
      { name: 'accessLevel', property: 'accessLevel', in: 'query', required: false, collectionFormat: 'csv' },
    ],
    inputSchema: {
      type: 'object',
      properties: {
        profileTypeFilter: {
          type: 'array',
          items: { type: 'string', enum: ADS_CURATED_ENUMS.accountType },
          minItems: 1,
          description: 'Only profiles of these account types.',
        },
        validPaymentMethodFilter: {
          type: 'boolean',
          description: 'Only profiles with (true) or without (false) a valid payment method.',
        },
        apiProgram: {
          type: 'string',
          enum: ['billing', 'campaign', 'paymentMethod', 'store', 'report', 'account', 'posts'],
        },
        accessLevel: { type: 'string', enum: ['edit', 'view'] },
      },
    },
    accountHeader: 'none',
    resultKey: 'profiles',
  },
  {
    name: 'list_sp_campaigns',
    title: 'List Sponsored Products campaigns',
    description:
      'Lists Sponsored Products campaigns of the active profile (v3), one page at a time; pass nextToken from the previous page to continue.',
    method: 'POST',
    path: '/sp/campaigns/list',
    parameters: [],
    body: { property: 'body', mediaType: 'application/vnd.spCampaign.v3+json', required: true },
    flatBody: true,
    inputSchema: {
      type: 'object',
      properties: {
        stateFilter: stateFilter(['ENABLED', 'PAUSED', 'ARCHIVED', 'ENABLING', 'USER_DELETED', 'OTHER']),
        campaignIdFilter: idFilter('Only these campaign ids.', 1000),
        portfolioIdFilter: idFilter('Only campaigns in these portfolios.', 100),
        nameFilter: NAME_FILTER,
        maxResults: { type: 'integer', minimum: 1, description: 'Page size.' },
        nextToken: { type: 'string', minLength: 1, description: 'The nextToken of the previous page.' },
        includeExtendedDataFields: {
          type: 'boolean',
          description: 'Also return creation and update dates and serving status.',
        },
      },
    },
    accountHeader: 'profile',
    mediaType: 'application/vnd.spCampaign.v3+json',
  },
  {
    name: 'create_sp_campaigns',
    title: 'Create Sponsored Products campaigns',
    description:
      'Creates up to 1000 Sponsored Products campaigns in the active profile (v3). Each item succeeds or fails on its own: failed items come back in _meta.warnings (partial_results) with their item_index.',
    method: 'POST',
    path: '/sp/campaigns',
    parameters: [{ name: 'Prefer', property: 'prefer', in: 'header', required: false, collectionFormat: 'csv' }],
    body: { property: 'body', mediaType: 'application/vnd.spCampaign.v3+json', required: true },
    flatBody: true,
    inputSchema: {
      type: 'object',
      properties: {
        campaigns: { type: 'array', items: SP_CAMPAIGN, minItems: 1, maxItems: 1000 },
        prefer: {
          type: 'string',
          enum: ['return=representation'],
          description: 'Ask for the full created campaigns instead of their ids.',
        },
      },
      required: ['campaigns'],
    },
    accountHeader: 'profile',
    mediaType: 'application/vnd.spCampaign.v3+json',
  },
  {
    name: 'list_sb_campaigns',
    title: 'List Sponsored Brands campaigns',
    description: 'Lists Sponsored Brands campaigns of the active profile (v4), one page at a time.',
    method: 'POST',
    path: '/sb/v4/campaigns/list',
    parameters: [],
    body: { property: 'body', mediaType: 'application/vnd.sbcampaignresource.v4+json', required: true },
    flatBody: true,
    inputSchema: {
      type: 'object',
      properties: {
        stateFilter: stateFilter(['ENABLED', 'PAUSED', 'ARCHIVED']),
        campaignIdFilter: idFilter('Only these campaign ids.', 100),
        portfolioIdFilter: idFilter('Only campaigns in these portfolios.', 100),
        nameFilter: NAME_FILTER,
        maxResults: { type: 'integer', minimum: 1, maximum: 100 },
        nextToken: { type: 'string', minLength: 1 },
      },
    },
    accountHeader: 'profile',
    mediaType: 'application/vnd.sbcampaignresource.v4+json',
  },
  {
    name: 'create_report',
    title: 'Request a report',
    description:
      'Requests an asynchronous performance report (reporting v3). Returns a reportId; poll get_report until status is COMPLETED, then download from url. An identical pending request is refused as a duplicate.',
    method: 'POST',
    path: '/reporting/reports',
    parameters: [],
    body: { property: 'body', mediaType: 'application/vnd.createasyncreportrequest.v3+json', required: true },
    flatBody: true,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 128 },
        startDate: DATE,
        endDate: DATE,
        configuration: {
          type: 'object',
          properties: {
            adProduct: {
              type: 'string',
              enum: ['SPONSORED_PRODUCTS', 'SPONSORED_BRANDS', 'SPONSORED_DISPLAY', 'SPONSORED_TELEVISION'],
            },
            reportTypeId: {
              type: 'string',
              minLength: 1,
              description: `E.g. ${ADS_CURATED_ENUMS.reportTypeId.slice(0, 5).join(', ')}.`,
            },
            groupBy: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
            columns: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
            timeUnit: { type: 'string', enum: ADS_CURATED_ENUMS.timeUnit },
            format: { type: 'string', enum: ['GZIP_JSON'] },
            filters: {
              type: 'array',
              items: {
                type: 'object',
                properties: { field: { type: 'string' }, values: { type: 'array', items: { type: 'string' } } },
                required: ['field', 'values'],
              },
            },
          },
          required: ['adProduct', 'reportTypeId', 'groupBy', 'columns', 'timeUnit', 'format'],
        },
      },
      required: ['startDate', 'endDate', 'configuration'],
    },
    accountHeader: 'profile',
    mediaType: 'application/vnd.createasyncreportrequest.v3+json',
  },
  {
    name: 'get_report',
    title: 'Get a report',
    description:
      'Reads the status of a report requested with create_report; when status is COMPLETED the answer carries a download url.',
    method: 'GET',
    path: '/reporting/reports/{reportId}',
    parameters: [{ name: 'reportId', property: 'reportId', in: 'path', required: true, collectionFormat: 'csv' }],
    inputSchema: {
      type: 'object',
      properties: { reportId: { type: 'string', minLength: 1, description: 'The reportId create_report returned.' } },
      required: ['reportId'],
    },
    accountHeader: 'profile',
    mediaType: 'application/vnd.createasyncreportrequest.v3+json',
  },
];
