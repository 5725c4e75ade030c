import { describe, expect, it } from 'vitest';

import { ADS_API_SANDBOX_HOST, AMAZON_REGIONS, DEFAULT_LWA_TOKEN_URL } from '../src/index.js';

describe('AMAZON_REGIONS', () => {
  it('names each region, its LWA token endpoint and the SP-API and Ads hosts there', () => {
    expect(Object.keys(AMAZON_REGIONS)).toEqual(['na', 'eu', 'fe']);
    expect(AMAZON_REGIONS.eu).toEqual({
      name: 'Europe',
      lwaTokenUrl: 'https://api.amazon.co.uk/auth/o2/token',
      spApiEndpoint: 'https://sellingpartnerapi-eu.amazon.com',
      spApiSandboxEndpoint: 'https://sandbox.sellingpartnerapi-eu.amazon.com',
      adsApiHost: 'https://advertising-api-eu.amazon.com',
    });
    expect([DEFAULT_LWA_TOKEN_URL, AMAZON_REGIONS.fe.lwaTokenUrl, ADS_API_SANDBOX_HOST]).toEqual([
      'https://api.amazon.com/auth/o2/token',
      'https://api.amazon.co.jp/auth/o2/token',
      'https://advertising-api-test.amazon.com',
    ]);
  });

  it('cannot be changed by a caller: every server reads it to choose where credentials go', () => {
    const regions = AMAZON_REGIONS as unknown as Record<string, Record<string, string>>;
    expect(() => {
      (regions['na'] as Record<string, string>)['lwaTokenUrl'] = 'https://attacker.test/token';
    }).toThrow(TypeError);
    expect(() => {
      regions['xx'] = {};
    }).toThrow(TypeError);
    expect(AMAZON_REGIONS.na.lwaTokenUrl).toBe('https://api.amazon.com/auth/o2/token');
  });
});
