/**
 * Tool input schemas used by the argument pipeline tests. Values are this project's own.
 */
import type {
  ArgumentCheck,
  ArgumentPipelineOptions,
  CompiledTool,
  JsonSchemaObject,
} from '../../src/arguments/index.js';
import { compileTool } from '../../src/arguments/index.js';

/** A flat order search, in the shape of a typical v2 query tool. */
export const ORDER_SEARCH_SCHEMA: JsonSchemaObject = {
  type: 'object',
  description: 'Search orders by marketplace and status.',
  properties: {
    marketplaceIds: { type: 'array', items: { type: 'string' }, description: 'Marketplaces to search.' },
    orderStatuses: {
      type: 'array',
      items: { type: 'string', enum: ['Pending', 'Unshipped', 'Shipped', 'Canceled'] },
    },
    createdAfter: { type: 'string', format: 'date-time' },
    maxResultsPerPage: { type: 'integer', minimum: 1, maximum: 100 },
    nextToken: { type: 'string' },
  },
  required: ['marketplaceIds'],
};

/** One property per JSON Schema keyword with its own `SCHEMA_*` code. */
export const LISTING_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    marketplaceIds: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
    title: { type: 'string', minLength: 2, maxLength: 10 },
    quantity: { type: 'integer', minimum: 0, maximum: 999 },
    price: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10000 },
    condition: { enum: ['New', 'Used', 'Refurbished'] },
    asin: { type: 'string', pattern: '^B0[0-9A-Z]{8}$' },
    listedAt: { type: 'string', format: 'date-time' },
    channel: { const: 'amazon' },
    identifier: {
      oneOf: [
        { type: 'string', pattern: '^B0' },
        { type: 'string', minLength: 12 },
      ],
    },
    target: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    keyword: { allOf: [{ type: 'string' }, { minLength: 3 }] },
    tags: { type: 'array', uniqueItems: true },
    packSize: { type: 'integer', multipleOf: 6 },
    dimensions: {
      type: 'object',
      properties: { unit: { enum: ['cm', 'in'] }, length: { type: 'number' } },
      dependentRequired: { length: ['unit'] },
    },
    note: { not: { const: '' } },
    attributes: { type: 'object', propertyNames: { pattern: '^[a-z_]+$' } },
  },
  required: ['sku'],
};

/** Nested objects and arrays. */
export const REPORT_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    reportType: { type: 'string' },
    filters: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          marketplaceId: { type: 'string' },
          region: { enum: ['na', 'eu', 'fe'] },
        },
        required: ['marketplaceId'],
        additionalProperties: false,
      },
    },
    options: {
      type: 'object',
      properties: { format: { enum: ['JSON', 'CSV'] }, compress: { type: 'boolean' } },
    },
  },
  required: ['reportType'],
};

/** `$ref`/`$defs` and combinators at the top level. */
export const CAMPAIGN_SCHEMA: JsonSchemaObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $ref: '#/$defs/CampaignQuery',
  $defs: {
    CampaignQuery: {
      type: 'object',
      description: 'Which campaigns to list.',
      allOf: [{ $ref: '#/$defs/Paging' }],
      properties: {
        profileId: { type: 'integer' },
        stateFilter: { $ref: '#/$defs/StateList' },
        budget: { anyOf: [{ $ref: '#/$defs/Money' }, { type: 'null' }] },
      },
      required: ['profileId'],
    },
    Paging: {
      type: 'object',
      properties: { maxResults: { type: 'integer', minimum: 1 }, nextToken: { type: 'string' } },
    },
    StateList: { type: 'array', items: { enum: ['ENABLED', 'PAUSED', 'ARCHIVED'] } },
    Money: {
      type: 'object',
      properties: { amount: { type: 'number' }, currency: { type: 'string', minLength: 3, maxLength: 3 } },
      required: ['amount', 'currency'],
    },
  },
};

/** Strict, normalizing options: the contract's defaults. */
export const DEFAULTS: ArgumentPipelineOptions = { normalizationEnabled: true, strictUnknownFields: true };

/**
 * Compiles a schema with the defaults, overridden by `options`.
 *
 * @param schema - the input schema.
 * @param options - overrides.
 * @returns the compiled tool.
 */
export function tool(schema: JsonSchemaObject, options: Partial<ArgumentPipelineOptions> = {}): CompiledTool {
  return compileTool('test_tool', schema, { ...DEFAULTS, ...options });
}

/** The failure branch of {@link ArgumentCheck}. */
export type ArgumentFailure = Extract<ArgumentCheck, { ok: false }>;
/** The success branch of {@link ArgumentCheck}. */
export type ArgumentSuccess = Extract<ArgumentCheck, { ok: true }>;

/**
 * Narrows a check result to a failure, failing the test otherwise.
 *
 * @param result - the check result.
 * @returns the failure.
 */
export function failed(result: ArgumentCheck): ArgumentFailure {
  if (result.ok) throw new Error(`expected a failure, got success with ${JSON.stringify(result.args)}`);
  return result;
}

/**
 * Narrows a check result to a success, failing the test otherwise.
 *
 * @param result - the check result.
 * @returns the success.
 */
export function passed(result: ArgumentCheck): ArgumentSuccess {
  if (!result.ok) throw new Error(`expected success, got ${result.error_code}: ${result.summary}`);
  return result;
}
