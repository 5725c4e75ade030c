import { createAmazonRedactor, LwaTokenClients } from '@mcp-envelope/amazon';
import { describe, expect, it } from 'vitest';

import { loadModelOperations } from '../src/server/models.js';
import { AdsSession, profilesFromBody } from '../src/server/session.js';
import { adsServerSettings } from '../src/server/settings.js';
import type { AdsServerSettings } from '../src/server/settings.js';
import { TEST_MODELS_DIR } from './support/harness.js';

describe('adsServerSettings', () => {
  it('defaults: region na, no profile, no upstream, 30 s timeout', () => {
    expect(adsServerSettings({})).toEqual({
      region: 'na',
      lwa: { clientId: undefined, clientSecret: undefined, refreshToken: undefined, tokenUrl: undefined },
      timeoutMs: 30000,
    });
  });

  it('reads region (any case), profile, account id, upstream and LWA variables', () => {
    const settings = adsServerSettings(
      {
        ADS_API_REGION: ' FE ',
        ADS_API_PROFILE_ID: '123456789',
        ADS_API_ACCOUNT_ID: 'acc-1',
        LWA_CLIENT_ID: 'id',
        LWA_TOKEN_URL: 'http://127.0.0.1:1/t',
      },
      { upstream: 'https://advertising-api-test.amazon.com', timeoutMs: 500 },
    );
    expect(settings).toEqual({
      region: 'fe',
      profileId: 123456789,
      accountId: 'acc-1',
      upstream: 'https://advertising-api-test.amazon.com',
      lwa: { clientId: 'id', clientSecret: undefined, refreshToken: undefined, tokenUrl: 'http://127.0.0.1:1/t' },
      timeoutMs: 500,
    });
  });

  const refused: readonly [Record<string, string>, { upstream?: string }, string][] = [
    [{ ADS_API_REGION: 'us' }, {}, 'ADS_API_REGION must be one of na, eu, fe'],
    [
      { ADS_API_PROFILE_ID: '12ab' },
      {},
      'ADS_API_PROFILE_ID must be a profile id (a positive integer, as list_profiles returns it)',
    ],
    [
      { ADS_API_PROFILE_ID: '0' },
      {},
      'ADS_API_PROFILE_ID must be a profile id (a positive integer, as list_profiles returns it)',
    ],
  ];
  for (const [env, commandLine, message] of refused) {
    it(`refuses ${JSON.stringify({ ...env, ...commandLine })}`, () => {
      expect(() => adsServerSettings(env, commandLine)).toThrow(message);
    });
  }
});

/** A session of a server with these settings. */
function sessionOf(settings: AdsServerSettings): AdsSession {
  return new AdsSession(settings, new LwaTokenClients<string>(settings.lwa, createAmazonRedactor()));
}

/** Where a call made now would go: the API host and the token endpoint. */
function endpoints(session: AdsSession): [string, string] {
  const { baseUrl, tokenUrl } = session.route();
  return [baseUrl, tokenUrl];
}

describe('AdsSession', () => {
  it('region hosts and LWA endpoints follow set_region unless overridden', () => {
    const session = sessionOf(adsServerSettings({}));
    expect(endpoints(session)).toEqual(['https://advertising-api.amazon.com', 'https://api.amazon.com/auth/o2/token']);
    session.setRegion('eu');
    expect(endpoints(session)).toEqual([
      'https://advertising-api-eu.amazon.com',
      'https://api.amazon.co.uk/auth/o2/token',
    ]);
    session.setRegion('fe');
    expect(endpoints(session)).toEqual([
      'https://advertising-api-fe.amazon.com',
      'https://api.amazon.co.jp/auth/o2/token',
    ]);
    const pinned = sessionOf(
      adsServerSettings({ LWA_TOKEN_URL: 'http://127.0.0.1:9/token' }, { upstream: 'http://127.0.0.1:8' }),
    );
    pinned.setRegion('fe');
    expect(endpoints(pinned)).toEqual(['http://127.0.0.1:8', 'http://127.0.0.1:9/token']);
  });

  it('keeps the profile across regions only when it is known in the new one', () => {
    const session = sessionOf(adsServerSettings({ ADS_API_PROFILE_ID: '5' }));
    session.rememberProfiles([{ profileId: 5 }]);
    expect(session.setRegion('eu')).toBe(true);
    expect(session.profileId).toBeUndefined();
    session.rememberProfiles([{ profileId: 5 }]);
    session.setProfile(5);
    expect(session.setRegion('na')).toBe(false);
    expect(session.profileId).toBe(5);
    expect(session.setRegion('fe')).toBe(true);
    expect(session.profileId).toBeUndefined();
    expect(session.accountId()).toBeUndefined();
  });

  it('profilesFromBody keeps well-formed profiles only', () => {
    expect(profilesFromBody([{ profileId: 1 }, { profileId: '2' }, null, 'x'])).toEqual([{ profileId: 1 }]);
    expect(profilesFromBody({ profiles: [] })).toEqual([]);
  });
});

describe('loadModelOperations', () => {
  it('converts OpenAPI 3 operations, skips other JSON, avoids taken names', async () => {
    const loaded = await loadModelOperations(TEST_MODELS_DIR, new Set(['unifiedMini_createCampaign']));
    expect(
      loaded.operations.map((operation) => [operation.name, operation.method, operation.path, operation.accountHeader]),
    ).toEqual([
      ['unifiedMini_queryCampaign', 'POST', '/adsApi/v1/query/campaigns', 'account'],
      ['unifiedMini_createCampaign_post', 'POST', '/adsApi/v1/create/campaigns', 'account'],
    ]);
    const query = loaded.operations[0];
    expect(query?.parameters).toEqual([]);
    expect(query?.body).toEqual({ property: 'body', mediaType: 'application/json', required: true });
    expect(query?.inputSchema).toEqual({
      type: 'object',
      properties: {
        body: {
          type: 'object',
          properties: {
            adProductFilter: {
              type: 'object',
              properties: {
                include: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 1,
                  items: { type: 'string', enum: ['SPONSORED_PRODUCTS'] },
                },
              },
              required: ['include'],
            },
            maxResults: { type: 'integer', format: 'int32', minimum: 1, maximum: 5000 },
            nextToken: { type: 'string' },
          },
          required: ['adProductFilter'],
        },
      },
      required: ['body'],
    });
    expect(loaded.skipped).toEqual([
      { file: 'collection-notes.json', reason: 'not a Swagger 2.0 or OpenAPI 3.x description' },
    ]);
  });

  it('fails when the folder does not exist', async () => {
    await expect(loadModelOperations(`${TEST_MODELS_DIR}does-not-exist`)).rejects.toThrow(/ENOENT/);
  });
});
