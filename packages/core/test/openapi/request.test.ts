import { describe, expect, it } from 'vitest';

import { UpstreamClientError } from '../../src/index.js';
import { buildOperationRequest, coerceJsonBody } from '../../src/openapi-entry.js';
import type { OperationWireShape } from '../../src/openapi-entry.js';

const OPERATION: OperationWireShape = {
  method: 'GET',
  path: '/v1/things/{thingId}/parts',
  parameters: [
    { name: 'thingId', property: 'thingId', in: 'path', required: true, collectionFormat: 'csv' },
    { name: 'ids', property: 'ids', in: 'query', required: false, collectionFormat: 'csv' },
    { name: 'tag', property: 'tag', in: 'query', required: false, collectionFormat: 'multi' },
    { name: 'states', property: 'states', in: 'query', required: false, collectionFormat: 'pipes' },
    { name: 'filter', property: 'filter', in: 'query', required: false, collectionFormat: 'csv' },
    { name: 'X-Trace', property: 'trace', in: 'header', required: false, collectionFormat: 'csv' },
  ],
};

describe('buildOperationRequest', () => {
  it('fills path, query (per collection format, literal commas for csv) and header parameters; an undeclared argument goes to the query', () => {
    expect(
      buildOperationRequest(
        OPERATION,
        {
          thingId: 'a/b',
          ids: [1, 2],
          tag: ['x', 'y'],
          states: ['ON', 'OFF'],
          filter: { k: 1 },
          trace: 'abc',
          undeclared: 1,
        },
        'https://h.example/base/',
      ),
    ).toEqual({
      method: 'GET',
      url: 'https://h.example/base/v1/things/a%2Fb/parts?ids=1,2&tag=x&tag=y&states=ON%7COFF&filter=%7B%22k%22%3A1%7D&undeclared=1',
      headers: { 'x-trace': 'abc' },
    });
  });

  it('leaves out undefined and null arguments', () => {
    expect(buildOperationRequest(OPERATION, { thingId: 7, ids: null, tag: undefined }, 'http://h').url).toBe(
      'http://h/v1/things/7/parts',
    );
  });

  it('sends the body argument as JSON with its media type, parsing JSON text first', () => {
    const operation: OperationWireShape = {
      method: 'POST',
      path: '/x',
      parameters: [],
      body: { property: 'body', mediaType: 'application/vnd.x.v1+json', required: true },
    };
    expect(buildOperationRequest(operation, { body: { a: [1] } }, 'http://h')).toEqual({
      method: 'POST',
      url: 'http://h/x',
      headers: { 'content-type': 'application/vnd.x.v1+json' },
      body: '{"a":[1]}',
    });
    expect(buildOperationRequest(operation, { body: ' {"a": [1]}' }, 'http://h').body).toBe('{"a":[1]}');
  });

  it('refuses broken JSON text in the body before anything is sent', () => {
    const operation: OperationWireShape = {
      method: 'POST',
      path: '/x',
      parameters: [],
      body: { property: 'payload', mediaType: 'application/json', required: true },
    };
    let thrown: unknown;
    try {
      buildOperationRequest(operation, { payload: '{"a": [1,}' }, 'http://h');
    } catch (error) {
      thrown = error;
    }
    expect(UpstreamClientError.isInstance(thrown)).toBe(true);
    expect((thrown as UpstreamClientError).failure).toEqual({
      type: 'body_coercion',
      path: 'payload',
      received: '{"a": [1,}',
    });
    expect(coerceJsonBody('plain text', 'payload')).toBe('plain text');
  });

  it('throws on a path parameter without a value', () => {
    expect(() => buildOperationRequest(OPERATION, {}, 'http://h')).toThrow('path parameter "thingId" has no value');
  });
});
