import { compileTool } from '@mcp-envelope/core/adapter';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import { loadBuiltInCatalog, loadSpModels, SP_HINT_TABLES } from '../src/index.js';
import type { SpModel } from '../src/index.js';

import { connect } from './helpers/sp-client.js';

const MODELS = new URL('./fixtures/models/', import.meta.url).pathname;
const REFERENCES = new URL('./fixtures/reference-models/', import.meta.url).pathname;

/** What the start-up no longer checks: every published tool schema compiles, meta-check included. */
describe('operation schemas are checked on the first call, and every generated one is valid', () => {
  it.each([
    ['the built-in catalog', loadBuiltInCatalog],
    ['the fixture models', () => loadSpModels(MODELS)],
    ['the reference models', () => loadSpModels(REFERENCES)],
  ])('every tool of %s publishes a schema that compiles', async (_label, load) => {
    const connected = await connect({ env: {}, models: await load() });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await connected.client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(tools.length).toBeGreaterThan(connected.server.operations.size);
    for (const tool of tools) {
      expect(() =>
        compileTool(tool.name, tool.inputSchema, {
          normalizationEnabled: true,
          strictUnknownFields: true,
          hints: SP_HINT_TABLES,
          compile: 'eager',
        }),
      ).not.toThrow();
    }
    await connected.close();
  });

  it('a broken hand-made operation schema starts the server, and only that tool answers internal_error', async () => {
    const models: SpModel[] = [
      {
        model: 'handmade',
        file: 'handmade.json',
        operations: [
          {
            toolName: 'handmade_broken',
            model: 'handmade',
            operationId: 'broken',
            method: 'GET',
            path: '/broken',
            deprecated: false,
            parameters: [],
            inputSchema: { type: 'object', properties: { a: { type: 'objekt' } } },
          },
        ],
      },
    ];
    const connected = await connect({ env: {}, models });
    const broken = await connected.call('handmade_broken', { a: 1 });
    const envelope = broken.structuredContent as Record<string, unknown>;
    expect([broken.isError, envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual([
      true,
      'internal_error',
      'INTERNAL_ERROR',
      'handmade_broken',
    ]);
    const region = await connected.call('set_region', { region: 'eu' });
    expect(region.isError).toBeUndefined();
    expect(region.structuredContent).toMatchObject({ region: 'eu', sandbox: false });
    await connected.close();
  });
});
