import { describe, expect, it } from 'vitest';

import { createEnvelopeServer, EnvelopeError } from '../src/index.js';
import { createRedactor } from '../src/adapter-entry.js';
import type { EnvelopeServer } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import { testAdapter } from './fixtures/test-adapter.js';

/** A server whose one tool answers with the text it is given (an upstream echoing what it was sent). */
function echoServer(name: string, redactor: ReturnType<typeof createRedactor>): EnvelopeServer {
  return createEnvelopeServer({
    info: { name, version: '0.0.1' },
    adapter: testAdapter,
    redactor,
    tools: [
      {
        name: 'echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        handler: (args: { text?: string }) => ({ echoed: args.text }),
      },
    ],
    options: { env: {}, migrations: [] },
  });
}

describe('each server owns its redactor', () => {
  it('a secret registered with one server is redacted in its answers, and unknown to another server in the same process', async () => {
    const first = createRedactor(testAdapter.redactions);
    const second = createRedactor(testAdapter.redactions);
    first.registerSecret('opaque-first-server-secret-0001');
    second.registerSecret('opaque-second-server-secret-0002');
    const one = await connectInMemory(echoServer('one', first));
    const two = await connectInMemory(echoServer('two', second));
    const text = 'a opaque-first-server-secret-0001 b opaque-second-server-secret-0002';
    const fromOne = await one.client.callTool({ name: 'echo', arguments: { text } });
    const fromTwo = await two.client.callTool({ name: 'echo', arguments: { text } });
    expect(fromOne.structuredContent).toEqual({ echoed: 'a [REDACTED] b opaque-second-server-secret-0002' });
    expect(fromTwo.structuredContent).toEqual({ echoed: 'a opaque-first-server-secret-0001 b [REDACTED]' });
    await one.close();
    await two.close();
  });

  it('a registered secret holding characters JSON escapes is redacted in a result and in an envelope', async () => {
    const secret = 'opaque"secret\\with-escapes-0004';
    const redactor = createRedactor(testAdapter.redactions);
    redactor.registerSecret(secret);
    const server = createEnvelopeServer({
      info: { name: 'escapes', version: '0.0.1' },
      adapter: testAdapter,
      redactor,
      tools: [
        { name: 'echo', inputSchema: { type: 'object' }, handler: () => ({ echoed: `token ${secret}` }) },
        {
          name: 'fails',
          inputSchema: { type: 'object' },
          handler: () => {
            throw new EnvelopeError({
              error_kind: 'internal_error',
              error_code: 'INTERNAL_ERROR',
              summary: `The upstream echoed ${secret}.`,
            });
          },
        },
      ],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'echo', arguments: {} });
    expect(result.structuredContent).toEqual({ echoed: 'token [REDACTED]' });
    const failed = await connected.client.callTool({ name: 'fails', arguments: {} });
    expect((failed.structuredContent as { summary: string }).summary).toBe('The upstream echoed [REDACTED].');
    expect(JSON.stringify(failed)).not.toContain('with-escapes-0004');
    await connected.close();
  });

  it('a server built without a redactor gets a new one from the adapter, knowing no secret', async () => {
    createRedactor(testAdapter.redactions).registerSecret('opaque-registered-elsewhere-03');
    const server = createEnvelopeServer({
      info: { name: 'plain', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'echo',
          inputSchema: { type: 'object' },
          handler: () => ({ echoed: 'opaque-registered-elsewhere-03 tok_abcdefgh123' }),
        },
      ],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'echo', arguments: {} });
    expect(result.structuredContent).toEqual({ echoed: 'opaque-registered-elsewhere-03 [REDACTED]' });
    await connected.close();
  });
});
