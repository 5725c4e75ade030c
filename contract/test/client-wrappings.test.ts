/**
 * The client helpers against the wrappings agent frameworks put around a tool's answer, against
 * envelopes of a later minor release, and the typed throwing form. The recorded strings follow
 * the shapes those frameworks build (the conformance package drives the ones that install here
 * against a real reference server).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import {
  MAX_SCANNED_TEXT_LENGTH,
  ToolCallError,
  ToolEnvelopeError,
  callOrThrow,
  envelopeFromJsonRpcError,
  isEnvelope,
  isReceivedEnvelope,
  parseEnvelopeText,
  retryAfterSecondsOf,
  unwrapOrThrow,
  unwrapToolResult,
  validateEnvelope,
} from '../src/index.js';
import type { ToolCallingClient } from '../src/index.js';
import {
  ADS_RATE_LIMITED_ENVELOPE,
  FULL_ENVELOPE,
  MAX_ITEMS_ENVELOPE,
  MINIMAL_ENVELOPE,
  SP_NOT_FOUND_ENVELOPE,
  without,
} from './envelope-fixtures.js';

const ENVELOPE_JSON = JSON.stringify(MAX_ITEMS_ENVELOPE);

/** An envelope whose strings hold braces, quotes and escapes, so a naive brace count goes wrong. */
const TRICKY_ENVELOPE = {
  ...MINIMAL_ENVELOPE,
  summary: 'filters must be an object like {"status": "open"}, got "}{"',
  hints: ['Send {"filters": {}} with a \\ backslash kept', 'Unbalanced: }}}} {{'],
} as const;

describe('parseEnvelopeText: an envelope behind any prefix and before any suffix', () => {
  it.each([
    [
      'LangChain MCP adapters (isError result)',
      `MCP tool 'list_orders' on server 'sp' returned an error: ${ENVELOPE_JSON}`,
    ],
    [
      'LangChain wrapping a JSON-RPC error',
      `Error calling tool list_orders: McpError: MCP error -32602: ${ENVELOPE_JSON}`,
    ],
    [
      'a LangGraph ToolNode message',
      `Error: MCP tool 'list_orders' on server 'sp' returned an error: ${ENVELOPE_JSON}\n Please fix your mistakes.`,
    ],
    ['a Python host', `RuntimeError: ToolError: ${ENVELOPE_JSON}`],
    [
      'a Python traceback line after it',
      `Traceback (most recent call last):\nToolError: ${ENVELOPE_JSON}\n  File "agent.py", line 12`,
    ],
    [
      'an OpenAI Agents default error text',
      `An error occurred while running the tool. Please try again. Error: ${ENVELOPE_JSON}`,
    ],
    ['prose with quotes and a stray brace first', `tool "list_orders" said } and then: ${ENVELOPE_JSON} (see "logs")`],
    ['a prose brace pair first', `Error {code 7}: ${ENVELOPE_JSON}`],
    ['a non-envelope JSON object first', `request {"marketplaceIds":["A1PA6795UKMFR9"]} failed: ${ENVELOPE_JSON}`],
    ['pretty-printed JSON inside prose', `failed:\n${JSON.stringify(MAX_ITEMS_ENVELOPE, null, 2)}\nend`],
    ['a serialized text block', JSON.stringify({ type: 'text', text: ENVELOPE_JSON })],
    ['a serialized content array', JSON.stringify([{ type: 'text', text: `ToolError: ${ENVELOPE_JSON}` }])],
    [
      'a serialized CallToolResult',
      JSON.stringify({ content: [{ type: 'text', text: ENVELOPE_JSON }], isError: true }),
    ],
    ['a serialized Mastra error', JSON.stringify({ error: true, message: `MCP error -32602: ${ENVELOPE_JSON}` })],
    ['a serialized in-band result', JSON.stringify({ error: MAX_ITEMS_ENVELOPE })],
    ['an envelope inside an array', `[${ENVELOPE_JSON}]`],
  ])('%s', (_label, text) => {
    expect(parseEnvelopeText(text)).toEqual(MAX_ITEMS_ENVELOPE);
  });

  it('reads an envelope whose strings hold braces, quotes and backslashes, behind a prefix', () => {
    expect(parseEnvelopeText(`ToolException: ${JSON.stringify(TRICKY_ENVELOPE)} trailing }`)).toEqual(TRICKY_ENVELOPE);
  });

  it('takes the first envelope when there are two', () => {
    expect(parseEnvelopeText(`first ${ENVELOPE_JSON} then ${JSON.stringify(ADS_RATE_LIMITED_ENVELOPE)}`)).toEqual(
      MAX_ITEMS_ENVELOPE,
    );
  });

  it.each([
    ['prose only', "MCP tool 'list_orders' on server 'sp' returned an error: upstream timed out"],
    ['JSON that is not an envelope', 'Error: {"message":"bad request","code":400}'],
    ['a fragment with some of the fields', `Error: ${JSON.stringify(without(MAX_ITEMS_ENVELOPE, 'examples'))}`],
    ['a truncated envelope', `Error: ${ENVELOPE_JSON.slice(0, -1)}`],
    ['an envelope with its quotes escaped inside prose', `Error: ${JSON.stringify(ENVELOPE_JSON).slice(1, -1)}`],
    ['an unclosed string before the envelope swallows it', `Error {"oops ${ENVELOPE_JSON}`],
  ])('finds nothing in %s', (_label, text) => {
    expect(parseEnvelopeText(text)).toBe(undefined);
  });

  it('does not read strings longer than MAX_SCANNED_TEXT_LENGTH', () => {
    const padding = ' '.repeat(MAX_SCANNED_TEXT_LENGTH - ENVELOPE_JSON.length);
    expect(parseEnvelopeText(`${padding}${ENVELOPE_JSON}`)).toEqual(MAX_ITEMS_ENVELOPE);
    expect(parseEnvelopeText(`${padding} ${ENVELOPE_JSON}`)).toBe(undefined);
  });

  it('gives up after 32 braces that are not JSON, and reads one behind 31 of them', () => {
    expect(parseEnvelopeText(`${'{x} '.repeat(31)}${ENVELOPE_JSON}`)).toEqual(MAX_ITEMS_ENVELOPE);
    expect(parseEnvelopeText(`${'{x} '.repeat(33)}${ENVELOPE_JSON}`)).toBe(undefined);
  });

  it('handles deep nesting and a flood of open braces without throwing', () => {
    expect(parseEnvelopeText('{'.repeat(100_000))).toBe(undefined);
    expect(parseEnvelopeText(`${'['.repeat(50_000)}${ENVELOPE_JSON}${']'.repeat(50_000)}`)).toEqual(MAX_ITEMS_ENVELOPE);
    expect(parseEnvelopeText(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)).toBe(undefined);
  });
});

/** What a server of a later minor release may send: values this release does not know. */
const LATER_RELEASE_ENVELOPES = [
  ['an unknown error_kind', { ...MAX_ITEMS_ENVELOPE, error_kind: 'quota_exhausted' }],
  ['an unknown legacy_error_kind', { ...MAX_ITEMS_ENVELOPE, legacy_error_kind: 'upstream_quota' }],
  [
    'a reserved normalization kind',
    { ...MAX_ITEMS_ENVELOPE, _meta: { normalized: [{ kind: 'unknown_field_dropped', field: 'debugLevel' }] } },
  ],
  ['an unknown error_code shape', { ...MAX_ITEMS_ENVELOPE, error_code: 'quota.exhausted' }],
  ['_envelope_version 3', { ...MAX_ITEMS_ENVELOPE, _envelope_version: 3 }],
] as const;

describe('envelopes of a later minor release', () => {
  it.each(LATER_RELEASE_ENVELOPES)(
    '%s: strict validation rejects it, the client helpers still read it',
    (_label, envelope) => {
      expect(validateEnvelope(envelope).valid).toBe(false);
      expect(isEnvelope(envelope)).toBe(false);
      expect(isReceivedEnvelope(envelope)).toBe(true);
      expect(unwrapToolResult({ isError: true, structuredContent: envelope })).toEqual({
        ok: false,
        envelope,
        channel: 'is_error',
      });
      expect(
        unwrapToolResult({
          isError: true,
          content: [{ type: 'text', text: `ToolError: ${JSON.stringify(envelope)}` }],
        }),
      ).toEqual({ ok: false, envelope, channel: 'is_error' });
      expect(unwrapToolResult({ structuredContent: { error: envelope } })).toEqual({
        ok: false,
        envelope,
        channel: 'in_band',
      });
      expect(envelopeFromJsonRpcError(new McpError(ErrorCode.InvalidParams, 'Invalid params', envelope))).toEqual(
        envelope,
      );
    },
  );

  it('extra top-level and _meta fields: both the schema and the client helpers accept them', () => {
    const envelope = { ...MAX_ITEMS_ENVELOPE, trace_id: 't-1', _meta: { retry_after_seconds: 2, cost_units: 4 } };
    expect([isEnvelope(envelope), isReceivedEnvelope(envelope)]).toEqual([true, true]);
    expect(unwrapToolResult({ isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] })).toEqual({
      ok: false,
      envelope,
      channel: 'is_error',
    });
  });

  it('every schema-valid envelope is a received envelope', () => {
    for (const envelope of [
      MINIMAL_ENVELOPE,
      FULL_ENVELOPE,
      MAX_ITEMS_ENVELOPE,
      ADS_RATE_LIMITED_ENVELOPE,
      TRICKY_ENVELOPE,
    ]) {
      expect([isEnvelope(envelope), isReceivedEnvelope(envelope)]).toEqual([true, true]);
    }
  });

  it.each([
    'error_kind',
    'tool',
    'summary',
    'details',
    'hints',
    'examples',
    'error_code',
    'retryable',
    '_envelope_version',
  ])('a fragment without %s is not an envelope', (field) => {
    const fragment = without(MAX_ITEMS_ENVELOPE, field);
    expect(isReceivedEnvelope(fragment)).toBe(false);
    expect(unwrapToolResult({ isError: true, structuredContent: fragment, content: [] })).toEqual({
      ok: false,
      text: '',
      channel: 'is_error',
    });
  });

  it.each([
    ['_envelope_version as a string', { _envelope_version: '1' }],
    ['_envelope_version 0', { _envelope_version: 0 }],
    ['_envelope_version 1.5', { _envelope_version: 1.5 }],
    ['retryable as a string', { retryable: 'false' }],
    ['error_kind as a number', { error_kind: 3 }],
    ['hints holding a number', { hints: ['wait', 3] }],
    ['details holding a string', { details: ['marketplaceIds'] }],
    ['a detail without received_type', { details: [{ path: 'x', issue: 'bad' }] }],
    ['examples as an object', { examples: {} }],
    ['legacy_error_kind as null', { legacy_error_kind: null }],
    ['upstream as a number', { upstream: 404 }],
    ['upstream as null', { upstream: null }],
    ['_meta as an array', { _meta: [] }],
    ['_meta.retry_after_seconds as a string', { _meta: { retry_after_seconds: '3' } }],
    ['_meta.normalized as an object', { _meta: { normalized: { kind: 'renamed' } } }],
    ['_meta.warnings as a string', { _meta: { warnings: 'stale' } }],
    ['_meta.rate_limit as a number', { _meta: { rate_limit: 5 } }],
    ['_meta.correlation_id as a number', { _meta: { correlation_id: 42 } }],
  ])('%s is not an envelope', (_label, change) => {
    expect(isReceivedEnvelope({ ...MAX_ITEMS_ENVELOPE, ...change })).toBe(false);
  });

  it.each([null, undefined, 'x', 1, [], [MAX_ITEMS_ENVELOPE]])('%j is not an envelope', (value) => {
    expect(isReceivedEnvelope(value)).toBe(false);
  });
});

describe('unwrapToolResult: what agent frameworks hand over in place of a CallToolResult', () => {
  it('a bare envelope is a failure with that envelope', () => {
    expect(unwrapToolResult(MAX_ITEMS_ENVELOPE)).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel: 'in_band',
    });
  });

  it('an OpenAI Agents text block holding the envelope is a failure with it', () => {
    expect(unwrapToolResult({ type: 'text', text: ENVELOPE_JSON })).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel: 'in_band',
    });
  });

  it('an OpenAI Agents text block holding prose is a success with that text', () => {
    expect(unwrapToolResult({ type: 'text', text: '3 orders found' })).toEqual({ ok: true, value: '3 orders found' });
  });

  it('a Mastra { error: true, message } with the envelope in the message is a failure with it', () => {
    const mastra = { error: true, message: `MCP error -32602: ${ENVELOPE_JSON}` };
    expect(unwrapToolResult(mastra)).toEqual({ ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'is_error' });
  });

  it('a Mastra { error: true, message } without an envelope is a failure with the message', () => {
    expect(unwrapToolResult({ error: true, message: 'fetch failed' })).toEqual({
      ok: false,
      text: 'fetch failed',
      channel: 'is_error',
    });
  });

  it('a ToolMessage-like { content: string, status: "error" } is read as an isError result', () => {
    const message = {
      content: `Error: MCP tool 'list_orders' on server 'sp' returned an error: ${ENVELOPE_JSON}\n Please fix your mistakes.`,
      status: 'error',
      tool_call_id: 'call_1',
    };
    expect(unwrapToolResult(message)).toEqual({ ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'is_error' });
    expect(unwrapToolResult({ content: 'Error: upstream down', status: 'error' })).toEqual({
      ok: false,
      text: 'Error: upstream down',
      channel: 'is_error',
    });
    expect(unwrapToolResult({ content: '3 orders', status: 'success' })).toEqual({ ok: true, value: '3 orders' });
  });

  it('a ToolMessage-like with content blocks and status "error" is read as an isError result', () => {
    const blocks = [
      { type: 'text', text: 'The call failed.' },
      { type: 'text', text: `ToolError: ${ENVELOPE_JSON}` },
    ];
    expect(unwrapToolResult({ content: blocks, status: 'error' })).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel: 'is_error',
    });
    expect(unwrapToolResult({ content: [{ type: 'text', text: 'no luck' }], status: 'error' })).toEqual({
      ok: false,
      text: 'no luck',
      channel: 'is_error',
    });
  });

  it('the AI SDK model output { type: "content", value } holding the envelope is a failure with it', () => {
    const modelOutput = { type: 'content', value: [{ type: 'text', text: ENVELOPE_JSON }] };
    expect(unwrapToolResult(modelOutput)).toEqual({ ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'in_band' });
    expect(unwrapToolResult({ type: 'content', value: [{ type: 'text', text: '3 orders' }] })).toEqual({
      ok: true,
      value: '3 orders',
    });
  });

  it('the AI SDK model output { type: "error-text", value } is an isError result with that text', () => {
    expect(unwrapToolResult({ type: 'error-text', value: `MCP error -32602: ${ENVELOPE_JSON}` })).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel: 'is_error',
    });
    expect(unwrapToolResult({ type: 'error-text', value: 'fetch failed' })).toEqual({
      ok: false,
      text: 'fetch failed',
      channel: 'is_error',
    });
  });

  it('a string holding an envelope is a failure with it; any other string is not a tool result', () => {
    expect(unwrapToolResult(`RuntimeError: ToolError: ${ENVELOPE_JSON}`)).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel: 'in_band',
    });
    expect(unwrapToolResult('boom')).toEqual({ ok: false, text: 'not a tool result: "boom"', channel: 'is_error' });
  });

  it('an isError result whose text has the envelope after a LangChain-style prefix', () => {
    const result = {
      isError: true,
      content: [{ type: 'text', text: `MCP tool 'list_orders' on server 'sp' returned an error: ${ENVELOPE_JSON}` }],
    };
    expect(unwrapToolResult(result)).toEqual({ ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'is_error' });
  });
});

describe('ToolEnvelopeError', () => {
  it('carries the envelope fields under their wire names, the channel and the raw envelope', () => {
    const error = new ToolEnvelopeError(ADS_RATE_LIMITED_ENVELOPE, 'is_error');
    expect(error).toBeInstanceOf(Error);
    expect({
      name: error.name,
      message: error.message,
      tool: error.tool,
      error_kind: error.error_kind,
      error_code: error.error_code,
      retryable: error.retryable,
      hints: error.hints,
      retry_after_seconds: error.retry_after_seconds,
      legacy_error_kind: error.legacy_error_kind,
      channel: error.channel,
    }).toEqual({
      name: 'ToolEnvelopeError',
      message: 'tool "list_campaigns" failed: rate_limited/RATE_LIMITED: The Ads API is throttling this profile.',
      tool: 'list_campaigns',
      error_kind: 'rate_limited',
      error_code: 'RATE_LIMITED',
      retryable: true,
      hints: ['Retry after the delay in _meta.retry_after_seconds.'],
      retry_after_seconds: 3,
      legacy_error_kind: undefined,
      channel: 'is_error',
    });
    expect(error.envelope).toBe(ADS_RATE_LIMITED_ENVELOPE);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ToolEnvelopeError',
      channel: 'is_error',
      envelope: ADS_RATE_LIMITED_ENVELOPE,
    });
  });

  it('tells the contract version and the upstream: 2 with sp-api, 1 without, and a later integer as sent', () => {
    const v2 = new ToolEnvelopeError(SP_NOT_FOUND_ENVELOPE, 'is_error');
    expect([v2.envelope_version, v2.error_kind, v2.upstream, v2.legacy_error_kind]).toEqual([
      2,
      'upstream_http',
      'sp-api',
      'sp_api_http',
    ]);
    const v1 = new ToolEnvelopeError(
      {
        ...MAX_ITEMS_ENVELOPE,
        _envelope_version: 1,
        error_kind: 'ads_api_client',
        error_code: 'TOOL_EXECUTION_FAILED',
      },
      'json_rpc_error',
    );
    expect([v1.envelope_version, v1.error_kind, v1.upstream]).toEqual([1, 'ads_api_client', undefined]);
    expect(new ToolEnvelopeError({ ...MAX_ITEMS_ENVELOPE, _envelope_version: 3 }, 'in_band').envelope_version).toBe(3);
    expect(isReceivedEnvelope(SP_NOT_FOUND_ENVELOPE)).toBe(true);
  });

  it('keeps legacy_error_kind and a fractional wait, and ignores a negative wait', () => {
    const full = new ToolEnvelopeError(FULL_ENVELOPE, 'in_band');
    expect([full.legacy_error_kind, full.retry_after_seconds]).toEqual(['sp_api_http', 1.5]);
    expect(
      new ToolEnvelopeError({ ...MAX_ITEMS_ENVELOPE, _meta: { retry_after_seconds: -1 } }, 'in_band')
        .retry_after_seconds,
    ).toBe(undefined);
    expect(retryAfterSecondsOf({ ...MAX_ITEMS_ENVELOPE, _meta: { retry_after_seconds: 0 } })).toBe(0);
    expect(retryAfterSecondsOf(MAX_ITEMS_ENVELOPE)).toBe(undefined);
  });

  it('isInstance recognizes its own instances and ones from another copy of the package, nothing else', () => {
    expect(ToolEnvelopeError.isInstance(new ToolEnvelopeError(MAX_ITEMS_ENVELOPE, 'in_band'))).toBe(true);
    expect(ToolEnvelopeError.isInstance({ [Symbol.for('@mcp-envelope/contract/ToolEnvelopeError')]: true })).toBe(true);
    expect(ToolEnvelopeError.isInstance(new ToolCallError('t', 'x', 'is_error'))).toBe(false);
    expect(ToolEnvelopeError.isInstance({ name: 'ToolEnvelopeError', envelope: MAX_ITEMS_ENVELOPE })).toBe(false);
    expect(ToolCallError.isInstance(new ToolEnvelopeError(MAX_ITEMS_ENVELOPE, 'in_band'))).toBe(false);
  });
});

describe('unwrapOrThrow', () => {
  it('returns the success value', () => {
    expect(unwrapOrThrow({ structuredContent: { total: 3 } })).toEqual({ total: 3 });
  });

  it('throws a ToolEnvelopeError for an envelope on any channel, a later release included', () => {
    const later = { ...MAX_ITEMS_ENVELOPE, error_kind: 'quota_exhausted' };
    const thrown = (() => {
      try {
        unwrapOrThrow({ isError: true, content: [{ type: 'text', text: `ToolError: ${JSON.stringify(later)}` }] });
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(
      ToolEnvelopeError.isInstance(thrown) ? [thrown.error_kind, thrown.channel, thrown.envelope] : thrown,
    ).toEqual(['quota_exhausted', 'is_error', later]);
  });

  it('throws a ToolCallError whose code, field and details are fields for an in-band { error: { code, message, field, details } }', () => {
    const error = {
      code: 'invalid_input',
      message: 'the comparison window is longer than 90 days',
      field: 'compare',
      details: { max_days: 90, got_days: 120 },
    };
    const thrown = (() => {
      try {
        unwrapOrThrow({ isError: false, structuredContent: { error } }, 'compare_sales');
        return undefined;
      } catch (caught) {
        return caught;
      }
    })();
    expect(ToolCallError.isInstance(thrown)).toBe(true);
    const failure = thrown as ToolCallError;
    expect([failure.code, failure.field, failure.details, failure.channel, failure.tool, failure.error]).toEqual([
      'invalid_input',
      'compare',
      { max_days: 90, got_days: 120 },
      'in_band',
      'compare_sales',
      error,
    ]);
    expect(failure.message).toBe(
      'tool "compare_sales" failed without an error envelope: invalid_input: the comparison window is longer than 90 days',
    );
  });

  it('throws a ToolCallError whose code, field and details are fields for an isError result carrying { error: { code, message, field, details } }', () => {
    const refusal = {
      code: 'invalid_input',
      message: 'marketplaceIds is empty',
      field: 'marketplaceIds',
      details: { min: 1 },
    };
    const result = {
      isError: true,
      structuredContent: { error: refusal },
      content: [{ type: 'text', text: 'marketplaceIds is empty' }],
    };
    expect(unwrapToolResult(result)).toEqual({
      ok: false,
      text: 'marketplaceIds is empty',
      channel: 'is_error',
      error: refusal,
    });
    let caught: unknown;
    try {
      unwrapOrThrow(result, 'list_orders');
    } catch (error) {
      caught = error;
    }
    expect(ToolCallError.isInstance(caught)).toBe(true);
    const error = caught as ToolCallError;
    expect([error.code, error.field, error.details, error.channel]).toEqual([
      'invalid_input',
      'marketplaceIds',
      { min: 1 },
      'is_error',
    ]);
  });

  it('throws a ToolCallError with no code for prose on isError', () => {
    expect(() => unwrapOrThrow({ isError: true, content: [{ type: 'text', text: 'timed out' }] }, 'get_order')).toThrow(
      'tool "get_order" failed without an error envelope: timed out',
    );
  });
});

function clientThat(outcome: { resolve: unknown } | { reject: Error }): ToolCallingClient {
  return { callTool: () => ('resolve' in outcome ? Promise.resolve(outcome.resolve) : Promise.reject(outcome.reject)) };
}

describe('callOrThrow', () => {
  it('resolves to the success value', async () => {
    await expect(
      callOrThrow(clientThat({ resolve: { content: [{ type: 'text', text: 'pong' }] } }), 'ping'),
    ).resolves.toBe('pong');
  });

  it('throws a ToolEnvelopeError on json_rpc_error for a JSON-RPC error carrying an envelope', async () => {
    const rejection = new McpError(
      ErrorCode.InvalidParams,
      JSON.stringify(ADS_RATE_LIMITED_ENVELOPE),
      ADS_RATE_LIMITED_ENVELOPE,
    );
    const thrown = await callOrThrow(clientThat({ reject: rejection }), 'list_campaigns').catch(
      (error: unknown) => error,
    );
    expect(
      ToolEnvelopeError.isInstance(thrown) ? [thrown.channel, thrown.retry_after_seconds, thrown.error_kind] : thrown,
    ).toEqual(['json_rpc_error', 3, 'rate_limited']);
  });

  it('throws a ToolEnvelopeError on in_band for an in-band envelope', async () => {
    const thrown = await callOrThrow(
      clientThat({ resolve: { structuredContent: { error: MAX_ITEMS_ENVELOPE } } }),
      'list_orders',
    ).catch((error: unknown) => error);
    expect(ToolEnvelopeError.isInstance(thrown) ? [thrown.channel, thrown.error_code] : thrown).toEqual([
      'in_band',
      'SCHEMA_MAX_ITEMS',
    ]);
  });

  it('rethrows a transport failure unchanged', async () => {
    const original = new Error('socket hang up');
    await expect(callOrThrow(clientThat({ reject: original }), 'get_order')).rejects.toBe(original);
  });
});

describe('envelopeFromJsonRpcError: errors client libraries throw', () => {
  it('reads the envelope from a wrapping error message and from its cause chain', () => {
    const inner = new McpError(ErrorCode.InvalidParams, 'Invalid params', MAX_ITEMS_ENVELOPE);
    expect(
      envelopeFromJsonRpcError(new Error(`MCP tool 'list_orders' on server 'sp' returned an error: ${ENVELOPE_JSON}`)),
    ).toEqual(MAX_ITEMS_ENVELOPE);
    expect(envelopeFromJsonRpcError(new Error('tool call failed', { cause: inner }))).toEqual(MAX_ITEMS_ENVELOPE);
    expect(
      envelopeFromJsonRpcError(
        new Error('a', {
          cause: new Error('b', { cause: new Error('c', { cause: new Error('d', { cause: inner }) }) }),
        }),
      ),
    ).toBe(undefined);
  });
});

describe('the client helpers run in browsers', () => {
  /** The relative modules a source file imports at run time (type-only imports are erased). */
  function runtimeImports(file: string): string[] {
    const source = readFileSync(fileURLToPath(new URL(`../src/${file}`, import.meta.url)), 'utf8');
    return [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)';$/gm)].map((match) => match[1] ?? '');
  }

  it('client.ts and every module it loads import nothing from node:', () => {
    const seen = new Set<string>();
    const pending = ['client.ts'];
    const specifiers: string[] = [];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        specifiers.push(specifier);
        if (specifier.startsWith('./')) pending.push(specifier.slice(2).replace(/\.js$/, '.ts'));
      }
    }
    expect([...seen].sort()).toEqual([
      'capability.ts',
      'client-errors.ts',
      'client.ts',
      'frozen.ts',
      'json-scan.ts',
      'received-envelope.ts',
      'shapes.ts',
      'taxonomy.ts',
      'v1.ts',
    ]);
    expect(specifiers.filter((specifier) => !specifier.startsWith('./'))).toEqual([]);
  });
});
