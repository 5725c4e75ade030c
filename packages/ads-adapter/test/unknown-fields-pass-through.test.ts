/**
 * With `MCP_STRICT_UNKNOWN_FIELDS=false`, a top-level key the schema lacks must really reach the
 * Ads API, where the operation's own top-level arguments go: into the JSON body of an operation
 * whose body fields are its top-level arguments, else as a query parameter. The loopback upstream
 * records the request it got.
 */
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { startHarness, TEST_MODELS_DIR, testEnv } from './support/harness.js';
import type { Harness } from './support/harness.js';

let replay: UpstreamReplay;
let harness: Harness | undefined;

beforeAll(async () => {
  replay = await startAmazonReplay();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
afterAll(async () => {
  await replay.close();
});

async function lenient(): Promise<Harness> {
  harness = await startHarness({
    env: testEnv(replay, { MCP_STRICT_UNKNOWN_FIELDS: 'false' }),
    upstream: replay.url,
    modelsDir: TEST_MODELS_DIR,
  });
  return harness;
}

describe('an unknown top-level key with MCP_STRICT_UNKNOWN_FIELDS=false on the Ads server', () => {
  it('reaches a GET operation as a query parameter', async () => {
    const server = await lenient();
    replay.route({ method: 'GET', path: '/v2/profiles', response: { status: 200, body: [] } });
    const before = replay.requests.length;
    const result = await server.call('list_profiles', { profileTypeFilter: ['seller'], newlyAddedFilter: 'yes' });
    expect(result.isError).toBeUndefined();
    const sent = replay.requests.slice(before).filter((request) => request.path === '/v2/profiles');
    expect(sent.map((request) => request.rawQuery)).toEqual(['profileTypeFilter=seller&newlyAddedFilter=yes']);
  });

  it('reaches a flat JSON body operation inside the body', async () => {
    const server = await lenient();
    replay.route({ method: 'POST', path: '/sp/campaigns/list', response: { status: 200, body: { campaigns: [] } } });
    const before = replay.requests.length;
    const result = await server.call('list_sp_campaigns', { maxResults: 10, newlyAddedField: { a: 1 } });
    expect(result.isError).toBeUndefined();
    const sent = replay.requests.slice(before).filter((request) => request.path === '/sp/campaigns/list');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.rawQuery).toBe('');
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({ maxResults: 10, newlyAddedField: { a: 1 } });
  });
});
