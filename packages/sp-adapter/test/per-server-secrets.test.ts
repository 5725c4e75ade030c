import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { UpstreamReplay } from '@mcp-envelope/testing';

import { connect, envelopeOf, lwaEnv, startSpUpstream } from './helpers/sp-client.js';

let upstream: UpstreamReplay;
beforeAll(async () => {
  upstream = await startSpUpstream();
});
afterAll(async () => {
  await upstream.close();
});

describe('two SP servers in one process', () => {
  it('each redacts the LWA client secret of its own configuration only', async () => {
    const first = await connect({
      env: { ...lwaEnv(upstream), LWA_CLIENT_SECRET: 'opaque-secret-a-7f31c0' },
      upstream: upstream.url,
    });
    const second = await connect({
      env: { ...lwaEnv(upstream), LWA_CLIENT_SECRET: 'opaque-secret-b-c9e2d4' },
      upstream: upstream.url,
    });
    upstream.respond({
      status: 400,
      body: { errors: [{ code: 'InvalidInput', message: 'echo opaque-secret-a-7f31c0 and opaque-secret-b-c9e2d4' }] },
    });
    const fromFirst = envelopeOf(await first.call('sellers_getMarketplaceParticipations', {}));
    const fromSecond = envelopeOf(await second.call('sellers_getMarketplaceParticipations', {}));
    upstream.respond(undefined);
    expect(fromFirst.summary).toContain('echo [REDACTED] and opaque-secret-b-c9e2d4');
    expect(fromSecond.summary).toContain('echo opaque-secret-a-7f31c0 and [REDACTED]');
    await first.close();
    await second.close();
  });
});
