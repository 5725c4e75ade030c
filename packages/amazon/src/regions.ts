/**
 * Amazon's API regions as data, shared by the SP-API and Amazon Ads servers: the name of each,
 * the Login with Amazon token endpoint that issues its tokens, and each API's hosts there.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';

/**
 * The three Amazon API regions with their token endpoint and hosts. Frozen: the servers read it on
 * every call to choose where credentials go.
 */
export const AMAZON_REGIONS = deepFrozen({
  na: {
    name: 'North America',
    lwaTokenUrl: 'https://api.amazon.com/auth/o2/token',
    spApiEndpoint: 'https://sellingpartnerapi-na.amazon.com',
    spApiSandboxEndpoint: 'https://sandbox.sellingpartnerapi-na.amazon.com',
    adsApiHost: 'https://advertising-api.amazon.com',
  },
  eu: {
    name: 'Europe',
    lwaTokenUrl: 'https://api.amazon.co.uk/auth/o2/token',
    spApiEndpoint: 'https://sellingpartnerapi-eu.amazon.com',
    spApiSandboxEndpoint: 'https://sandbox.sellingpartnerapi-eu.amazon.com',
    adsApiHost: 'https://advertising-api-eu.amazon.com',
  },
  fe: {
    name: 'Far East',
    lwaTokenUrl: 'https://api.amazon.co.jp/auth/o2/token',
    spApiEndpoint: 'https://sellingpartnerapi-fe.amazon.com',
    spApiSandboxEndpoint: 'https://sandbox.sellingpartnerapi-fe.amazon.com',
    adsApiHost: 'https://advertising-api-fe.amazon.com',
  },
} as const);

/** One Amazon region code: `na`, `eu` or `fe`. */
export type AmazonRegion = keyof typeof AMAZON_REGIONS;

/** The Amazon Ads API sandbox host (it accepts tokens from the North America endpoint). */
export const ADS_API_SANDBOX_HOST = 'https://advertising-api-test.amazon.com';
