import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { createEnvelopeServer, toolResult } from '../src/index.js';

import { connectInMemory } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';
import { testAdapter } from './fixtures/test-adapter.js';
import {
  createTestServer,
  RELAYED_ENVELOPE,
  REPORT_NOT_FOUND,
  REPORT_NOT_FOUND_V2,
  TEST_TOOLS,
} from './fixtures/test-server.js';

/** The statement every result of a server carries, for a client that states no contract version (a reader of v1). */
const STATED_V1 = { [ENVELOPE_EXTENSION_ID]: { contract_version: 1 } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const session = useTestSession();
const start = session.start;

function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

function firstText(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

/** The capability of the test server: SP's upstream, so it answers readers of v1 (its default) and v2. */
const TEST_CAPABILITY = {
  contract_version: 1,
  error_kinds: [
    'mcp_input_validation',
    'tool_not_found',
    'sp_api_http',
    'sp_api_client',
    'auth_error',
    'rate_limited',
    'sandbox_runtime',
    'internal_error',
  ],
  normalized_kinds: [],
  contract_versions: [1, 2],
  upstreams: ['sp-api'],
  error_kinds_by_version: {
    '1': [
      'mcp_input_validation',
      'tool_not_found',
      'sp_api_http',
      'sp_api_client',
      'auth_error',
      'rate_limited',
      'sandbox_runtime',
      'internal_error',
    ],
    '2': [
      'mcp_input_validation',
      'tool_not_found',
      'upstream_http',
      'upstream_client',
      'auth_error',
      'rate_limited',
      'sandbox_runtime',
      'internal_error',
    ],
  },
};

describe('capabilities and listing', () => {
  it('advertises experimental.openbridge_envelope with exactly the kinds core and the adapter emit', async () => {
    const { client } = await start();
    expect(client.getServerCapabilities()?.experimental).toEqual({
      openbridge_envelope: TEST_CAPABILITY,
    });
  });

  it('lists every tool plus get_envelope_contract, in registration order', async () => {
    const { client } = await start();
    const { tools, nextCursor } = await client.listTools();
    expect(nextCursor).toBeUndefined();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_orders',
      'get_tags',
      'echo_text',
      'get_nothing',
      'fetch_upstream',
      'report_summary',
      'explode',
      'sandbox_limit',
      'relay_envelope',
      'teapot',
      'many_problems',
      'leak_token',
      'throttled',
      'bad_json_body',
      'get_envelope_contract',
    ]);
  });

  it('get_envelope_contract returns the capability value plus the resolved switches', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'get_envelope_contract', arguments: {} });
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toEqual({
      ...TEST_CAPABILITY,
      settings: {
        MCP_SCHEMA_KEY_NORMALIZATION_ENABLED: true,
        MCP_SCHEMA_KEY_NORMALIZATION_META: false,
        MCP_STRICT_UNKNOWN_FIELDS: true,
        MCP_MAX_UPSTREAM_BODY_BYTES: 4_194_304,
        MCP_MAX_RESULT_BYTES: 9_437_184,
        MCP_MAX_CONCURRENT_CALLS: 32,
        MCP_MAX_CONCURRENT_CALLS_PER_TOOL: 8,
        MCP_TOOL_FAILURE_META: false,
        MCP_RATE_LIMIT: true,
        MCP_RATE_LIMIT_MAX_WAIT_MS: 2000,
        MCP_RATE_LIMIT_STORE: 'memory',
        MCP_RATE_LIMIT_STORE_TIMEOUT_MS: 1000,
        rate_limit_store_fallback: false,
      },
    });
  });

  it('rejects a duplicate tool name, a clash with get_envelope_contract and a bad outputSchema at creation', () => {
    const handler = (): null => null;
    expect(() =>
      createTestServer({}, [
        { name: 'a', inputSchema: { type: 'object' }, handler },
        { name: 'a', inputSchema: { type: 'object' }, handler },
      ]),
    ).toThrow(new TypeError('tool name "a" is registered twice'));
    expect(() =>
      createTestServer({}, [{ name: 'get_envelope_contract', inputSchema: { type: 'object' }, handler }]),
    ).toThrow(new TypeError('tool name "get_envelope_contract" is registered twice'));
    expect(() =>
      createTestServer({}, [{ name: 'b', inputSchema: { type: 'object' }, outputSchema: ['array'] as never, handler }]),
    ).toThrow(new TypeError('tool "b": outputSchema must be a JSON Schema object'));
    expect(() => createTestServer({}, [{ name: 'c', inputSchema: { type: 'string' }, handler }])).toThrow(TypeError);
    expect(() => createTestServer({ pageSize: 0 })).toThrow(
      new TypeError('pageSize must be a positive integer, got 0'),
    );
  });
});

describe('success path', () => {
  it('returns an object result as structuredContent and JSON text, with the call telemetry in _meta', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'list_orders', arguments: { marketplaceIds: ['ATVPDKIKX0DER'] } });
    const expected = {
      orders: [],
      marketplaceIds: ['ATVPDKIKX0DER'],
      status: 'any',
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 4 } },
    };
    expect(result).toEqual({
      content: [{ type: 'text', text: JSON.stringify(expected) }],
      structuredContent: expected,
      _meta: STATED_V1,
    });
  });

  it('leaves arrays, strings and null without structuredContent or _meta', async () => {
    const { client } = await start();
    expect(await client.callTool({ name: 'get_tags', arguments: {} })).toEqual({
      content: [{ type: 'text', text: '["red","green"]' }],
      _meta: STATED_V1,
    });
    expect(await client.callTool({ name: 'echo_text', arguments: { text: 'hello' } })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      _meta: STATED_V1,
    });
    expect(await client.callTool({ name: 'get_nothing', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'null' }],
      _meta: STATED_V1,
    });
  });

  it('keeps a handler-built CallToolResult and merges _meta into its object structuredContent and text mirror', async () => {
    const { client } = await start({}, [
      {
        name: 'raw',
        inputSchema: { type: 'object' },
        handler: (_args, context) => {
          context.recordResponseMeta({ retry_after_seconds: 1.5 });
          return toolResult({
            content: [
              { type: 'text', text: '{"a":1,"_meta":{"trace":"t1"}}' },
              { type: 'text', text: 'note' },
            ],
            structuredContent: { a: 1, _meta: { trace: 't1' } },
          });
        },
      },
    ]);
    expect(await client.callTool({ name: 'raw', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: '{"a":1,"_meta":{"retry_after_seconds":1.5,"trace":"t1"}}' },
        { type: 'text', text: 'note' },
      ],
      structuredContent: { a: 1, _meta: { retry_after_seconds: 1.5, trace: 't1' } },
      _meta: STATED_V1,
    });
  });
});

describe('unknown tools', () => {
  it('answers an isError tool_not_found envelope with a did-you-mean hint by default', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'list_order', arguments: {} });
    const envelope = {
      error_kind: 'tool_not_found',
      tool: 'list_order',
      summary: 'No tool named "list_order" is registered on this server.',
      details: [],
      hints: ['Did you mean "list_orders"?', 'Call tools/list to see the tools this server offers.'],
      examples: [],
      error_code: 'TOOL_NOT_FOUND',
      retryable: false,
      _envelope_version: 1,
    };
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(envelope) }],
      structuredContent: envelope,
      _meta: STATED_V1,
    });
  });

  it('throws JSON-RPC -32602 with the envelope as message and data when unknownToolAs is jsonrpc', async () => {
    const { client } = await start({ unknownToolAs: 'jsonrpc' });
    const envelope = {
      error_kind: 'tool_not_found',
      tool: 'zzz',
      summary: 'No tool named "zzz" is registered on this server.',
      details: [],
      hints: ['Call tools/list to see the tools this server offers.'],
      examples: [],
      error_code: 'TOOL_NOT_FOUND',
      retryable: false,
      _envelope_version: 1,
    };
    await expect(client.callTool({ name: 'zzz', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: `MCP error -32602: ${JSON.stringify(envelope)}`,
      data: envelope,
    });
  });
});

describe('failures', () => {
  it('turns an unclassified throw into internal_error with a correlation_id that matches one log line, and leaks nothing', async () => {
    const log = captureLog();
    const { client } = await start({ logger: log.logger });
    const result = await client.callTool({ name: 'explode', arguments: {} });
    const envelope = structured(result);
    const correlationId = (envelope['_meta'] as { correlation_id: string }).correlation_id;
    expect(correlationId).toMatch(UUID);
    expect(envelope).toEqual({
      error_kind: 'internal_error',
      tool: 'explode',
      summary: 'The server failed while running this tool. The failure has been logged.',
      details: [],
      hints: [`If this keeps happening, report correlation_id ${correlationId} to the server operator.`],
      examples: [],
      error_code: 'INTERNAL_ERROR',
      retryable: false,
      _envelope_version: 1,
      _meta: { correlation_id: correlationId },
    });
    const wire = JSON.stringify(result);
    expect(wire).not.toContain('hunter2');
    expect(wire).not.toContain('db.js');
    expect(wire).not.toContain('exploded');
    expect(log.lines).toHaveLength(1);
    const line = log.lines[0]!;
    expect(line['correlation_id']).toBe(correlationId);
    expect(line['level']).toBe(50);
    expect(line['tool']).toBe('explode');
    // The log keeps the detail, minus secrets.
    expect((line['error'] as { message: string }).message).toBe(
      'database password=[REDACTED] exploded at /srv/app/db.js:12',
    );
    expect((line['error'] as { stack: string }).stack).toContain('test-server.ts');
  });

  it('emits the envelope of a thrown EnvelopeError, filling the running tool', async () => {
    const { client } = await start();
    expect(structured(await client.callTool({ name: 'sandbox_limit', arguments: {} }))).toEqual({
      error_kind: 'sandbox_runtime',
      tool: 'sandbox_limit',
      summary: 'The sandbox blocks the subprocess module.',
      details: [],
      hints: ['Use the provided tools instead of subprocess.'],
      examples: [],
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      retryable: false,
      _envelope_version: 1,
    });
  });

  it('passes an error that already carries an envelope through unchanged', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'relay_envelope', arguments: {} });
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(RELAYED_ENVELOPE) }],
      structuredContent: RELAYED_ENVELOPE,
      _meta: STATED_V1,
    });
  });

  it('replaces an envelope that fails the contract schema by internal_error and logs the violation', async () => {
    const log = captureLog();
    const { client } = await start({ logger: log.logger });
    const envelope = structured(await client.callTool({ name: 'teapot', arguments: {} }));
    const correlationId = (envelope['_meta'] as { correlation_id: string }).correlation_id;
    expect(envelope['error_kind']).toBe('internal_error');
    expect(envelope['error_code']).toBe('INTERNAL_ERROR');
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      correlation_id: correlationId,
      tool: 'teapot',
      error_kind: 'upstream_http',
      error_code: 'teapot',
      violations: [{ path: '/error_code', keyword: 'pattern', message: 'must match pattern "^[A-Z][A-Z0-9_]*$"' }],
    });
  });

  it('replaces an envelope of a kind the server does not advertise', async () => {
    const log = captureLog();
    const { client } = await start({ logger: log.logger, additionalErrorKinds: [] });
    const envelope = structured(await client.callTool({ name: 'sandbox_limit', arguments: {} }));
    expect(envelope['error_kind']).toBe('internal_error');
    expect(log.lines[0]).toMatchObject({
      error_kind: 'sandbox_runtime',
      violations: [
        {
          path: '/error_kind',
          keyword: 'advertised',
          message: 'error_kind "sandbox_runtime" is not advertised by this server',
        },
      ],
    });
  });

  it('bounds details (50) and hints (10 of at most 300 characters) with a note on what was cut', async () => {
    const { client } = await start();
    const envelope = structured(await client.callTool({ name: 'many_problems', arguments: {} }));
    const details = envelope['details'] as { path: string }[];
    expect(details).toHaveLength(50);
    expect(details[49]).toEqual({ path: 'rows/49', issue: 'bad row', received_type: 'object' });
    expect(envelope['hints']).toEqual([
      `${'x'.repeat(299)}…`,
      'hint 1',
      'hint 2',
      'hint 3',
      'hint 4',
      'hint 5',
      'hint 6',
      'hint 7',
      'hint 8',
      '20 more details omitted',
    ]);
  });

  it('redacts bearer tokens and the adapter patterns from upstream text', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'leak_token', arguments: {} });
    const envelope = structured(result);
    expect(envelope['summary']).toBe(
      'Upstream answered HTTP 400: Bad header Authorization: [REDACTED], token [REDACTED] and [REDACTED]',
    );
    expect(envelope['details']).toEqual([
      {
        path: '',
        issue: 'Bad header Authorization: [REDACTED], token [REDACTED] and [REDACTED]',
        received_type: 'object',
        http_status: 400,
      },
    ]);
    const wire = JSON.stringify(result);
    for (const secret of ['eyJhbGciOi', 'secretpart', 'IwEBIExampleSecret', 'tok_abcdef123456'])
      expect(wire).not.toContain(secret);
  });

  it('classifies an upstream 429 through the adapter with rate_limit and retry_after_seconds from its headers', async () => {
    const { client } = await start();
    expect(structured(await client.callTool({ name: 'throttled', arguments: {} }))).toEqual({
      error_kind: 'rate_limited',
      tool: 'throttled',
      summary: 'Upstream throttled the call: no message',
      details: [{ path: '', issue: 'no message', received_type: 'string', http_status: 429 }],
      hints: ['Wait retry_after_seconds, then retry.'],
      examples: [],
      error_code: 'RATE_LIMITED',
      retryable: true,
      _envelope_version: 1,
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 0 }, retry_after_seconds: 2 },
    });
  });

  it('adds legacy_error_kind while a migration window is open, and not after it', async () => {
    const migrations = [
      {
        id: 'upstream-429-to-rate-limited',
        error_codes: ['RATE_LIMITED'],
        servers: ['sp'],
        from_kind: 'sp_api_http',
        to_kind: 'rate_limited',
        introduced_in: '0.1.0',
        removed_in: '0.2.0',
      },
    ] as const;
    const open = await start({ migrations, version: '0.1.3' });
    expect(structured(await open.client.callTool({ name: 'throttled', arguments: {} }))['legacy_error_kind']).toBe(
      'sp_api_http',
    );
    await open.close();
    const closed = await start({ migrations, version: '0.2.0' });
    expect(
      Object.hasOwn(
        structured(await closed.client.callTool({ name: 'throttled', arguments: {} })),
        'legacy_error_kind',
      ),
    ).toBe(false);
  });

  it("reads the contract's migrations table by default", async () => {
    const { client } = session.adopt(
      await connectInMemory(
        createEnvelopeServer({
          info: { name: 'migrations-test', version: '0.0.1' },
          adapter: testAdapter,
          tools: TEST_TOOLS,
          options: { env: {}, version: '0.1.0', logger: captureLog().logger },
        }),
      ),
    );
    const envelope = structured(await client.callTool({ name: 'list_order', arguments: {} }));
    expect(envelope['error_kind']).toBe('tool_not_found');
    expect(envelope['legacy_error_kind']).toBe('mcp_input_validation');
  });

  it('refuses a release version that is not MAJOR.MINOR.PATCH when the server is created, not at its first error', () => {
    const create = (version: string): unknown =>
      createEnvelopeServer({
        info: { name: 'migrations-test', version: '0.0.1' },
        adapter: testAdapter,
        tools: TEST_TOOLS,
        options: { env: {}, version, logger: captureLog().logger },
      });
    expect(() => create('next')).toThrow(new RangeError('"next" is not a MAJOR.MINOR.PATCH version'));
    expect(() => create('0.3.0')).not.toThrow();
  });

  it('classifies a body coercion failure through the adapter', async () => {
    const { client } = await start();
    expect(structured(await client.callTool({ name: 'bad_json_body', arguments: { body: '{not json' } }))).toEqual({
      error_kind: 'sp_api_client',
      tool: 'bad_json_body',
      summary: 'body holds text that is not valid JSON.',
      details: [{ path: 'body', issue: 'not valid JSON', received_type: 'string' }],
      hints: ['Send body as a JSON object.'],
      examples: [],
      error_code: 'BODY_COERCION_INVALID_JSON',
      retryable: false,
      _envelope_version: 1,
    });
  });

  it('turns a handler-built isError result without an envelope into internal_error', async () => {
    const log = captureLog();
    const { client } = await start({ logger: log.logger }, [
      {
        name: 'plain_error',
        inputSchema: { type: 'object' },
        handler: () => toolResult({ isError: true, content: [{ type: 'text', text: 'it broke' }] }),
      },
    ]);
    const envelope = structured(await client.callTool({ name: 'plain_error', arguments: {} }));
    expect(envelope['error_code']).toBe('INTERNAL_ERROR');
    expect((log.lines[0]!['error'] as { message: string }).message).toBe(
      'tool returned isError without an envelope: it broke',
    );
  });

  it('does not log a cancelled call as a server failure', async () => {
    const log = captureLog();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { client } = await start({ logger: log.logger }, [
      {
        name: 'slow',
        inputSchema: { type: 'object' },
        handler: (_args, context) =>
          new Promise((_resolve, reject) => {
            started();
            context.signal.addEventListener('abort', () => {
              reject(new Error('aborted by the client'));
            });
          }),
      },
    ]);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal });
    await running;
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();
    // the server has handled the cancellation (and logged, had it meant to) before it answers a later request
    await client.ping();
    expect(log.lines).toEqual([]);
  });

  it('every error result carries the same valid envelope in structuredContent and content[0].text', async () => {
    const { client } = await start();
    for (const name of [
      'explode',
      'sandbox_limit',
      'relay_envelope',
      'teapot',
      'many_problems',
      'leak_token',
      'throttled',
      'missing_tool',
    ]) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      // a client that states no version reads this server's default, v1
      expect(validateEnvelope(structured(result))).toEqual({ valid: true, version: 1 });
      expect(JSON.parse(firstText(result))).toEqual(structured(result));
    }
  });
});

describe('outputSchema widening with the SDK v1 client', () => {
  it('publishes { type: object, anyOf: [author, envelope] } with re-rooted references', async () => {
    const { client } = await start();
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'report_summary')!;
    const schema = tool.outputSchema as { $schema: string; type: string; anyOf: Record<string, unknown>[] };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(schema.anyOf[0]).toEqual({
      type: 'object',
      properties: { total: { $ref: '#/anyOf/0/$defs/amount' }, _meta: { $ref: '#/anyOf/1/anyOf/0/$defs/meta' } },
      required: ['total'],
      additionalProperties: false,
      $defs: { amount: { type: 'number', minimum: 0 } },
    });
    // the envelope branch admits both contract versions: v2 first, then v1
    const [v2, v1] = schema.anyOf[1]!['anyOf'] as Record<string, unknown>[];
    expect((v2!['properties'] as Record<string, unknown>)['error_kind']).toMatchObject({
      $ref: '#/anyOf/1/anyOf/0/$defs/errorKind',
    });
    expect((v1!['properties'] as Record<string, unknown>)['error_kind']).toEqual({
      $ref: '#/anyOf/1/anyOf/1/$defs/errorKind',
      description: 'Which handler should run. Closed taxonomy.',
    });
    expect([Object.hasOwn(v2!, '$id'), Object.hasOwn(v1!, '$id')]).toEqual([false, false]);
  });

  it('the v1 client accepts both the success result (with _meta) and the error envelope', async () => {
    const { client } = await start();
    await client.listTools();
    expect(structured(await client.callTool({ name: 'report_summary', arguments: {} }))).toEqual({
      total: 42,
      _meta: { rate_limit: { remaining: 9 } },
    });
    const failed = await client.callTool({ name: 'report_summary', arguments: { fail: true } });
    expect(failed.isError).toBe(true);
    expect(structured(failed)).toEqual(REPORT_NOT_FOUND);
    // the same client asking for v2 in the request gets the v2 envelope, checked against the same schema
    const failedV2 = await client.callTool({
      name: 'report_summary',
      arguments: { fail: true },
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
    });
    expect(structured(failedV2)).toEqual(REPORT_NOT_FOUND_V2);
    // A second listing recompiles the schemas: no duplicate-$id failure.
    await client.listTools();
    expect((await client.callTool({ name: 'report_summary', arguments: { fail: true } })).isError).toBe(true);
  });

  it('a tool with an outputSchema that returns a non-object yields internal_error, not a client failure', async () => {
    const { client } = await start({}, [
      { name: 'wrong_shape', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, handler: () => [1, 2] },
    ]);
    await client.listTools();
    const result = await client.callTool({ name: 'wrong_shape', arguments: {} });
    expect(structured(result)['error_code']).toBe('INTERNAL_ERROR');
  });
});

describe('results that are objects of another class', () => {
  class Report {
    constructor(readonly id: string) {}
  }
  it.each([
    ['a Date', () => new Date('2026-03-02T10:00:00Z'), 'Date'],
    ['a Map', () => new Map([['a', 1]]), 'Map'],
    ['a class instance', () => new Report('r-1'), 'Report'],
  ])(
    'answer internal_error for %s, logged with the class name, instead of a JSON-RPC error',
    async (_label, make, name) => {
      const log = captureLog();
      const connection = await connectInMemory(
        createTestServer({ logger: log.logger }, [
          { name: 'odd_result', inputSchema: { type: 'object' }, handler: make },
        ]),
      );
      const result = await connection.client.callTool({ name: 'odd_result', arguments: {} });
      expect(result.isError).toBe(true);
      const envelope = structured(result);
      expect(envelope['error_kind']).toBe('internal_error');
      expect(envelope['error_code']).toBe('INTERNAL_ERROR');
      expect(validateEnvelope(envelope).valid).toBe(true);
      expect(log.lines).toHaveLength(1);
      expect(log.lines[0]!['correlation_id']).toBe((envelope['_meta'] as { correlation_id: string }).correlation_id);
      expect((log.lines[0]!['error'] as { message: string }).message).toBe(
        `tool "odd_result" returned a ${name} object; return plain JSON data (an object literal, array, string, number, boolean or null)`,
      );
      await connection.close();
    },
  );

  it.each([
    ['a number', () => 5],
    ['an array', () => [1, 2]],
  ])(
    'answer internal_error for a plain object whose toJSON gives %s, instead of a non-object structuredContent',
    async (_label, toJSON) => {
      const log = captureLog();
      const connection = await connectInMemory(
        createTestServer({ logger: log.logger }, [
          { name: 'to_json', inputSchema: { type: 'object' }, handler: () => ({ toJSON }) },
        ]),
      );
      const result = await connection.client.callTool({ name: 'to_json', arguments: {} });
      expect(result.isError).toBe(true);
      expect(structured(result)['error_code']).toBe('INTERNAL_ERROR');
      expect((log.lines[0]!['error'] as { message: string }).message).toBe(
        'tool "to_json" returned an object whose JSON form is not an object (a toJSON method?); return plain JSON data',
      );
      await connection.close();
    },
  );

  it('still accepts plain objects, prototype-less objects and dates nested inside plain objects', async () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { n: 1 });
    const connection = await connectInMemory(
      createTestServer({}, [
        { name: 'bare_object', inputSchema: { type: 'object' }, handler: () => bare },
        {
          name: 'nested_date',
          inputSchema: { type: 'object' },
          handler: () => ({ at: new Date('2026-03-02T10:00:00Z') }),
        },
      ]),
    );
    expect((await connection.client.callTool({ name: 'bare_object', arguments: {} })).structuredContent).toEqual({
      n: 1,
    });
    // The in-memory transport hands objects over as they are; the text mirror is the wire form.
    expect(JSON.parse(firstText(await connection.client.callTool({ name: 'nested_date', arguments: {} })))).toEqual({
      at: '2026-03-02T10:00:00.000Z',
    });
    await connection.close();
  });
});

describe('an argument with a huge number of violations', () => {
  it('answers with bounded work: the first details in VIOLATION_ORDER, the true count in summary and note', async () => {
    const connection = await connectInMemory(
      createTestServer({}, [
        {
          name: 'bulk',
          inputSchema: {
            type: 'object',
            properties: { ids: { type: 'array', items: { type: 'string' } }, marketplace: { type: 'string' } },
            required: ['marketplace'],
          },
          handler: () => ({ ok: true }),
        },
      ]),
    );
    const ids = Array.from({ length: 100_000 }, (_, index) => index);
    const started = process.cpuUsage();
    const result = await connection.client.callTool({ name: 'bulk', arguments: { ids } });
    const envelope = structured(result);
    // The missing field ranks first (required), though Ajv reports it after the 100,000 item errors.
    expect(envelope['error_code']).toBe('SCHEMA_REQUIRED');
    expect(envelope['summary']).toBe(
      'marketplace is required and was not sent. (and 100000 more) Correct marketplace, ids/0, ids/1 and the other fields in details, then call again.',
    );
    const details = envelope['details'] as Record<string, unknown>[];
    expect(details).toHaveLength(50);
    expect(details[0]).toEqual({
      path: 'marketplace',
      issue: 'marketplace is required and was not sent.',
      received_type: 'undefined',
      field: 'marketplace',
      expected: 'a value of type string',
    });
    expect(details[1]).toEqual({
      path: 'ids/0',
      issue: 'ids/0 should be string, not integer.',
      received_type: 'integer',
      field: 'ids/0',
      expected_type: 'string',
      did_you_mean: '0',
      expected: 'a value of type string',
      received_value: 0,
    });
    expect(details[49]?.['path']).toBe('ids/48');
    expect((envelope['hints'] as string[]).at(-1)).toBe('99951 more details omitted');
    expect(validateEnvelope(envelope).valid).toBe(true);
    // Not a timing target (those live in pnpm bench): a guard against building 100,000 details again.
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(5000);
    await connection.close();
  });
});

describe('success results checked against the tool outputSchema', () => {
  const outputSchema = { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] };

  it('answers internal_error (not a client-side throw) when structuredContent breaks the outputSchema', async () => {
    const log = captureLog();
    const connection = await connectInMemory(
      createTestServer({ logger: log.logger }, [
        {
          name: 'typed',
          inputSchema: { type: 'object', properties: { good: { type: 'boolean' } } },
          outputSchema,
          handler: (args) => (args['good'] === true ? { x: 1 } : { y: 1 }),
        },
        {
          name: 'typed_raw',
          inputSchema: { type: 'object' },
          outputSchema,
          handler: () => toolResult({ content: [{ type: 'text', text: 'no structured content' }] }),
        },
      ]),
    );
    // The real SDK v1 client validates structuredContent against the published schema: it accepts both.
    await connection.client.listTools();
    expect((await connection.client.callTool({ name: 'typed', arguments: { good: true } })).structuredContent).toEqual({
      x: 1,
    });
    const bad = await connection.client.callTool({ name: 'typed', arguments: {} });
    expect(bad.isError).toBe(true);
    expect(structured(bad)['error_code']).toBe('INTERNAL_ERROR');
    expect((log.lines.at(-1)!['error'] as { message: string }).message).toBe(
      `tool "typed" returned structuredContent that does not match its outputSchema: (root) must have required property 'x'`,
    );
    const raw = await connection.client.callTool({ name: 'typed_raw', arguments: {} });
    expect(structured(raw)['error_kind']).toBe('internal_error');
    expect((log.lines.at(-1)!['error'] as { message: string }).message).toContain(
      'tool "typed_raw" returned structuredContent that does not match its outputSchema',
    );
    await connection.close();
  });

  it('logs once, and passes results through, when the outputSchema does not compile', async () => {
    const log = captureLog();
    const connection = await connectInMemory(
      createTestServer({ logger: log.logger }, [
        {
          name: 'odd_meta',
          inputSchema: { type: 'object' },
          outputSchema: { $schema: 'https://schemas.example/unknown-meta', type: 'object' },
          handler: () => ({ y: 1 }),
        },
      ]),
    );
    for (let round = 0; round < 2; round += 1) {
      expect((await connection.client.callTool({ name: 'odd_meta', arguments: {} })).structuredContent).toEqual({
        y: 1,
      });
    }
    const warnings = log.lines.filter((line) => line['level'] === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      tool: 'odd_meta',
      msg: 'the outputSchema of this tool does not compile, so its results are not checked against it',
    });
    await connection.close();
  });
});
