/**
 * The envelope server every benchmark builds: a silent logger, an adapter that classifies
 * nothing (the benchmarks' handlers never fail upstream), and no environment switches, so that
 * the figures measure core alone.
 */
import { Writable } from 'node:stream';

import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';

import { createEnvelopeLogger, createEnvelopeServer } from '../dist/index.js';
import type { EnvelopeAdapter, EnvelopeServer, EnvelopeServerOptions, EnvelopeTool } from '../dist/index.js';

/** A logger whose lines go nowhere. */
export const silentLogger = createEnvelopeLogger(
  new Writable({
    write: (_chunk, _encoding, callback) => {
      callback();
    },
  }),
);

/** An adapter with no error kinds of its own, whose classification is never reached. */
export const benchAdapter: EnvelopeAdapter = {
  id: 'bench',
  errorKinds: [],
  upstreams: [],
  classify: () => ({
    error_kind: 'internal_error',
    error_code: 'INTERNAL_ERROR',
    retryable: false,
    summary: 'unused',
    details: [],
    hints: [],
  }),
  parseResponseMeta: () => ({}),
};

/**
 * An envelope server named `name` serving `tools` with {@link benchAdapter}, {@link silentLogger}
 * and an empty environment.
 *
 * @param options - further server options (e.g. `codeMode`).
 */
export function benchServer(
  name: string,
  tools: readonly EnvelopeTool[],
  options: EnvelopeServerOptions = {},
): EnvelopeServer {
  return createEnvelopeServer({
    info: { name, version: '0.0.0' },
    adapter: benchAdapter,
    tools,
    options: { env: {}, logger: silentLogger, ...options },
  });
}

/**
 * The baseline of the call benchmarks: a bare low-level SDK v2 server listing `listed` and
 * answering `tools/call` of the tool `bench` with `handler`'s value as JSON text and
 * `structuredContent` (no validation, no envelope).
 *
 * @param handler - the tool's work; a promise is awaited.
 * @param listed - the tools `tools/list` answers with.
 */
export function bareServer(
  handler: (args: Record<string, unknown>) => unknown,
  listed: readonly Pick<EnvelopeTool, 'name' | 'description' | 'inputSchema'>[],
): Server {
  const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  const tools = listed.map(({ name, description, inputSchema }) => ({
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema: inputSchema as { type: 'object' },
  }));
  server.setRequestHandler('tools/list', () => ({ tools }));
  const shaped = (value: unknown): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
  });
  server.setRequestHandler('tools/call', (request) => {
    if (request.params.name !== 'bench') throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown tool');
    const value = handler(request.params.arguments ?? {});
    return value instanceof Promise ? value.then(shaped) : shaped(value);
  });
  return server;
}

/**
 * A v2 SDK client connected to `server` over a linked pair of in-memory transports.
 *
 * @param server - an SDK server or an envelope server.
 */
export async function connectInMemory(server: {
  connect(transport: InMemoryTransport): Promise<void>;
}): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench-client', version: '0.0.0' });
  await client.connect(clientTransport);
  return client;
}
