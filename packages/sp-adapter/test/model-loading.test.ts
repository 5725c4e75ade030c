import $RefParser from '@apidevtools/json-schema-ref-parser';
import { OperationConverter } from '@mcp-envelope/core/openapi';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { loadSpModels } from '../src/index.js';
import { loadSpModel, SP_SERVER_SET_HEADERS } from '../src/models.js';

const REFERENCES = new URL('./fixtures/reference-models/', import.meta.url).pathname;
const BROKEN = new URL('./fixtures/broken-models/', import.meta.url).pathname;

/** What loading was before it had a fast way: the library reads and resolves everything. */
async function libraryOnly(file: string): Promise<unknown[]> {
  const parser = new $RefParser();
  await parser.resolve(file, { resolve: { external: true } });
  return new OperationConverter(parser.schema, {
    resolveReference: (reference) => parser.$refs.get(reference),
    omitHeaders: SP_SERVER_SET_HEADERS,
    referenceMode: 'defs',
  }).operations();
}

/** The library's `resolve` calls made while loading, as their `resolve.external` option. */
function watchLibrary(): () => unknown[] {
  const resolve = vi.spyOn($RefParser.prototype, 'resolve');
  return () =>
    resolve.mock.calls.map((call) => (call.at(-1) as { resolve?: { external?: boolean } }).resolve?.external);
}

async function loadedLikeTheLibrary(
  name: string,
): Promise<{ operations: readonly Record<string, unknown>[]; external: unknown[] }> {
  const file = `${REFERENCES}${name}`;
  const expected = await libraryOnly(file);
  const calls = watchLibrary();
  const model = await loadSpModel(file);
  const external = calls();
  const operations = model.operations.map((operation) => {
    const converted: Record<string, unknown> = { ...operation };
    delete converted['toolName'];
    delete converted['model'];
    return converted;
  });
  // the same values in the same key order, so tools/list serializes byte for byte the same
  expect(JSON.stringify(operations)).toBe(JSON.stringify(expected));
  return { operations, external };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loading a model the fast way gives what the library gives', () => {
  it('walks plain local pointers without the library (parameters, path-level parameters, definitions, recursion)', async () => {
    const { operations, external } = await loadedLikeTheLibrary('local-plain.json');
    expect(external).toEqual([]);
    expect(operations.map((operation) => operation['inputSchema'])).toEqual([
      {
        type: 'object',
        properties: {
          sprocketId: { type: 'string', maxLength: 24 },
          includedData: { type: 'array', items: { type: 'string', enum: ['teeth', 'coating'] } },
        },
        required: ['sprocketId'],
      },
      {
        type: 'object',
        properties: {
          sprocketId: { type: 'string', maxLength: 24 },
          body: {
            type: 'object',
            properties: {
              teeth: { type: 'integer', minimum: 3 },
              coating: { $ref: '#/$defs/Coating' },
              spares: { type: 'array', items: { $ref: '#/$defs/Sprocket' } },
            },
            required: ['teeth'],
            description: 'The new sprocket.',
          },
        },
        required: ['sprocketId', 'body'],
        $defs: {
          Coating: { type: 'string', description: 'Surface finish.', enum: ['zinc', 'nickel'] },
          Sprocket: {
            type: 'object',
            properties: {
              teeth: { type: 'integer', minimum: 3 },
              coating: { $ref: '#/$defs/Coating' },
              spares: {
                type: 'array',
                description: 'recursive schema: not expanded; any value of this shape is passed through',
              },
            },
            required: ['teeth'],
          },
        },
      },
    ]);
    expect(operations[0]!['summary']).toBe('Returns one sprocket.');
  });

  it('drops a byte order mark as the library does', async () => {
    const { operations, external } = await loadedLikeTheLibrary('bom-local.json');
    expect(external).toEqual([]);
    expect(operations[0]!['inputSchema']).toEqual({
      type: 'object',
      properties: { springId: { type: 'string' } },
      required: ['springId'],
    });
  });

  it('asks the library for pointers it follows itself: an alias definition, a $ref on the way, an escaped token', async () => {
    const { operations, external } = await loadedLikeTheLibrary('local-library.json');
    expect(external).toEqual([false]);
    expect(operations[0]!['inputSchema']).toEqual({
      type: 'object',
      properties: {
        body: {
          type: 'object',
          properties: {
            size: { $ref: '#/$defs/SizeAlias' },
            finish: { $ref: '#/$defs/Finish_Coat' },
            diameter: { $ref: '#/$defs/millimetres' },
          },
        },
      },
      required: ['body'],
      $defs: {
        Finish_Coat: { type: 'string', enum: ['matte', 'gloss'] },
        // the library follows the alias to its target
        SizeAlias: { type: 'object', properties: { millimetres: { type: 'number', exclusiveMinimum: 0 } } },
        millimetres: { type: 'number', exclusiveMinimum: 0 },
      },
    });
  });

  it('leaves a dangling local pointer to the library, whose answer is the usual stub', async () => {
    const { operations, external } = await loadedLikeTheLibrary('local-dangling.json');
    expect(external).toEqual([false, true]);
    expect(operations[0]!['inputSchema']).toEqual({
      type: 'object',
      properties: {
        leverId: { type: 'string' },
        body: { type: 'object', properties: { grip: { description: 'Grip (reference not resolved: not checked)' } } },
      },
      required: ['leverId'],
    });
  });

  it('has the library read the other file when a $ref leaves the document, even with its key written \\u0024ref', async () => {
    const { operations, external } = await loadedLikeTheLibrary('escaped-external.json');
    expect(external).toEqual([true]);
    expect((operations[0]!['inputSchema'] as Record<string, unknown>)['$defs']).toEqual({
      Money: {
        type: 'object',
        properties: { amount: { type: 'number', minimum: 0 }, currencyCode: { type: 'string', pattern: '^[A-Z]{3}$' } },
        required: ['amount', 'currencyCode'],
      },
    });
  });

  it("reports a file that is not JSON with the library's own error", async () => {
    const file = `${BROKEN}truncated.json`;
    const expected = await new $RefParser().resolve(file).then(
      () => 'resolved',
      (error: unknown) => (error as Error).message,
    );
    expect(expected).not.toBe('resolved');
    await expect(loadSpModel(file)).rejects.toThrow(expected);
    // of several broken files read together, the first in file order is named, and the other
    // failure does not escape as an unhandled rejection (which would fail this run)
    await expect(loadSpModels(BROKEN)).rejects.toThrow(`cannot load model truncated.json: ${expected}`);
    await expect(loadSpModel(`${BROKEN}zz-array.json`)).rejects.toThrow('not a Swagger 2.0 or OpenAPI 3.x document');
  });

  it('reads a folder concurrently but names tools in file order', async () => {
    const models = await loadSpModels(REFERENCES);
    expect(models.map((model) => model.model)).toEqual([
      'bomLocal',
      'escapedExternal',
      'localDangling',
      'localLibrary',
      'localPlain',
    ]);
    expect(models.flatMap((model) => model.operations.map((operation) => operation.toolName))).toEqual([
      'bomLocal_getSpring',
      'escapedExternal_createRatchet',
      'localDangling_updateLever',
      'localLibrary_createCog',
      'localPlain_getSprocket',
      'localPlain_replaceSprocket',
    ]);
  });
});
