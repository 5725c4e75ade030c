import { describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import { compileTool } from '../src/adapter-entry.js';
import { connectInMemory } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

const OPTIONS = { normalizationEnabled: true, strictUnknownFields: true } as const;
// Meta-valid, every local $ref resolves, but the remote $ref cannot be loaded: only Ajv's
// compilation finds the problem.
const UNCOMPILABLE = { type: 'object', properties: { a: { $ref: 'https://schemas.example.invalid/a.json' } } } as const;

describe('lazy compilation', () => {
  it('defers Ajv compilation to the first check, and eager mode compiles at creation', () => {
    const lazy = compileTool('remote_ref', UNCOMPILABLE, OPTIONS);
    expect(lazy.publishedInputSchema).toEqual({ ...UNCOMPILABLE, additionalProperties: false });
    expect(() => lazy.check({ a: 1 })).toThrow(
      'inputSchema of tool "remote_ref" is not a valid JSON Schema: can\'t resolve reference https://schemas.example.invalid/a.json',
    );
    expect(() => compileTool('remote_ref', UNCOMPILABLE, { ...OPTIONS, compile: 'eager' })).toThrow(TypeError);
  });

  it('still rejects meta-invalid schemas and dangling local references at creation', () => {
    expect(() => compileTool('bad_type', { type: 'object', properties: { a: { type: 'objekt' } } }, OPTIONS)).toThrow(
      /not a valid JSON Schema/,
    );
    expect(() =>
      compileTool('dangling', { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }, OPTIONS),
    ).toThrow('inputSchema of tool "dangling" is not a valid JSON Schema: can\'t resolve reference #/$defs/Missing');
  });

  it('follows escaped, percent-encoded and array pointer tokens when it looks for dangling references', () => {
    const schema = (reference: string): Record<string, unknown> => ({
      type: 'object',
      $defs: { 'a/b': { type: 'string' }, 'c~d': { type: 'integer' }, pair: { prefixItems: [{ type: 'null' }] } },
      properties: { a: { $ref: reference } },
    });
    for (const reference of ['#/$defs/a~1b', '#/$defs/a%7E1b', '#/$defs/c~0d', '#/$defs/pair/prefixItems/0'])
      expect(() => compileTool('escaped', schema(reference), OPTIONS)).not.toThrow();
    for (const reference of ['#/$defs/a~0b', '#/$defs/c~1d', '#/$defs/pair/prefixItems/1'])
      expect(() => compileTool('escaped', schema(reference), OPTIONS)).toThrow(
        `inputSchema of tool "escaped" is not a valid JSON Schema: can't resolve reference ${reference}`,
      );
  });

  it('validates the same way after the first call compiled the validator', () => {
    const tool = compileTool('limits', { type: 'object', properties: { n: { type: 'integer', maximum: 5 } } }, OPTIONS);
    expect(tool.check({ n: 3 })).toEqual({ ok: true, args: { n: 3 }, events: [] });
    const failure = tool.check({ n: 9 });
    expect(failure.ok ? '' : failure.error_code).toBe('SCHEMA_MAXIMUM');
    expect(tool.check({ n: 4 }).ok).toBe(true);
  });

  it('a schema that fails to compile on the first call answers internal_error, not a protocol error', async () => {
    const log = captureLog();
    const server = createEnvelopeServer({
      info: { name: 'lazy', version: '0.0.1' },
      adapter: testAdapter,
      tools: [{ name: 'remote_ref', inputSchema: UNCOMPILABLE, handler: () => ({ ok: true }) }],
      options: { logger: log.logger, env: {} },
    });
    const connected = await connectInMemory(server);
    const client = connected.client;
    const result = await client.callTool({ name: 'remote_ref', arguments: { a: 1 } });
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect([envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual([
      'internal_error',
      'INTERNAL_ERROR',
      'remote_ref',
    ]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!['reason']).toBe('input_schema');
    expect(log.lines[0]!['correlation_id']).toBe((envelope['_meta'] as { correlation_id: string }).correlation_id);
    await connected.close();
  });

  it('deferred mode checks nothing but the structure at creation, and the first check reports a broken schema', () => {
    const broken = { type: 'object', properties: { a: { type: 'objekt' } } } as const;
    const tool = compileTool('bad_type', broken, { ...OPTIONS, compile: 'deferred' });
    expect(tool.publishedInputSchema).toEqual({ ...broken, additionalProperties: false });
    expect(() => tool.check({ a: 1 })).toThrow(
      'inputSchema of tool "bad_type" is not a valid JSON Schema: schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf',
    );
    // still answered the same way on later calls
    expect(() => tool.check({})).toThrow(TypeError);
    expect(() =>
      compileTool(
        'dangling',
        { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } },
        { ...OPTIONS, compile: 'deferred' },
      ).check({}),
    ).toThrow(/^inputSchema of tool "dangling" is not a valid JSON Schema: can't resolve reference #\/\$defs\/Missing/);
    // the structural checks still run at creation
    expect(() => compileTool('array_root', { type: 'array' }, { ...OPTIONS, compile: 'deferred' })).toThrow(
      'inputSchema of tool "array_root" must have the top-level type "object"',
    );
  });

  it('deferred mode validates exactly like the default once compiled', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', maximum: 5 }, choice: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } },
      required: ['n'],
    } as const;
    const deferred = compileTool('limits', schema, { ...OPTIONS, compile: 'deferred' });
    const checked = compileTool('limits', schema, OPTIONS);
    for (const args of [{ n: 3 }, { n: 9, choice: 1 }, { choice: [] }, { N: 2, extra: true }, 'text']) {
      expect(deferred.check(args)).toEqual(checked.check(args));
    }
    expect(deferred.check({ n: 9 })).toMatchObject({ ok: false, error_code: 'SCHEMA_MAXIMUM' });
  });

  it("a tool registered with inputSchemaCheck 'first-call' starts the server and answers internal_error; by default it fails registration", async () => {
    const broken = { type: 'object', properties: { a: { type: 'objekt' } } } as const;
    const input = (inputSchemaCheck?: 'first-call') => ({
      info: { name: 'deferred', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'broken',
          inputSchema: broken,
          ...(inputSchemaCheck === undefined ? {} : { inputSchemaCheck }),
          handler: () => ({ ok: true }),
        },
      ],
      options: { env: {} },
    });
    expect(() => createEnvelopeServer(input())).toThrow(
      'inputSchema of tool "broken" is not a valid JSON Schema: data/properties/a/type must be equal to one of the allowed values',
    );
    const log = captureLog();
    const server = createEnvelopeServer({ ...input('first-call'), options: { logger: log.logger, env: {} } });
    const connected = await connectInMemory(server);
    const listed = await connected.client.listTools();
    expect(listed.tools.map((tool) => [tool.name, tool.inputSchema])).toEqual([
      ['broken', { ...broken, additionalProperties: false }],
      ['get_envelope_contract', { type: 'object', properties: {}, additionalProperties: false }],
    ]);
    const result = await connected.client.callTool({ name: 'broken', arguments: { a: 1 } });
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect([envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual([
      'internal_error',
      'INTERNAL_ERROR',
      'broken',
    ]);
    expect(log.lines.map((line) => line['reason'])).toEqual(['input_schema']);
    // the server's own contract tool, deferred too, still works
    const contract = await connected.client.callTool({ name: 'get_envelope_contract', arguments: {} });
    expect(contract.isError).toBeUndefined();
    await connected.close();
  });
});
