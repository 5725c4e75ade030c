/**
 * Connects the real MCP SDK client to a reference SP server in this process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { validateEnvelope } from '@mcp-envelope/contract';
import type { ErrorEnvelope, ErrorEnvelopeV1 } from '@mcp-envelope/contract';
import { afterAll, beforeAll, expect } from 'vitest';

import { createSpServer, loadBuiltInCatalog } from '../../src/index.js';
import type { SpModel, SpServer, SpServerOptions } from '../../src/index.js';
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

/** A connected client and its server. */
export interface Connected {
  readonly client: Client;
  readonly server: SpServer;
  /** Calls a tool; `meta` is the request's `_meta` (e.g. {@link READS_V1_AND_V2}). */
  call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Starts core's upstream replay server as these tests use it: a request no route or queue answers
 * gets `200 {}` unless a test says otherwise with `respond`.
 */
export function startSpUpstream(): Promise<UpstreamReplay> {
  return startAmazonReplay({ standing: { status: 200, body: {} } });
}

/** The LWA variables pointing at the replay server's token endpoint. */
export function lwaEnv(upstream: UpstreamReplay): Record<string, string> {
  return {
    LWA_CLIENT_ID: 'amzn1.application-oa2-client.testclient0001',
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.00aa11bb22cc33dd44ee55ff66',
    LWA_REFRESH_TOKEN: 'Atzr|fake-refresh-token',
    LWA_TOKEN_URL: upstream.tokenUrl,
    // these servers answer many recorded 429s and rate headers in a row: what the limiter learns
    // from one test would refuse the next; the limiter's own tests switch it back on
    MCP_RATE_LIMIT: 'off',
  };
}

const silentLogger = { error: (): void => undefined, warn: (): void => undefined };

let catalog: Promise<SpModel[]> | undefined;

/**
 * Creates a server (built-in catalog unless `models` is given) and connects a client to it.
 *
 * @param options - server options; `models` defaults to the built-in catalog.
 */
export async function connect(
  options: Partial<SpServerOptions> & { readonly env: Record<string, string | undefined> },
): Promise<Connected> {
  catalog ??= loadBuiltInCatalog();
  const server = createSpServer({
    models: options.models ?? (await catalog),
    ...options,
    envelope: { logger: silentLogger, ...options.envelope },
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.envelope.connect(serverTransport);
  const client = new Client({ name: 'sp-adapter-tests', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    server,
    call: async (name, args, meta) =>
      (await client.callTool({
        name,
        arguments: args,
        ...(meta === undefined ? {} : { _meta: meta }),
      })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.envelope.close();
    },
  };
}

/**
 * A request `_meta` by which a client states it reads contract versions 1 and 2: the server then
 * answers in v2. A client that states nothing is a reader of v1 and gets v1.
 */
export const READS_V1_AND_V2: Readonly<Record<string, unknown>> = Object.freeze({
  'io.github.mcp-envelope/envelope': { contract_versions: [1, 2] },
});

/**
 * The envelope of an error result to a client that stated no contract version (so v1), checked
 * to be a valid v1 envelope whose text copy parses to the same object.
 *
 * @param result - a tool result expected to be `isError`.
 */
export function envelopeOf(result: CallToolResult): ErrorEnvelopeV1 {
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as unknown as ErrorEnvelopeV1;
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
  const block = result.content[0];
  expect(block?.type === 'text' ? (JSON.parse(block.text) as unknown) : block).toEqual(envelope);
  return envelope;
}

/** The built-in catalog with getOrders on a plan of one call per minute, burst 1: its second call is refused by the limiter. */
export async function modelsWithPlan(): Promise<SpModel[]> {
  const models = await loadBuiltInCatalog();
  return models.map((model) => ({
    ...model,
    operations: model.operations.map((operation) =>
      operation.toolName === 'ordersV0_getOrders'
        ? { ...operation, rateLimit: { ratePerSecond: 1 / 60, burst: 1 } }
        : operation,
    ),
  }));
}

/**
 * A loopback SP upstream for the tests of one file: started before them, closed after.
 *
 * @returns a getter for it (it exists once the file's `beforeAll` has run).
 */
export function useSpUpstream(): () => UpstreamReplay {
  const held: { upstream?: UpstreamReplay } = {};
  beforeAll(async () => {
    held.upstream = await startSpUpstream();
  });
  afterAll(async () => {
    await held.upstream?.close();
  });
  return () => {
    if (held.upstream === undefined) throw new Error('the SP upstream is used before its beforeAll ran');
    return held.upstream;
  };
}

/**
 * The envelope of an error result to a client that stated it reads v1 and v2 ({@link READS_V1_AND_V2}),
 * checked to be a valid v2 envelope whose text copy parses to the same object.
 *
 * @param result - a tool result expected to be `isError`.
 */
export function envelopeV2Of(result: CallToolResult): ErrorEnvelope {
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as unknown as ErrorEnvelope;
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
  const block = result.content[0];
  expect(block?.type === 'text' ? (JSON.parse(block.text) as unknown) : block).toEqual(envelope);
  return envelope;
}
