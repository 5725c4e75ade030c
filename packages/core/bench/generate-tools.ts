/**
 * Generated benchmark inputs: the 20-property schema of the hot-path benchmarks and 370 tools
 * shaped like SP-API / Ads API operations (descriptions, enums, patterns, formats, arrays,
 * nested filter objects, required lists).
 */
import type { EnvelopeTool } from '../src/index.js';

/** A 20-property schema (strings, integers, arrays, enums, booleans) and arguments that pass it. */
export function twentyPropertyTool(): {
  schema: Record<string, unknown>;
  validArgs: Record<string, unknown>;
  invalidArgs: Record<string, unknown>;
  builtArgs: Record<string, unknown>;
} {
  const properties: Record<string, unknown> = {};
  const validArgs: Record<string, unknown> = {};
  for (let index = 0; index < 20; index += 1) {
    switch (index % 5) {
      case 0:
        properties[`name${index}`] = { type: 'string', maxLength: 100, description: `Name field ${index}.` };
        validArgs[`name${index}`] = `value-${index}`;
        break;
      case 1:
        properties[`count${index}`] = { type: 'integer', minimum: 0, maximum: 10000 };
        validArgs[`count${index}`] = index;
        break;
      case 2:
        properties[`ids${index}`] = { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 50 };
        validArgs[`ids${index}`] = ['A1PA6795UKMFR9', 'ATVPDKIKX0DER'];
        break;
      case 3:
        properties[`status${index}`] = { type: 'string', enum: ['Pending', 'Unshipped', 'Shipped', 'Canceled'] };
        validArgs[`status${index}`] = 'Shipped';
        break;
      default:
        properties[`flag${index}`] = { type: 'boolean' };
        validArgs[`flag${index}`] = true;
    }
  }
  const schema = { type: 'object', properties, required: ['name0', 'ids2'] };
  // Arguments as a client's JSON-RPC text yields them (JSON.parse, what stdio and Streamable HTTP
  // hand over). An object built here key by key would be one V8 keeps in dictionary mode.
  const text = JSON.stringify(validArgs);
  return {
    schema,
    validArgs: JSON.parse(text) as Record<string, unknown>,
    invalidArgs: JSON.parse(text.replace('"count1":1', '"count1":"many"')) as Record<string, unknown>,
    builtArgs: validArgs,
  };
}

/** The 20-property tool's handler: a small object built from its arguments. */
export function twentyPropertyValue(args: Record<string, unknown>): Record<string, unknown> {
  return { ok: true, name: args['name0'], ids: args['ids2'], count: 2 };
}

/** {@link twentyPropertyValue} as an `async` function (as handlers that call an upstream are). */
export async function twentyPropertyValueAsync(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  await Promise.resolve();
  return twentyPropertyValue(args);
}

const APIS = [
  'orders',
  'catalog',
  'reports',
  'feeds',
  'fba_inventory',
  'listings',
  'pricing',
  'finances',
  'notifications',
  'sponsored_products',
  'sponsored_brands',
  'sponsored_display',
  'profiles',
  'audiences',
  'budget_rules',
];
const VERBS = ['get', 'list', 'search', 'create', 'update', 'delete', 'cancel', 'describe', 'export', 'archive'];
const NOUNS = [
  'order',
  'order_items',
  'report',
  'report_document',
  'feed',
  'campaign',
  'ad_group',
  'keyword',
  'target',
  'listing_item',
  'offer',
  'shipment',
  'event',
  'subscription',
  'budget',
  'portfolio',
  'creative',
  'invoice',
  'item_offers',
  'destination',
  'schedule',
  'negative_keyword',
  'product_ad',
  'recommendation',
  'snapshot',
];
const MARKETPLACES = [
  'ATVPDKIKX0DER',
  'A2EUQ1WTGCTBG2',
  'A1AM78C64UM0Y8',
  'A2Q3Y263D00KWC',
  'A1PA6795UKMFR9',
  'A1RKKUPIHCS9HS',
  'A13V1IB3VIYZZH',
  'APJ6JRA9NG5V4',
  'A1F83G8C2ARO7P',
  'A21TJRUUN4KGV',
];

function pick<Item>(list: readonly Item[], seed: number): Item {
  return list[seed % list.length] as Item;
}

function property(seed: number): Record<string, unknown> {
  switch (seed % 9) {
    case 0:
      return {
        type: 'array',
        description: 'Marketplace identifiers. Up to 50.',
        items: { type: 'string', enum: MARKETPLACES },
        minItems: 1,
        maxItems: 50,
      };
    case 1:
      return { type: 'string', format: 'date-time', description: 'ISO 8601 timestamp; results on or after this time.' };
    case 2:
      return { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size.' };
    case 3:
      return { type: 'string', description: 'Token of the next page, from a previous response.', maxLength: 2048 };
    case 4:
      return {
        type: 'string',
        enum: ['ENABLED', 'PAUSED', 'ARCHIVED', 'PENDING', 'DRAFT', 'PROPOSED'],
        description: 'State filter.',
      };
    case 5:
      return { type: 'string', pattern: '^[0-9]{3}-[0-9]{7}-[0-9]{7}$', description: 'An Amazon order identifier.' };
    case 6:
      return {
        type: 'array',
        description: 'Filters combined with AND.',
        maxItems: 10,
        items: {
          type: 'object',
          properties: {
            field: { type: 'string', enum: ['name', 'state', 'budget', 'createdAt'] },
            operator: { type: 'string', enum: ['EQUALS', 'IN', 'GREATER_THAN', 'LESS_THAN'] },
            values: { type: 'array', items: { type: 'string' }, maxItems: 100 },
          },
          required: ['field', 'values'],
          additionalProperties: false,
        },
      };
    case 7:
      return { type: 'number', minimum: 0.02, maximum: 1000000, description: 'Amount in the marketplace currency.' };
    default:
      return { type: 'boolean', description: 'Include archived entities.' };
  }
}

const PROPERTY_NAMES = [
  'marketplaceIds',
  'createdAfter',
  'maxResults',
  'nextToken',
  'stateFilter',
  'amazonOrderId',
  'filters',
  'amount',
  'includeArchived',
  'profileId',
  'campaignIds',
  'adGroupId',
  'sellerSku',
  'reportType',
  'granularity',
  'sortOrder',
  'locale',
  'itemCondition',
  'fulfillmentChannels',
  'postedBefore',
  'eventType',
  'destinationId',
  'budgetType',
  'startDate',
  'endDate',
];

/**
 * Builds `count` tools with unique names, 3 to 24 properties each, a paragraph of description,
 * and a handler that echoes the number of arguments.
 */
export function realisticTools(count: number): EnvelopeTool[] {
  const tools: EnvelopeTool[] = [];
  for (let index = 0; index < count; index += 1) {
    const name = `${pick(APIS, index)}_${pick(VERBS, Math.floor(index / 3))}_${pick(NOUNS, index * 7 + 3)}_${index}`;
    const propertyCount = 3 + ((index * 5) % 22);
    const properties: Record<string, unknown> = {};
    for (let slot = 0; slot < propertyCount; slot += 1)
      properties[PROPERTY_NAMES[(index + slot) % PROPERTY_NAMES.length] as string] = property(index + slot);
    const names = Object.keys(properties);
    tools.push({
      name,
      description: `Calls the ${pick(APIS, index)} API to ${pick(VERBS, Math.floor(index / 3))} ${pick(NOUNS, index * 7 + 3).replace(/_/g, ' ')} records. Returns at most one page; pass nextToken from the response to read the next one. Rate limits apply per selling partner and marketplace.`,
      annotations: { readOnlyHint: index % 4 !== 0 },
      inputSchema: { type: 'object', properties, required: names.slice(0, 1 + (index % 3)) },
      handler: (args) => ({ received: Object.keys(args).length }),
    });
  }
  return tools;
}
