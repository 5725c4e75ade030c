/**
 * SP-API regions, their endpoints, and the marketplaces each serves. Facts from the SP-API
 * documentation ("SP-API endpoints", "Marketplace IDs"), kept as data.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { AMAZON_REGIONS } from '@mcp-envelope/amazon';

/** One SP-API region's name and endpoints, from the Amazon region table. */
function spRegionEntry<Region extends (typeof AMAZON_REGIONS)[keyof typeof AMAZON_REGIONS]>(
  region: Region,
): {
  readonly name: Region['name'];
  readonly endpoint: Region['spApiEndpoint'];
  readonly sandboxEndpoint: Region['spApiSandboxEndpoint'];
} {
  return Object.freeze({
    name: region.name,
    endpoint: region.spApiEndpoint,
    sandboxEndpoint: region.spApiSandboxEndpoint,
  });
}

/** The three SP-API regions with their production and sandbox endpoints (frozen, as the calls read it). */
export const SP_REGIONS = Object.freeze({
  na: spRegionEntry(AMAZON_REGIONS.na),
  eu: spRegionEntry(AMAZON_REGIONS.eu),
  fe: spRegionEntry(AMAZON_REGIONS.fe),
});

/** One canonical region code: `na`, `eu` or `fe`. */
export type SpRegion = keyof typeof SP_REGIONS;

/** The region codes, in table order. */
export const SP_REGION_CODES = Object.keys(SP_REGIONS) as readonly SpRegion[];

/** The region used when `SP_API_REGION` is unset. */
export const DEFAULT_SP_REGION: SpRegion = 'na';

/**
 * Every SP-API marketplace: country code (ISO 3166-1 alpha-2) -> marketplace id and region.
 */
export const SP_MARKETPLACES = deepFrozen({
  CA: { marketplaceId: 'A2EUQ1WTGCTBG2', region: 'na', country: 'Canada' },
  US: { marketplaceId: 'ATVPDKIKX0DER', region: 'na', country: 'United States' },
  MX: { marketplaceId: 'A1AM78C64UM0Y8', region: 'na', country: 'Mexico' },
  BR: { marketplaceId: 'A2Q3Y263D00KWC', region: 'na', country: 'Brazil' },
  IE: { marketplaceId: 'A28R8C7NBKEWEA', region: 'eu', country: 'Ireland' },
  ES: { marketplaceId: 'A1RKKUPIHCS9HS', region: 'eu', country: 'Spain' },
  GB: { marketplaceId: 'A1F83G8C2ARO7P', region: 'eu', country: 'United Kingdom' },
  FR: { marketplaceId: 'A13V1IB3VIYZZH', region: 'eu', country: 'France' },
  BE: { marketplaceId: 'AMEN7PMS3EDWL', region: 'eu', country: 'Belgium' },
  NL: { marketplaceId: 'A1805IZSGTT6HS', region: 'eu', country: 'Netherlands' },
  DE: { marketplaceId: 'A1PA6795UKMFR9', region: 'eu', country: 'Germany' },
  IT: { marketplaceId: 'APJ6JRA9NG5V4', region: 'eu', country: 'Italy' },
  SE: { marketplaceId: 'A2NODRKZP88ZB9', region: 'eu', country: 'Sweden' },
  ZA: { marketplaceId: 'AE08WJ6YKNBMC', region: 'eu', country: 'South Africa' },
  PL: { marketplaceId: 'A1C3SOZRARQ6R3', region: 'eu', country: 'Poland' },
  EG: { marketplaceId: 'ARBP9OOSHTCHU', region: 'eu', country: 'Egypt' },
  TR: { marketplaceId: 'A33AVAJ2PDY3EV', region: 'eu', country: 'Turkey' },
  SA: { marketplaceId: 'A17E79C6D8DWNP', region: 'eu', country: 'Saudi Arabia' },
  AE: { marketplaceId: 'A2VIGQ35RCS4UG', region: 'eu', country: 'United Arab Emirates' },
  IN: { marketplaceId: 'A21TJRUUN4KGV', region: 'eu', country: 'India' },
  SG: { marketplaceId: 'A19VAU5U5O7RUS', region: 'fe', country: 'Singapore' },
  AU: { marketplaceId: 'A39IBJ37TRP1C6', region: 'fe', country: 'Australia' },
  JP: { marketplaceId: 'A1VC38T7YXB528', region: 'fe', country: 'Japan' },
} as const satisfies Readonly<
  Record<string, { readonly marketplaceId: string; readonly region: SpRegion; readonly country: string }>
>);

/** One marketplace country code. */
export type SpMarketplaceCountry = keyof typeof SP_MARKETPLACES;

/** Every known marketplace id, in table order. */
export const SP_MARKETPLACE_IDS: readonly string[] = Object.freeze(
  Object.values(SP_MARKETPLACES).map((marketplace) => marketplace.marketplaceId),
);

/**
 * Reads a region setting: a canonical code or any alias of {@link SP_REGION_VALUE_ALIASES} (any case,
 * surrounding whitespace ignored).
 *
 * @param value - e.g. `eu`, `EU`, `Europe`, `de`.
 * @returns the canonical region, or `undefined` when the value names none.
 */
export function parseSpRegion(value: string | undefined): SpRegion | undefined {
  if (value === undefined) return undefined;
  const key = value.trim().toLowerCase();
  if (Object.hasOwn(SP_REGIONS, key)) return key as SpRegion;
  return Object.hasOwn(SP_REGION_VALUE_ALIASES, key) ? SP_REGION_VALUE_ALIASES[key] : undefined;
}

/**
 * Common names for the regions (lower-case) -> canonical code: region names and the AWS regions
 * the SP-API endpoints live in. The country codes and names of each region's marketplaces are
 * added from {@link SP_MARKETPLACES} in {@link SP_REGION_VALUE_ALIASES}.
 */
export const SP_REGION_ALIASES = {
  'north america': 'na',
  northamerica: 'na',
  'north-america': 'na',
  america: 'na',
  americas: 'na',
  'us-east-1': 'na',
  usa: 'na',
  uk: 'eu',
  europe: 'eu',
  emea: 'eu',
  'eu-west-1': 'eu',
  'far east': 'fe',
  fareast: 'fe',
  'far-east': 'fe',
  apac: 'fe',
  asia: 'fe',
  'us-west-2': 'fe',
} as const satisfies Readonly<Record<string, SpRegion>>;

function buildRegionValueAliases(): Readonly<Record<string, SpRegion>> {
  const aliases: Record<string, SpRegion> = { ...SP_REGION_ALIASES };
  for (const [country, marketplace] of Object.entries(SP_MARKETPLACES)) {
    aliases[country.toLowerCase()] = marketplace.region;
    aliases[marketplace.country.toLowerCase()] = marketplace.region;
  }
  return Object.freeze(aliases);
}

/**
 * Every alias of a region (lower-case) -> canonical code: {@link SP_REGION_ALIASES} plus each
 * marketplace's country code and name (`us`, `de`, `japan`, `united kingdom`, ...).
 */
export const SP_REGION_VALUE_ALIASES: Readonly<Record<string, SpRegion>> = buildRegionValueAliases();

/**
 * The endpoint for a region.
 *
 * @param region - the region.
 * @param sandbox - whether to use the sandbox host.
 * @returns the base URL without a trailing slash.
 */
export function spEndpoint(region: SpRegion, sandbox = false): string {
  return sandbox ? SP_REGIONS[region].sandboxEndpoint : SP_REGIONS[region].endpoint;
}
