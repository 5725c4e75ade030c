import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  ToolCallError,
  callWithEnvelope,
  envelopeFromJsonRpcError,
  parseEnvelopeText,
  unwrapToolResult,
} from '../src/index.js';
import type { ErrorEnvelope, ToolCallingClient, UnwrappedToolResult } from '../src/index.js';
import {
  ADS_RATE_LIMITED_ENVELOPE,
  MAX_ITEMS_ENVELOPE,
  TOOL_NOT_FOUND_ENVELOPE,
  without,
} from './envelope-fixtures.js';

const ENVELOPE_JSON = JSON.stringify(MAX_ITEMS_ENVELOPE);
const PNG_PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const IMAGE_BLOCK = { type: 'image', data: PNG_PIXEL, mimeType: 'image/png' } as const;

function text(value: string): { type: 'text'; text: string } {
  return { type: 'text', text: value };
}

const IS_ERROR_ENVELOPE: UnwrappedToolResult = { ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'is_error' };
const IN_BAND_ENVELOPE: UnwrappedToolResult = { ok: false, envelope: MAX_ITEMS_ENVELOPE, channel: 'in_band' };

describe('unwrapToolResult: failures', () => {
  it.each([
    [
      'isError + envelope in structuredContent and text',
      { isError: true, structuredContent: MAX_ITEMS_ENVELOPE, content: [text(ENVELOPE_JSON)] },
    ],
    [
      'isError + envelope in structuredContent only',
      { isError: true, structuredContent: MAX_ITEMS_ENVELOPE, content: [] },
    ],
    ['isError + clean envelope JSON in content[0].text', { isError: true, content: [text(ENVELOPE_JSON)] }],
    ['isError + "ToolError: " prefix', { isError: true, content: [text(`ToolError: ${ENVELOPE_JSON}`)] }],
    ['isError + "MCP error -32602: " prefix', { isError: true, content: [text(`MCP error -32602: ${ENVELOPE_JSON}`)] }],
    ['isError + both prefixes', { isError: true, content: [text(`ToolError: MCP error -32602: ${ENVELOPE_JSON}`)] }],
    ['isError + "Error: " prefix', { isError: true, content: [text(`Error: ${ENVELOPE_JSON}`)] }],
    [
      'isError + pretty-printed JSON with whitespace around it',
      { isError: true, content: [text(`\n  ${JSON.stringify(MAX_ITEMS_ENVELOPE, null, 2)}\n`)] },
    ],
    [
      'isError + envelope in the second text block',
      { isError: true, content: [text('The call failed.'), text(ENVELOPE_JSON)] },
    ],
    [
      'isError + envelope under structuredContent.error',
      { isError: true, structuredContent: { error: MAX_ITEMS_ENVELOPE } },
    ],
    [
      'isError + broken structuredContent, envelope in text',
      { isError: true, structuredContent: without(MAX_ITEMS_ENVELOPE, 'hints'), content: [text(ENVELOPE_JSON)] },
    ],
  ])('%s -> envelope on is_error', (_label, result) => {
    expect(unwrapToolResult(result)).toEqual(IS_ERROR_ENVELOPE);
  });

  it.each([
    [
      'isError false + envelope under structuredContent.error',
      { isError: false, structuredContent: { error: MAX_ITEMS_ENVELOPE }, content: [] },
    ],
    [
      'isError false + structuredContent being an envelope',
      { isError: false, structuredContent: MAX_ITEMS_ENVELOPE, content: [text(ENVELOPE_JSON)] },
    ],
    ['isError absent + structuredContent being an envelope', { structuredContent: MAX_ITEMS_ENVELOPE }],
    ['isError false + a single text block holding an envelope', { isError: false, content: [text(ENVELOPE_JSON)] }],
    ['isError absent + prefixed envelope text', { content: [text(`ToolError: ${ENVELOPE_JSON}`)] }],
  ])('%s -> envelope on in_band', (_label, result) => {
    expect(unwrapToolResult(result)).toEqual(IN_BAND_ENVELOPE);
  });

  it.each([
    [
      'isError + plain prose',
      { isError: true, content: [text('Order 902-1 was not found.')] },
      'Order 902-1 was not found.',
    ],
    [
      'isError + two prose blocks',
      { isError: true, content: [text('Upstream said no.'), text('Try later.')] },
      'Upstream said no.\nTry later.',
    ],
    [
      'isError + JSON that is not an envelope',
      { isError: true, content: [text('{"message":"bad"}')] },
      '{"message":"bad"}',
    ],
    [
      'isError + an envelope missing a field',
      { isError: true, content: [text(JSON.stringify(without(MAX_ITEMS_ENVELOPE, 'retryable')))] },
      JSON.stringify(without(MAX_ITEMS_ENVELOPE, 'retryable')),
    ],
    ['isError + image only', { isError: true, content: [IMAGE_BLOCK] }, ''],
    ['isError + no content at all', { isError: true }, ''],
    ['isError + content that is not an array', { isError: true, content: 'Order 902-1 was not found.' }, ''],
  ])('%s -> text on is_error', (_label, result, expectedText) => {
    expect(unwrapToolResult(result)).toEqual({ ok: false, text: expectedText, channel: 'is_error' });
  });

  it.each([
    ['an in-band string', { isError: false, structuredContent: { error: 'quota exceeded' } }, 'quota exceeded'],
    ['an in-band number', { structuredContent: { error: 404 } }, '404'],
    ['an in-band false', { structuredContent: { error: false } }, 'false'],
  ])('%s -> text on in_band', (_label, result, expectedText) => {
    expect(unwrapToolResult(result)).toEqual({ ok: false, text: expectedText, channel: 'in_band' });
  });

  it.each([
    ['an in-band {code, message} object', { code: 'NOT_FOUND', message: 'no such order' }],
    [
      'an in-band {code, message, field, details} object',
      { code: 'invalid_input', message: 'the window is too wide', field: 'compare', details: { max_days: 90 } },
    ],
    ['an in-band broken envelope', without(MAX_ITEMS_ENVELOPE, 'tool')],
  ])('%s -> text on in_band, with the object itself as error', (_label, error) => {
    expect(unwrapToolResult({ structuredContent: { error } })).toEqual({
      ok: false,
      text: JSON.stringify(error),
      channel: 'in_band',
      error,
    });
  });
});

describe('unwrapToolResult: successes', () => {
  const orders = { orders: [{ orderId: '902-1', status: 'Shipped' }], nextToken: null };

  it.each([
    ['an object', orders],
    ['an object with _meta', { ...orders, _meta: { rate_limit: { remaining: 3 } } }],
    ['an array', [{ orderId: '902-1' }, { orderId: '902-2' }]],
    ['an empty array', []],
    ['a string', 'done'],
    ['an empty string', ''],
    ['a number', 42],
    ['zero', 0],
    ['false', false],
    ['null', null],
    ['an object whose error is null', { error: null, rows: 0 }],
  ])('structuredContent %s -> exactly that value', (_label, value) => {
    const unwrapped = unwrapToolResult({ content: [text('ignored')], structuredContent: value });
    expect(unwrapped).toEqual({ ok: true, value });
    if (unwrapped.ok) expect(unwrapped.value).toBe(value);
  });

  it('isError false is the same as isError absent', () => {
    expect(unwrapToolResult({ isError: false, structuredContent: orders })).toEqual({ ok: true, value: orders });
  });

  it('structuredContent explicitly undefined falls back to the text', () => {
    expect(unwrapToolResult({ structuredContent: undefined, content: [text('ok')] })).toEqual({
      ok: true,
      value: 'ok',
    });
  });

  it.each([
    ['one text block', [text('3 orders found')], '3 orders found'],
    ['two text blocks', [text('line one'), text('line two')], 'line one\nline two'],
    ['prose that mentions JSON', [text('{ not really json')], '{ not really json'],
    ['a non-envelope JSON object', [text('{"orderId":"902-1"}')], '{"orderId":"902-1"}'],
    [
      'two envelope texts (not a single block)',
      [text(ENVELOPE_JSON), text(ENVELOPE_JSON)],
      `${ENVELOPE_JSON}\n${ENVELOPE_JSON}`,
    ],
    ['an empty content list', [], ''],
  ])('text only, %s -> the text', (_label, content, value) => {
    expect(unwrapToolResult({ content })).toEqual({ ok: true, value });
  });

  it('an image block -> the content array', () => {
    const content = [IMAGE_BLOCK];
    expect(unwrapToolResult({ content })).toEqual({ ok: true, value: [IMAGE_BLOCK] });
  });

  it('text mixed with an image -> the content array', () => {
    const content = [text('chart attached'), IMAGE_BLOCK];
    expect(unwrapToolResult({ content })).toEqual({ ok: true, value: [text('chart attached'), IMAGE_BLOCK] });
  });
});

describe('unwrapToolResult: garbage never throws', () => {
  it.each([
    ['null', null, 'not a tool result: null'],
    ['undefined', undefined, 'not a tool result: undefined'],
    ['a number', 7, 'not a tool result: 7'],
    ['a string', 'boom', 'not a tool result: "boom"'],
    ['an array', [1, 2], 'not a tool result: [1,2]'],
    ['a boolean', true, 'not a tool result: true'],
    ['a BigInt', 10n, 'not a tool result: 10'],
  ])('%s -> a failure with text', (_label, input, expectedText) => {
    expect(unwrapToolResult(input)).toEqual({ ok: false, text: expectedText, channel: 'is_error' });
  });

  it('an error key beside data (a batch answer) is a success, not an in-band refusal', () => {
    const batch = {
      campaigns: { success: [{ campaignId: '41' }], error: [{ index: 1, code: 'INVALID_ARGUMENT' }] },
      error: [{ index: 1 }],
    };
    expect(unwrapToolResult({ structuredContent: batch })).toEqual({ ok: true, value: batch });
    expect(
      unwrapToolResult({ structuredContent: { error: { code: 'X' }, _meta: { rate_limit: { remaining: 1 } } } }),
    ).toEqual({ ok: false, text: '{"code":"X"}', channel: 'in_band', error: { code: 'X' } });
  });

  it('{} is an empty success', () => {
    expect(unwrapToolResult({})).toEqual({ ok: true, value: '' });
  });

  it('content with non-block items is returned as is', () => {
    expect(unwrapToolResult({ content: [null, 3, { type: 'text' }] })).toEqual({
      ok: true,
      value: [null, 3, { type: 'text' }],
    });
  });

  it('an in-band error holding a BigInt or a cycle becomes text instead of throwing', () => {
    expect(unwrapToolResult({ structuredContent: { error: 10n } })).toEqual({
      ok: false,
      text: '10',
      channel: 'in_band',
    });
    const cyclic: Record<string, unknown> = { code: 'LOOP' };
    cyclic['self'] = cyclic;
    expect(unwrapToolResult({ structuredContent: { error: cyclic } })).toEqual({
      ok: false,
      text: '[object Object]',
      channel: 'in_band',
      error: cyclic,
    });
  });

  it('a null-prototype object is read like any other', () => {
    const result = Object.assign(Object.create(null) as Record<string, unknown>, {
      isError: true,
      content: [text(ENVELOPE_JSON)],
    });
    expect(unwrapToolResult(result)).toEqual(IS_ERROR_ENVELOPE);
  });
});

describe('parseEnvelopeText', () => {
  it.each([
    ['clean JSON', ENVELOPE_JSON],
    ['"ToolError: "', `ToolError: ${ENVELOPE_JSON}`],
    ['"ToolError:" without a space', `ToolError:${ENVELOPE_JSON}`],
    ['"MCP error -32602: "', `MCP error -32602: ${ENVELOPE_JSON}`],
    ['"MCP error -32603: "', `MCP error -32603: ${ENVELOPE_JSON}`],
    ['"MCP error 42: "', `MCP error 42: ${ENVELOPE_JSON}`],
    ['both prefixes', `ToolError: MCP error -32602: ${ENVELOPE_JSON}`],
    ['"Error: ToolError: MCP error -32602: "', `Error: ToolError: MCP error -32602: ${ENVELOPE_JSON}`],
    ['surrounding whitespace', `  \n${ENVELOPE_JSON}\t\n`],
  ])('reads an envelope from %s', (_label, input) => {
    expect(parseEnvelopeText(input)).toEqual(MAX_ITEMS_ENVELOPE);
  });

  it.each([
    ['an empty string', ''],
    ['prose', 'The marketplace is not enabled.'],
    ['JSON that is not an envelope', '{"error":"bad request"}'],
    ['truncated JSON', ENVELOPE_JSON.slice(0, 40)],
    ['a prefix with nothing after it', 'ToolError: '],
  ])('returns undefined for %s', (_label, input) => {
    expect(parseEnvelopeText(input)).toBe(undefined);
  });
});

describe('envelopeFromJsonRpcError', () => {
  it.each([
    ['an McpError with the envelope as data', new McpError(ErrorCode.InvalidParams, ENVELOPE_JSON, MAX_ITEMS_ENVELOPE)],
    ['an McpError with the envelope only in the message', new McpError(ErrorCode.InvalidParams, ENVELOPE_JSON)],
    ['a raw error object with data', { code: -32602, message: 'Invalid params', data: MAX_ITEMS_ENVELOPE }],
    [
      'a raw error object with data.envelope',
      { code: -32602, message: 'Invalid params', data: { envelope: MAX_ITEMS_ENVELOPE } },
    ],
    [
      'a raw error object with the envelope JSON as data',
      { code: -32602, message: 'Invalid params', data: ENVELOPE_JSON },
    ],
    ['a raw error object with the envelope JSON as message', { code: -32602, message: ENVELOPE_JSON }],
    ['a plain Error with a prefixed message', new Error(`MCP error -32602: ${ENVELOPE_JSON}`)],
  ])('finds the envelope in %s', (_label, error) => {
    expect(envelopeFromJsonRpcError(error)).toEqual(MAX_ITEMS_ENVELOPE);
  });

  it.each([
    ['an McpError without an envelope', new McpError(ErrorCode.InternalError, 'database offline')],
    ['an McpError with non-envelope data', new McpError(ErrorCode.InvalidParams, 'bad', { field: 'x' })],
    ['a plain Error', new Error('socket hang up')],
    ['null', null],
    ['undefined', undefined],
    ['a string holding an envelope', ENVELOPE_JSON],
    ['a number', -32602],
    ['an object with a non-string message', { message: 42 }],
  ])('returns undefined for %s', (_label, error) => {
    expect(envelopeFromJsonRpcError(error)).toBe(undefined);
  });
});

/** A stand-in client whose callTool resolves or rejects as told, recording what it was asked. */
function stubClient(outcome: { resolve: unknown } | { reject: Error }): ToolCallingClient & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    callTool(params) {
      calls.push(params);
      return 'resolve' in outcome ? Promise.resolve(outcome.resolve) : Promise.reject(outcome.reject);
    },
  };
}

describe('callWithEnvelope with a stub client', () => {
  it('returns [value, null] on success and passes name and arguments through', async () => {
    const client = stubClient({ resolve: { content: [], structuredContent: { total: 3 } } });
    await expect(callWithEnvelope(client, 'count_orders', { status: 'Shipped' })).resolves.toEqual([
      { total: 3 },
      null,
    ]);
    expect(client.calls).toEqual([
      {
        name: 'count_orders',
        arguments: { status: 'Shipped' },
        _meta: { 'io.github.mcp-envelope/envelope': { contract_versions: [1, 2] } },
      },
    ]);
  });

  it('sends empty arguments by default', async () => {
    const client = stubClient({ resolve: { content: [text('pong')] } });
    await expect(callWithEnvelope(client, 'ping_upstream')).resolves.toEqual(['pong', null]);
    expect(client.calls).toEqual([
      {
        name: 'ping_upstream',
        arguments: {},
        _meta: { 'io.github.mcp-envelope/envelope': { contract_versions: [1, 2] } },
      },
    ]);
  });

  it('returns [null, envelope] for an isError envelope', async () => {
    const client = stubClient({ resolve: { isError: true, content: [text(`ToolError: ${ENVELOPE_JSON}`)] } });
    await expect(callWithEnvelope(client, 'list_orders')).resolves.toEqual([null, MAX_ITEMS_ENVELOPE]);
  });

  it('returns [null, envelope] for an in-band envelope', async () => {
    const client = stubClient({ resolve: { content: [], structuredContent: { error: MAX_ITEMS_ENVELOPE } } });
    await expect(callWithEnvelope(client, 'list_orders')).resolves.toEqual([null, MAX_ITEMS_ENVELOPE]);
  });

  it('returns [null, envelope] when the call rejects with an envelope-carrying JSON-RPC error', async () => {
    const client = stubClient({
      reject: new McpError(ErrorCode.InvalidParams, JSON.stringify(TOOL_NOT_FOUND_ENVELOPE), TOOL_NOT_FOUND_ENVELOPE),
    });
    await expect(callWithEnvelope(client, 'list_ordrs')).resolves.toEqual([null, TOOL_NOT_FOUND_ENVELOPE]);
  });

  it('throws ToolCallError for an isError result without an envelope', async () => {
    const client = stubClient({ resolve: { isError: true, content: [text('Order 902-1 was not found.')] } });
    const failure = await callWithEnvelope(client, 'get_order').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ToolCallError.isInstance(failure)).toBe(true);
    expect((failure as ToolCallError).toJSON()).toEqual({
      name: 'ToolCallError',
      tool: 'get_order',
      channel: 'is_error',
      text: 'Order 902-1 was not found.',
    });
  });

  it('throws ToolCallError for an in-band error without an envelope', async () => {
    const client = stubClient({
      resolve: { structuredContent: { error: { code: 'NOT_FOUND', message: 'no such order' } } },
    });
    const failure = await callWithEnvelope(client, 'get_order').catch((error: unknown) => error);
    expect(ToolCallError.isInstance(failure)).toBe(true);
    const { message, code, field, details, text: arrived } = failure as ToolCallError;
    expect({ message, code, field, details, arrived }).toEqual({
      message: 'tool "get_order" failed without an error envelope: NOT_FOUND: no such order',
      code: 'NOT_FOUND',
      field: undefined,
      details: undefined,
      arrived: '{"code":"NOT_FOUND","message":"no such order"}',
    });
  });

  it('rethrows a failure that carries no envelope, unchanged', async () => {
    const original = new Error('socket hang up');
    await expect(callWithEnvelope(stubClient({ reject: original }), 'get_order')).rejects.toBe(original);
    const protocol = new McpError(ErrorCode.InternalError, 'database offline');
    await expect(callWithEnvelope(stubClient({ reject: protocol }), 'get_order')).rejects.toBe(protocol);
  });
});

describe('ToolCallError', () => {
  it('carries tool, text and channel and names itself', () => {
    const error = new ToolCallError('get_order', 'Order 902-1 was not found.', 'is_error');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolCallError');
    expect(error.message).toBe('tool "get_order" failed without an error envelope: Order 902-1 was not found.');
    expect([error.tool, error.text, error.channel]).toEqual(['get_order', 'Order 902-1 was not found.', 'is_error']);
  });

  it('cuts the message at 500 characters of text but keeps the whole text', () => {
    const long = 'x'.repeat(800);
    const error = new ToolCallError('t', long, 'in_band');
    expect(error.message).toBe(`tool "t" failed without an error envelope: ${'x'.repeat(500)}`);
    expect(error.text).toHaveLength(800);
  });

  it('serializes to { name, tool, channel, text }', () => {
    expect(JSON.parse(JSON.stringify(new ToolCallError('get_order', 'nope', 'in_band')))).toEqual({
      name: 'ToolCallError',
      tool: 'get_order',
      channel: 'in_band',
      text: 'nope',
    });
  });

  it('isInstance recognizes its own instances and ones from another copy of the package', () => {
    expect(ToolCallError.isInstance(new ToolCallError('t', 'x', 'is_error'))).toBe(true);
    const fromAnotherCopy = { [Symbol.for('@mcp-envelope/contract/ToolCallError')]: true, message: 'x' };
    expect(ToolCallError.isInstance(fromAnotherCopy)).toBe(true);
  });

  it.each([
    ['a plain Error', new Error('x')],
    ['an McpError', new McpError(ErrorCode.InternalError, 'x')],
    ['null', null],
    ['an empty object', {}],
    ['a look-alike without the brand', { name: 'ToolCallError', tool: 't', text: 'x', channel: 'is_error' }],
    ['a string', 'ToolCallError'],
  ])('isInstance rejects %s', (_label, value) => {
    expect(ToolCallError.isInstance(value)).toBe(false);
  });
});

/** Every tool the SDK test server offers, each answering on one channel. */
const CHANNEL_TOOLS: Readonly<Record<string, () => CallToolResult>> = {
  error_both_channels: () => ({ isError: true, structuredContent: MAX_ITEMS_ENVELOPE, content: [text(ENVELOPE_JSON)] }),
  error_text_clean: () => ({ isError: true, content: [text(ENVELOPE_JSON)] }),
  error_text_tool_error_prefix: () => ({ isError: true, content: [text(`ToolError: ${ENVELOPE_JSON}`)] }),
  error_text_mcp_error_prefix: () => ({ isError: true, content: [text(`MCP error -32602: ${ENVELOPE_JSON}`)] }),
  error_text_both_prefixes: () => ({ isError: true, content: [text(`ToolError: MCP error -32602: ${ENVELOPE_JSON}`)] }),
  error_prose: () => ({ isError: true, content: [text('The report is not ready yet.')] }),
  in_band_envelope: () => ({
    structuredContent: { error: MAX_ITEMS_ENVELOPE },
    content: [text('see structuredContent')],
  }),
  in_band_plain_error: () => ({
    structuredContent: { error: { code: 'NOT_FOUND', message: 'no such report' } },
    content: [],
  }),
  structured_is_envelope: () => ({
    isError: false,
    structuredContent: MAX_ITEMS_ENVELOPE,
    content: [text(ENVELOPE_JSON)],
  }),
  success_object: () => ({
    structuredContent: { reportId: 'R-17', status: 'DONE' },
    content: [text('{"reportId":"R-17","status":"DONE"}')],
  }),
  success_text: () => ({ content: [text('report R-17 is DONE')] }),
  success_image: () => ({ content: [IMAGE_BLOCK] }),
  success_empty: () => ({ content: [] }),
};

const JSON_RPC_TOOLS = ['throws_envelope', 'throws_plain', 'hangs'] as const;

type LowLevelServer = Server;

/** A low-level SDK server with hand-written tools/list and tools/call handlers. */
function createChannelServer(): LowLevelServer {
  const server = new Server({ name: 'channel-fixture-server', version: '0.0.1' }, { capabilities: { tools: {} } });
  const tools: Tool[] = [...Object.keys(CHANNEL_TOOLS), ...JSON_RPC_TOOLS].map((name) => ({
    name,
    inputSchema: { type: 'object' },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const answer = CHANNEL_TOOLS[name];
    if (answer !== undefined) return answer();
    if (name === 'throws_envelope')
      throw new McpError(ErrorCode.InvalidParams, JSON.stringify(ADS_RATE_LIMITED_ENVELOPE), ADS_RATE_LIMITED_ENVELOPE);
    if (name === 'throws_plain') throw new McpError(ErrorCode.InternalError, 'database offline');
    if (name === 'hangs') {
      return new Promise<CallToolResult>((resolve) => {
        extra.signal.addEventListener('abort', () => {
          resolve({ content: [] });
        });
      });
    }
    const notFound: ErrorEnvelope = {
      ...TOOL_NOT_FOUND_ENVELOPE,
      tool: name,
      summary: `No tool named ${name} is registered.`,
    };
    await Promise.resolve();
    return { isError: true, structuredContent: { ...notFound }, content: [text(JSON.stringify(notFound))] };
  });
  return server;
}

describe('with a real SDK client and server (InMemoryTransport)', () => {
  let server: LowLevelServer;
  let client: Client;

  beforeEach(async () => {
    server = createChannelServer();
    client = new Client({ name: 'channel-fixture-client', version: '0.0.1' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    await client.listTools();
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it.each([
    ['error_both_channels', 'is_error'],
    ['error_text_clean', 'is_error'],
    ['error_text_tool_error_prefix', 'is_error'],
    ['error_text_mcp_error_prefix', 'is_error'],
    ['error_text_both_prefixes', 'is_error'],
    ['in_band_envelope', 'in_band'],
    ['structured_is_envelope', 'in_band'],
  ])('%s: the envelope arrives on %s', async (tool, channel) => {
    expect(unwrapToolResult(await client.callTool({ name: tool, arguments: {} }))).toEqual({
      ok: false,
      envelope: MAX_ITEMS_ENVELOPE,
      channel,
    });
    await expect(callWithEnvelope(client, tool)).resolves.toEqual([null, MAX_ITEMS_ENVELOPE]);
  });

  it('error_prose: text on is_error, ToolCallError from callWithEnvelope', async () => {
    expect(unwrapToolResult(await client.callTool({ name: 'error_prose' }))).toEqual({
      ok: false,
      text: 'The report is not ready yet.',
      channel: 'is_error',
    });
    await expect(callWithEnvelope(client, 'error_prose')).rejects.toThrow(
      new ToolCallError('error_prose', 'The report is not ready yet.', 'is_error'),
    );
  });

  it('in_band_plain_error: text on in_band, ToolCallError from callWithEnvelope', async () => {
    const expectedText = '{"code":"NOT_FOUND","message":"no such report"}';
    const error = { code: 'NOT_FOUND', message: 'no such report' };
    expect(unwrapToolResult(await client.callTool({ name: 'in_band_plain_error' }))).toEqual({
      ok: false,
      text: expectedText,
      channel: 'in_band',
      error,
    });
    const failure = await callWithEnvelope(client, 'in_band_plain_error').catch((caught: unknown) => caught);
    expect(ToolCallError.isInstance(failure) ? failure.toJSON() : failure).toEqual({
      name: 'ToolCallError',
      tool: 'in_band_plain_error',
      channel: 'in_band',
      text: expectedText,
      error,
    });
  });

  it.each([
    ['success_object', { reportId: 'R-17', status: 'DONE' }],
    ['success_text', 'report R-17 is DONE'],
    ['success_image', [IMAGE_BLOCK]],
    ['success_empty', ''],
  ])('%s: a success with the expected value', async (tool, value) => {
    expect(unwrapToolResult(await client.callTool({ name: tool }))).toEqual({ ok: true, value });
    await expect(callWithEnvelope(client, tool, { reportId: 'R-17' })).resolves.toEqual([value, null]);
  });

  it('an unknown tool: the tool_not_found envelope, and one handler branches on error_kind', async () => {
    const [value, envelope] = await callWithEnvelope(client, 'list_reprots', { limit: 5 });
    expect(value).toBe(null);
    expect(envelope).toEqual({
      ...TOOL_NOT_FOUND_ENVELOPE,
      tool: 'list_reprots',
      summary: 'No tool named list_reprots is registered.',
    });
    let action: string;
    switch (envelope?.error_kind) {
      case 'tool_not_found':
        action = 'search the catalog';
        break;
      case 'rate_limited':
        action = 'wait';
        break;
      default:
        action = 'give up';
    }
    expect(action).toBe('search the catalog');
  });

  it('a handler throwing McpError with an envelope: the SDK client rejects and callWithEnvelope returns it', async () => {
    const rejection = await client.callTool({ name: 'throws_envelope' }).catch((error: unknown) => error);
    expect(rejection).toBeInstanceOf(McpError);
    expect((rejection as McpError).code).toBe(-32602);
    expect(envelopeFromJsonRpcError(rejection)).toEqual(ADS_RATE_LIMITED_ENVELOPE);
    await expect(callWithEnvelope(client, 'throws_envelope')).resolves.toEqual([null, ADS_RATE_LIMITED_ENVELOPE]);
  });

  it('a handler throwing McpError without an envelope: callWithEnvelope rethrows it', async () => {
    const failure = await callWithEnvelope(client, 'throws_plain').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpError);
    expect(ToolCallError.isInstance(failure)).toBe(false);
    expect((failure as McpError).code).toBe(-32603);
    expect((failure as McpError).message).toContain('database offline');
  });

  it('the connection closing mid-call is rethrown, not swallowed', async () => {
    const pending = callWithEnvelope(client, 'hangs').catch((error: unknown) => error);
    await server.close();
    const failure = await pending;
    expect(failure).toBeInstanceOf(McpError);
    expect(ToolCallError.isInstance(failure)).toBe(false);
    expect((failure as McpError).code).toBe(-32000);
    expect((failure as McpError).message).toBe('MCP error -32000: Connection closed');
  });

  it('a call after the client closed is rethrown, not swallowed', async () => {
    await client.close();
    const failure = await callWithEnvelope(client, 'success_text').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(ToolCallError.isInstance(failure)).toBe(false);
    expect((failure as Error).message).toBe('Not connected');
  });
});

describe('with a real SDK client against a tool that has an outputSchema (widened to admit the envelope)', () => {
  const successSchema: NonNullable<Tool['outputSchema']> = {
    type: 'object',
    properties: { reportId: { type: 'string' } },
    required: ['reportId'],
  };
  const envelopeBranch: NonNullable<Tool['outputSchema']> = {
    type: 'object',
    required: ['error_kind', 'error_code', '_envelope_version'],
  };

  async function connect(outputSchema: Tool['outputSchema']): Promise<{ client: Client; close: () => Promise<void> }> {
    const server = new Server({ name: 'output-schema-server', version: '0.0.1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'get_report', inputSchema: { type: 'object' }, outputSchema }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      isError: true,
      structuredContent: MAX_ITEMS_ENVELOPE,
      content: [text(ENVELOPE_JSON)],
    }));
    const client = new Client({ name: 'output-schema-client', version: '0.0.1' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    await client.listTools();
    return {
      client,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it('an outputSchema that admits the envelope lets the v1 client deliver the error result', async () => {
    const { client, close } = await connect({ type: 'object', anyOf: [successSchema, envelopeBranch] });
    try {
      await expect(callWithEnvelope(client, 'get_report')).resolves.toEqual([null, MAX_ITEMS_ENVELOPE]);
    } finally {
      await close();
    }
  });

  it('a success-only outputSchema makes the v1 client throw, and the envelope is lost', async () => {
    const { client, close } = await connect(successSchema);
    try {
      const failure = await callWithEnvelope(client, 'get_report').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(McpError);
      expect((failure as McpError).code).toBe(-32602);
      expect((failure as McpError).message).toContain("Structured content does not match the tool's output schema");
    } finally {
      await close();
    }
  });
});
