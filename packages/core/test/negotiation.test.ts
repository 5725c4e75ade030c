/**
 * Which contract version each client is answered in, over the wire: real SDK v2 clients of both
 * protocol eras (2025-11-25 states its versions in its capabilities at `initialize`, 2026-07-28 in
 * every request's `_meta`) on Streamable HTTP at 127.0.0.1, and the SDK v1 client, against a
 * server that speaks v1 and v2 (upstream `sp-api`) and one that speaks v2 only (`example-api`).
 */
import { ENVELOPE_EXTENSION_ID, MIGRATIONS, validateEnvelope, validateEnvelopeVersion } from '@mcp-envelope/contract';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeServer, StreamableHttpHandle } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';
import { createTestServer, REPORT_NOT_FOUND, REPORT_NOT_FOUND_V2, TEST_TOOLS } from './fixtures/test-server.js';

type Era = 'legacy' | 'modern';

/** The `_meta` or capability value stating `versions`. */
function stating(versions: unknown): Record<string, unknown> {
  return { [ENVELOPE_EXTENSION_ID]: { contract_versions: versions } };
}

/** The same test server, on an adapter whose upstream v1 never knew: it speaks v2 only. */
function createExampleServer(): EnvelopeServer {
  return createEnvelopeServer({
    info: { name: 'example-server', version: '0.0.1' },
    adapter: { ...testAdapter, id: 'example', upstreams: ['example-api'] },
    tools: TEST_TOOLS,
    options: { env: {}, additionalErrorKinds: ['sandbox_runtime'], logger: captureLog().logger, migrations: [] },
  });
}

const handles: { sp?: StreamableHttpHandle; example?: StreamableHttpHandle } = {};
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  handles.sp = await createTestServer().serveStreamableHttp();
  handles.example = await createExampleServer().serveStreamableHttp();
});

afterAll(async () => {
  for (const client of clients.splice(0)) await client.close();
  await handles.sp?.close();
  await handles.example?.close();
});

async function clientV2(
  era: Era,
  server: 'sp' | 'example',
  capabilities: Record<string, unknown> = {},
): Promise<ClientV2> {
  const client = new ClientV2(
    { name: `negotiation-${era}`, version: '0.0.1' },
    {
      capabilities,
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(handles[server]!.url));
  clients.push(client);
  return client;
}

/** The envelope of `report_summary`'s upstream 404, with `_meta` sent on the request when given. */
async function notFound(
  client: { callTool: ClientV2['callTool'] },
  meta?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await client.callTool({
    name: 'report_summary',
    arguments: { fail: true },
    ...(meta === undefined ? {} : { _meta: meta }),
  });
  expect(result.isError).toBe(true);
  const text = (result.content as { text: string }[])[0]!.text;
  // both channels always carry the same envelope
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

describe.each(['legacy', 'modern'] as const)('SDK v2 client, %s era', (era) => {
  it('a client that states nothing gets the server default: v1 from SP-like, v2 from a v2-only server', async () => {
    const v1 = await notFound(await clientV2(era, 'sp'));
    expect(v1).toEqual(REPORT_NOT_FOUND);
    expect(validateEnvelopeVersion(v1, 1)).toEqual({ valid: true, version: 1 });
    const v2 = await notFound(await clientV2(era, 'example'));
    expect(v2).toEqual({ ...REPORT_NOT_FOUND_V2, upstream: 'example-api' });
    expect(validateEnvelopeVersion(v2, 2)).toEqual({ valid: true, version: 2 });
  });

  it('the capability states the versions (extension or experimental key)', async () => {
    const extension = await clientV2(era, 'sp', { extensions: stating([1, 2]) });
    expect(await notFound(extension)).toEqual(REPORT_NOT_FOUND_V2);
    const experimental = await clientV2(era, 'sp', {
      experimental: { openbridge_envelope: { contract_versions: [2] } },
    });
    expect(await notFound(experimental)).toEqual(REPORT_NOT_FOUND_V2);
    const onlyV1 = await clientV2(era, 'sp', { extensions: stating([1]) });
    expect(await notFound(onlyV1)).toEqual(REPORT_NOT_FOUND);
  });

  it('an extension entry that states no versions does not hide the experimental key that does', async () => {
    const client = await clientV2(era, 'sp', {
      extensions: { [ENVELOPE_EXTENSION_ID]: {} },
      experimental: { openbridge_envelope: { contract_versions: [1, 2] } },
    });
    expect(await notFound(client)).toEqual(REPORT_NOT_FOUND_V2);
  });

  it('the request _meta wins over the capability', async () => {
    const client = await clientV2(era, 'sp', { extensions: stating([1, 2]) });
    expect(await notFound(client, stating([1]))).toEqual(REPORT_NOT_FOUND);
    expect(await notFound(client, stating([2]))).toEqual(REPORT_NOT_FOUND_V2);
    expect(await notFound(client)).toEqual(REPORT_NOT_FOUND_V2);
  });

  it.each([
    ['[1]', [1], 1],
    ['[2]', [2], 2],
    ['[1, 2]', [1, 2], 2],
    ['[3]', [3], 1],
    ['"2"', '2', 1],
    ['{}', {}, 1],
  ] as const)('per request %s -> version %i', async (_label, versions, expected) => {
    const client = await clientV2(era, 'sp');
    const envelope = await notFound(client, stating(versions));
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: expected });
  });

  it('a v2-only server answers v2 even to a client that reads v1 only', async () => {
    const envelope = await notFound(await clientV2(era, 'example'), stating([1]));
    expect(envelope['_envelope_version']).toBe(2);
  });
});

describe('SDK v1 client', () => {
  async function clientV1(server: EnvelopeServer, capabilities: Record<string, unknown> = {}): Promise<ClientV1> {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new ClientV1({ name: 'negotiation-v1', version: '0.0.1' }, { capabilities });
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    clients.push({ close: async () => Promise.all([client.close(), server.close()]).then(() => undefined) });
    return client;
  }

  it('states its versions at initialize in the experimental capability, or per request', async () => {
    const plain = await clientV1(createTestServer());
    expect(await notFound(plain as unknown as ClientV2)).toEqual(REPORT_NOT_FOUND);
    expect(await notFound(plain as unknown as ClientV2, stating([1, 2]))).toEqual(REPORT_NOT_FOUND_V2);
    const stated = await clientV1(createTestServer(), {
      experimental: { openbridge_envelope: { contract_versions: [1, 2] } },
    });
    expect(await notFound(stated as unknown as ClientV2)).toEqual(REPORT_NOT_FOUND_V2);
  });

  it('gets the unknown-tool JSON-RPC error in the version it reads, message and data alike', async () => {
    const server = createTestServer({ unknownToolAs: 'jsonrpc' });
    const client = await clientV1(server);
    const errorOf = async (meta?: Record<string, unknown>): Promise<{ message: string; data: unknown }> => {
      try {
        await client.callTool({ name: 'nope', arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) });
      } catch (error) {
        return error as { message: string; data: unknown };
      }
      throw new Error('expected a JSON-RPC error');
    };
    const v1 = await errorOf();
    expect(v1.data).toMatchObject({ error_kind: 'tool_not_found', _envelope_version: 1 });
    expect(v1.message).toContain(JSON.stringify(v1.data));
    const v2 = await errorOf(stating([2]));
    expect(v2.data).toMatchObject({ error_kind: 'tool_not_found', _envelope_version: 2 });
    expect(v2.message).toContain(JSON.stringify(v2.data));
  });
});

describe('what core builds in v2, as each reader gets it', () => {
  async function inMemory(
    server: EnvelopeServer,
  ): Promise<
    (name: string, meta?: Record<string, unknown>, args?: Record<string, unknown>) => Promise<Record<string, unknown>>
  > {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new ClientV1({ name: 'v2-inside', version: '0.0.1' });
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    clients.push({ close: async () => Promise.all([client.close(), server.close()]).then(() => undefined) });
    return async (name, meta, args = {}) =>
      (await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }))
        .structuredContent as Record<string, unknown>;
  }

  const GITHUB_404 = {
    error_kind: 'upstream_http',
    tool: 'inner_tool',
    summary: 'GitHub answered 404.',
    details: [],
    hints: [],
    examples: [],
    error_code: 'UPSTREAM_HTTP_404',
    retryable: false,
    _envelope_version: 2,
    upstream: 'github',
  } as const;

  it('a relayed envelope keeps its own upstream; v1 cannot express it, so a reader of v1 gets v2', async () => {
    const call = await inMemory(
      createTestServer({}, [
        {
          name: 'relay_github',
          inputSchema: { type: 'object' },
          handler: () => {
            throw new Error(`ToolError: ${JSON.stringify(GITHUB_404)}`);
          },
        },
      ]),
    );
    expect(await call('relay_github', stating([2]))).toEqual(GITHUB_404);
    expect(await call('relay_github')).toEqual(GITHUB_404);
  });

  it('a relayed v1 envelope is upgraded for a reader of v2 and comes back unchanged to a reader of v1', async () => {
    const call = await inMemory(createTestServer());
    const v1 = await call('relay_envelope');
    expect(v1).toMatchObject({ error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_404', _envelope_version: 1 });
    expect(await call('relay_envelope', stating([2]))).toMatchObject({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_404',
      upstream: 'sp-api',
      _envelope_version: 2,
    });
  });

  it("an adapter verdict naming an upstream outside the adapter's list becomes internal_error, logged", async () => {
    const log = captureLog();
    const server = createEnvelopeServer({
      info: { name: 'stray-upstream', version: '0.0.1' },
      adapter: {
        ...testAdapter,
        classify: (failure, context) => ({ ...testAdapter.classify(failure, context), upstream: 'elsewhere' }),
      },
      tools: TEST_TOOLS,
      options: { env: {}, additionalErrorKinds: ['sandbox_runtime'], logger: log.logger, migrations: [] },
    });
    const call = await inMemory(server);
    const envelope = await call('throttled', stating([2]));
    expect(envelope).toMatchObject({ error_kind: 'internal_error', error_code: 'INTERNAL_ERROR' });
    expect(log.lines[0]).toMatchObject({
      violations: [
        {
          path: '/upstream',
          keyword: 'advertised',
          message: 'upstream "elsewhere" is not one of this server\'s upstreams',
        },
      ],
    });
  });

  it('in the window release a v2 reader gets the v2 legacy kind, a v1 reader the v1 form without it', async () => {
    const relay = {
      name: 'relay_github',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error(`ToolError: ${JSON.stringify(GITHUB_404)}`);
      },
    } as const;
    const call = await inMemory(createTestServer({ version: '0.2.0', migrations: MIGRATIONS }, [...TEST_TOOLS, relay]));
    // another server's envelope never had SP's v1 kind: no legacy value for it
    expect(await call('relay_github', stating([2]))).toEqual(GITHUB_404);
    expect(await call('report_summary', stating([2]), { fail: true })).toMatchObject({
      error_kind: 'upstream_http',
      upstream: 'sp-api',
      legacy_error_kind: 'sp_api_http',
    });
    const v1 = await call('report_summary', undefined, { fail: true });
    expect(v1).toMatchObject({ error_kind: 'sp_api_http', error_code: 'SP_API_HTTP_404' });
    expect(v1).not.toHaveProperty('legacy_error_kind');
    // an upstream 429: v2 has no window for it; v1 keeps the v1 window's legacy kind
    expect(await call('throttled', stating([2]))).not.toHaveProperty('legacy_error_kind');
    expect(await call('throttled')).toMatchObject({ error_kind: 'rate_limited', legacy_error_kind: 'sp_api_http' });
  });
});
