/**
 * The SP adapter's hint tables, as data: key renames for the v0 operations' PascalCase query
 * parameters, region and marketplace aliases, and curated enums for values the models describe
 * only in prose. Core's argument pipeline reads them (normalization and hints); the reference
 * server also applies the curated enums to the tools it generates so they are checked pre-flight.
 * Implements CONTRACT.md "Hints" (per-server matchers) and the SP appendix.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import type { AdapterHintTables } from '@mcp-envelope/core';

import { SP_MARKETPLACES, SP_MARKETPLACE_IDS, SP_REGION_VALUE_ALIASES } from './regions.js';

/**
 * The PascalCase query parameters of the five v0 models that use them (every other SP-API model
 * uses camelCase), by model file. Taken from the official models' `parameters`.
 */
export const SP_V0_PASCAL_CASE_PARAMETERS = {
  ordersV0: [
    'CreatedAfter',
    'CreatedBefore',
    'LastUpdatedAfter',
    'LastUpdatedBefore',
    'OrderStatuses',
    'MarketplaceIds',
    'FulfillmentChannels',
    'PaymentMethods',
    'BuyerEmail',
    'SellerOrderId',
    'MaxResultsPerPage',
    'EasyShipShipmentStatuses',
    'ElectronicInvoiceStatuses',
    'NextToken',
    'AmazonOrderIds',
    'ActualFulfillmentSupplySourceId',
    'IsISPU',
    'StoreChainStoreId',
    'EarliestDeliveryDateBefore',
    'EarliestDeliveryDateAfter',
    'LatestDeliveryDateBefore',
    'LatestDeliveryDateAfter',
  ],
  fulfillmentInboundV0: [
    'ShipToCountryCode',
    'SellerSKUList',
    'ASINList',
    'PageType',
    'LabelType',
    'NumberOfPackages',
    'PackageLabelsToPrint',
    'NumberOfPallets',
    'PageSize',
    'PageStartIndex',
    'ShipmentStatusList',
    'ShipmentIdList',
    'LastUpdatedAfter',
    'LastUpdatedBefore',
    'QueryType',
    'NextToken',
    'MarketplaceId',
  ],
  productPricingV0: ['MarketplaceId', 'Asins', 'Skus', 'ItemType', 'ItemCondition', 'OfferType', 'CustomerType'],
  financesV0: [
    'MaxResultsPerPage',
    'FinancialEventGroupStartedBefore',
    'FinancialEventGroupStartedAfter',
    'NextToken',
    'PostedAfter',
    'PostedBefore',
  ],
  catalogItemsV0: ['MarketplaceId', 'ASIN', 'SellerSKU'],
} as const;

/**
 * The camelCase spelling callers use for a PascalCase parameter: leading capitals lower-cased
 * (`MarketplaceIds` -> `marketplaceIds`, `ASINList` -> `asinList`, `IsISPU` -> `isISPU`).
 *
 * @param name - a PascalCase parameter name.
 * @returns the camelCase spelling.
 */
export function camelCaseSpelling(name: string): string {
  const run = /^[A-Z]+/.exec(name)?.[0] ?? '';
  if (run.length <= 1) return `${name.charAt(0).toLowerCase()}${name.slice(1)}`;
  const rest = name.slice(run.length);
  return /^[a-z]/.test(rest)
    ? `${run.slice(0, -1).toLowerCase()}${run.slice(-1)}${rest}`
    : `${run.toLowerCase()}${rest}`;
}

function buildKeyRenames(): Readonly<Record<string, string>> {
  const renames: Record<string, string> = {};
  for (const names of Object.values(SP_V0_PASCAL_CASE_PARAMETERS)) {
    for (const pascal of names) {
      const camel = camelCaseSpelling(pascal);
      // camelCase sent to a v0 tool -> its PascalCase parameter ...
      renames[camel] = pascal;
      // ... and the PascalCase spelling sent to a newer tool -> its camelCase property.
      renames[pascal] = camel;
    }
  }
  return Object.freeze(renames);
}

/**
 * Known wrong key -> canonical key, both ways between the v0 PascalCase parameters and their
 * camelCase spellings. Core applies an entry only when its target is a property of the tool
 * being called, so `marketplaceIds -> MarketplaceIds` fires for `getOrders` (v0) and
 * `MarketplaceIds -> marketplaceIds` for `searchCatalogItems` (2022-04-01).
 */
export const SP_KEY_RENAMES: Readonly<Record<string, string>> = buildKeyRenames();

/** The property names that carry marketplace ids (a string or a list of strings). */
export const SP_MARKETPLACE_ID_PROPERTIES = [
  'marketplaceIds',
  'MarketplaceIds',
  'marketplaceId',
  'MarketplaceId',
] as const;

function buildMarketplaceAliases(): Readonly<Record<string, string>> {
  const aliases: Record<string, string> = { uk: SP_MARKETPLACES.GB.marketplaceId };
  for (const [country, marketplace] of Object.entries(SP_MARKETPLACES)) {
    aliases[country.toLowerCase()] = marketplace.marketplaceId;
    aliases[marketplace.country.toLowerCase()] = marketplace.marketplaceId;
  }
  return Object.freeze(aliases);
}

/** Country code or name (lower-case) -> marketplace id, e.g. `us` -> `ATVPDKIKX0DER`, `uk` -> `A1F83G8C2ARO7P`. */
export const SP_MARKETPLACE_ALIASES: Readonly<Record<string, string>> = buildMarketplaceAliases();

/**
 * Values the models list only in prose, by property. The reference server turns each into an
 * `enum` on the matching property (array items for lists), so a wrong value is rejected before
 * any upstream call with `SCHEMA_ENUM_MISMATCH` and an `enum_suggest` hint.
 */
export const SP_CURATED_ENUMS = deepFrozen({
  /** ordersV0 getOrders. */
  OrderStatuses: [
    'PendingAvailability',
    'Pending',
    'Unshipped',
    'PartiallyShipped',
    'Shipped',
    'InvoiceUnconfirmed',
    'Canceled',
    'Unfulfillable',
  ],
  /** ordersV0 getOrders: fulfilled by Amazon or by the seller. */
  FulfillmentChannels: ['AFN', 'MFN'],
  /** ordersV0 getOrders: cash on delivery, convenience store, anything else. */
  PaymentMethods: ['COD', 'CVS', 'Other'],
  /** ordersV0 getOrders (Easy Ship orders only). */
  EasyShipShipmentStatuses: [
    'PendingSchedule',
    'PendingPickUp',
    'PendingDropOff',
    'LabelCanceled',
    'PickedUp',
    'DroppedOff',
    'AtOriginFC',
    'AtDestinationFC',
    'Delivered',
    'RejectedByBuyer',
    'Undeliverable',
    'ReturningToSeller',
    'ReturnedToSeller',
    'Lost',
    'OutForDelivery',
    'Damaged',
  ],
  /** ordersV0 getOrders. */
  ElectronicInvoiceStatuses: ['NotRequired', 'NotFound', 'Processing', 'Errored', 'Accepted'],
} as const satisfies Readonly<Record<string, readonly string[]>>);

/** Extra hints by error code, appended after core's own. */
export const SP_EXTRA_HINTS_BY_CODE = deepFrozen({
  SCHEMA_ADDITIONAL_PROPERTIES: [
    'SP-API v0 operations (ordersV0, fulfillmentInboundV0, productPricingV0, financesV0, catalogItemsV0) take PascalCase query parameters such as MarketplaceIds; newer versions take camelCase such as marketplaceIds.',
  ],
  SCHEMA_REQUIRED: [
    'Every SP-API list operation needs the marketplace: MarketplaceIds on v0 operations, marketplaceIds on newer ones.',
  ],
} as const satisfies Readonly<Record<string, readonly string[]>>);

function buildValueAliases(): Readonly<Record<string, Readonly<Record<string, string>>>> {
  const aliases: Record<string, Readonly<Record<string, string>>> = { region: SP_REGION_VALUE_ALIASES };
  for (const property of SP_MARKETPLACE_ID_PROPERTIES) aliases[property] = SP_MARKETPLACE_ALIASES;
  return Object.freeze(aliases);
}

/**
 * The tables handed to core as the adapter's `hints`.
 */
export const SP_HINT_TABLES: AdapterHintTables = Object.freeze({
  keyRenames: SP_KEY_RENAMES,
  valueAliases: buildValueAliases(),
  curatedEnums: Object.freeze({
    ...SP_CURATED_ENUMS,
    ...Object.fromEntries(SP_MARKETPLACE_ID_PROPERTIES.map((property) => [property, SP_MARKETPLACE_IDS])),
  }),
  extraHintsByCode: SP_EXTRA_HINTS_BY_CODE,
});
