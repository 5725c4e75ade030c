/**
 * A tool that asks the client for input (`inputRequiredResult`), through real clients over
 * Streamable HTTP on 127.0.0.1: the SDK v2 client at 2026-07-28 fulfils the embedded elicitation
 * and calls again with the answer and the signed `requestState`; at 2025-11-25 the SDK v2 and v1
 * clients get the elicitation as a request over their session. A changed `requestState` is
 * refused with -32602 before the tool runs again, an object shaped like an input-required result
 * that a handler returns as data stays data, and Code Mode, which cannot give a tool input, gets
 * an `internal_error` envelope.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer, inputRequiredResult } from '../src/index.js';
import type { EnvelopeTool, StreamableHttpHandle } from '../src/index.js';

import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

/** How often the confirming tool's handler ran, and the states it read back. */
const seen: { runs: number; states: unknown[] } = { runs: 0, states: [] };

const CONFIRM_DELETE: EnvelopeTool = {
  name: 'delete_order',
  description: 'Deletes an order once the user confirms.',
  inputSchema: { type: 'object', properties: { order_id: { type: 'integer' } }, required: ['order_id'] },
  handler: async (args, context) => {
    seen.runs += 1;
    const state = context.requestState();
    seen.states.push(state);
    const confirmed = acceptedContent(context.request.mcpReq.inputResponses, 'confirm')?.['ok'];
    if (confirmed === true && typeof state === 'object' && state !== null)
      return { deleted: (state as { order: unknown }).order };
    return inputRequiredResult({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: `Delete order ${String(args['order_id'])}?`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        }),
      },
      requestState: await context.mintRequestState({ order: args['order_id'] }),
    });
  },
};

/** A handler whose data merely looks like an input-required result. */
const LOOKALIKE: EnvelopeTool = {
  name: 'lookalike',
  inputSchema: { type: 'object', properties: {} },
  handler: () => ({ resultType: 'input_required', requestState: 'forged' }),
};

const log = captureLog();
let handle: StreamableHttpHandle;

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'input-required', version: '0.0.1' },
    adapter: testAdapter,
    tools: [CONFIRM_DELETE, LOOKALIKE],
    options: { env: {}, logger: log.logger },
  });
  handle = await server.serveStreamableHttp();
});

afterAll(async () => {
  await handle.close();
});

/** An SDK v2 client that accepts every elicitation with `{ ok: true }` and records its messages. */
async function clientV2(
  era: 'legacy' | 'modern',
  fetch?: typeof globalThis.fetch,
): Promise<{ client: ClientV2; messages: string[] }> {
  const messages: string[] = [];
  const client = new ClientV2(
    { name: `input-required-${era}`, version: '0.0.1' },
    {
      capabilities: { elicitation: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    messages.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  await client.connect(new TransportV2(handle.url, fetch === undefined ? {} : { fetch }));
  return { client, messages };
}

describe('a tool that asks the client for input', () => {
  it.each(['modern', 'legacy'] as const)(
    'the SDK v2 client (%s era) answers the elicitation and gets the result',
    async (era) => {
      const { client, messages } = await clientV2(era);
      seen.runs = 0;
      seen.states = [];
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
        const result = await client.callTool({ name: 'delete_order', arguments: { order_id: 7 } });
        expect(result.structuredContent).toEqual({ deleted: 7 });
        expect(result.content).toEqual([{ type: 'text', text: '{"deleted":7}' }]);
        expect(messages).toEqual(['Delete order 7?']);
        // two runs: the first asks, the second reads the answer and its own verified state
        expect(seen).toEqual({ runs: 2, states: [undefined, { order: 7 }] });
      } finally {
        await client.close();
      }
    },
  );

  it('the SDK v1 client (2025-11-25) gets the elicitation as a request over its session', async () => {
    const messages: string[] = [];
    const client = new Client({ name: 'input-required-v1', version: '0.0.1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      messages.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    try {
      const result = await client.callTool({ name: 'delete_order', arguments: { order_id: 9 } });
      expect(result.structuredContent).toEqual({ deleted: 9 });
      expect(messages).toEqual(['Delete order 9?']);
    } finally {
      await client.close();
    }
  });

  it('a changed requestState is refused with -32602 and the tool does not run on it', async () => {
    // the client echoes the state with one character changed
    const tampering: typeof globalThis.fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : undefined;
      if (body === undefined || !body.includes('"requestState"')) return fetch(input, init);
      return fetch(input, { ...init, body: body.replace(/"requestState":"v1\./, '"requestState":"v1.A') });
    };
    const { client } = await clientV2('modern', tampering);
    seen.runs = 0;
    try {
      await expect(client.callTool({ name: 'delete_order', arguments: { order_id: 3 } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid or expired requestState') as unknown,
      });
      expect(seen.runs).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('data shaped like an input-required result is sent as data', async () => {
    const { client } = await clientV2('modern');
    try {
      const result = await client.callTool({ name: 'lookalike', arguments: {} });
      expect(result.structuredContent).toEqual({ resultType: 'input_required', requestState: 'forged' });
      expect(result.isError).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it("Code Mode's inner call gets an internal_error envelope: code cannot answer the client's part", async () => {
    const server = createEnvelopeServer({
      info: { name: 'input-required-code-mode', version: '0.0.1' },
      adapter: testAdapter,
      tools: [CONFIRM_DELETE],
      options: { env: { CODE_MODE: 'true' }, logger: log.logger },
    });
    const codeHandle = await server.serveStreamableHttp();
    const client = new ClientV2({ name: 'input-required-code', version: '0.0.1' });
    try {
      await client.connect(new TransportV2(codeHandle.url));
      const result = await client.callTool({
        name: 'execute_code',
        arguments: { code: "const reply = await callTool('delete_order', { order_id: 5 }); return reply.error_kind;" },
      });
      expect(result.isError).toBeUndefined();
      expect((result.structuredContent as { result: unknown }).result).toBe('internal_error');
      expect(log.raw.some((line) => line.includes('asked the client for input, which this caller cannot give'))).toBe(
        true,
      );
    } finally {
      await client.close();
      await codeHandle.close();
      await server.close();
    }
  });
});
