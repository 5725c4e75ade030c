/**
 * Code Mode on the SP server with the built-in catalog (operations written from the official
 * models): search_tools ranks the operation an agent means first, and the recovery pattern that
 * contract/CONTRACT.md shows runs as printed against a replay of SP-API, a 401 included, with no
 * credential in what comes back or in the log.
 */
import { readFileSync } from 'node:fs';

import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { connect, lwaEnv, startSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';

const CONTRACT = readFileSync(new URL('../../../contract/CONTRACT.md', import.meta.url), 'utf8');

/** The first `js` block of the contract's recovery pattern section, as printed. */
function recoveryPattern(): string {
  const section = CONTRACT.slice(CONTRACT.indexOf('### The recovery pattern, on both surfaces'));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('CONTRACT.md has no js block in its recovery pattern section');
  return block;
}

const logged: string[] = [];
const logger = {
  error: (details: Record<string, unknown>, message: string): void => {
    logged.push(JSON.stringify(details), message);
  },
  warn: (details: Record<string, unknown>, message: string): void => {
    logged.push(JSON.stringify(details), message);
  },
};

let upstream: UpstreamReplay;
let session: Connected;

beforeAll(async () => {
  upstream = await startSpUpstream();
  session = await connect({
    upstream: upstream.url,
    env: { ...lwaEnv(upstream), CODE_MODE: 'true' },
    envelope: { logger },
  });
});

afterAll(async () => {
  await session.close();
  await upstream.close();
});

beforeEach(() => {
  upstream.reset();
  logged.length = 0;
});

async function search(query: string): Promise<string[]> {
  const result = await session.call('search_tools', { query, limit: 5 });
  return (result.structuredContent?.['tools'] as { name: string }[]).map((hit) => hit.name);
}

async function recover(): Promise<unknown> {
  const result = await session.call('execute_code', { code: recoveryPattern() });
  expect(result.isError).toBeUndefined();
  return result.structuredContent?.['result'];
}

describe('search_tools over the built-in catalog', () => {
  it('"orders" ranks the order operations first, getOrders at the top', async () => {
    const names = await search('orders');
    expect(names[0]).toBe('ordersV0_getOrders');
    expect(names.slice(0, 4).toSorted()).toEqual([
      'orders20260101_searchOrders',
      'ordersV0_getOrder',
      'ordersV0_getOrderItems',
      'ordersV0_getOrders',
    ]);
  });

  it('"get order items" ranks getOrderItems first, then getOrder', async () => {
    expect((await search('get order items')).slice(0, 2)).toEqual(['ordersV0_getOrderItems', 'ordersV0_getOrder']);
  });
});

describe("CONTRACT.md's recovery pattern, run as printed", () => {
  it('a success answers the order ids', async () => {
    upstream.respond({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { payload: { Orders: [{ AmazonOrderId: '114-2847193-5521067' }] } },
    });
    expect(await recover()).toEqual(['114-2847193-5521067']);
  });

  it('a 429 takes the rate_limited branch with the retry-after seconds', async () => {
    upstream.respond({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '4' },
      body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] },
    });
    expect(await recover()).toEqual({ retry_after_seconds: 4 });
  });

  it('a 401 takes the last branch with its code, and no credential reaches the answer or the log', async () => {
    upstream.respond({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: { errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.' }] },
    });
    const result = await session.call('execute_code', { code: recoveryPattern() });
    expect(result.structuredContent?.['result']).toEqual({ failed: 'SP_API_HTTP_401' });
    const seen = JSON.stringify(result) + logged.join('\n');
    const credentials = [
      ...Object.values(lwaEnv(upstream)).filter((value) => !value.startsWith('http')),
      'replay-access-token',
    ];
    for (const credential of credentials) expect(seen).not.toContain(credential);
    // the token was fetched and sent, so its absence above is redaction, not a call that never left
    expect(upstream.requests.at(-1)?.headers['x-amz-access-token']).toContain('replay-access-token');
  });
});
