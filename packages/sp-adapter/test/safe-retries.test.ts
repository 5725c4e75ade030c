/**
 * Safe retries on the reference SP server, through the real SDK client and a replay upstream on
 * 127.0.0.1: a POST (createReport) whose connection drops after it was sent says its effect is
 * unknown and is not retryable, to a reader of version 1 as to one of version 2; a GET
 * (getMarketplaceParticipations) stays retryable (CONTRACT.md "Safe retries").
 */
import { describe, expect, it } from 'vitest';

import { connect, envelopeOf, envelopeV2Of, lwaEnv, READS_V1_AND_V2, useSpUpstream } from './helpers/sp-client.js';

const upstream = useSpUpstream();
const CREATE = 'reports20210630_createReport';
const CREATE_ARGS = { body: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: ['ATVPDKIKX0DER'] } };

describe('safe retries of SP tools', () => {
  it('a dropped createReport is not retryable, its effect-unknown detail and hint first, in v1 and in v2', async () => {
    const connected = await connect({ env: lwaEnv(upstream()), upstream: upstream().url });
    try {
      upstream().respond({ status: 200, dropConnection: true });
      const v1 = envelopeOf(await connected.call(CREATE, CREATE_ARGS));
      upstream().respond({ status: 200, dropConnection: true });
      const v2 = envelopeV2Of(await connected.call(CREATE, CREATE_ARGS, READS_V1_AND_V2));
      for (const envelope of [v1, v2]) {
        expect([envelope.error_code, envelope.retryable, envelope.details[0]?.['reason']]).toEqual([
          'TOOL_EXECUTION_FAILED',
          false,
          'effect_unknown',
        ]);
        expect(envelope.hints[0]).toMatch(/^Check whether the call took effect/);
      }
      expect(v1.error_kind).toBe('sp_api_client');
      expect(v2.details[0]?.issue).toBe(
        'The request may have reached sp-api before the call failed: whether it took effect is unknown, and reports20210630_createReport is not idempotent.',
      );
      upstream().respond({ status: 200, dropConnection: true });
      const read = envelopeOf(await connected.call('sellers_getMarketplaceParticipations', {}));
      expect([read.retryable, read.details.map((detail) => detail['reason'] ?? null)]).toEqual([true, [null]]);
    } finally {
      await connected.close();
    }
  });
});
