import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createSpServer, loadBuiltInCatalog } from '../src/index.js';
import { IDENTITY_SERVICE_CLIENT_FAILURES, OPENBRIDGE_HINTS } from '../src/classify.js';
import { parseIdentitiesFile, SpIdentityError } from '../src/identities.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { connect, envelopeOf, envelopeV2Of, READS_V1_AND_V2, startSpUpstream } from './helpers/sp-client.js';
import type { Connected } from './helpers/sp-client.js';

const SELLER1_TOKEN = 'Atzr|seller-one-refresh-token-aaaa1111';
// not in the Atzr| form, so only its registration with the redactor keeps it out of answers
const SELLER2_TOKEN = 'opaque-seller-two-refresh-token-bbbb2222';
const SERVICE_TOKEN = 'idsvc-bearer-secret-0123456789';
const SECRETS = [
  SELLER1_TOKEN,
  SELLER2_TOKEN,
  SERVICE_TOKEN,
  'seller-one-refresh',
  'seller-two-refresh',
  'idsvc-bearer-secret',
];

const IDENTITIES = [
  {
    id: 1,
    name: 'Acme US',
    region: 'na',
    marketplace_ids: ['ATVPDKIKX0DER'],
    refresh_token_env: 'SELLER1_REFRESH_TOKEN',
  },
  {
    id: 2,
    name: 'Acme DE',
    region: 'Europe',
    marketplace_ids: ['A1PA6795UKMFR9'],
    refresh_token_env: 'SELLER2_REFRESH_TOKEN',
  },
];
const GET_ORDERS = { MarketplaceIds: ['ATVPDKIKX0DER'], CreatedAfter: '2026-04-01T00:00:00Z' };

let upstream: UpstreamReplay;
let tokenServer: Server;
let tokenUrl: string;
let folder: string;
let identitiesFile: string;
const open: Connected[] = [];
const logged: string[] = [];
const logger = {
  error: (details: Record<string, unknown>, message: string): void =>
    void logged.push(JSON.stringify({ details, message })),
  warn: (details: Record<string, unknown>, message: string): void =>
    void logged.push(JSON.stringify({ details, message })),
};

/** A token endpoint that hands out an access token naming the refresh token it got (its last 4 characters), and refuses a revoked one. */
function startTokenServer(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const refresh = new URLSearchParams(body).get('refresh_token') ?? '';
      if (refresh.includes('revoked')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: 'invalid_grant',
            error_description: 'The request has an invalid grant parameter : refresh_token',
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ access_token: `access-for-${refresh.slice(-4)}`, token_type: 'bearer', expires_in: 3600 }),
      );
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(server);
    });
  });
}

function lwa(): Record<string, string> {
  return {
    LWA_CLIENT_ID: 'amzn1.application-oa2-client.testclient0001',
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.00aa11bb22cc33dd44ee55ff66',
    LWA_TOKEN_URL: tokenUrl,
  };
}

function fileEnv(): Record<string, string> {
  return {
    ...lwa(),
    SP_IDENTITIES_FILE: identitiesFile,
    SELLER1_REFRESH_TOKEN: SELLER1_TOKEN,
    SELLER2_REFRESH_TOKEN: SELLER2_TOKEN,
  };
}

function serviceEnv(): Record<string, string> {
  return { ...lwa(), SP_IDENTITY_SERVICE_URL: `${upstream.url}/idsvc`, SP_IDENTITY_SERVICE_TOKEN: SERVICE_TOKEN };
}

/** Every answer and log line of a test, checked for secrets at the end of it. */
const answers: unknown[] = [];

async function server(env: Record<string, string>): Promise<Connected> {
  const connected = await connect({ env, upstream: upstream.url, envelope: { logger } });
  open.push(connected);
  return {
    ...connected,
    call: async (name, args, meta) => {
      const result = await connected.call(name, args, meta);
      answers.push(result);
      return result;
    },
  };
}

function accessTokenOf(marketplace: string): string | undefined {
  const request = upstream.requests.find(
    (candidate) => candidate.path === '/orders/v0/orders' && candidate.query.get('MarketplaceIds') === marketplace,
  );
  const header = request?.headers['x-amz-access-token'];
  return Array.isArray(header) ? header[0] : header;
}

beforeAll(async () => {
  upstream = await startSpUpstream();
  tokenServer = await startTokenServer();
  const address = tokenServer.address();
  tokenUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/auth/o2/token`;
  folder = mkdtempSync(join(tmpdir(), 'sp-identities-'));
  identitiesFile = join(folder, 'identities.json');
  writeFileSync(identitiesFile, JSON.stringify(IDENTITIES));
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((connected) => connected.close()));
  upstream.reset();
  upstream.respond({ status: 200, body: {} });
  upstream.requests.splice(0);
  const text = JSON.stringify(answers.splice(0)) + logged.splice(0).join('\n');
  for (const secret of SECRETS) expect(text).not.toContain(secret);
});

afterAll(async () => {
  await upstream.close();
  await new Promise((resolve) => tokenServer.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

describe('SP_IDENTITIES_FILE', () => {
  it('refuses a malformed file with the entry and field, never a token', () => {
    const env = { SELLER1_REFRESH_TOKEN: SELLER1_TOKEN };
    expect(() => parseIdentitiesFile('[{"id": 1', 'ids.json', env)).toThrow(
      /^SP_IDENTITIES_FILE ids\.json is not valid JSON/,
    );
    expect(() => parseIdentitiesFile('[]', 'ids.json', env)).toThrow(
      'SP_IDENTITIES_FILE ids.json must hold a non-empty JSON array of identities',
    );
    expect(() =>
      parseIdentitiesFile(JSON.stringify([{ ...IDENTITIES[0], region: 'atlantis' }]), 'ids.json', env),
    ).toThrow('SP_IDENTITIES_FILE ids.json: identities[0].region must be one of na, eu, fe (or a name of one)');
    expect(() =>
      parseIdentitiesFile(JSON.stringify([IDENTITIES[0], { ...IDENTITIES[0], name: 'again' }]), 'ids.json', env),
    ).toThrow('SP_IDENTITIES_FILE ids.json: identity id 1 appears twice');
    expect(() => parseIdentitiesFile(JSON.stringify(IDENTITIES), 'ids.json', env)).toThrow(
      new SpIdentityError(
        'SP_IDENTITIES_FILE ids.json: identities[1]: environment variable SELLER2_REFRESH_TOKEN (the refresh token of identity 2) is not set',
      ),
    );
    expect(() => parseIdentitiesFile(JSON.stringify([{ ...IDENTITIES[0], id: '1' }]), 'ids.json', env)).toThrow(
      'identities[0].id must be a positive integer',
    );
  });

  it('never quotes the text of a file that is not JSON (it may be a token pointed at by mistake)', () => {
    // JSON.parse's own message quotes the first characters of the text
    expect(() => parseIdentitiesFile(SELLER2_TOKEN, 'token.txt', {})).toThrow(
      new SpIdentityError('SP_IDENTITIES_FILE token.txt is not valid JSON'),
    );
    expect(() => parseIdentitiesFile(`SELLER1_REFRESH_TOKEN=${SELLER1_TOKEN}`, '.env', {})).toThrow(
      new SpIdentityError('SP_IDENTITIES_FILE .env is not valid JSON'),
    );
    expect(() => parseIdentitiesFile('[{"id": 1', 'ids.json', {})).toThrow(
      new SpIdentityError('SP_IDENTITIES_FILE ids.json is not valid JSON (at position 9)'),
    );
  });

  it('makes createSpServer fail at start-up on an unreadable file or both sources', async () => {
    const models = await loadBuiltInCatalog();
    expect(() => createSpServer({ models, env: { SP_IDENTITIES_FILE: join(folder, 'missing.json') } })).toThrow(
      `SP_IDENTITIES_FILE ${join(folder, 'missing.json')} cannot be read: ENOENT`,
    );
    expect(() =>
      createSpServer({
        models,
        env: { SP_IDENTITIES_FILE: identitiesFile, SP_IDENTITY_SERVICE_URL: 'http://127.0.0.1:9/' },
      }),
    ).toThrow('set SP_IDENTITIES_FILE or SP_IDENTITY_SERVICE_URL, not both');
    // fetch refuses URLs with credentials (every call would fail), and paths are appended to the URL
    const withPassword = (): unknown =>
      createSpServer({ models, env: { SP_IDENTITY_SERVICE_URL: 'http://agency:pw-secret-1234@127.0.0.1:9/idsvc' } });
    expect(withPassword).toThrow(
      new SpIdentityError(
        "SP_IDENTITY_SERVICE_URL must not carry a user name or password: set it to the service's base URL (GET /identities is appended) and the token in SP_IDENTITY_SERVICE_TOKEN",
      ),
    );
    expect(() =>
      createSpServer({ models, env: { SP_IDENTITY_SERVICE_URL: 'http://127.0.0.1:9/idsvc?key=k' } }),
    ).toThrow(
      new SpIdentityError(
        "SP_IDENTITY_SERVICE_URL must not carry a query string or a fragment: set it to the service's base URL (GET /identities is appended) and the token in SP_IDENTITY_SERVICE_TOKEN",
      ),
    );
  });

  it('lists identities without tokens, filtered by a free-text region', async () => {
    const connected = await server(fileEnv());
    const tools = (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['list_identities', 'set_active_identity']));
    expect((await connected.call('list_identities', {})).structuredContent).toEqual({
      identities: [
        { id: 1, name: 'Acme US', region: 'na', marketplace_ids: ['ATVPDKIKX0DER'] },
        { id: 2, name: 'Acme DE', region: 'eu', marketplace_ids: ['A1PA6795UKMFR9'] },
      ],
      active_identity_id: 1,
      source: 'file',
    });
    expect((await connected.call('list_identities', { region: 'Germany' })).structuredContent).toMatchObject({
      identities: [{ id: 2 }],
    });
    const envelope = envelopeOf(await connected.call('list_identities', { region: 'Atlantis' }));
    expect(envelope).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'INPUT_VALIDATION_FAILED',
      retryable: false,
    });
    expect(envelope.details[0]).toMatchObject({ path: 'region', field: 'region', allowed: ['na', 'eu', 'fe'] });
  });

  it("sends each SP-API call with the active identity's token; an unknown id answers SCHEMA_IDENTITY_NOT_FOUND", async () => {
    const connected = await server(fileEnv());
    expect((await connected.call('ordersV0_getOrders', GET_ORDERS)).isError).toBeFalsy();
    expect(accessTokenOf('ATVPDKIKX0DER')).toBe('access-for-1111');
    expect((await connected.call('set_active_identity', { identity_id: 2 })).structuredContent).toEqual({
      identity_id: 2,
      verified: true,
      name: 'Acme DE',
      region: 'eu',
      marketplace_ids: ['A1PA6795UKMFR9'],
    });
    await connected.call('ordersV0_getOrders', { ...GET_ORDERS, MarketplaceIds: ['A1PA6795UKMFR9'] });
    expect(accessTokenOf('A1PA6795UKMFR9')).toBe('access-for-2222');

    const envelope = envelopeOf(await connected.call('set_active_identity', { identity_id: 3 }));
    expect(envelope).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_IDENTITY_NOT_FOUND',
      retryable: false,
    });
    expect(envelope.details).toEqual([
      {
        path: 'identity_id',
        field: 'identity_id',
        issue: '3 is not one of the identity ids the server knows.',
        received_type: 'integer',
        allowed: [1, 2],
      },
    ]);
    expect(envelope.hints).toEqual(['Did you mean 2? Got 3.', 'Known identities: 1 (Acme US, na); 2 (Acme DE, eu).']);
    // the refused switch left the session on identity 2
    expect((await connected.call('list_identities', {})).structuredContent).toMatchObject({ active_identity_id: 2 });
    expect(envelopeOf(await connected.call('set_active_identity', { identity_id: '2' })).error_code).toBe(
      'SCHEMA_TYPE_MISMATCH',
    );
  });

  it("redacts an identity's refresh token that SP-API echoes back", async () => {
    const connected = await server(fileEnv());
    await connected.call('set_active_identity', { identity_id: 2 });
    upstream.route({
      method: 'GET',
      path: '/orders/v0/orders',
      response: {
        status: 400,
        body: { errors: [{ code: 'InvalidInput', message: `refresh ${SELLER2_TOKEN} rejected` }] },
      },
    });
    const envelope = envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS));
    expect(envelope.summary).toBe(
      'SP-API answered HTTP 400 Bad Request to GET /orders/v0/orders (InvalidInput): refresh [REDACTED] rejected',
    );
  });

  it('keeps the single-credential setup without identity tools', async () => {
    const connected = await server({ ...lwa(), LWA_REFRESH_TOKEN: SELLER1_TOKEN });
    const tools = (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).not.toContain('list_identities');
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    expect(accessTokenOf('ATVPDKIKX0DER')).toBe('access-for-1111');
  });
});

describe('SP_IDENTITY_SERVICE_URL', () => {
  const list = [
    { id: 7, name: 'Globex JP', region: 'fe', marketplace_ids: ['A1VC38T7YXB528'] },
    { id: 8, name: 'Globex US', region: 'na', marketplace_ids: ['ATVPDKIKX0DER'] },
  ];

  it('lists from GET /identities with the bearer token and uses GET /identities/{id} for the refresh token', async () => {
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 200, body: list } });
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities/8',
      response: { status: 200, body: { ...list[1], refresh_token: SELLER2_TOKEN } },
    });
    const connected = await server(serviceEnv());
    expect((await connected.call('list_identities', {})).structuredContent).toEqual({
      identities: list,
      active_identity_id: null,
      source: 'service',
    });
    expect(upstream.requests[0]?.headers['authorization']).toBe(`Bearer ${SERVICE_TOKEN}`);
    expect((await connected.call('set_active_identity', { identity_id: 8 })).structuredContent).toMatchObject({
      identity_id: 8,
      verified: true,
    });
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    await connected.call('ordersV0_getOrders', GET_ORDERS);
    expect(accessTokenOf('ATVPDKIKX0DER')).toBe('access-for-2222');
    // the identity's credentials are fetched once
    expect(upstream.requests.filter((request) => request.path === '/idsvc/identities/8')).toHaveLength(1);
    expect(envelopeOf(await connected.call('set_active_identity', { identity_id: 9 })).hints[0]).toBe(
      'Did you mean 8? Got 9.',
    );
  });

  it('asks the service again for a refresh token LWA refused (rotated there since)', async () => {
    const revoked = 'opaque-revoked-refresh-token-cccc3333';
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 200, body: list } });
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities/8',
      response: { status: 200, body: { ...list[1], refresh_token: revoked } },
    });
    const connected = await server(serviceEnv());
    await connected.call('set_active_identity', { identity_id: 8 });
    expect(envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS))).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
    });
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities/8',
      response: { status: 200, body: { ...list[1], refresh_token: SELLER2_TOKEN } },
    });
    expect((await connected.call('ordersV0_getOrders', GET_ORDERS)).isError).toBeFalsy();
    expect(accessTokenOf('ATVPDKIKX0DER')).toBe('access-for-2222');
    expect(upstream.requests.filter((request) => request.path === '/idsvc/identities/8')).toHaveLength(2);
    expect(JSON.stringify(answers) + logged.join('')).not.toContain(revoked);
  });

  it('answers OPENBRIDGE_HTTP_<status> for identity service failures, with their telemetry', async () => {
    const connected = await server(serviceEnv());
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities',
      response: { status: 401, body: { message: `token ${SERVICE_TOKEN} is not valid` } },
    });
    const refused = envelopeOf(await connected.call('list_identities', {}));
    expect(refused).toMatchObject({ error_kind: 'auth_error', error_code: 'OPENBRIDGE_HTTP_401', retryable: false });
    // the server's own hint must survive redaction intact
    expect(refused.hints[0]).toBe(OPENBRIDGE_HINTS.auth);
    expect(refused.hints.join(' ')).not.toContain('[REDACTED]');
    // the 503 first: after the 429 the pre-flight limiter holds the tool back for its Retry-After
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities',
      response: { status: 503, body: '<html>down</html>', headers: { 'content-type': 'text/html' } },
    });
    expect(envelopeOf(await connected.call('list_identities', {}))).toMatchObject({
      error_kind: 'sp_api_http',
      error_code: 'OPENBRIDGE_HTTP_503',
      retryable: true,
    });
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities',
      response: { status: 429, headers: { 'Retry-After': '7' }, body: { message: 'slow down' } },
    });
    const limited = envelopeOf(await connected.call('list_identities', {}));
    expect(limited).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      _meta: { retry_after_seconds: 7 },
    });
    expect(limited.details[0]).toMatchObject({ http_status: 429, service: 'identity' });
    expect(limited.summary).toBe(
      'The identity service answered HTTP 429 Too Many Requests to GET /idsvc/identities; retry after 7 s.',
    );
  });

  it('to a reader of v2, identity service answers name upstream openbridge; a reader of v1 still gets OPENBRIDGE_HTTP_<status>', async () => {
    const connected = await server(serviceEnv());
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 404, body: {} } });
    const missing = envelopeV2Of(await connected.call('list_identities', {}, READS_V1_AND_V2));
    expect(missing).toMatchObject({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_404',
      upstream: 'openbridge',
      retryable: false,
    });
    expect(missing.details[0]).toMatchObject({ http_status: 404, service: 'identity' });
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 401, body: {} } });
    expect(envelopeV2Of(await connected.call('list_identities', {}, READS_V1_AND_V2))).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'UPSTREAM_HTTP_401',
      upstream: 'openbridge',
    });
    // the same answer to a reader of v1: the identity service's own v1 code, no upstream field
    const v1 = envelopeOf(await connected.call('list_identities', {}));
    expect([v1.error_kind, v1.error_code, Object.hasOwn(v1, 'upstream')]).toEqual([
      'auth_error',
      'OPENBRIDGE_HTTP_401',
      false,
    ]);
  });

  it('falls through with an identity_unverified warning when the list is down or empty, and SP-API calls then meet the service', async () => {
    const connected = await server(serviceEnv());
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 503, body: {} } });
    // no identity id is past the safe integers, so such an id is refused even unverified
    const unsafe = envelopeOf(await connected.call('set_active_identity', { identity_id: 2 ** 53 + 2 }));
    expect(unsafe).toMatchObject({ error_kind: 'mcp_input_validation', error_code: 'SCHEMA_MAXIMUM' });
    expect(unsafe.details[0]).toMatchObject({ field: 'identity_id', limit: Number.MAX_SAFE_INTEGER });
    expect(upstream.requests.filter((request) => request.path === '/idsvc/identities')).toHaveLength(0);
    const down = await connected.call('set_active_identity', { identity_id: 5 });
    expect(down.isError).toBeFalsy();
    expect(down.structuredContent).toEqual({
      identity_id: 5,
      verified: false,
      _meta: {
        warnings: [
          {
            kind: 'identity_unverified',
            summary: 'Identity 5 was set without checking it: the identity list could not be read.',
            details: [],
            hints: ['Call list_identities to see the identities the server knows.'],
          },
        ],
      },
    });
    upstream.route({ method: 'GET', path: '/idsvc/identities/5', response: { status: 404, body: {} } });
    expect(envelopeOf(await connected.call('ordersV0_getOrders', GET_ORDERS))).toMatchObject({
      error_kind: 'sp_api_http',
      error_code: 'OPENBRIDGE_HTTP_404',
      retryable: false,
    });
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 200, body: [] } });
    const empty = await connected.call('set_active_identity', { identity_id: 6 });
    expect((empty.structuredContent as { _meta: { warnings: { summary: string }[] } })._meta.warnings[0]?.summary).toBe(
      'Identity 6 was set without checking it: the identity list is empty.',
    );
    upstream.route({ method: 'GET', path: '/idsvc/identities', response: { status: 403, body: {} } });
    expect(envelopeOf(await connected.call('set_active_identity', { identity_id: 6 })).error_code).toBe(
      'OPENBRIDGE_HTTP_403',
    );
  });
});

describe('SP_IDENTITY_SERVICE_URL, broken service', () => {
  it('answers a malformed list with sp_api_client and an unreachable service with a retryable one; set_active_identity falls through', async () => {
    const connected = await server(serviceEnv());
    upstream.route({
      method: 'GET',
      path: '/idsvc/identities',
      response: { status: 200, body: [{ id: 'one', name: 'x', region: 'na' }] },
    });
    const malformed = envelopeOf(await connected.call('list_identities', {}));
    expect(malformed).toMatchObject({
      error_kind: 'sp_api_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: false,
    });
    expect(malformed.summary).toBe(
      "The identity service's answer is malformed: identity service: identities[0].id must be a positive integer.",
    );
    const unreachable = await server({ ...lwa(), SP_IDENTITY_SERVICE_URL: 'http://127.0.0.1:9/idsvc' });
    const noAnswer = envelopeOf(await unreachable.call('list_identities', {}));
    expect(noAnswer).toMatchObject({
      error_kind: 'sp_api_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      retryable: true,
    });
    // the failure names the identity service, not the SP-API endpoint
    expect(noAnswer.details[0]).toMatchObject({ service: 'identity' });
    expect(noAnswer.hints).toEqual([IDENTITY_SERVICE_CLIENT_FAILURES.hints.network]);
    expect(noAnswer.hints[0]).toContain('SP_IDENTITY_SERVICE_URL');
    expect((await unreachable.call('set_active_identity', { identity_id: 4 })).structuredContent).toMatchObject({
      identity_id: 4,
      verified: false,
      _meta: { warnings: [{ kind: 'identity_unverified' }] },
    });
  });
});

describe('sessions over Streamable HTTP', () => {
  it('keeps a set_region choice, sandbox included, to the session that made it', async () => {
    const models = await loadBuiltInCatalog();
    const sp = createSpServer({ models, env: fileEnv(), envelope: { logger } });
    const handle = await sp.envelope.serveStreamableHttp({ port: 0 });
    const clients = [
      new Client({ name: 'sandbox-tester', version: '1.0.0' }),
      new Client({ name: 'live-seller', version: '1.0.0' }),
    ];
    try {
      for (const client of clients) await client.connect(new StreamableHTTPClientTransport(handle.url));
      const [tester, live] = clients as [Client, Client];
      const chosen = (await tester.callTool({
        name: 'set_region',
        arguments: { region: 'fe', sandbox: true },
      })) as CallToolResult;
      expect(chosen.structuredContent).toEqual({
        region: 'fe',
        sandbox: true,
        endpoint: 'https://sandbox.sellingpartnerapi-fe.amazon.com',
        upstream_override: false,
      });
      const other = (await live.callTool({ name: 'set_region', arguments: { region: 'na' } })) as CallToolResult;
      expect(other.structuredContent).toEqual({
        region: 'na',
        sandbox: false,
        endpoint: 'https://sellingpartnerapi-na.amazon.com',
        upstream_override: false,
      });
      // the server's default, for sessions that chose nothing, is the start-up setting
      expect(sp.baseUrl()).toBe('https://sellingpartnerapi-na.amazon.com');
      expect(sp.state).toMatchObject({ region: 'na', sandbox: false });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await handle.close();
    }
  });

  it('keeps each client on its own identity while both call at once', async () => {
    const models = await loadBuiltInCatalog();
    const sp = createSpServer({ models, env: fileEnv(), upstream: upstream.url, envelope: { logger } });
    const handle = await sp.envelope.serveStreamableHttp({ port: 0 });
    const clients = [
      new Client({ name: 'seller-one', version: '1.0.0' }),
      new Client({ name: 'seller-two', version: '1.0.0' }),
    ];
    try {
      for (const client of clients) await client.connect(new StreamableHTTPClientTransport(handle.url));
      const [one, two] = clients as [Client, Client];
      await two.callTool({ name: 'set_active_identity', arguments: { identity_id: 2 } });
      // only the second seller's calls meet rate-limit headers: the first must not see them
      upstream.route({
        method: 'GET',
        path: '/orders/v0/orders',
        query: { MarketplaceIds: 'A1PA6795UKMFR9' },
        response: { status: 200, headers: { 'x-amzn-RateLimit-Limit': '0.0167' }, body: { payload: { Orders: [] } } },
      });
      const marketplaces = ['ATVPDKIKX0DER', 'A1PA6795UKMFR9'];
      const results = (await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          (index % 2 === 0 ? one : two).callTool({
            name: 'ordersV0_getOrders',
            arguments: { ...GET_ORDERS, MarketplaceIds: [marketplaces[index % 2]] },
          }),
        ),
      )) as CallToolResult[];
      answers.push(...results);
      expect(results.every((result) => result.isError !== true)).toBe(true);
      expect(results.map((result) => (result.structuredContent as { _meta?: unknown })._meta)).toEqual([
        undefined,
        { rate_limit: { limit_per_second: 0.0167 } },
        undefined,
        { rate_limit: { limit_per_second: 0.0167 } },
        undefined,
        { rate_limit: { limit_per_second: 0.0167 } },
      ]);
      const tokens = (marketplace: string): string[] =>
        upstream.requests
          .filter((request) => request.query.get('MarketplaceIds') === marketplace)
          .map((request) => String(request.headers['x-amz-access-token']));
      expect(tokens('ATVPDKIKX0DER')).toEqual(['access-for-1111', 'access-for-1111', 'access-for-1111']);
      expect(tokens('A1PA6795UKMFR9')).toEqual(['access-for-2222', 'access-for-2222', 'access-for-2222']);
      const listed = (await Promise.all(
        clients.map((client) => client.callTool({ name: 'list_identities', arguments: {} })),
      )) as CallToolResult[];
      answers.push(...listed);
      expect(
        listed.map((result) => (result.structuredContent as { active_identity_id: number }).active_identity_id),
      ).toEqual([1, 2]);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await handle.close();
    }
  });

  it('gives each 2026-07-28 request the first identity: a choice lasts for the request that made it', async () => {
    const models = await loadBuiltInCatalog();
    const sp = createSpServer({ models, env: fileEnv(), upstream: upstream.url, envelope: { logger } });
    const handle = await sp.envelope.serveStreamableHttp({ port: 0 });
    const modern = (): ClientV2 =>
      new ClientV2({ name: 'stateless', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const clients = [modern(), modern()];
    try {
      for (const client of clients) await client.connect(new StreamableHTTPClientTransportV2(handle.url));
      const [one, two] = clients as [ClientV2, ClientV2];
      const chosen = await one.callTool({ name: 'set_active_identity', arguments: { identity_id: 2 } });
      expect(chosen.isError).not.toBe(true);
      const listed = await Promise.all(
        [two, one].map((client) => client.callTool({ name: 'list_identities', arguments: {} })),
      );
      answers.push(...listed);
      expect(
        listed.map((result) => (result.structuredContent as { active_identity_id: number }).active_identity_id),
      ).toEqual([1, 1]);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await handle.close();
    }
  });
});
