import { describe, expect, it } from 'vitest';

import { compileTool, createEnvelopeServer } from '../src/index.js';
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
    expect(() => lazy.check({ a: 1 })).toThrow('inputSchema of tool "remote_ref" is not a valid JSON Schema: can\'t resolve reference https://schemas.example.invalid/a.json');
    expect(() => compileTool('remote_ref', UNCOMPILABLE, { ...OPTIONS, compile: 'eager' })).toThrow(TypeError);
  });

  it('still rejects meta-invalid schemas and dangling local references at creation', () => {
    expect(() => compileTool('bad_type', { type: 'object', properties: { a: { type: 'objekt' } } }, OPTIONS)).toThrow(/not a valid JSON Schema/);
    expect(() => compileTool('dangling', { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }, OPTIONS)).toThrow(
      'inputSchema of tool "dangling" is not a valid JSON Schema: can\'t resolve reference #/$defs/Missing',
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
    expect([envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual(['internal_error', 'INTERNAL_ERROR', 'remote_ref']);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!['reason']).toBe('input_schema');
    expect(log.lines[0]!['correlation_id']).toBe((envelope['_meta'] as { correlation_id: string }).correlation_id);
    await connected.close();
  });
});
