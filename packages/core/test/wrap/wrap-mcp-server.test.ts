/**
 * `wrapMcpServer`: a book-catalog server written on the SDK's `McpServer` (`registerTool`, zod,
 * the global `fetch`) answers every failure with a v2 envelope once wrapped, its code unchanged.
 * Three setups, real SDK clients over real transports: the SDK v1 `McpServer` in a child process
 * over stdio (SDK v1 client), and the SDK v1 and v2 `McpServer` in this process over Streamable
 * HTTP on 127.0.0.1 (SDK v2 client). The catalog API is a replay server on 127.0.0.1.
 */
import { fileURLToPath } from 'node:url';

import { validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { wrapMcpServer } from '../../src/index.js';
import type { EnvelopeServer, StreamableHttpHandle } from '../../src/index.js';
import { captureLog } from '../fixtures/log-capture.js';
import { LATE_ISBN, catalogAdapter, catalogServerV1, catalogServerV2 } from './fixtures/catalog-mcp-servers.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/wrapped-stdio.ts', import.meta.url));

/** What a test needs of a connected client, whichever SDK line it is. */
interface Caller {
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ isError?: boolean | undefined; content: unknown[]; structuredContent?: unknown }>;
  capabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

let replay: UpstreamReplay;

beforeAll(async () => {
  replay = await startUpstreamReplay({
    routes: [
      {
        path: '/books/978-0-00',
        response: {
          status: 200,
          headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4' },
          body: { isbn: '978-0-00', title: 'A Catalog of Errors' },
        },
      },
      { path: '/books/404', response: { status: 404, body: { message: 'no such book' } } },
      {
        path: '/books/429',
        response: { status: 429, headers: { 'retry-after': '7' }, body: { message: 'slow down' } },
      },
      { path: '/books/503', response: { status: 503, body: 'unavailable' } },
      { path: '/books/000', response: { status: 200, dropConnection: true } },
      // answers long after the tool's one-second deadline
      { path: `/books/${LATE_ISBN}`, response: { status: 200, delayMs: 20_000, body: {} } },
      { path: '/reservations', response: { status: 201, body: { reserved: true } } },
    ],
  });
});

afterAll(async () => {
  await replay.close();
});

async function stdioCaller(): Promise<Caller> {
  const client = new ClientV1({ name: 'wrap-test-stdio', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER, replay.url],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
      stderr: 'ignore',
    }),
  );
  return {
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as Awaited<ReturnType<Caller['call']>>,
    capabilities: () => client.getServerCapabilities()?.experimental,
    close: () => client.close(),
  };
}

async function httpCaller(wrapped: EnvelopeServer): Promise<Caller> {
  const handle: StreamableHttpHandle = await wrapped.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
  const client = new ClientV2({ name: 'wrap-test-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
  return {
    call: (name, args) => client.callTool({ name, arguments: args }),
    capabilities: () => client.getServerCapabilities()?.experimental,
    close: async () => {
      await client.close();
      await handle.close();
      await wrapped.close();
    },
  };
}

const SETUPS: readonly [string, () => Promise<Caller>][] = [
  ['SDK v1 McpServer, stdio, SDK v1 client', stdioCaller],
  [
    'SDK v1 McpServer, Streamable HTTP, SDK v2 client',
    async () => httpCaller(await wrapMcpServer(catalogServerV1(replay.url), { adapter: catalogAdapter })),
  ],
  [
    'SDK v2 McpServer, Streamable HTTP, SDK v2 client',
    async () => httpCaller(await wrapMcpServer(catalogServerV2(replay.url), { adapter: catalogAdapter })),
  ],
];

/** The envelope of an error result, after checking both channels carry the same valid one. */
function envelopeOf(result: Awaited<ReturnType<Caller['call']>>): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [block] = result.content as [{ type: string; text: string }];
  expect(JSON.parse(block.text)).toEqual(result.structuredContent);
  expect(validateEnvelope(result.structuredContent).valid).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

describe.each(SETUPS)('%s', (_name, connect) => {
  let caller: Caller;

  beforeAll(async () => {
    caller = await connect();
  }, 60_000);

  afterAll(async () => {
    await caller.close();
  });

  it('advertises the envelope capability with the adapter kinds', () => {
    expect(caller.capabilities()?.['openbridge_envelope']).toMatchObject({
      contract_version: 2,
      error_kinds: expect.arrayContaining(['mcp_input_validation', 'upstream_http', 'rate_limited', 'internal_error']),
    });
  });

  it('passes a success through as the tool returned it', async () => {
    const result = await caller.call('get_book', { isbn: '978-0-00' });
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: '{"isbn":"978-0-00","title":"A Catalog of Errors"}' }]);
  });

  it('adds the upstream rate-limit headers to a structured success as _meta', async () => {
    const result = await caller.call('count_books', {});
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({
      count: 1,
      _meta: { rate_limit: { limit_per_second: 5, remaining: 4 } },
    });
  });

  it('classifies an upstream 404 the tool returned as isError text', async () => {
    expect(envelopeOf(await caller.call('get_book', { isbn: '404' }))).toEqual({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_404',
      upstream: 'catalog-api',
      retryable: false,
      tool: 'get_book',
      summary: 'The catalog API answered HTTP 404.',
      details: [],
      hints: [],
      examples: [],
      _envelope_version: 2,
    });
  });

  it('classifies an upstream 429 with its Retry-After', async () => {
    expect(envelopeOf(await caller.call('get_book', { isbn: '429' }))).toMatchObject({
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      upstream: 'catalog-api',
      retryable: true,
      _meta: { retry_after_seconds: 7 },
    });
  });

  it('classifies an upstream 503 as retryable', async () => {
    expect(envelopeOf(await caller.call('get_book', { isbn: '503' }))).toMatchObject({
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_503',
      retryable: true,
    });
  });

  it('classifies a connection the upstream dropped as a client failure', async () => {
    expect(envelopeOf(await caller.call('get_book', { isbn: '000' }))).toMatchObject({
      error_kind: 'upstream_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      upstream: 'catalog-api',
      retryable: true,
    });
  });

  it('classifies a request the tool abandoned at its deadline as a timeout', async () => {
    const envelope = envelopeOf(await caller.call('get_book', { isbn: LATE_ISBN }));
    expect(envelope).toMatchObject({
      error_kind: 'upstream_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      upstream: 'catalog-api',
      retryable: true,
    });
    expect(envelope['summary']).toMatch(/^No answer from .* within \d+ ms\.$/);
  });

  it('answers a thrown error with internal_error and a correlation id, as core answers any unclassified failure', async () => {
    const envelope = envelopeOf(await caller.call('reserve_book', { isbn: '978-0-00', days: 13 }));
    expect(envelope).toMatchObject({
      error_kind: 'internal_error',
      error_code: 'INTERNAL_ERROR',
      retryable: false,
      tool: 'reserve_book',
      summary: 'The server failed while running this tool. The failure has been logged.',
      _meta: { correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    expect(JSON.stringify(envelope)).not.toContain('13 days');
  });

  it('answers arguments the listed schema refuses with SCHEMA_* codes', async () => {
    expect(envelopeOf(await caller.call('reserve_book', { isbn: '978-0-00', days: 40 }))).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_MAXIMUM',
      details: [expect.objectContaining({ path: 'days', limit: 28 })],
    });
    expect(envelopeOf(await caller.call('reserve_book', { days: 3 }))).toMatchObject({
      error_code: 'SCHEMA_REQUIRED',
      details: [expect.objectContaining({ field: 'isbn' })],
    });
  });

  it('answers a zod refinement the schema cannot express with INPUT_VALIDATION_FAILED', async () => {
    const envelope = envelopeOf(await caller.call('get_book', { isbn: 'abc' }));
    expect(envelope).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'INPUT_VALIDATION_FAILED',
      retryable: false,
    });
    expect(envelope['summary']).toContain('an ISBN holds digits, X and dashes only');
  });

  it('makes the reservation the tool was asked for', async () => {
    const result = await caller.call('reserve_book', { isbn: '978-0-00', days: 3 });
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'reserved' }]);
  });
});

describe('two wrapped servers in one process', () => {
  it('each classifies only the upstream requests of its own calls, run at the same time', async () => {
    const [first, second] = await Promise.all([
      httpCaller(await wrapMcpServer(catalogServerV1(replay.url), { adapter: catalogAdapter })),
      httpCaller(await wrapMcpServer(catalogServerV2(replay.url), { adapter: catalogAdapter })),
    ]);
    try {
      const rounds = await Promise.all(
        Array.from({ length: 5 }, () =>
          Promise.all([first.call('get_book', { isbn: '429' }), second.call('count_books', {})]),
        ),
      );
      for (const [limited, counted] of rounds) {
        expect(envelopeOf(limited)).toMatchObject({ error_code: 'RATE_LIMITED', _meta: { retry_after_seconds: 7 } });
        expect(counted.structuredContent).toEqual({
          count: 1,
          _meta: { rate_limit: { limit_per_second: 5, remaining: 4 } },
        });
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe('the log of a wrapped tool that failed', () => {
  it('holds its text under the correlation id its envelope names', async () => {
    const log = captureLog();
    const caller = await httpCaller(
      await wrapMcpServer(catalogServerV2(replay.url), { adapter: catalogAdapter, options: { logger: log.logger } }),
    );
    try {
      const envelope = envelopeOf(await caller.call('reserve_book', { isbn: '978-0-00', days: 13 }));
      const id = (envelope['_meta'] as { correlation_id: string }).correlation_id;
      expect(log.lines.filter((line) => line['correlation_id'] === id)).toEqual([
        expect.objectContaining({
          tool: 'reserve_book',
          error: expect.objectContaining({
            message: 'the wrapped tool failed: reservations of 13 days are not supported',
          }),
        }),
      ]);
    } finally {
      await caller.close();
    }
  });
});

describe('a server core cannot wrap', () => {
  it('is refused with the TypeError of its tools, and disconnected again', async () => {
    const mcpServer = new McpServer({ name: 'clash', version: '1.0.0' });
    mcpServer.registerTool('get_envelope_contract', { description: 'a name core registers itself' }, () => ({
      content: [],
    }));
    await expect(wrapMcpServer(mcpServer, { adapter: catalogAdapter })).rejects.toThrow(TypeError);
    expect(mcpServer.isConnected()).toBe(false);
  });
});

describe('a wrapped tool that answers an envelope itself', () => {
  it('has it passed through, its tool filled in', async () => {
    const conflict = {
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_409',
      upstream: 'catalog-api',
      tool: 'unknown_tool',
      summary: 'The book is already on loan.',
      details: [],
      hints: ['Reserve it instead.'],
      examples: [],
      retryable: false,
      _envelope_version: 2,
    };
    const mcpServer = new McpServer({ name: 'relay', version: '1.0.0' });
    mcpServer.registerTool('lend_book', { description: 'Lends a book.' }, () => ({
      isError: true,
      structuredContent: conflict,
      content: [{ type: 'text', text: JSON.stringify(conflict) }],
    }));
    const caller = await httpCaller(await wrapMcpServer(mcpServer, { adapter: catalogAdapter }));
    try {
      expect(envelopeOf(await caller.call('lend_book', {}))).toEqual({ ...conflict, tool: 'lend_book' });
    } finally {
      await caller.close();
    }
  });
});
