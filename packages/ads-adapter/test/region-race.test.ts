/**
 * A call reads its region once: a `set_region` made while the call waits for its access token must
 * not send one region's token to another region's host, nor file one region's profiles under the
 * other. The regions' real hosts are reached through a fetch that sends each of them to a loopback
 * server, standing in for DNS; nothing leaves 127.0.0.1.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { envelopeOf, startHarness, TEST_CLIENT_ID } from './support/harness.js';

/** Each region's token endpoint and API host, and the loopback path that plays it. */
const ORIGINS: Readonly<Record<string, string>> = {
  'https://api.amazon.com': '/na-lwa',
  'https://api.amazon.co.uk': '/eu-lwa',
  'https://advertising-api.amazon.com': '/na-api',
  'https://advertising-api-eu.amazon.com': '/eu-api',
};

interface Seen {
  readonly path: string;
  readonly authorization: string | undefined;
}

let seen: Seen[] = [];
/** Wakes whoever waits for the loopback to see a request. */
const arrivals: (() => void)[] = [];
/** The North American token answers, held until a test lets them go: the client switches region meanwhile. */
const heldTokens: { response: ServerResponse; answer: () => void }[] = [];
const loopback = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const path = request.url ?? '';
    seen.push({ path, authorization: request.headers.authorization });
    for (const wake of arrivals.splice(0)) wake();
    const region = path.startsWith('/na') ? 'na' : 'eu';
    if (path.endsWith('/auth/o2/token')) {
      const answer = (): void => {
        response.end(JSON.stringify({ access_token: `Atza|${region}-token`, expires_in: 3600 }));
      };
      if (region === 'na') heldTokens.push({ response, answer });
      else answer();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify([{ profileId: region === 'na' ? 111 : 222, countryCode: region.toUpperCase() }]));
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}`;
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const path = ORIGINS[url.origin];
    if (path === undefined) throw new Error(`the test sends nothing to ${url.origin}`);
    return realFetch(`${base}${path}${url.pathname}${url.search}`, init);
  });
});
afterEach(() => {
  seen = [];
  for (const held of heldTokens.splice(0)) held.answer();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await new Promise<void>((resolve) =>
    loopback.close(() => {
      resolve();
    }),
  );
});

/** Resolves once the loopback has seen `count` requests. */
async function requestsSeen(count: number): Promise<void> {
  while (seen.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
}

/** Sends the held North American token answers. */
function answerHeldTokens(): void {
  for (const held of heldTokens.splice(0)) held.answer();
}

const LWA_ENV = {
  LWA_CLIENT_ID: TEST_CLIENT_ID,
  LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.testsecret000000000000000000000001',
  LWA_REFRESH_TOKEN: 'Atzr|test-refresh-token-0001',
};

describe('a set_region while a call waits for its token', () => {
  it('leaves the call with its own region: its token, its host and its profiles', async () => {
    const harness = await startHarness({ env: LWA_ENV });
    try {
      const listing = harness.call('list_profiles');
      // the call now waits for the slow North American token
      await requestsSeen(1);
      expect(seen.map((entry) => entry.path)).toEqual(['/na-lwa/auth/o2/token']);
      expect((await harness.call('set_region', { region: 'eu' })).isError).not.toBe(true);
      answerHeldTokens();
      const listed = await listing;
      expect(listed.isError).not.toBe(true);
      expect(listed.structuredContent).toEqual({ profiles: [{ profileId: 111, countryCode: 'NA' }] });
      expect(seen.map((entry) => [entry.path, entry.authorization])).toEqual([
        ['/na-lwa/auth/o2/token', undefined],
        ['/na-api/v2/profiles', 'Bearer Atza|na-token'],
      ]);
      // the North American profiles were filed under na: a profile of theirs survives a switch back
      const session = harness.server.sessions.forSession(undefined);
      expect(session.region).toBe('eu');
      session.setProfile(111);
      expect(session.setRegion('na')).toBe(false);
      expect(session.profileId).toBe(111);
    } finally {
      await harness.close();
    }
  });
});

describe('set_active_profile while the session changes', () => {
  it('refuses a profile checked in one region when the session switched to another meanwhile', async () => {
    const harness = await startHarness({ env: LWA_ENV });
    try {
      const choosing = harness.call('set_active_profile', { profileId: 111 });
      await requestsSeen(1);
      expect((await harness.call('set_region', { region: 'eu' })).isError).not.toBe(true);
      answerHeldTokens();
      const envelope = envelopeOf(await choosing);
      expect([envelope['error_kind'], envelope['error_code']]).toEqual([
        'mcp_input_validation',
        'SCHEMA_PROFILE_NOT_FOUND',
      ]);
      expect(envelope['summary']).toBe(
        'Profile 111 was checked in region na, but this session switched to region eu meanwhile, where it is not known.',
      );
      // the North American profile never becomes the scope of calls to the EU host
      expect(harness.server.sessions.forSession(undefined).profileId).toBeUndefined();
      expect(seen.map((entry) => entry.path)).toEqual(['/na-lwa/auth/o2/token', '/na-api/v2/profiles']);
    } finally {
      await harness.close();
    }
  });

  it('changes nothing when the call is cancelled while it waits for its token', async () => {
    const harness = await startHarness({ env: LWA_ENV });
    try {
      const cancelling = new AbortController();
      const choosing = harness.client
        .callTool({ name: 'set_active_profile', arguments: { profileId: 999 } }, undefined, {
          signal: cancelling.signal,
        })
        .catch((error: unknown) => error);
      await requestsSeen(1);
      const [held] = heldTokens;
      cancelling.abort();
      expect(await choosing).toBeInstanceOf(Error);
      // the token request was given up with the call: its connection closes while its answer is
      // still held (a client that kept waiting for it would keep it open, and this never resolve)
      if (held !== undefined && !held.response.closed) await once(held.response, 'close');
      expect(held?.response.writableEnded).toBe(false);
      expect(harness.server.sessions.forSession(undefined).profileId).toBeUndefined();
      // the token request was given up with the call: the profiles were never read
      expect(seen.map((entry) => entry.path)).toEqual(['/na-lwa/auth/o2/token']);
    } finally {
      await harness.close();
    }
  });
});
