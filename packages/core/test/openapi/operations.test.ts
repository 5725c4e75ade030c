import { readFileSync } from 'node:fs';

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';

import {
  OperationConverter,
  apiDescriptionFormat,
  convertOperations,
  documentBaseUrls,
} from '../../src/openapi/index.js';
import type { JsonSchema } from '../../src/output-schema.js';
import type { ConvertedOperation } from '../../src/openapi/index.js';

type Json = Record<string, unknown>;

function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Json;
}

/** A plain RFC 6901 lookup of local references, standing in for an adapter's reference library. */
function localResolver(document: Json): (reference: string) => unknown {
  return (reference) => {
    if (!reference.startsWith('#/')) return undefined;
    let current: unknown = document;
    for (const raw of reference.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof current !== 'object' || current === null) return undefined;
      current = (current as Json)[key];
    }
    return current;
  };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
function strictAjv(): Ajv2020 {
  return addFormats(new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }));
}

function byId(operations: readonly ConvertedOperation[], id: string): ConvertedOperation {
  const found = operations.find((operation) => operation.operationId === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
}

function property(schema: JsonSchema, name: string): Json {
  return (schema['properties'] as Record<string, Json>)[name]!;
}

describe('Swagger 2.0 operations', () => {
  const document = fixture('swagger-shop.json');
  const operations = convertOperations(document, {
    resolveReference: localResolver(document),
    omitHeaders: ['X-Amz-Access-Token'],
  });

  it('lists every operation in path order, then method order, deriving a missing operationId', () => {
    expect(operations.map((operation) => `${operation.method} ${operation.path} ${operation.operationId}`)).toEqual([
      'GET /shop/v0/baskets listBaskets',
      'PUT /shop/v0/baskets/{basketId} replaceBasket',
      'DELETE /shop/v0/baskets/{basketId} deleteShopV0BasketsBasketId',
      'POST /shop/v0/uploads UploadReceipt',
    ]);
  });

  it('turns query parameters into properties with arrays, enums, formats and limits kept', () => {
    const list = byId(operations, 'listBaskets');
    expect(list.summary).toBe('Lists baskets.');
    expect(list.description).toBe('Lists the baskets of a shop, newest first.');
    expect(list.inputSchema['required']).toEqual(['ShopIds']);
    expect(property(list.inputSchema, 'ShopIds')).toEqual({
      type: 'array',
      description: 'Shops to read.',
      maxItems: 20,
      items: { type: 'string' },
    });
    expect(property(list.inputSchema, 'States')).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['Open', 'Paid'] },
    });
    expect(property(list.inputSchema, 'OpenedAfter')).toEqual({ type: 'string', format: 'date-time' });
    expect(property(list.inputSchema, 'Code')).toEqual({
      type: 'string',
      maxLength: 3,
      minLength: 3,
      pattern: '^[A-Z]{3}$',
    });
  });

  it('drops formats and patterns a validator cannot use, and x-* keys', () => {
    const list = byId(operations, 'listBaskets');
    expect(property(list.inputSchema, 'OpenedBefore')).toEqual({ type: 'string' });
    expect(property(list.inputSchema, 'Broken')).toEqual({ type: 'string' });
    expect(property(list.inputSchema, 'x-request-tag')).toEqual({ type: 'string' });
    expect(JSON.stringify(operations)).not.toMatch(/x-internal|x-shop|x-nullable|discriminator/);
  });

  it('converts boolean exclusive bounds to the 2020-12 numeric form', () => {
    const list = byId(operations, 'listBaskets');
    expect(property(list.inputSchema, 'PageSize')).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      exclusiveMaximum: 50,
      default: 10,
    });
    expect(property(list.inputSchema, 'Weight')).toEqual({ type: 'number', minimum: 0 });
  });

  it('resolves $ref parameters and leaves out headers the server sets', () => {
    const list = byId(operations, 'listBaskets');
    expect(property(list.inputSchema, 'NextToken')).toEqual({
      type: 'string',
      description: 'Token from the previous page.',
    });
    expect(Object.keys(list.inputSchema['properties'] as Json)).not.toContain('x-amz-access-token');
    expect(
      list.parameters.map((parameter) => `${parameter.in}:${parameter.name}:${parameter.collectionFormat}`),
    ).toEqual([
      'query:ShopIds:csv',
      'query:States:multi',
      'query:OpenedAfter:csv',
      'query:OpenedBefore:csv',
      'query:PageSize:csv',
      'query:Weight:csv',
      'query:Code:csv',
      'query:Broken:csv',
      'query:NextToken:csv',
      'header:x-request-tag:csv',
    ]);
  });

  it('merges path-level parameters, makes path parameters required, and resolves the body schema', () => {
    const replace = byId(operations, 'replaceBasket');
    expect(replace.inputSchema['required']).toEqual(['basketId', 'payload']);
    expect(replace.body).toEqual({
      property: 'payload',
      mediaType: 'application/vnd.shop.basket+json',
      required: true,
    });
    const payload = property(replace.inputSchema, 'payload');
    expect(payload['description']).toBe('The new basket.');
    // a read-only property is not required of the caller
    expect(payload['required']).toEqual(['lines']);
    const basket = payload['properties'] as Record<string, Json>;
    expect(basket['note']).toEqual({ type: ['string', 'null'], examples: ['leave at door'] });
    expect(basket['format']).toEqual({ type: 'string', enum: ['PDF', 'PNG'] });
    // `items`/`maxItems` on a string-typed property cannot apply: removed
    expect(basket['tags']).toEqual({ type: 'string' });
    const line = (basket['lines'] as Json)['items'] as Json;
    expect(line['required']).toEqual(['sku', 'quantity']);
    expect(line['additionalProperties']).toBe(false);
    // a schema with properties and no type is an object
    expect((line['properties'] as Record<string, Json>)['price']).toEqual({
      properties: {
        amount: { type: 'number', format: 'double' },
        currency: { type: 'string', description: 'ISO 4217 code.' },
      },
      type: 'object',
    });
  });

  it('stops a recursive definition with a stub that keeps its type', () => {
    const payload = property(byId(operations, 'replaceBasket').inputSchema, 'payload');
    expect((payload['properties'] as Record<string, Json>)['parent']).toEqual({
      type: 'object',
      description: 'Basket (recursive: not expanded; any value of this shape is passed through)',
    });
  });

  it('keeps a parameter named __proto__ as an own input property', () => {
    const document = JSON.parse(
      '{"swagger":"2.0","paths":{"/odd":{"get":{"operationId":"odd","parameters":[{"name":"__proto__","in":"query","type":"string","required":true},{"name":"toString","in":"query","type":"integer"}]}}}}',
    ) as Json;
    const [odd] = convertOperations(document);
    const properties = odd!.inputSchema['properties'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(JSON.stringify(odd!.inputSchema)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"toString":{"type":"integer"}},"required":["__proto__"]}',
    );
    expect(odd!.parameters.map((parameter) => parameter.property)).toEqual(['__proto__', 'toString']);
  });

  it('gives a parameter that shares a name with another location its own property', () => {
    const remove = byId(operations, 'deleteShopV0BasketsBasketId');
    expect(remove.parameters.map((parameter) => [parameter.name, parameter.property, parameter.in])).toEqual([
      ['basketId', 'basketId', 'path'],
      ['basketId', 'queryBasketId', 'query'],
    ]);
    expect(property(remove.inputSchema, 'basketId')).toEqual({ type: 'string', description: 'Basket to delete.' });
  });

  it('maps formData files to binary strings', () => {
    const upload = byId(operations, 'UploadReceipt');
    expect(property(upload.inputSchema, 'file')).toEqual({ format: 'binary', type: 'string' });
    expect(upload.body).toBeUndefined();
    expect(upload.parameters.map((parameter) => parameter.in)).toEqual(['formData', 'formData']);
  });

  it('reads the base URLs from schemes, host and basePath', () => {
    expect(documentBaseUrls(document)).toEqual(['https://shop.example.test/api', 'http://shop.example.test/api']);
  });
});

describe('OpenAPI 3.x operations', () => {
  const document = fixture('openapi-ads.json');
  const operations = convertOperations(document, {
    resolveReference: localResolver(document),
    omitHeaders: ['amazon-ads-clientid'],
  });

  it('takes a vendor JSON media type and resolves a $ref request body', () => {
    const create = byId(operations, 'createCampaigns');
    expect(create.body).toEqual({ property: 'body', mediaType: 'application/vnd.spCampaign.v3+json', required: true });
    expect(create.inputSchema['required']).toEqual(['Amazon-Ads-AccountId', 'body']);
    const body = property(create.inputSchema, 'body');
    expect(body['required']).toEqual(['campaigns']);
    const campaign = ((body['properties'] as Record<string, Json>)['campaigns']!['items'] as Json)[
      'properties'
    ] as Record<string, Json>;
    expect(campaign['state']).toEqual({
      type: 'string',
      description: 'Serving state.',
      enum: ['ENABLED', 'PAUSED', 'ARCHIVED'],
    });
    expect(campaign['budget']).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(campaign['mixed']).toEqual({ oneOf: [{ type: 'string' }, { type: 'integer' }] });
  });

  it('turns nullable into a null type and a null enum member', () => {
    const create = byId(operations, 'createCampaigns');
    const body = property(create.inputSchema, 'body');
    const campaign = ((body['properties'] as Record<string, Json>)['campaigns']!['items'] as Json)[
      'properties'
    ] as Record<string, Json>;
    expect(campaign['endDate']).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(campaign['targeting']).toEqual({ type: ['string', 'null'], enum: ['AUTO', 'MANUAL', null] });
  });

  it('maps style and explode onto collection formats', () => {
    const create = byId(operations, 'createCampaigns');
    expect(
      create.parameters.map((parameter) => `${parameter.in}:${parameter.name}:${parameter.collectionFormat}`),
    ).toEqual([
      'header:Amazon-Ads-AccountId:csv',
      'query:ids:csv',
      'query:labels:multi',
      'query:piped:pipes',
      'query:spaced:ssv',
      'query:filter:multi',
      'query:old:multi',
      'cookie:session:multi',
    ]);
    expect(create.parameters.find((parameter) => parameter.name === 'filter')?.mediaType).toBe('application/json');
    expect(property(create.inputSchema, 'old')).toEqual({ type: 'string', deprecated: true, examples: ['x'] });
  });

  it('prefers a JSON media type over text and keeps the body description', () => {
    const update = byId(operations, 'updateCampaign');
    expect(update.body).toEqual({ property: 'body', mediaType: 'application/merge-patch+json', required: false });
    const body = property(update.inputSchema, 'body');
    expect(body['description']).toBe('Fields to change.');
    expect(body['type']).toBe('object');
    expect(update.inputSchema['required']).toBeUndefined();
  });

  it('reads server URLs with variables filled from their defaults', () => {
    expect(documentBaseUrls(document)).toEqual(['https://na.ads.example.test', 'https://eu.ads.example.test']);
  });

  it('converts one operation by path and method', () => {
    const converter = new OperationConverter(document, { resolveReference: localResolver(document) });
    expect(converter.format).toBe('openapi3');
    expect(converter.operation('/v3/campaigns/{campaignId}', 'GET').inputSchema).toEqual({
      type: 'object',
      properties: { campaignId: { type: 'string', pattern: '^[0-9]+$' } },
      required: ['campaignId'],
    });
    expect(() => converter.operation('/v3/campaigns', 'DELETE')).toThrow(RangeError);
  });
});

describe('every converted schema compiles in a strict 2020-12 validator', () => {
  it.each(['swagger-shop.json', 'openapi-ads.json'])('%s', (name) => {
    const document = fixture(name);
    const ajv = strictAjv();
    const operations = convertOperations(document, { resolveReference: localResolver(document) });
    expect(operations.length).toBeGreaterThan(0);
    for (const operation of operations) expect(() => ajv.compile(operation.inputSchema)).not.toThrow();
  });

  it('validates values the way the model means', () => {
    const document = fixture('openapi-ads.json');
    const create = byId(convertOperations(document, { resolveReference: localResolver(document) }), 'createCampaigns');
    const validate = strictAjv().compile(create.inputSchema);
    const campaign = { name: 'Spring', state: 'ENABLED', endDate: null, targeting: null };
    const headers = { 'Amazon-Ads-AccountId': 'a1', 'Amazon-Ads-ClientId': 'c1' };
    expect(validate({ ...headers, body: { campaigns: [campaign] } })).toBe(true);
    expect(validate({ ...headers, body: { campaigns: [{ ...campaign, state: 'RUNNING' }] } })).toBe(false);
    expect(validate({ ...headers, body: { campaigns: [{ ...campaign, budget: 0 }] } })).toBe(false);
    expect(validate({ ...headers, body: { campaigns: [{ ...campaign, endDate: '2026-13-40' }] } })).toBe(false);
  });
});

describe('references without a resolver, and dereferenced documents', () => {
  it('stubs a $ref nobody can resolve', () => {
    const document = fixture('swagger-shop.json');
    const replace = new OperationConverter(document).operation('/shop/v0/baskets/{basketId}', 'put');
    expect(property(replace.inputSchema, 'payload')).toEqual({
      description: 'Basket (reference not resolved: not checked)',
    });
  });

  it('accepts a dereferenced document with object cycles', () => {
    const node: Json = { type: 'object', properties: { name: { type: 'string' } } };
    (node['properties'] as Json)['child'] = node;
    const document = {
      swagger: '2.0',
      paths: { '/trees': { post: { operationId: 'plant', parameters: [{ name: 'body', in: 'body', schema: node }] } } },
    };
    const [plant] = convertOperations(document);
    expect(property(plant!.inputSchema, 'body')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        child: {
          type: 'object',
          description: 'recursive schema: not expanded; any value of this shape is passed through',
        },
      },
    });
  });

  it('caps long descriptions', () => {
    const document = {
      openapi: '3.1.0',
      paths: {
        '/x': {
          get: {
            operationId: 'x',
            description: 'd'.repeat(2000),
            parameters: [{ name: 'q', in: 'query', description: 'w '.repeat(400), schema: { type: 'string' } }],
          },
        },
      },
    };
    const [operation] = convertOperations(document, { descriptionLimit: 20, operationDescriptionLimit: 30 });
    expect(operation!.description).toBe(`${'d'.repeat(29)}…`);
    expect(property(operation!.inputSchema, 'q')['description']).toBe('w w w w w w w w w w…');
  });
});

describe('apiDescriptionFormat', () => {
  it('tells Swagger 2.0 from OpenAPI 3 and rejects anything else', () => {
    expect(apiDescriptionFormat({ swagger: '2.0' })).toBe('swagger2');
    expect(apiDescriptionFormat({ openapi: '3.1.0' })).toBe('openapi3');
    expect(() => apiDescriptionFormat({ openapi: '2.0' })).toThrow(TypeError);
    expect(() => apiDescriptionFormat(null)).toThrow(TypeError);
  });
});

describe('the defs reference mode', () => {
  const document = fixture('swagger-shop.json');
  const converter = new OperationConverter(document, {
    resolveReference: localResolver(document),
    referenceMode: 'defs',
  });
  const replace = converter.operation('/shop/v0/baskets/{basketId}', 'PUT');

  it('writes the top-level body inline and every nested definition once under $defs', () => {
    const payload = property(replace.inputSchema, 'payload');
    expect(payload['type']).toBe('object');
    expect(payload['required']).toEqual(['lines']);
    const properties = payload['properties'] as Record<string, Json>;
    expect(properties['lines']).toEqual({ type: 'array', minItems: 1, items: { $ref: '#/$defs/Line' } });
    expect(properties['parent']).toEqual({ $ref: '#/$defs/Basket' });
    const definitions = replace.inputSchema['$defs'] as Record<string, Json>;
    expect(Object.keys(definitions)).toEqual(['Basket', 'Line', 'Money']);
    expect((definitions['Line']!['properties'] as Record<string, Json>)['price']).toEqual({ $ref: '#/$defs/Money' });
    // recursion stays recursion
    expect((definitions['Basket']!['properties'] as Record<string, Json>)['parent']).toEqual({
      $ref: '#/$defs/Basket',
    });
  });

  it('adds no $defs to an operation that references no definition', () => {
    expect(converter.operation('/shop/v0/baskets', 'GET').inputSchema['$defs']).toBeUndefined();
  });

  it('compiles strictly and validates through the references, recursion included', () => {
    const validate = strictAjv().compile(replace.inputSchema);
    const line = { sku: 'A-1', quantity: 2, price: { amount: 3.5, currency: 'EUR' } };
    expect(validate({ basketId: 'b1', payload: { lines: [line], parent: { lines: [line] } } })).toBe(true);
    expect(
      validate({ basketId: 'b1', payload: { lines: [line], parent: { lines: [{ ...line, quantity: 0 }] } } }),
    ).toBe(false);
    expect(validate({ basketId: 'b1', payload: { lines: [{ ...line, extra: true }] } })).toBe(false);
  });

  it('gives each operation exactly the definitions it reaches, through definitions other operations converted first', () => {
    const chain = {
      swagger: '2.0',
      paths: {
        '/a': {
          post: {
            operationId: 'useA',
            parameters: [
              { name: 'body', in: 'body', schema: { type: 'object', properties: { a: { $ref: '#/definitions/A' } } } },
            ],
          },
        },
        '/b': {
          post: {
            operationId: 'useB',
            parameters: [{ name: 'body', in: 'body', schema: { type: 'array', items: { $ref: '#/definitions/B' } } }],
          },
        },
        '/c': {
          post: {
            operationId: 'useC',
            parameters: [
              {
                name: 'body',
                in: 'body',
                schema: {
                  type: 'object',
                  properties: { c: { $ref: '#/definitions/C' }, loop: { $ref: '#/definitions/Loop' } },
                },
              },
            ],
          },
        },
      },
      definitions: {
        A: { type: 'object', properties: { b: { $ref: '#/definitions/B' } } },
        B: {
          type: 'object',
          properties: { c: { $ref: '#/definitions/C' }, more: { type: 'array', items: { $ref: '#/definitions/C' } } },
        },
        C: { type: 'string' },
        Loop: { type: 'object', properties: { next: { $ref: '#/definitions/Loop' } } },
      },
    };
    const operations = convertOperations(chain, { resolveReference: localResolver(chain), referenceMode: 'defs' });
    expect(operations.map((operation) => Object.keys(operation.inputSchema['$defs'] as Json))).toEqual([
      ['A', 'B', 'C'],
      ['B', 'C'],
      ['C', 'Loop'],
    ]);
    expect((operations[2]!.inputSchema['$defs'] as Json)['Loop']).toEqual({
      type: 'object',
      properties: { next: { $ref: '#/$defs/Loop' } },
    });
  });

  it('keeps the keys of two definitions with the same name apart', () => {
    const twoFiles = {
      swagger: '2.0',
      paths: {
        '/x': {
          post: {
            operationId: 'x',
            parameters: [
              {
                name: 'body',
                in: 'body',
                schema: {
                  type: 'object',
                  properties: { a: { $ref: '#/definitions/Item' }, b: { $ref: 'other.json#/definitions/Item' } },
                },
              },
            ],
          },
        },
      },
      definitions: { Item: { type: 'string' } },
    };
    const resolver = (reference: string): unknown =>
      reference === '#/definitions/Item'
        ? { type: 'string' }
        : reference === 'other.json#/definitions/Item'
          ? { type: 'integer' }
          : undefined;
    const [operation] = convertOperations(twoFiles, { resolveReference: resolver, referenceMode: 'defs' });
    expect(operation!.inputSchema['$defs']).toEqual({ Item: { type: 'string' }, Item_2: { type: 'integer' } });
    expect(property(operation!.inputSchema, 'body')['properties']).toEqual({
      a: { $ref: '#/$defs/Item' },
      b: { $ref: '#/$defs/Item_2' },
    });
  });
});
