/**
 * A `Retry-After` is the upstream's text: a wait of three thousand years, or a date in the year
 * 9999, must reach the agent as the contract's longest wait, in `_meta` and in the words alike.
 * The real SDK client against the Ads server, its upstream a loopback replay answering 429.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { MAX_RETRY_AFTER_SECONDS } from '@mcp-envelope/core/adapter';
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { envelopeOf, startHarness, TEST_MODELS_DIR, testEnv } from './support/harness.js';
import type { Harness } from './support/harness.js';

let replay: UpstreamReplay;
const open: Harness[] = [];

beforeAll(async () => {
  replay = await startAmazonReplay();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

afterAll(async () => {
  await replay.close();
});

describe('a huge Retry-After from the Ads API', () => {
  it.each([
    ['delta-seconds', '99999999999'],
    ['an HTTP-date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])('is capped at MAX_RETRY_AFTER_SECONDS: %s', async (_name, retryAfter) => {
    const harness = await startHarness({ env: testEnv(replay), upstream: replay.url, modelsDir: TEST_MODELS_DIR });
    open.push(harness);
    replay.enqueue({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
      body: { message: 'Too Many Requests' },
    });
    const envelope = envelopeOf(await harness.call('list_sp_campaigns'));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect(envelope['error_code']).toBe('RATE_LIMITED');
    expect(envelope['_meta']).toEqual({ retry_after_seconds: 86_400 });
    expect(MAX_RETRY_AFTER_SECONDS).toBe(86_400);
    const words = JSON.stringify([envelope['summary'], envelope['hints']]);
    expect(words).not.toMatch(/\d{6,}/);
  });
});
