/**
 * Runs the reference server in-process behind the real MCP SDK client, with the replay server as
 * its upstream and LWA endpoint.
 */
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createEnvelopeLogger } from '@mcp-envelope/core';

import { createAdsServer } from '../../src/server/create-server.js';
import type { AdsServer, AdsServerOptions } from '../../src/server/create-server.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';

/** The folder of test OpenAPI descriptions. */
export const TEST_MODELS_DIR = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

/** The LWA client id the tests configure (also sent as the client id header). */
export const TEST_CLIENT_ID = 'amzn1.application-oa2-client.testclient0000000000000001';

/** The profile the tests start with. */
export const TEST_PROFILE_ID = 4455667788990011;

/** A connected client and the server behind it. */
export interface Harness {
  readonly client: Client;
  readonly server: AdsServer;
  /** JSON log lines the server wrote. */
  readonly logLines: string[];
  /** Calls a tool and returns the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * The env of a configured server pointed at `replay`.
 *
 * @param replay - the replay server.
 * @param extra - more or overriding variables.
 */
export function testEnv(
  replay: UpstreamReplay,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    LWA_CLIENT_ID: TEST_CLIENT_ID,
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.testsecret000000000000000000000001',
    LWA_REFRESH_TOKEN: 'Atzr|test-refresh-token-0001',
    LWA_TOKEN_URL: replay.tokenUrl,
    ADS_API_PROFILE_ID: String(TEST_PROFILE_ID),
    ...extra,
  };
}

/**
 * Starts the reference server and connects the SDK client to it in memory.
 *
 * @param options - server options (env, upstream, models folder, timeout).
 * @returns the harness.
 */
export async function startHarness(options: AdsServerOptions): Promise<Harness> {
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const server = await createAdsServer({ logger: createEnvelopeLogger(sink), ...options });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.envelope.connect(serverTransport);
  const client = new Client({ name: 'ads-adapter-tests', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    server,
    logLines,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.envelope.close();
    },
  };
}

/**
 * The envelope of an error result, checked to be identical on both channels.
 *
 * @param result - a tool result with `isError: true`.
 * @returns the envelope object.
 * @throws Error when the result is not an error or the channels disagree.
 */
export function envelopeOf(result: CallToolResult): Record<string, unknown> {
  if (result.isError !== true) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 500)}`);
  const block = result.content[0];
  if (block?.type !== 'text') throw new Error('error result has no text block');
  const fromText = JSON.parse(block.text) as Record<string, unknown>;
  if (JSON.stringify(fromText) !== JSON.stringify(result.structuredContent))
    throw new Error('text and structuredContent differ');
  return fromText;
}
