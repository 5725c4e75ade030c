import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadBuiltInCatalog, loadSpModels } from '../src/index.js';
import { loadSpModel } from '../src/models.js';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { connect, lwaEnv, startSpUpstream } from './helpers/sp-client.js';

const MODELS = new URL('./fixtures/models/', import.meta.url).pathname;
const BROKEN = new URL('./fixtures/broken-models/', import.meta.url).pathname;

describe('loadSpModels on our own trimmed model files', () => {
  it('names tools <model>_<operationId> and keeps them unique', async () => {
    const models = await loadSpModels(MODELS);
    expect(models.map((model) => [model.model, model.title])).toEqual([
      ['gadgets20250115', 'Gadgets test model'],
      ['widgetsV0', 'Widgets test model'],
    ]);
    expect(
      models.flatMap((model) => model.operations.map((operation) => `${operation.method} ${operation.toolName}`)),
    ).toEqual([
      'PUT gadgets20250115_saveGadget',
      'POST gadgets20250115_saveGadget_post',
      'GET widgetsV0_listWidgets',
      'POST widgetsV0_createWidget',
      'GET widgetsV0_getWidget',
    ]);
  });

  it('converts path, query, header, $ref and body parameters, resolving a reference into another file', async () => {
    const widgets = await loadSpModel(`${MODELS}widgetsV0.json`);
    const [list, create, get] = widgets.operations;
    expect(list!.inputSchema).toEqual({
      type: 'object',
      properties: {
        MarketplaceIds: { type: 'array', maxItems: 5, items: { type: 'string' } },
        Colors: { type: 'array', items: { type: 'string', enum: ['Red', 'Blue'] } },
        PageSize: { type: 'integer', minimum: 1, maximum: 20 },
      },
      required: ['MarketplaceIds'],
    });
    expect(list!.parameters.map((parameter) => parameter.collectionFormat)).toEqual(['csv', 'multi', 'csv']);
    expect(create!.inputSchema['required']).toEqual(['x-amzn-idempotency-token', 'body']);
    const body = (create!.inputSchema['properties'] as Record<string, Record<string, unknown>>)['body']!;
    expect(body['required']).toEqual(['name', 'price']);
    expect(body['properties']).toEqual({
      name: { type: 'string', maxLength: 40 },
      price: { $ref: '#/$defs/Money' },
      parts: { type: 'array', items: { $ref: '#/$defs/Part' } },
    });
    // definitions once under $defs; the one from shared/money.json resolved by the library; recursion kept
    expect(create!.inputSchema['$defs']).toEqual({
      Money: {
        type: 'object',
        required: ['amount', 'currencyCode'],
        properties: { amount: { type: 'number', minimum: 0 }, currencyCode: { type: 'string', pattern: '^[A-Z]{3}$' } },
      },
      Part: {
        type: 'object',
        properties: { sku: { type: 'string' }, subParts: { type: 'array', items: { $ref: '#/$defs/Part' } } },
      },
    });
    expect(get!.inputSchema).toEqual({
      type: 'object',
      properties: { widgetId: { type: 'string' } },
      required: ['widgetId'],
    });
  });

  it('names the file that fails to load', async () => {
    await expect(loadSpModels(BROKEN)).rejects.toThrow(/cannot load model truncated\.json/);
    await expect(loadSpModels(`${MODELS}shared/../../models-missing`)).rejects.toThrow();
  });

  it('loads the built-in catalog: 15 operations written from the official models', async () => {
    const catalog = await loadBuiltInCatalog();
    expect(
      catalog
        .flatMap((model) => model.operations)
        .map((operation) => operation.operationId)
        .sort(),
    ).toEqual([
      'createDestination',
      'createFeedDocument',
      'createReport',
      'getCatalogItem',
      'getInventorySummaries',
      'getMarketplaceParticipations',
      'getOrder',
      'getOrderItems',
      'getOrders',
      'getReport',
      'getReports',
      'getShipment',
      'putListingsItem',
      'searchCatalogItems',
      'searchOrders',
    ]);
  });
});

describe('a server over loaded models', () => {
  let upstream: UpstreamReplay;
  beforeAll(async () => {
    upstream = await startSpUpstream();
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('sends path, query (csv and multi), header and body where the model says', async () => {
    const connected = await connect({
      env: lwaEnv(upstream),
      upstream: `${upstream.url}/prefix/`,
      models: await loadSpModels(MODELS),
    });
    try {
      upstream.respond({ status: 200, body: { widgets: [] } });
      await connected.call('widgetsV0_listWidgets', {
        MarketplaceIds: ['ATVPDKIKX0DER', 'A2EUQ1WTGCTBG2'],
        Colors: ['Red', 'Blue'],
        PageSize: 5,
      });
      const list = upstream.requests.at(-1)!;
      expect(`${list.method} ${list.path}?${list.rawQuery}`).toBe(
        'GET /prefix/widgets/v0/widgets?MarketplaceIds=ATVPDKIKX0DER,A2EUQ1WTGCTBG2&Colors=Red&Colors=Blue&PageSize=5',
      );

      await connected.call('widgetsV0_getWidget', { widgetId: 'a/b c' });
      expect(upstream.requests.at(-1)!.path).toBe('/prefix/widgets/v0/widgets/a%2Fb%20c');

      upstream.respond({ status: 201, body: { widgetId: 'w1' } });
      const created = await connected.call('widgetsV0_createWidget', {
        'x-amzn-idempotency-token': 'idem-1',
        body: { name: 'Cog', price: { amount: 2.5, currencyCode: 'EUR' } },
      });
      expect(created.structuredContent).toEqual({ widgetId: 'w1' });
      const post = upstream.requests.at(-1)!;
      expect([post.method, post.headers['x-amzn-idempotency-token'], post.headers['content-type'], post.body]).toEqual([
        'POST',
        'idem-1',
        'application/json',
        '{"name":"Cog","price":{"amount":2.5,"currencyCode":"EUR"}}',
      ]);

      const invalid = await connected.call('widgetsV0_createWidget', {
        'x-amzn-idempotency-token': 'idem-2',
        body: { name: 'Cog', price: { amount: 1, currencyCode: 'euro' } },
      });
      expect(invalid.isError).toBe(true);
      expect((invalid.structuredContent as Record<string, unknown>)['error_code']).toBe('SCHEMA_PATTERN_MISMATCH');

      // the same body as JSON text is parsed and checked through its $defs before anything is sent
      const sentBefore = upstream.requests.length;
      const asText = await connected.call('widgetsV0_createWidget', {
        'x-amzn-idempotency-token': 'idem-3',
        body: '{"name":"Cog","price":{"amount":1,"currencyCode":"euro"}}',
      });
      const envelope = asText.structuredContent as Record<string, unknown>;
      expect([envelope['error_kind'], envelope['error_code']]).toEqual([
        'mcp_input_validation',
        'SCHEMA_PATTERN_MISMATCH',
      ]);
      expect((envelope['details'] as Record<string, unknown>[])[0]?.['path']).toBe('body/price/currencyCode');
      expect(upstream.requests).toHaveLength(sentBefore);
    } finally {
      await connected.close();
    }
  });
});
