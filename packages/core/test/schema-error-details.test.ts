/**
 * Schema errors as a real SDK client reads them: where an unknown key is reported, `field` on
 * every `SCHEMA_*` detail, the fallback keyword in `_meta.validator`, and one-line summaries.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { EnvelopeError } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { useTestSession } from './fixtures/session.js';

const session = useTestSession();

const TOOLS: readonly EnvelopeTool[] = [
  {
    name: 'configure',
    inputSchema: {
      type: 'object',
      properties: {
        label: { type: 'string', maxLength: 5 },
        note: { not: { const: '' } },
        options: { type: 'object', properties: { mode: { type: 'string' } }, additionalProperties: false },
      },
    },
    handler: () => ({ ok: true }),
  },
  {
    name: 'multi_line',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new EnvelopeError({
        error_kind: 'sandbox_runtime',
        error_code: 'CODE_MODE_SANDBOX_LIMITATION',
        summary: 'The sandbox stopped.\r\n  Traceback:\n\n  line 3\u2028end\n',
      });
    },
  },
  {
    name: 'control_breaks',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new EnvelopeError({
        error_kind: 'sandbox_runtime',
        error_code: 'CODE_MODE_SANDBOX_LIMITATION',
        summary: 'page one\fpage two\vtab stop\u2029end',
      });
    },
  },
];

async function envelopeOf(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { client } = await session.start({}, TOOLS);
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as Record<string, unknown>;
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
  return envelope;
}

describe('schema error details on the wire', () => {
  it('reports an unknown key at the path of the object holding it, with extra naming the key and one detail per key', async () => {
    const envelope = await envelopeOf('configure', {
      typo_key: 1,
      other_key: true,
      options: { mode: 'a', colour: 'red' },
    });
    expect(envelope['error_code']).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
    expect(envelope['details']).toEqual([
      {
        path: 'options',
        issue: 'options has a key the schema does not define: colour.',
        received_type: 'string',
        field: 'options',
        extra: 'colour',
        expected: 'only the keys the schema declares',
        received_value: 'red',
      },
      {
        path: '',
        issue: 'arguments has a key the schema does not define: other_key.',
        received_type: 'boolean',
        field: '',
        extra: 'other_key',
        expected: 'only the keys the schema declares',
        received_value: true,
      },
      {
        path: '',
        issue: 'arguments has a key the schema does not define: typo_key.',
        received_type: 'integer',
        field: '',
        extra: 'typo_key',
        expected: 'only the keys the schema declares',
        received_value: 1,
      },
    ]);
  });

  it('gives every SCHEMA_* detail a field equal to its path', async () => {
    const envelope = await envelopeOf('configure', { label: 'much too long', note: '' });
    expect(
      (envelope['details'] as Record<string, unknown>[]).map((detail) => [detail['path'], detail['field']]),
    ).toEqual([
      ['label', 'label'],
      ['note', 'note'],
    ]);
  });

  it('names the failing keyword of SCHEMA_VALIDATION_FAILED in _meta.validator', async () => {
    const envelope = await envelopeOf('configure', { note: '' });
    expect(envelope['error_code']).toBe('SCHEMA_VALIDATION_FAILED');
    expect(envelope['details']).toEqual([
      {
        path: 'note',
        issue: 'note failed the schema keyword not.',
        received_type: 'string',
        field: 'note',
        keyword: 'not',
        received_value: '',
      },
    ]);
    expect(envelope['_meta']).toEqual({ validator: 'not' });
  });

  it('leaves _meta out of a keyword-coded failure', async () => {
    const envelope = await envelopeOf('configure', { label: 'much too long' });
    expect(envelope['error_code']).toBe('SCHEMA_MAX_LENGTH');
    expect(Object.hasOwn(envelope, '_meta')).toBe(false);
  });

  it("folds the line breaks of an EnvelopeError's summary into single spaces", async () => {
    const envelope = await envelopeOf('multi_line', {});
    expect(envelope['summary']).toBe('The sandbox stopped. Traceback: line 3 end');
  });

  it('folds vertical tabs and form feeds too, the other mandatory line breaks', async () => {
    const envelope = await envelopeOf('control_breaks', {});
    expect(envelope['summary']).toBe('page one page two tab stop end');
  });
});
