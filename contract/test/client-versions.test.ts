/**
 * The client helpers state the contract versions they read and read both: real SDK clients (v1
 * `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client` in both protocol eras) over
 * Streamable HTTP on 127.0.0.1, against a small SP-like server that answers each request in the
 * version it negotiates from what the request stated, as a conforming server does.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  ENVELOPE_EXTENSION_ID,
  ToolEnvelopeError,
  callOrThrow,
  callWithEnvelope,
  negotiateContractVersion,
  statedContractVersions,
  toV1Envelope,
  unwrapToolResult,
  upgradeEnvelope,
  validateEnvelope,
} from '../src/index.js';
import type { ReceivedEnvelope, ToolCallingClient } from '../src/index.js';
import { SP_NOT_FOUND_ENVELOPE } from './envelope-fixtures.js';

/** The versions this server speaks: an SP-like server during the window. */
const SPOKEN = [1, 2] as const;

/** What the server records: the `_meta` of every `tools/call` it served. */
interface Seen {
  readonly metas: unknown[];
}

/** The envelope in the version a request negotiated: v2 as built, or its v1 form. */
function envelopeFor(meta: unknown): unknown {
  const stated = statedContractVersions((meta as Record<string, unknown> | undefined)?.[ENVELOPE_EXTENSION_ID]);
  return negotiateContractVersion(stated, SPOKEN) === 2 ? SP_NOT_FOUND_ENVELOPE : toV1Envelope(SP_NOT_FOUND_ENVELOPE);
}

function echoServer(seen: Seen): Server {
  const server = new Server({ name: 'versions-echo', version: '0.0.1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', (request) => {
    const meta = request.params._meta;
    seen.metas.push(meta ?? null);
    if (request.params.name === 'echo_meta') {
      const stated: unknown = meta?.[ENVELOPE_EXTENSION_ID] ?? null;
      return { content: [{ type: 'text', text: 'ok' }], structuredContent: { stated } };
    }
    const envelope = envelopeFor(meta) as Record<string, unknown>;
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
  });
  return server;
}

/** Hands one Node request to a web-standard handler and writes its answer back. */
async function forward(
  fetch: (request: Request) => Promise<Response>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) headers.append(name, item);
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && chunks.length > 0;
  const answer = await fetch(
    new Request(`http://127.0.0.1${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
    }),
  );
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (answer.body !== null) for await (const chunk of answer.body) response.write(chunk);
  response.end();
}

interface Served {
  readonly url: URL;
  readonly seen: Seen;
  close(): Promise<void>;
}

async function serve(): Promise<Served> {
  const seen: Seen = { metas: [] };
  const handler = createMcpHandler(() => echoServer(seen), { legacy: 'stateless' });
  const server = createServer((request, response) => {
    forward((web) => handler.fetch(web), request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    seen,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

type Kind = 'sdk v1' | 'sdk v2, 2025-11-25' | 'sdk v2, 2026-07-28';

interface Connected {
  readonly client: ToolCallingClient;
  readonly era: string | undefined;
  close(): Promise<void>;
}

async function connect(kind: Kind, url: URL): Promise<Connected> {
  if (kind === 'sdk v1') {
    const client = new ClientV1({ name: 'versions-v1', version: '0.0.1' });
    const transport = new TransportV1(url);
    await client.connect(transport);
    return { client, era: transport.protocolVersion, close: () => client.close() };
  }
  const client = new ClientV2(
    { name: 'versions-v2', version: '0.0.1' },
    kind === 'sdk v2, 2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new TransportV2(url));
  return { client, era: client.getNegotiatedProtocolVersion(), close: () => client.close() };
}

let served: Served;

beforeAll(async () => {
  served = await serve();
});

afterAll(async () => {
  await served.close();
});

/** One handler for v1 and v2: a v1 envelope is upgraded, then the v2 kinds decide. */
function handle(envelope: ReceivedEnvelope): string {
  const v2 = envelope._envelope_version === 1 ? upgradeEnvelope(envelope as never) : envelope;
  if (v2 === undefined) return 'no v2 form';
  switch (v2.error_kind) {
    case 'upstream_http':
      return `${String(v2.upstream)} answered ${v2.error_code}`;
    case 'rate_limited':
      return 'wait';
    default:
      return `other: ${v2.error_kind}`;
  }
}

describe.each<[Kind, string]>([
  ['sdk v1', '2025-11-25'],
  ['sdk v2, 2025-11-25', '2025-11-25'],
  ['sdk v2, 2026-07-28', '2026-07-28'],
])('%s', (kind, era) => {
  let connected: Connected;

  beforeAll(async () => {
    connected = await connect(kind, served.url);
  });

  afterAll(async () => {
    await connected.close();
  });

  it(`talks the ${era} era`, () => {
    expect(connected.era).toBe(era);
  });

  it('callWithEnvelope states [1, 2] in the request _meta; the client passes it on the wire', async () => {
    expect(await callWithEnvelope(connected.client, 'echo_meta')).toEqual([
      { stated: { contract_versions: [1, 2] } },
      null,
    ]);
  });

  it('callOrThrow states what contractVersions says', async () => {
    expect(await callOrThrow(connected.client, 'echo_meta', {}, { contractVersions: [1] })).toEqual({
      stated: { contract_versions: [1] },
    });
  });

  it('reads the v2 envelope the server answers [1, 2] with, and tells its version', async () => {
    const [value, envelope] = await callWithEnvelope(connected.client, 'get_order', { orderId: '902-3159896-1390916' });
    expect(value).toBeNull();
    expect(envelope).toEqual(SP_NOT_FOUND_ENVELOPE);
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
    expect(handle(envelope as ReceivedEnvelope)).toBe('sp-api answered UPSTREAM_HTTP_404');
  });

  it('reads the v1 envelope the server answers [1] with: ToolEnvelopeError says version 1', async () => {
    const error = await callOrThrow(connected.client, 'get_order', {}, { contractVersions: [1] }).catch(
      (caught: unknown) => caught,
    );
    if (!ToolEnvelopeError.isInstance(error)) throw new Error(`expected a ToolEnvelopeError, got ${String(error)}`);
    expect([error.envelope_version, error.error_kind, error.error_code, error.upstream, error.channel]).toEqual([
      1,
      'sp_api_http',
      'SP_API_HTTP_404',
      undefined,
      'is_error',
    ]);
    expect(validateEnvelope(error.envelope)).toEqual({ valid: true, version: 1 });
    expect(handle(error.envelope)).toBe('sp-api answered UPSTREAM_HTTP_404');
  });

  it('a caller that states nothing (a v1 reader) gets v1, and a raw `_envelope_version == 1` check holds', async () => {
    const result = (await connected.client.callTool({ name: 'get_order', arguments: {} })) as {
      content: { text: string }[];
    };
    const raw = JSON.parse(result.content[0]?.text ?? '') as Record<string, unknown>;
    expect([raw['_envelope_version'] === 1, raw['error_kind'], raw['error_code']]).toEqual([
      true,
      'sp_api_http',
      'SP_API_HTTP_404',
    ]);
    const unwrapped = unwrapToolResult(result);
    expect(!unwrapped.ok && 'envelope' in unwrapped ? unwrapped.envelope._envelope_version : 0).toBe(1);
  });
});

describe('contractVersions that are not a list of versions', () => {
  it.each<[readonly number[]]>([
    [[]],
    [[0]],
    [['2'] as unknown as number[]],
    [[1.5]],
    [[1, -2]],
    ['1,2' as unknown as number[]],
  ])('%j: TypeError before anything is sent', async (versions) => {
    const connected = await connect('sdk v2, 2026-07-28', served.url);
    try {
      const before = served.seen.metas.length;
      await expect(callWithEnvelope(connected.client, 'echo_meta', {}, { contractVersions: versions })).rejects.toThrow(
        new TypeError(
          `contractVersions must be a non-empty list of contract versions (integers from 1), got ${JSON.stringify(versions)}`,
        ),
      );
      await expect(callOrThrow(connected.client, 'echo_meta', {}, { contractVersions: versions })).rejects.toThrow(
        TypeError,
      );
      expect(served.seen.metas.length).toBe(before);
    } finally {
      await connected.close();
    }
  });

  it('a later version is stated as given (a reader of v3 may state it); the server answers in its highest', async () => {
    const connected = await connect('sdk v1', served.url);
    try {
      expect(await callWithEnvelope(connected.client, 'echo_meta', {}, { contractVersions: [2, 3] })).toEqual([
        { stated: { contract_versions: [2, 3] } },
        null,
      ]);
      const [, envelope] = await callWithEnvelope(connected.client, 'get_order', {}, { contractVersions: [2, 3] });
      expect(envelope?._envelope_version).toBe(2);
    } finally {
      await connected.close();
    }
  });
});
