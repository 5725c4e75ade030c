import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import { validateEnvelope } from '@mcp-envelope/contract';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import {
  envelopeOf,
  startHarness,
  TEST_CLIENT_ID,
  TEST_MODELS_DIR,
  TEST_PROFILE_ID,
  testEnv,
} from './support/harness.js';
import type { Harness } from './support/harness.js';
import { createAdsServer } from '../src/server/create-server.js';
import { REPLAY_ACCESS_TOKEN, startAmazonReplay, startSilentTokenEndpoint } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

let replay: UpstreamReplay;
const open: Harness[] = [];

async function harnessWith(
  env: Record<string, string | undefined>,
  options: { timeoutMs?: number; upstream?: string } = {},
): Promise<Harness> {
  const harness = await startHarness({
    env,
    upstream: options.upstream ?? replay.url,
    modelsDir: TEST_MODELS_DIR,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  open.push(harness);
  return harness;
}

beforeAll(async () => {
  replay = await startAmazonReplay();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
  replay.setTokenResponse({
    status: 200,
    body: { access_token: REPLAY_ACCESS_TOKEN, token_type: 'bearer', expires_in: 3600 },
  });
});

afterAll(async () => {
  await replay.close();
});

const PROFILES = [
  {
    profileId: 1110001,
    countryCode: 'US',
    currencyCode: 'USD',
    accountInfo: { id: 'A1SELLER', type: 'seller', name: 'North Shop' },
  },
  {
    profileId: 2220002,
    countryCode: 'CA',
    currencyCode: 'CAD',
    accountInfo: { id: 'A2AGENCY', type: 'agency', name: 'Media House' },
  },
];

describe('tools and capability', () => {
  it('lists the built-in catalog, the region and profile tools, the --models tools and get_envelope_contract', async () => {
    const harness = await harnessWith(testEnv(replay));
    const { tools } = await harness.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_profiles',
      'list_sp_campaigns',
      'create_sp_campaigns',
      'list_sb_campaigns',
      'create_report',
      'get_report',
      'set_region',
      'set_active_profile',
      'unifiedMini_queryCampaign',
      'unifiedMini_createCampaign',
      'get_envelope_contract',
    ]);
    const query = tools.find((tool) => tool.name === 'unifiedMini_queryCampaign');
    expect(Object.keys(query?.inputSchema.properties ?? {})).toEqual(['body']);
    expect(query?.inputSchema.required).toEqual(['body']);
    expect(query?.annotations?.readOnlyHint).toBe(true);
    expect(harness.server.models?.skipped).toEqual([
      { file: 'collection-notes.json', reason: 'not a Swagger 2.0 or OpenAPI 3.x description' },
    ]);
    expect(harness.server.models?.models).toEqual([{ file: 'unified-mini.json', tools: 2 }]);
    expect(harness.logLines.some((line) => line.includes('collection-notes.json'))).toBe(true);
  });

  it('advertises the Ads kinds of both versions and its upstream, and answers get_envelope_contract with the same object', async () => {
    const harness = await harnessWith(testEnv(replay));
    const capability = harness.client.getServerCapabilities()?.experimental?.['openbridge_envelope'];
    const errorKindsV1 = [
      'mcp_input_validation',
      'tool_not_found',
      'ads_api_http',
      'ads_api_client',
      'auth_error',
      'rate_limited',
      'internal_error',
    ];
    const errorKindsV2 = [
      'mcp_input_validation',
      'tool_not_found',
      'upstream_http',
      'upstream_client',
      'auth_error',
      'rate_limited',
      'internal_error',
    ];
    // a reader of v1 finds the fields it always read, in v1: the default version of this server
    const advertised = {
      contract_version: 1,
      error_kinds: errorKindsV1,
      normalized_kinds: [],
      contract_versions: [1, 2],
      upstreams: ['ads-api'],
      error_kinds_by_version: { '1': errorKindsV1, '2': errorKindsV2 },
    };
    expect(capability).toEqual(advertised);
    const result = await harness.call('get_envelope_contract');
    expect(result.structuredContent).toEqual({
      ...advertised,
      settings: {
        MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: true,
        MCP_SCHEMA_KEY_NORMALIZATION_META: false,
        MCP_STRICT_UNKNOWN_FIELDS: true,
        MCP_MAX_UPSTREAM_BODY_BYTES: 4_194_304,
        MCP_MAX_RESULT_BYTES: 9_437_184,
        MCP_MAX_CONCURRENT_CALLS: 32,
        MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 8,
        MCP_TOOL_FAILURE_META: false,
        MCP_RATE_LIMIT: true,
        MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
        MCP_RATE_LIMIT_STORE: 'memory',
        MCP_RATE_LIMIT_STORE_TIMEOUT_MS: 1000,
        rate_limit_store_fallback: false,
      },
    });
  });

  it('an unknown tool is tool_not_found with a suggestion', async () => {
    const harness = await harnessWith(testEnv(replay));
    const envelope = envelopeOf(await harness.call('list_profile'));
    expect([envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual([
      'tool_not_found',
      'TOOL_NOT_FOUND',
      'list_profile',
    ]);
    expect(envelope['hints']).toContain('Did you mean "list_profiles"?');
  });
});

describe('credentials', () => {
  it('no LWA variables: an auth_error naming every missing one, and no upstream call', async () => {
    const harness = await harnessWith({ ADS_API_PROFILE_ID: '77' });
    const before = replay.requests.length + replay.tokenRequests.length;
    const envelope = envelopeOf(await harness.call('list_sp_campaigns'));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      false,
    ]);
    expect(envelope['summary']).toBe(
      'No LWA credentials: LWA_CLIENT_ID, LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN are not set.',
    );
    expect((envelope['details'] as { path: string }[]).map((detail) => detail.path)).toEqual([
      'LWA_CLIENT_ID',
      'LWA_CLIENT_SECRET',
      'LWA_REFRESH_TOKEN',
    ]);
    expect(replay.requests.length + replay.tokenRequests.length).toBe(before);
  });

  it('one missing variable is named alone', async () => {
    const harness = await harnessWith(testEnv(replay, { LWA_CLIENT_SECRET: '' }));
    const envelope = envelopeOf(await harness.call('list_profiles'));
    expect(envelope['summary']).toBe('No LWA credentials: LWA_CLIENT_SECRET is not set.');
  });

  it('LWA rejects the refresh token: auth_error / AUTHENTICATION_ERROR, secrets never echoed', async () => {
    replay.setTokenResponse({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : refresh_token' },
    });
    const harness = await harnessWith(testEnv(replay));
    const envelope = envelopeOf(await harness.call('list_profiles'));
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      false,
    ]);
    expect(String((envelope['hints'] as string[])[0])).toContain('authorize the application again');
    const text = JSON.stringify(envelope);
    expect(text).not.toContain('test-refresh-token');
    expect(text).not.toContain('testsecret');
  });

  it('LWA endpoint failing: a retryable auth_error', async () => {
    replay.setTokenResponse({ status: 503, body: 'down' });
    const harness = await harnessWith(testEnv(replay));
    const envelope = envelopeOf(await harness.call('list_profiles'));
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'auth_error',
      'AUTHENTICATION_ERROR',
      true,
    ]);
  });

  it('a token endpoint failure carries the endpoint request id, like every upstream failure', async () => {
    replay.setTokenResponse({
      status: 400,
      headers: { 'x-amzn-RequestId': 'lwa-req-7f3a' },
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
    });
    const harness = await harnessWith(testEnv(replay));
    const rejected = envelopeOf(await harness.call('list_profiles'));
    expect(
      (rejected['details'] as Record<string, unknown>[]).map((detail) => [
        detail['upstream_code'],
        detail['http_status'],
        detail['request_id'],
      ]),
    ).toEqual([['invalid_client', 400, 'lwa-req-7f3a']]);
    replay.setTokenResponse({ status: 503, headers: { 'x-amz-rid': 'LWA503RID' }, body: 'down' });
    const unavailable = envelopeOf(await harness.call('list_profiles'));
    expect(
      (unavailable['details'] as Record<string, unknown>[]).map((detail) => [
        detail['http_status'],
        detail['request_id'],
      ]),
    ).toEqual([[503, 'LWA503RID']]);
  });

  it('a busy token endpoint that names a wait passes it on as _meta.retry_after_seconds', async () => {
    replay.setTokenResponse({
      status: 429,
      headers: { 'retry-after': '7', 'x-amzn-RequestId': 'lwa-429' },
      body: { error: 'throttled' },
    });
    const harness = await harnessWith(testEnv(replay));
    const throttled = envelopeOf(await harness.call('list_profiles'));
    expect([throttled['error_code'], throttled['retryable'], throttled['_meta']]).toEqual([
      'AUTHENTICATION_ERROR',
      true,
      { retry_after_seconds: 7 },
    ]);
    replay.setTokenResponse({ status: 503, headers: { 'x-amz-retry-after': '2500' }, body: 'down' });
    const unavailable = envelopeOf(await harness.call('list_profiles'));
    expect(unavailable['_meta']).toEqual({ retry_after_seconds: 2.5 });
  });

  it('a 401 from the Ads API drops the cached token, so the next call refreshes it', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue(
      { status: 200, body: [] },
      { status: 401, body: { code: 'UNAUTHORIZED', details: 'Token expired' } },
      { status: 200, body: [] },
    );
    const start = replay.tokenRequests.length;
    await harness.call('list_profiles');
    await harness.call('list_profiles');
    expect(replay.tokenRequests.length).toBe(start + 1);
    await harness.call('list_profiles');
    expect(replay.tokenRequests.length).toBe(start + 2);
  });

  it('no active profile: campaign calls refuse before calling LWA or upstream, list_profiles still works', async () => {
    const harness = await harnessWith(testEnv(replay, { ADS_API_PROFILE_ID: undefined }));
    const before = replay.requests.length;
    const tokensBefore = replay.tokenRequests.length;
    const envelope = envelopeOf(
      await harness.call('create_report', {
        startDate: '2026-01-01',
        endDate: '2026-01-02',
        configuration: {
          adProduct: 'SPONSORED_PRODUCTS',
          reportTypeId: 'spCampaigns',
          groupBy: ['campaign'],
          columns: ['cost'],
          timeUnit: 'SUMMARY',
          format: 'GZIP_JSON',
        },
      }),
    );
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['auth_error', 'AUTHENTICATION_ERROR']);
    expect(envelope['summary']).toBe(
      'create_report needs an active profile (Amazon-Advertising-API-Scope) and none is set.',
    );
    expect(replay.requests.length).toBe(before);
    expect(replay.tokenRequests.length).toBe(tokensBefore);
    replay.enqueue({ status: 200, body: PROFILES });
    expect((await harness.call('list_profiles')).isError).toBeFalsy();
  });

  it('ADS_API_ACCOUNT_ID is the Amazon-Ads-AccountId of unified v1 calls', async () => {
    const harness = await harnessWith(testEnv(replay, { ADS_API_ACCOUNT_ID: 'amzn1.ads-account.g.testaccount01' }));
    replay.enqueue({ status: 200, body: { campaigns: [] } });
    const before = replay.requests.length;
    await harness.call('unifiedMini_queryCampaign', { body: { adProductFilter: { include: ['SPONSORED_PRODUCTS'] } } });
    const sent = replay.requests[before]!;
    expect(sent.headers['amazon-ads-accountid']).toBe('amzn1.ads-account.g.testaccount01');
    expect(sent.headers['amazon-ads-clientid']).toBe(TEST_CLIENT_ID);
    expect(sent.headers['amazon-advertising-api-scope']).toBe(String(TEST_PROFILE_ID));
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ adProductFilter: { include: ['SPONSORED_PRODUCTS'] } });
  });
});

describe('the access token is fetched while the client reads the tool list', () => {
  it('asks for it once after tools/list, and the first call sends it', async () => {
    // the real fetch, watched: the test waits for the token request's answer instead of polling
    const realFetch = globalThis.fetch;
    const token: { answered: (answer: Promise<Response>) => void } = { answered: () => undefined };
    // resolved with the fetch's own promise, it settles when the token endpoint has answered
    const tokenAnswered = new Promise<Response>((resolve) => {
      token.answered = resolve;
    });
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const answer = realFetch(input, init);
      if ((input instanceof Request ? input.url : input.toString()) === replay.tokenUrl) token.answered(answer);
      return answer;
    });
    try {
      const harness = await harnessWith(testEnv(replay));
      const before = replay.tokenRequests.length;
      await harness.client.listTools();
      expect((await tokenAnswered).status).toBe(200);
      expect(replay.tokenRequests.length).toBe(before + 1);
      replay.enqueue({ status: 200, body: [] });
      expect((await harness.call('list_profiles')).isError).toBeFalsy();
      expect(replay.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${REPLAY_ACCESS_TOKEN}`);
      expect(replay.tokenRequests.length).toBe(before + 1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('closing the server while a call waits for its access token', () => {
  it('gives up the token request the call started, so an embedding application can exit', async () => {
    const silent = await startSilentTokenEndpoint();
    // the real fetch, watched: which signal each token request was sent with
    const sent: AbortSignal[] = [];
    const realFetch = globalThis.fetch;
    const sending: { started: () => void } = { started: () => undefined };
    const started = new Promise<void>((resolve) => {
      sending.started = resolve;
    });
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      if (init?.signal) sent.push(init.signal);
      sending.started();
      return realFetch(input, init);
    });
    try {
      const harness = await harnessWith(testEnv(replay, { LWA_TOKEN_URL: silent.tokenUrl }));
      // a call before tools/list starts the token request itself
      const call = harness.call('list_profiles').catch((error: unknown) => error);
      await started;
      expect(sent.map((signal) => signal.aborted)).toEqual([false]);
      await harness.close();
      expect(sent.map((signal) => signal.aborted)).toEqual([true]);
      // the client was closed under the call, which never gets an answer
      expect(await call).toBeInstanceOf(Error);
    } finally {
      vi.unstubAllGlobals();
      silent.close();
    }
  });
});

describe('set_active_profile', () => {
  it('accepts a profile of the account and uses it as the scope of later calls', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 200, body: PROFILES }, { status: 200, body: { campaigns: [] } });
    const result = await harness.call('set_active_profile', { profileId: 1110001 });
    expect(result.structuredContent).toEqual({
      profileId: 1110001,
      region: 'na',
      verified: true,
      countryCode: 'US',
      accountType: 'seller',
      accountName: 'North Shop',
    });
    const before = replay.requests.length;
    await harness.call('list_sp_campaigns');
    expect(replay.requests[before]!.headers['amazon-advertising-api-scope']).toBe('1110001');
  });

  it('refuses a profile the account does not have: mcp_input_validation / SCHEMA_PROFILE_NOT_FOUND', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 200, body: PROFILES });
    const envelope = envelopeOf(await harness.call('set_active_profile', { profileId: 9990009 }));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'mcp_input_validation',
      'SCHEMA_PROFILE_NOT_FOUND',
      false,
    ]);
    expect(envelope['details']).toEqual([
      {
        path: 'profileId',
        field: 'profileId',
        issue: '9990009 is not one of the 2 profiles of this account in region na.',
        received_type: 'integer',
        allowed: [1110001, 2220002],
      },
    ]);
    expect(envelope['hints']).toEqual([
      'Available profiles: 1110001 (US, seller, North Shop); 2220002 (CA, agency, Media House).',
      'Profiles belong to one region: call set_region first when the profile is in another one.',
    ]);
    expect(harness.server.sessions.forSession(undefined).profileId).toBe(TEST_PROFILE_ID);
  });

  it('an unknown profile keeps the telemetry of the profile list it was checked against', async () => {
    const harness = await harnessWith(testEnv(replay, { MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' }));
    replay.enqueue({
      status: 200,
      headers: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9', 'Retry-After': '2' },
      body: PROFILES,
    });
    const envelope = envelopeOf(await harness.call('set_active_profile', { ProfileId: 9990009 }));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect(envelope['error_code']).toBe('SCHEMA_PROFILE_NOT_FOUND');
    expect(envelope['_meta']).toEqual({
      normalized: [{ kind: 'renamed', from: 'ProfileId', to: 'profileId', reason: 'schema_canonical_key' }],
      rate_limit: { limit_per_second: 10, remaining: 9 },
      retry_after_seconds: 2,
    });
  });

  it('warns with profile_scope_warning when the profile is an agency profile', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 200, body: PROFILES });
    const result = await harness.call('set_active_profile', { profileId: 2220002 });
    const meta = (result.structuredContent as { _meta: { warnings: { kind: string; summary: string }[] } })._meta;
    expect(meta.warnings.map((warning) => [warning.kind, warning.summary])).toEqual([
      ['profile_scope_warning', 'Profile 2220002 is an agency profile.'],
    ]);
  });

  it('a profile id sent as a string is a schema type error', async () => {
    const harness = await harnessWith(testEnv(replay));
    const envelope = envelopeOf(await harness.call('set_active_profile', { profileId: '1110001' }));
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['mcp_input_validation', 'SCHEMA_TYPE_MISMATCH']);
  });

  it('an unreadable profile list (503) sets the profile unverified, with a warning', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 503, body: { message: 'Service Unavailable' } });
    const result = await harness.call('set_active_profile', { profileId: 3330003 });
    expect(result.isError).toBeFalsy();
    const content = result.structuredContent as {
      profileId: number;
      verified: boolean;
      _meta: { warnings: { kind: string }[] };
    };
    expect([content.profileId, content.verified, content._meta.warnings.map((warning) => warning.kind)]).toEqual([
      3330003,
      false,
      ['profile_scope_warning'],
    ]);
    expect(harness.server.sessions.forSession(undefined).profileId).toBe(3330003);
  });

  it('a 401 while reading the profiles is the auth envelope, and the profile is unchanged', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 401, body: { code: '401', details: 'Authentication failed' } });
    const envelope = envelopeOf(await harness.call('set_active_profile', { profileId: 3330003 }));
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['auth_error', 'ADS_API_HTTP_401']);
    expect(harness.server.sessions.forSession(undefined).profileId).toBe(TEST_PROFILE_ID);
  });

  it('missing LWA credentials are the auth envelope, not an unverified profile', async () => {
    const harness = await harnessWith(testEnv(replay, { LWA_REFRESH_TOKEN: undefined }));
    const envelope = envelopeOf(await harness.call('set_active_profile', { profileId: 3330003 }));
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['auth_error', 'AUTHENTICATION_ERROR']);
    expect(harness.server.sessions.forSession(undefined).profileId).toBe(TEST_PROFILE_ID);
  });

  it('an empty profile list sets the profile unverified', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 200, body: [] });
    const result = await harness.call('set_active_profile', { profileId: 3330003 });
    expect((result.structuredContent as { verified: boolean }).verified).toBe(false);
  });
});

describe('two clients of one Streamable HTTP server', () => {
  it('keep their own active profile and region', async () => {
    const server = await createAdsServer({ env: testEnv(replay), upstream: replay.url });
    const handle = await server.envelope.serveStreamableHttp({ port: 0 });
    const [first, second] = [new Client({ name: 'first', version: '1' }), new Client({ name: 'second', version: '1' })];
    try {
      await first.connect(new StreamableHTTPClientTransport(handle.url));
      await second.connect(new StreamableHTTPClientTransport(handle.url));
      const scopeOf = async (client: Client): Promise<string | undefined> => {
        replay.enqueue({ status: 200, body: { campaigns: [] } });
        const before = replay.requests.length;
        await client.callTool({ name: 'list_sp_campaigns', arguments: {} });
        return replay.requests[before]?.headers['amazon-advertising-api-scope'] as string | undefined;
      };
      expect(await scopeOf(second)).toBe(String(TEST_PROFILE_ID));
      replay.enqueue({ status: 200, body: PROFILES });
      await first.callTool({ name: 'set_active_profile', arguments: { profileId: 2220002 } });
      expect(await scopeOf(first)).toBe('2220002');
      // the other client's calls still act for its own profile
      expect(await scopeOf(second)).toBe(String(TEST_PROFILE_ID));
      await first.callTool({ name: 'set_region', arguments: { region: 'fe' } });
      replay.enqueue({ status: 200, body: PROFILES });
      const chosen = await second.callTool({ name: 'set_active_profile', arguments: { profileId: 1110001 } });
      // the profile is checked in the other client's region, which the first client's choice left alone
      expect(chosen.structuredContent).toMatchObject({ profileId: 1110001, region: 'na', verified: true });
    } finally {
      await Promise.all([first.close(), second.close()]);
      await handle.close();
      await server.envelope.close();
    }
  });
});

describe('2026-07-28 clients of one Streamable HTTP server (no sessions)', () => {
  it('act for the starting profile on every request: a choice lasts for the request that made it', async () => {
    const server = await createAdsServer({ env: testEnv(replay), upstream: replay.url });
    const handle = await server.envelope.serveStreamableHttp({ port: 0 });
    const modern = (): ClientV2 =>
      new ClientV2({ name: 'stateless', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const [first, second] = [modern(), modern()];
    try {
      await first.connect(new StreamableHTTPClientTransportV2(handle.url));
      await second.connect(new StreamableHTTPClientTransportV2(handle.url));
      replay.enqueue({ status: 200, body: PROFILES });
      const chosen = await first.callTool({ name: 'set_active_profile', arguments: { profileId: 2220002 } });
      expect(chosen.structuredContent).toMatchObject({ profileId: 2220002, verified: true });
      for (const client of [second, first]) {
        replay.enqueue({ status: 200, body: { campaigns: [] } });
        const before = replay.requests.length;
        await client.callTool({ name: 'list_sp_campaigns', arguments: {} });
        expect(replay.requests[before]?.headers['amazon-advertising-api-scope']).toBe(String(TEST_PROFILE_ID));
      }
      expect(server.sessions.size).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
      await handle.close();
      await server.envelope.close();
    }
  });

  it('forget the state of a 2025-11-25 session once it ends', async () => {
    const server = await createAdsServer({ env: testEnv(replay), upstream: replay.url });
    const handle = await server.envelope.serveStreamableHttp({ port: 0 });
    const transport = new StreamableHTTPClientTransport(handle.url);
    const client = new Client({ name: 'ending', version: '1' });
    try {
      await client.connect(transport);
      await client.callTool({ name: 'set_region', arguments: { region: 'eu' } });
      expect(server.sessions.size).toBe(1);
      await transport.terminateSession();
      expect(server.sessions.size).toBe(0);
    } finally {
      await client.close();
      await handle.close();
      await server.envelope.close();
    }
  });
});

describe('set_region', () => {
  it('switches region and clears a profile not known there', async () => {
    const harness = await harnessWith(testEnv(replay));
    const result = await harness.call('set_region', { region: 'eu' });
    expect(result.structuredContent).toEqual({
      region: 'eu',
      host: replay.url,
      activeProfileId: null,
      profileCleared: true,
    });
    expect(harness.server.sessions.forSession(undefined).region).toBe('eu');
  });

  it('an alias is refused by the enum with a did-you-mean hint', async () => {
    const harness = await harnessWith(testEnv(replay));
    const envelope = envelopeOf(await harness.call('set_region', { region: 'us' }));
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['mcp_input_validation', 'SCHEMA_ENUM_MISMATCH']);
    expect(envelope['hints']).toContain('Did you mean na? Got us.');
  });
});

describe('arguments and client-side failures', () => {
  it('PascalCase keys are renamed to the Ads camelCase fields before sending', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({ status: 200, body: { campaigns: [] } });
    const before = replay.requests.length;
    const result = await harness.call('list_sp_campaigns', { StateFilter: { include: ['PAUSED'] }, MaxResults: 3 });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(replay.requests[before]!.body)).toEqual({ stateFilter: { include: ['PAUSED'] }, maxResults: 3 });
  });

  it('a missing required field is SCHEMA_REQUIRED and never reaches upstream', async () => {
    const harness = await harnessWith(testEnv(replay));
    const before = replay.requests.length;
    const envelope = envelopeOf(
      await harness.call('create_report', { startDate: '2026-01-01', endDate: '2026-01-02' }),
    );
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['mcp_input_validation', 'SCHEMA_REQUIRED']);
    expect(replay.requests.length).toBe(before);
  });

  it('a host that refuses connections: ads_api_client / TOOL_EXECUTION_FAILED, retryable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) =>
      closed.close(() => {
        resolve();
      }),
    );
    const harness = await harnessWith(testEnv(replay), { upstream: `http://127.0.0.1:${port}` });
    const envelope = envelopeOf(await harness.call('list_profiles'));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'ads_api_client',
      'TOOL_EXECUTION_FAILED',
      true,
    ]);
    expect(envelope['details']).toEqual([
      { path: '', issue: 'network error ECONNREFUSED', received_type: 'null', network_code: 'ECONNREFUSED' },
    ]);
  });

  it('an upstream slower than the timeout: ads_api_client / TOOL_EXECUTION_FAILED, retryable', async () => {
    const harness = await harnessWith(testEnv(replay), { timeoutMs: 150 });
    replay.enqueue({ status: 200, body: [], delayMs: 1500 });
    const envelope = envelopeOf(await harness.call('list_profiles'));
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'ads_api_client',
      'TOOL_EXECUTION_FAILED',
      true,
    ]);
    expect(envelope['summary']).toBe(`No answer from ${new URL(replay.url).host} (GET /v2/profiles) within 150 ms.`);
  });

  it('an access token echoed by the upstream never reaches the envelope', async () => {
    const harness = await harnessWith(testEnv(replay));
    replay.enqueue({
      status: 400,
      body: { code: 'BAD', details: `header was Authorization: Bearer ${REPLAY_ACCESS_TOKEN}` },
    });
    const envelope = envelopeOf(await harness.call('list_sp_campaigns'));
    expect(JSON.stringify(envelope)).not.toContain('replay-access-token');
  });
});
