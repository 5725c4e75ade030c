/**
 * A wrapped `McpServer` whose tools change after it was wrapped: core lists them again, serves the
 * new list and sends `notifications/tools/list_changed` to its own clients. SDK v1 and v2
 * `McpServer`, each served over Streamable HTTP on 127.0.0.1 to a real SDK v1 and v2 client.
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { wrapMcpServer } from '../../src/index.js';
import type { EnvelopeServer, StreamableHttpHandle } from '../../src/index.js';
import { envelopeOf, watcherV1, watcherV2 } from '../fixtures/list-changed.js';
import type { Watcher } from '../fixtures/list-changed.js';
import { catalogAdapter } from './fixtures/catalog-mcp-servers.js';

const silent = { error: () => undefined, warn: () => undefined };

/** What a test does to the wrapped server's tools, whichever SDK line it is on. */
interface Inner {
  readonly server: McpServerV1 | McpServerV2;
  /** Registers `name`, answering the text `hello from <name>`. */
  add(name: string): { disable(): void; remove(): void };
}

function text(name: string): { content: { type: 'text'; text: string }[] } {
  return { content: [{ type: 'text', text: `hello from ${name}` }] };
}

function innerV1(): Inner {
  const server = new McpServerV1({ name: 'changing-v1', version: '1.0.0' });
  return {
    server,
    add: (name) => server.registerTool(name, { description: `The tool ${name}.`, inputSchema: {} }, () => text(name)),
  };
}

function innerV2(): Inner {
  const server = new McpServerV2({ name: 'changing-v2', version: '2.0.0' });
  return {
    server,
    add: (name) =>
      server.registerTool(name, { description: `The tool ${name}.`, inputSchema: z.object({}) }, () => text(name)),
  };
}

const open: { wrapped?: EnvelopeServer; handle?: StreamableHttpHandle; client?: Watcher } = {};

afterEach(async () => {
  await open.client?.close();
  await open.handle?.close();
  await open.wrapped?.close();
});

describe.each([
  ['SDK v1 McpServer', innerV1],
  ['SDK v2 McpServer', innerV2],
])('%s wrapped, its tools changed afterwards', (_server, makeInner) => {
  describe.each([
    ['SDK v1 client', watcherV1],
    ['SDK v2 client', watcherV2],
  ])('%s', (_client, connect) => {
    it('tells the client, lists and calls an added tool, and answers tool_not_found for a disabled or removed one', async () => {
      const inner = makeInner();
      const first = inner.add('first_tool');
      const second = inner.add('second_tool');
      open.wrapped = await wrapMcpServer(inner.server, { adapter: catalogAdapter, options: { logger: silent } });
      open.handle = await open.wrapped.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
      const client = await connect(open.handle.url.href);
      open.client = client;
      expect(client.listChanged()).toBe(true);
      expect(await client.names()).toEqual(['first_tool', 'second_tool', 'get_envelope_contract']);

      let told = client.nextChange();
      inner.add('added_tool');
      await told;
      expect(await client.names()).toEqual(['first_tool', 'second_tool', 'added_tool', 'get_envelope_contract']);
      const added = await client.call('added_tool');
      expect(added.isError).toBeUndefined();
      expect(added.content).toEqual([{ type: 'text', text: 'hello from added_tool' }]);

      told = client.nextChange();
      first.disable();
      await told;
      expect(await client.names()).toEqual(['second_tool', 'added_tool', 'get_envelope_contract']);
      expect(envelopeOf(await client.call('first_tool'))).toMatchObject({
        error_kind: 'tool_not_found',
        tool: 'first_tool',
        retryable: false,
      });

      told = client.nextChange();
      second.remove();
      await told;
      expect(await client.names()).toEqual(['added_tool', 'get_envelope_contract']);
      expect(envelopeOf(await client.call('second_tool'))).toMatchObject({
        error_kind: 'tool_not_found',
        tool: 'second_tool',
      });
    });

    it('lists again at most twice for a flood of changes, and tells its client as often', async () => {
      const inner = makeInner();
      inner.add('tool_0');
      open.wrapped = await wrapMcpServer(inner.server, { adapter: catalogAdapter, options: { logger: silent } });
      open.handle = await open.wrapped.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
      const client = await connect(open.handle.url.href);
      open.client = client;
      const names = Array.from({ length: 30 }, (_unused, index) => `tool_${String(index + 1)}`);
      const flood = client.nextChange();
      for (const name of names) inner.add(name);
      await flood;
      // the flood's re-lists run one after another: once the last tool is served, all have run
      while (!(await client.names()).includes('tool_30')) await client.nextChange();
      const later = client.nextChange();
      inner.add('tool_last');
      await later;
      while (!(await client.names()).includes('tool_last')) await client.nextChange();
      expect(await client.names()).toEqual(['tool_0', ...names, 'tool_last', 'get_envelope_contract']);
      expect(client.changeCount()).toBeLessThanOrEqual(3);
    });
  });
});
