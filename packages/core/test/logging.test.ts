/**
 * The `logging` capability through a real SDK v2 client: `logging/setLevel`, and the server's own
 * log lines at or above the level sent to that client as `notifications/message`, redacted.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { LoggingMessageNotification } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../src/index.js';
import { createTestServer } from './fixtures/test-server.js';

const SECRET_TOOL: EnvelopeTool = {
  name: 'fail_with_secret',
  inputSchema: { type: 'object' },
  handler: () => {
    throw new Error('upstream refused Authorization: Bearer sk-live-0123456789abcdef');
  },
};

async function connected(): Promise<{
  client: Client;
  messages: LoggingMessageNotification['params'][];
  close: () => Promise<void>;
}> {
  const server = createTestServer({}, [SECRET_TOOL]);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'logging-test', version: '0.0.1' });
  const messages: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler('notifications/message', (notification) => {
    messages.push(notification.params);
  });
  await client.connect(clientTransport);
  return {
    client,
    messages,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/**
 * Resolves once every notification the server sent before now has reached the client: the
 * transport keeps order, so they all arrive before the answer to a ping sent after them.
 */
async function settle(client: Client): Promise<void> {
  await client.ping();
}

describe('logging/setLevel and log notifications', () => {
  it('declares logging, sends nothing before a level is set, then lines at or above it, redacted', async () => {
    const { client, messages, close } = await connected();
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.callTool({ name: 'fail_with_secret', arguments: {} });
    await settle(client);
    expect(messages).toEqual([]);

    expect(await client.setLoggingLevel('warning')).toEqual({});
    const result = await client.callTool({ name: 'fail_with_secret', arguments: {} });
    const correlationId = (result.structuredContent as { _meta: { correlation_id: string } })._meta.correlation_id;
    await settle(client);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      level: 'error',
      logger: 'mcp-envelope',
      data: {
        message: 'tool call failed with an unclassified error',
        correlation_id: correlationId,
        tool: 'fail_with_secret',
      },
    });
    const text = JSON.stringify(messages[0]);
    expect(text).not.toContain('sk-live-0123456789abcdef');
    expect(text).toContain('upstream refused');

    // above the line's level: nothing more
    await client.setLoggingLevel('critical');
    await client.callTool({ name: 'fail_with_secret', arguments: {} });
    await settle(client);
    expect(messages).toHaveLength(1);
    await close();
  });
});
