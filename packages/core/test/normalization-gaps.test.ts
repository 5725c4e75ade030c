/**
 * Normalization leaves no silent gap, seen by a real SDK client: nullable arrays written as
 * `anyOf`/`oneOf`, unknown keys a schema admits, `patternProperties` under strict mode, and the
 * advertised `normalized_kinds` of each setting.
 */
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../src/index.js';
import { useTestSession } from './fixtures/session.js';

const session = useTestSession();

const echo = (args: Record<string, unknown>): Record<string, unknown> => ({ received: args });

/** `Optional[List[str]] = None` as Pydantic and FastMCP publish it. */
const OPTIONAL_LIST: EnvelopeTool = {
  name: 'tag_items',
  inputSchema: {
    type: 'object',
    properties: {
      tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], default: null, title: 'Tags' },
    },
    title: 'tag_itemsArguments',
  },
  handler: echo,
};

const OPEN: EnvelopeTool = {
  name: 'open_search',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, additionalProperties: { type: 'string' } },
  handler: echo,
};

const PATTERNED: EnvelopeTool = {
  name: 'trace',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string' } },
    patternProperties: { '^x-': { type: 'string' } },
  },
  handler: echo,
};

const META_ON = { MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' };

async function call(
  tools: readonly EnvelopeTool[],
  env: Record<string, string>,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; structured: Record<string, unknown> }> {
  const { client } = await session.start({ env }, tools);
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, structured: result.structuredContent as Record<string, unknown> };
}

async function advertised(
  tools: readonly EnvelopeTool[],
  env: Record<string, string>,
): Promise<{ capability: unknown; contract: unknown }> {
  const { client } = await session.start({ env }, tools);
  const capability = (
    client.getServerCapabilities()?.experimental?.['openbridge_envelope'] as { normalized_kinds: unknown }
  ).normalized_kinds;
  const contract = (
    (await client.callTool({ name: 'get_envelope_contract', arguments: {} })).structuredContent as {
      normalized_kinds: unknown;
    }
  ).normalized_kinds;
  return { capability, contract };
}

describe('normalization gaps', () => {
  it('wraps a scalar sent for an anyOf [array, null] property, as for type ["array", "null"]', async () => {
    const { isError, structured } = await call([OPTIONAL_LIST], META_ON, 'tag_items', { tags: 'red' });
    expect(isError).toBe(false);
    expect(structured).toEqual({
      received: { tags: ['red'] },
      _meta: {
        normalized: [
          { kind: 'coerced', field: 'tags', from_type: 'string', to_type: 'array', reason: 'scalar_to_array' },
        ],
      },
    });
  });

  it('records unknown_field_passed_through for a key an additionalProperties sub-schema admits, under strict mode', async () => {
    const { isError, structured } = await call([OPEN], META_ON, 'open_search', { query: 'tea', colour: 'green' });
    expect(isError).toBe(false);
    expect(structured).toEqual({
      received: { query: 'tea', colour: 'green' },
      _meta: { normalized: [{ kind: 'unknown_field_passed_through', field: 'colour', reason: 'no_schema_match' }] },
    });
  });

  it('keeps a patternProperties schema strict: a key matching neither a property nor a pattern is rejected', async () => {
    const accepted = await call([PATTERNED], META_ON, 'trace', { id: 'a', 'x-span': 'b' });
    expect(accepted).toEqual({ isError: false, structured: { received: { id: 'a', 'x-span': 'b' } } });
    const rejected = await call([PATTERNED], META_ON, 'trace', { id: 'a', span: 'b' });
    expect(rejected.isError).toBe(true);
    expect(rejected.structured['error_code']).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
    expect(rejected.structured['details']).toEqual([
      {
        path: '',
        issue: 'arguments has a key the schema does not define: span.',
        received_type: 'string',
        field: '',
        extra: 'span',
        expected: 'only the keys the schema declares',
        received_value: 'b',
      },
    ]);
    expect(rejected.structured['_meta']).toEqual({
      normalized: [{ kind: 'unknown_field_rejected', field: 'span', reason: 'no_schema_match' }],
    });
  });

  it.each([
    [
      'strict, closed schemas without arrays',
      [PATTERNED],
      META_ON,
      ['renamed', 'dropped_alias', 'unknown_field_rejected'],
    ],
    [
      'strict, a schema that admits extra keys and a nullable array',
      [OPEN, OPTIONAL_LIST],
      META_ON,
      ['renamed', 'dropped_alias', 'coerced', 'unknown_field_passed_through', 'unknown_field_rejected'],
    ],
    [
      'lenient',
      [PATTERNED],
      { ...META_ON, MCP_STRICT_UNKNOWN_FIELDS: 'false' },
      ['renamed', 'dropped_alias', 'unknown_field_passed_through', 'unknown_field_rejected'],
    ],
    ['normalization off', [OPEN, OPTIONAL_LIST], { ...META_ON, MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: 'false' }, []],
    ['meta off', [OPEN, OPTIONAL_LIST], {}, []],
  ] as const)('advertises exactly the kinds a call can emit: %s', async (_label, tools, env, kinds) => {
    expect(await advertised(tools, env)).toEqual({ capability: kinds, contract: kinds });
  });
});
