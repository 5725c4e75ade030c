/**
 * The official suite's prompt and resource listings (`officialSuiteServerExtension` as
 * `extendSdkServer`), through the SDK v2 client at 2026-07-28 over Streamable HTTP on 127.0.0.1:
 * the prompt asks for context first and the client's answer shapes it; the resource listings are
 * empty, a read is refused with -32602, and every listing carries the caching hints the SDK adds.
 */
import { createEnvelopeServer } from '@mcp-envelope/core';
import type { StreamableHttpHandle } from '@mcp-envelope/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { officialSuiteServerExtension } from '../src/index.js';
import { captureLog, fixtureAdapter } from './support/server.js';

let handle: StreamableHttpHandle;
let client: Client;
const contexts: string[] = [];

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'suite-extension', version: '0.0.1' },
    adapter: fixtureAdapter,
    tools: [],
    options: { env: {}, logger: captureLog().logger, extendSdkServer: officialSuiteServerExtension },
  });
  handle = await server.serveStreamableHttp();
  client = new Client(
    { name: 'suite-extension-test', version: '0.0.1' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    contexts.push(request.params.message);
    return { action: 'accept', content: { context: 'order 7' } };
  });
  await client.connect(new StreamableHTTPClientTransport(handle.url));
});

afterAll(async () => {
  await client.close();
  await handle.close();
});

describe('officialSuiteServerExtension', () => {
  it('declares prompts and resources beside the tools', () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
  });

  it('serves the fixture prompt, which asks the client for context before it answers', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['test_input_required_result_prompt']);
    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(contexts).toEqual(['What context should the prompt use?']);
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Answer with this context in mind: order 7' } },
    ]);
    await expect(client.getPrompt({ name: 'other' })).rejects.toMatchObject({ code: -32602 });
  });

  it('lists no resources and refuses a read', async () => {
    expect(await client.listResources()).toMatchObject({ resources: [], ttlMs: 0, cacheScope: 'private' });
    expect(await client.listResourceTemplates()).toMatchObject({
      resourceTemplates: [],
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(await client.listPrompts()).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    await expect(client.readResource({ uri: 'test://static-text' })).rejects.toMatchObject({ code: -32602 });
  });
});
