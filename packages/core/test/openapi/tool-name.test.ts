import { describe, expect, it } from 'vitest';

import {
  lowerCamelIdentifier,
  modelNameFromFileName,
  operationToolName,
  uniqueOperationToolNames,
} from '../../src/openapi/index.js';

describe('tool names', () => {
  it.each([
    ['ordersV0', 'ordersV0'],
    ['catalogItems_2022-04-01', 'catalogItems20220401'],
    ['InvoicesApiModel_2024-06-19', 'invoicesApiModel20240619'],
    ['appIntegrations-2024-04-01', 'appIntegrations20240401'],
    ['ASINList', 'asinList'],
    ['SKU', 'sku'],
    ['Submit shipments', 'submitShipments'],
    ['__', ''],
  ])('lowerCamelIdentifier(%j) = %j', (input, expected) => {
    expect(lowerCamelIdentifier(input)).toBe(expected);
  });

  it('derives the model name from a file name or path', () => {
    expect(modelNameFromFileName('/models/sp/catalogItems_2022-04-01.json')).toBe('catalogItems20220401');
    expect(modelNameFromFileName('C:\\models\\sellers.yaml')).toBe('sellers');
    expect(() => modelNameFromFileName('/models/---.json')).toThrow(TypeError);
  });

  it('joins model and operation with one underscore', () => {
    expect(operationToolName('ordersV0', 'getOrders')).toBe('ordersV0_getOrders');
    expect(operationToolName('vendorShipments', 'SubmitShipmentConfirmations')).toBe(
      'vendorShipments_submitShipmentConfirmations',
    );
    expect(operationToolName('m'.repeat(100), 'o'.repeat(100))).toHaveLength(128);
    expect(() => operationToolName('model', '')).toThrow(TypeError);
  });

  it('keeps names unique when a model repeats an operationId', () => {
    expect(
      uniqueOperationToolNames('shippingV2', [
        { operationId: 'linkCarrierAccount', method: 'PUT' },
        { operationId: 'linkCarrierAccount', method: 'POST' },
        { operationId: 'linkCarrierAccount', method: 'POST' },
        { operationId: 'getRates', method: 'POST' },
      ]),
    ).toEqual([
      'shippingV2_linkCarrierAccount',
      'shippingV2_linkCarrierAccount_post',
      'shippingV2_linkCarrierAccount_2',
      'shippingV2_getRates',
    ]);
    expect(
      uniqueOperationToolNames(
        'sellers',
        [{ operationId: 'getAccount', method: 'GET' }],
        new Set(['sellers_getAccount']),
      ),
    ).toEqual(['sellers_getAccount_get']);
    // names taken elsewhere and names given here both count; `taken` is left as it was
    const taken = new Set(['feeds_getFeed_get', 'feeds_getFeed_3']);
    const operations = [
      { operationId: 'getFeed', method: 'GET' },
      { operationId: 'getFeed', method: 'GET' },
      { operationId: 'getFeed', method: 'GET' },
    ];
    expect(uniqueOperationToolNames('feeds', operations, taken)).toEqual([
      'feeds_getFeed',
      'feeds_getFeed_2',
      'feeds_getFeed_4',
    ]);
    expect([...taken]).toEqual(['feeds_getFeed_get', 'feeds_getFeed_3']);
  });
});
