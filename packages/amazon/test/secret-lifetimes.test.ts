import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createAmazonRedactor, LwaError, LwaTokenClient } from '../src/index.js';

const CLIENT_SECRET = 'amzn1.oa2-cs.v1.rotationsecret0123456789abcdef';
const BARE_CLIENT_SECRET = 'rotationsecret0123456789abcdef';
const REFRESH_TOKEN = 'Atzr|IwEBIrefresh-token-that-must-stay-secret-42';

let issued = 0;
let rejectNext = false;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(rejectNext ? 400 : 200, { 'content-type': 'application/json' });
    if (rejectNext) {
      // an endpoint echoing the credentials in spellings no pattern knows: bare and base64
      const echoed = `client ${BARE_CLIENT_SECRET} refresh ${Buffer.from(REFRESH_TOKEN).toString('base64')}`;
      response.end(JSON.stringify({ error: 'invalid_grant', error_description: echoed }));
      return;
    }
    issued += 1;
    response.end(JSON.stringify({ access_token: `Atza|rotated-access-token-${issued}`, expires_in: 3600 }));
  });
});
let tokenUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/o2/token`;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('the redactor under token rotation', () => {
  it('still redacts the client secret without its prefix and the refresh token in base64 after 300 rotations', async () => {
    const redactor = createAmazonRedactor();
    const client = new LwaTokenClient(
      {
        clientId: 'amzn1.application-oa2-client.rotation',
        clientSecret: CLIENT_SECRET,
        refreshToken: REFRESH_TOKEN,
        tokenUrl,
      },
      redactor,
    );
    for (let rotation = 0; rotation < 300; rotation += 1) {
      client.invalidate();
      await client.accessToken();
    }
    expect(issued).toBe(300);
    rejectNext = true;
    client.invalidate();
    const error = (await client.accessToken().catch((caught: unknown) => caught)) as LwaError;
    expect(LwaError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'the LWA token endpoint rejected the refresh (invalid_grant): client [REDACTED] refresh [REDACTED]',
    );
    expect(redactor.string(`token Atza|rotated-access-token-300 in prose`)).toBe('token [REDACTED] in prose');
  });
});
