/**
 * `EnvelopeServer.replaceTools` and `notifications/tools/list_changed`: a running server's tools
 * are replaced, every connected client is told, and later lists and calls see the new tools while
 * a call in flight finishes on the old one. Real SDK v1 and v2 clients over Streamable HTTP on
 * 127.0.0.1.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import type { EnvelopeServer, EnvelopeTool, StreamableHttpHandle } from '../src/index.js';
import { changes, envelopeOf, watcherV1, watcherV2 } from './fixtures/list-changed.js';
import type { Watcher } from './fixtures/list-changed.js';
import { testAdapter } from './fixtures/test-adapter.js';

const silent = { error: () => undefined, warn: () => undefined };

/** A tool answering `{ tool: name }`, or what `answer` resolves to. */
function tool(name: string, answer?: () => Promise<unknown>): EnvelopeTool {
  return {
    name,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: answer ?? (() => ({ tool: name })),
  };
}

const open: { server?: EnvelopeServer; handle?: StreamableHttpHandle; clients: Watcher[] } = { clients: [] };

afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((client) => client.close()));
  await open.handle?.close();
  await open.server?.close();
});

async function serve(tools: readonly EnvelopeTool[], toolListChanged = true): Promise<string> {
  open.server = createEnvelopeServer({
    info: { name: 'list-changed', version: '1.0.0' },
    adapter: testAdapter,
    tools,
    options: { logger: silent, env: {}, toolListChanged },
  });
  open.handle = await open.server.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
  return open.handle.url.href;
}

describe.each([
  ['SDK v1 client', watcherV1],
  ['SDK v2 client', watcherV2],
])('replaceTools, %s over Streamable HTTP', (_name, connect) => {
  it('declares tools.listChanged, tells every session, and serves the new list', async () => {
    const url = await serve([tool('old_tool')]);
    const first = await connect(url);
    const second = await connect(url);
    open.clients.push(first, second);
    expect(first.listChanged()).toBe(true);
    expect(await first.names()).toEqual(['old_tool', 'get_envelope_contract']);

    const told = Promise.all([first.nextChange(), second.nextChange()]);
    open.server?.replaceTools([tool('new_tool')]);
    await told;

    expect(await first.names()).toEqual(['new_tool', 'get_envelope_contract']);
    expect(await second.names()).toEqual(['new_tool', 'get_envelope_contract']);
    const added = await first.call('new_tool');
    expect(added.isError).toBeUndefined();
    expect(added.structuredContent).toEqual({ tool: 'new_tool' });
    const removed = envelopeOf(await second.call('old_tool'));
    expect(removed).toMatchObject({ error_kind: 'tool_not_found', tool: 'old_tool', retryable: false });
  });

  it('tells a client once for a burst of replacements in one tick, not once per replacement', async () => {
    const url = await serve([tool('tool_0')]);
    const client = await connect(url);
    open.clients.push(client);
    const burst = client.nextChange();
    for (let index = 1; index <= 50; index += 1) open.server?.replaceTools([tool(`tool_${String(index)}`)]);
    await burst;
    expect(await client.names()).toEqual(['tool_50', 'get_envelope_contract']);
    // a later change, sent after the burst's on the same stream, so every notice before it has arrived
    const later = client.nextChange();
    open.server?.replaceTools([tool('tool_last')]);
    await later;
    expect(await client.names()).toEqual(['tool_last', 'get_envelope_contract']);
    expect(client.changeCount()).toBe(2);
  });
});

describe('replaceTools', () => {
  it('lets a call in flight finish on the tool it started with', async () => {
    let release: (value: unknown) => void = () => undefined;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    const started = changes();
    const slow = tool('slow_tool', async () => {
      started.seen();
      await held;
      return { finished: 'old' };
    });
    const client = await watcherV2(await serve([slow]));
    open.clients.push(client);
    const call = client.call('slow_tool');
    await started.next();
    const told = client.nextChange();
    open.server?.replaceTools([]);
    await told;
    release({});
    expect((await call).structuredContent).toEqual({ finished: 'old' });
    expect(envelopeOf(await client.call('slow_tool')).error_kind).toBe('tool_not_found');
  });

  it('refuses a tool list it cannot serve with a TypeError, and keeps the tools it had', async () => {
    const client = await watcherV2(await serve([tool('kept_tool')]));
    open.clients.push(client);
    expect(() => open.server?.replaceTools([tool('twice'), tool('twice')])).toThrow(
      new TypeError('tool name "twice" is registered twice'),
    );
    expect(() => open.server?.replaceTools([tool('get_envelope_contract')])).toThrow(TypeError);
    expect(await client.names()).toEqual(['kept_tool', 'get_envelope_contract']);
    expect((await client.call('kept_tool')).structuredContent).toEqual({ tool: 'kept_tool' });
  });

  it('without toolListChanged, declares no listChanged and still serves the new tools', async () => {
    const client = await watcherV2(await serve([tool('old_tool')], false));
    open.clients.push(client);
    expect(client.listChanged()).toBeUndefined();
    open.server?.replaceTools([tool('new_tool')]);
    expect(await client.names()).toEqual(['new_tool', 'get_envelope_contract']);
  });

  it('refuses a tools/list cursor issued for the old list', async () => {
    const server = createEnvelopeServer({
      info: { name: 'list-changed', version: '1.0.0' },
      adapter: testAdapter,
      tools: [tool('a'), tool('b')],
      options: { logger: silent, env: {}, pageSize: 1, toolListChanged: true },
    });
    open.server = server;
    open.handle = await server.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
    // the SDK v1 client asks for one page at a time (the v2 client follows the cursors itself)
    const client = new ClientV1({ name: 'cursor', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(open.handle.url)));
    const page = await client.listTools();
    expect(page.tools.map((listed) => listed.name)).toEqual(['a']);
    server.replaceTools([tool('c'), tool('d')]);
    await expect(client.listTools({ cursor: page.nextCursor })).rejects.toThrow(
      'Invalid cursor: it was not issued by this server for its current tool list',
    );
    await client.close();
  });
});
