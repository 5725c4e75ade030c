import { MIGRATIONS, validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  envelopeOf,
  startHarness,
  TEST_CLIENT_ID,
  TEST_MODELS_DIR,
  TEST_PROFILE_ID,
  testEnv,
} from './support/harness.js';
import type { Harness } from './support/harness.js';
import { UPSTREAM_FIXTURES } from './support/fixtures.js';
import type { UpstreamFixture } from './support/fixtures.js';
import { REPLAY_ACCESS_TOKEN, startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

/**
 * The release the recorded cases describe: the one that opens the Ads v2 windows (their v2 form
 * carries `legacy_error_kind`); once the table drops those windows, the package's own version.
 */
const WINDOW_RELEASE = MIGRATIONS.find((entry) => entry.id === 'ads-api-http-to-upstream-http')?.introduced_in;

let replay: UpstreamReplay;
let harness: Harness;

beforeAll(async () => {
  replay = await startAmazonReplay();
  harness = await startHarness({
    // one server answers every recorded 429 and rate header in a row: what the limiter learns
    // from one case would refuse the next (the limiter has its own tests)
    env: testEnv(replay, { MCP_RATE_LIMIT: 'off' }),
    upstream: replay.url,
    modelsDir: TEST_MODELS_DIR,
    envelope: {
      now: () => new Date('2026-09-03T11:59:00Z'),
      ...(WINDOW_RELEASE === undefined ? {} : { version: WINDOW_RELEASE }),
    },
  });
});

afterAll(async () => {
  await harness.close();
  await replay.close();
});

/** The request `_meta` by which a client states it reads contract versions 1 and 2 (so it gets v2). */
const READS_V1_AND_V2 = { 'io.github.mcp-envelope/envelope': { contract_versions: [1, 2] } };

/** Replays a fixture's answer for one call, checks the request the server sent, returns the result. */
async function replayCase(fixture: UpstreamFixture, meta?: Record<string, unknown>): Promise<CallToolResult> {
  replay.enqueue({ status: fixture.response.status, headers: fixture.response.headers, body: fixture.response.body });
  const before = replay.requests.length;
  const result = (await harness.client.callTool({
    name: fixture.call.tool,
    arguments: fixture.call.arguments,
    ...(meta === undefined ? {} : { _meta: meta }),
  })) as CallToolResult;
  expect(replay.requests.length).toBe(before + 1);
  const sent = replay.requests[before]!;
  expect(sent.method).toBe(fixture.request.method);
  expect(sent.url.replace(/\?.*$/, '')).toBe(fixture.request.path);
  expect(sent.headers['authorization']).toBe(`Bearer ${REPLAY_ACCESS_TOKEN}`);
  expect(sent.headers['amazon-advertising-api-clientid']).toBe(TEST_CLIENT_ID);
  if (fixture.request.path.startsWith('/adsApi/v1/')) {
    expect(sent.headers['amazon-ads-clientid']).toBe(TEST_CLIENT_ID);
    expect(sent.headers['amazon-ads-accountid']).toBe(String(TEST_PROFILE_ID));
  } else if (fixture.call.tool !== 'list_profiles') {
    expect(sent.headers['amazon-advertising-api-scope']).toBe(String(TEST_PROFILE_ID));
  } else {
    expect(sent.headers['amazon-advertising-api-scope']).toBeUndefined();
  }
  return result;
}

/** A success result: the recorded result with the `_meta` of the version the client reads. */
function expectSuccess(
  fixture: UpstreamFixture,
  result: CallToolResult,
  meta: Record<string, unknown> | undefined,
): void {
  expect(result.isError).toBeFalsy();
  const expected = meta === undefined ? fixture.expected.result : { ...fixture.expected.result, _meta: meta };
  expect(result.structuredContent).toEqual(expected);
  const block = result.content[0];
  expect(block?.type === 'text' ? JSON.parse(block.text) : undefined).toEqual(expected);
}

/** The detail core puts first when a request of a tool that is not idempotent may have acted upstream. */
function effectUnknownDetails(fixture: UpstreamFixture): readonly Record<string, unknown>[] {
  if (fixture.expected.effect_unknown !== true) return [];
  const issue = `The request may have reached ads-api before the call failed: whether it took effect is unknown, and ${fixture.call.tool} is not idempotent.`;
  return [{ path: '', issue, received_type: 'null', reason: 'effect_unknown' }];
}

/** What every form of an error envelope of this fixture shares. */
function expectSharedFields(fixture: UpstreamFixture, envelope: Record<string, unknown>): void {
  const effectUnknown = fixture.expected.effect_unknown === true;
  expect(envelope['retryable']).toBe(effectUnknown ? false : fixture.expected.retryable);
  expect(envelope['tool']).toBe(fixture.call.tool);
  expect(envelope['examples']).toEqual([]);
  expect(envelope['details']).toEqual([...effectUnknownDetails(fixture), ...(fixture.expected.details ?? [])]);
  if (effectUnknown) expect((envelope['hints'] as string[])[0]).toMatch(/^Check whether the call took effect/);
  expect(String(envelope['summary'])).toContain(`HTTP ${fixture.response.status}`);
  const hints = envelope['hints'] as string[];
  for (const fragment of fixture.expected.hints_contain ?? []) {
    expect(
      hints.some((hint) => hint.includes(fragment)),
      `a hint containing "${fragment}" in ${JSON.stringify(hints)}`,
    ).toBe(true);
  }
  expect(JSON.stringify(envelope)).not.toContain('replay-access-token');
}

describe('every recorded Ads answer, replayed through the reference server to a client that states nothing (a reader of v1)', () => {
  for (const fixture of UPSTREAM_FIXTURES) {
    it(fixture.id, async () => {
      const result = await replayCase(fixture);
      const expected = fixture.expected_v1;
      if (expected.error_kind === null) {
        expectSuccess(fixture, result, expected.meta);
        return;
      }
      const envelope = envelopeOf(result);
      expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
      expect(envelope['_envelope_version']).toBe(1);
      expect(envelope['error_kind']).toBe(expected.error_kind);
      expect(envelope['error_code']).toBe(expected.error_code);
      expect(envelope['legacy_error_kind']).toBe(expected.legacy_error_kind);
      expect(Object.hasOwn(envelope, 'upstream')).toBe(false);
      expect(envelope['_meta']).toEqual(expected.meta);
      expectSharedFields(fixture, envelope);
    });
  }
});

describe('every recorded Ads answer, replayed through the reference server to a client that reads v1 and v2', () => {
  for (const fixture of UPSTREAM_FIXTURES) {
    it(fixture.id, async () => {
      const result = await replayCase(fixture, READS_V1_AND_V2);
      const expected = fixture.expected;
      if (expected.error_kind === null) {
        expectSuccess(fixture, result, expected.meta);
        if (expected.meta !== undefined) expect(validateMeta(expected.meta)).toEqual({ valid: true });
        return;
      }
      const envelope = envelopeOf(result);
      expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
      expect(envelope['_envelope_version']).toBe(2);
      expect(envelope['error_kind']).toBe(expected.error_kind);
      expect(envelope['error_code']).toBe(expected.error_code);
      expect(envelope['upstream']).toBe(expected.upstream);
      expect(envelope['legacy_error_kind']).toBe(expected.legacy_error_kind);
      expect(envelope['_meta']).toEqual(expected.meta);
      expectSharedFields(fixture, envelope);
    });
  }
});

describe('what the reference server sends', () => {
  it('vendor media type as Content-Type and Accept, the body fields at the top level', async () => {
    replay.enqueue({ status: 200, body: { campaigns: [], totalResults: 0 } });
    const before = replay.requests.length;
    await harness.call('list_sp_campaigns', { stateFilter: { include: ['ENABLED'] }, maxResults: 5 });
    const sent = replay.requests[before]!;
    expect(sent.headers['content-type']).toBe('application/vnd.spCampaign.v3+json');
    expect(sent.headers['accept']).toBe('application/vnd.spCampaign.v3+json');
    expect(JSON.parse(sent.body)).toEqual({ stateFilter: { include: ['ENABLED'] }, maxResults: 5 });
  });

  it('header parameters stay headers, not body fields', async () => {
    replay.enqueue({ status: 207, body: { campaigns: { success: [{ index: 0, campaignId: '1' }], error: [] } } });
    const before = replay.requests.length;
    const campaign = { name: 'c', targetingType: 'AUTO', state: 'PAUSED', budget: { budgetType: 'DAILY', budget: 3 } };
    const result = await harness.call('create_sp_campaigns', {
      campaigns: [campaign],
      prefer: 'return=representation',
    });
    const sent = replay.requests[before]!;
    expect(sent.headers['prefer']).toBe('return=representation');
    expect(JSON.parse(sent.body)).toEqual({ campaigns: [campaign] });
    expect(result.structuredContent).toEqual({ campaigns: { success: [{ index: 0, campaignId: '1' }], error: [] } });
  });

  it('query parameters of list_profiles and the profiles wrapper', async () => {
    replay.enqueue({ status: 200, body: [{ profileId: 1, countryCode: 'US' }] });
    const before = replay.requests.length;
    const result = await harness.call('list_profiles', {
      profileTypeFilter: ['seller', 'vendor'],
      validPaymentMethodFilter: true,
    });
    expect(replay.requests[before]!.url).toBe(
      '/v2/profiles?profileTypeFilter=seller,vendor&validPaymentMethodFilter=true',
    );
    expect(replay.requests[before]!.headers['accept']).toBe('application/json');
    expect(result.structuredContent).toEqual({ profiles: [{ profileId: 1, countryCode: 'US' }] });
  });

  it('the get_report path parameter is encoded', async () => {
    replay.enqueue({ status: 200, body: { reportId: 'a b/c', status: 'PENDING' } });
    const before = replay.requests.length;
    await harness.call('get_report', { reportId: 'a b/c' });
    expect(replay.requests[before]!.url).toBe('/reporting/reports/a%20b%2Fc');
  });

  it('every token request is a refresh_token grant for the configured client', () => {
    expect(replay.tokenRequests.length).toBeGreaterThan(0);
    for (const request of replay.tokenRequests) {
      const form = new URLSearchParams(request.body);
      expect([form.get('grant_type'), form.get('client_id'), form.get('refresh_token')]).toEqual([
        'refresh_token',
        TEST_CLIENT_ID,
        'Atzr|test-refresh-token-0001',
      ]);
    }
  });
});
