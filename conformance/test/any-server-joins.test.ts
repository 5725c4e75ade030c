// Any server can join the family: a server built on core with a ten-line adapter for an upstream
// no Amazon server knows (`example-api`, test/fixtures/example-api-server.ts, no cast anywhere)
// starts, advertises what it can emit, answers every upstream failure in contract v2 with its own
// upstream named, inherits no migration window, and the probe says CONFORMANT. Over stdio (a child
// process) and Streamable HTTP on 127.0.0.1, with the real SDK v2 and SDK v1 clients.
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { validateEnvelopeVersion } from '@mcp-envelope/contract';
import type { ClassifiedError, StreamableHttpHandle } from '@mcp-envelope/core';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { probeServer } from '../src/probe.js';
import { createExampleServer } from './fixtures/example-api-server.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_FILE = fileURLToPath(new URL('./fixtures/example-api-server.ts', import.meta.url));

/** What the loopback upstream answers for `/items/<id>`: a status, a dropped connection, or the item. */
function answer(id: string, response: ServerResponse): void {
  const status = Number(id);
  if (id === 'drop') {
    response.socket?.destroy();
    return;
  }
  response.writeHead(Number.isInteger(status) && status >= 400 ? status : 200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(status >= 400 ? { message: `status ${id}` } : { id }));
}

let upstream: Server;
let upstreamUrl: string;
let http: StreamableHttpHandle;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    answer(decodeURIComponent((request.url ?? '').replace(/^\/items\//, '')), response);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  http = await createExampleServer(upstreamUrl).serveStreamableHttp({ port: 0 });
});

afterAll(async () => {
  await http.close();
  await new Promise<void>((resolve) => {
    upstream.close(() => {
      resolve();
    });
  });
});

/** The command line that serves the example server over stdio. */
function stdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', SERVER_FILE, upstreamUrl] };
}

/** The calls every combination makes, through either SDK. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  capabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

async function connect(sdk: 'v2' | 'v1', over: 'stdio' | 'http'): Promise<Caller> {
  const env = { PATH: process.env['PATH'] ?? '' };
  if (sdk === 'v2') {
    const client = new ClientV2({ name: 'joins-v2', version: '0.0.1' });
    await client.connect(
      over === 'stdio'
        ? new StdioTransportV2({ ...stdioCommand(), cwd: PACKAGE_ROOT, env, stderr: 'ignore' })
        : new HttpTransportV2(http.url),
    );
    return {
      callTool: (params) => client.callTool(params),
      capabilities: () => client.getServerCapabilities(),
      close: () => client.close(),
    };
  }
  const client = new ClientV1({ name: 'joins-v1', version: '0.0.1' });
  await client.connect(
    over === 'stdio'
      ? new StdioTransportV1({ ...stdioCommand(), cwd: PACKAGE_ROOT, env, stderr: 'ignore' })
      : new HttpTransportV1(http.url),
  );
  return {
    callTool: (params) => client.callTool(params),
    capabilities: () => client.getServerCapabilities(),
    close: () => client.close(),
  };
}

/** The envelope of an error result, after checking both channels carry it and it is a valid v2 one. */
function envelopeOf(result: unknown): Record<string, unknown> {
  const { isError, content, structuredContent } = result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent: Record<string, unknown>;
  };
  expect(isError).toBe(true);
  expect(JSON.parse(content[0]!.text)).toEqual(structuredContent);
  expect(validateEnvelopeVersion(structuredContent, 2)).toEqual({ valid: true, version: 2 });
  expect(structuredContent).not.toHaveProperty('legacy_error_kind');
  return structuredContent;
}

describe.each([
  ['v2', 'stdio'],
  ['v2', 'http'],
  ['v1', 'stdio'],
  ['v1', 'http'],
] as const)('SDK %s client over %s', (sdk, over) => {
  let caller: Caller;

  beforeAll(async () => {
    caller = await connect(sdk, over);
  }, 60_000);

  afterAll(async () => {
    await caller.close();
  });

  it('advertises contract v2 only, its kinds and its upstream', () => {
    const capability = (caller.capabilities()?.['experimental'] as Record<string, unknown>)['openbridge_envelope'];
    expect(capability).toEqual({
      contract_version: 2,
      error_kinds: [
        'mcp_input_validation',
        'tool_not_found',
        'upstream_http',
        'upstream_client',
        'auth_error',
        'rate_limited',
        'internal_error',
      ],
      normalized_kinds: [],
      contract_versions: [2],
      upstreams: ['example-api'],
      error_kinds_by_version: {
        '2': [
          'mcp_input_validation',
          'tool_not_found',
          'upstream_http',
          'upstream_client',
          'auth_error',
          'rate_limited',
          'internal_error',
        ],
      },
    });
  });

  it.each([
    ['404', { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_404', retryable: false }],
    ['500', { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_500', retryable: true }],
    ['401', { error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_401', retryable: false }],
    ['drop', { error_kind: 'upstream_client', error_code: 'TOOL_EXECUTION_FAILED', retryable: true }],
    // last: after an upstream 429 the server's limiter backs off before the next call of the tool
    ['429', { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true }],
  ] as const)('upstream answer %s -> its v2 kind, naming example-api', async (id, expected) => {
    const envelope = envelopeOf(await caller.callTool({ name: 'get_item', arguments: { id } }));
    expect(envelope).toMatchObject({ ...expected, upstream: 'example-api', tool: 'get_item', _envelope_version: 2 });
  });

  it('its own failures name no upstream and carry no legacy kind (unknown tool, bad arguments)', async () => {
    const unknown = envelopeOf(await caller.callTool({ name: 'get_itme', arguments: {} }));
    expect(unknown).toMatchObject({ error_kind: 'tool_not_found', error_code: 'TOOL_NOT_FOUND' });
    const invalid = envelopeOf(await caller.callTool({ name: 'get_item', arguments: {} }));
    expect(invalid).toMatchObject({ error_kind: 'mcp_input_validation', error_code: 'SCHEMA_REQUIRED' });
    expect([unknown, invalid].map((envelope) => Object.hasOwn(envelope, 'upstream'))).toEqual([false, false]);
  });

  it('answers the item itself when the upstream does', async () => {
    const result = (await caller.callTool({ name: 'get_item', arguments: { id: 'a1' } })) as {
      structuredContent?: unknown;
    };
    expect(result.structuredContent).toEqual({ id: 'a1' });
  });
});

describe('the conformance probe', () => {
  it.each(['stdio', 'http'] as const)(
    'says CONFORMANT over %s',
    async (over) => {
      const { command, args } = stdioCommand();
      const report = await probeServer({
        target:
          over === 'stdio'
            ? { transport: 'stdio', commandLine: [command, ...args].join(' '), cwd: PACKAGE_ROOT }
            : { transport: 'http', url: http.url.href },
        timeoutMs: 20_000,
      });
      const failed = report.rows.filter((row) => row.result === 'FAIL');
      expect(failed).toEqual([]);
      expect(report.conformant).toBe(true);
    },
    120_000,
  );
});

describe('the adapter seam', () => {
  it('does not compile a vendor kind', () => {
    const vendor: ClassifiedError = {
      // @ts-expect-error a vendor kind is not a contract v2 kind: every server names its upstream in `upstream`
      error_kind: 'github_api_http',
      error_code: 'UPSTREAM_HTTP_404',
      retryable: false,
      summary: 'not found',
      details: [],
      hints: [],
      upstream: 'github',
    };
    expect(vendor.upstream).toBe('github');
  });
});
