/**
 * The steps of `tools/call` in order (admission, arguments, the limiter, the handler, shaping)
 * and the one exit every failure leaves through, on a pipeline built without an SDK server.
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';

import { completeOnly, createCallPipeline } from '../src/call-pipeline.js';
import { createInFlightCalls } from '../src/in-flight.js';
import { inputRequiredResult, toolResult, UpstreamHttpError } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { createMemoryRateLimitStore } from '../src/rate-limit/memory-store.js';
import { createRateLimiter } from '../src/rate-limit/limiter.js';
import { resolveRateLimitSettings } from '../src/rate-limit/settings.js';
import { createToolRequestState } from '../src/request-state.js';
import { createResultShaper } from '../src/result-shaping.js';
import type { CallPipelineInput } from '../src/call-pipeline.js';
import type { ServerEnvironment } from '../src/types.js';
import { testRegistry, testRequest, testServerEnvironment } from './fixtures/call-path.js';
import { captureLog } from './fixtures/log-capture.js';

const NUMBER_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
} as const;

/** A tool named `name` that counts its runs and answers what `run` returns for `{ n }`. */
function countingTool(name: string, run: (n: number) => unknown = (n) => ({ doubled: n * 2 })) {
  const runs: number[] = [];
  const tool: EnvelopeTool = {
    name,
    inputSchema: NUMBER_SCHEMA,
    handler: (args) => {
      runs.push(args['n'] as number);
      return run(args['n'] as number);
    },
  };
  return { tool, runs };
}

function pipelineOf(tools: readonly EnvelopeTool[], more: Partial<CallPipelineInput> = {}) {
  const log = captureLog();
  const server: ServerEnvironment = { ...testServerEnvironment(log.logger), ...more.server };
  const input: CallPipelineInput = {
    registry: testRegistry(tools, log.logger),
    shaper: createResultShaper({
      redactor: server.redactor,
      limits: { MCP_MAX_UPSTREAM_BODY_BYTES: 1_000_000, MCP_MAX_RESULT_BYTES: 1_000_000 },
      successMeta: () => undefined,
    }),
    calls: createInFlightCalls(),
    server,
    maxUpstreamBodyBytes: 1_000_000,
    unknownToolAs: 'result',
    requestState: createToolRequestState(),
    ...more,
  };
  return { answer: createCallPipeline(input), log, server };
}

describe('the call pipeline', () => {
  it('runs a call through every step to its shaped result', async () => {
    const { tool, runs } = countingTool('double');
    const { answer } = pipelineOf([tool]);
    const result = await answer({ name: 'double', arguments: { n: 21 } }, testRequest(), 'legacy');
    expect(result).toEqual({ content: [{ type: 'text', text: '{"doubled":42}' }], structuredContent: { doubled: 42 } });
    expect(runs).toEqual([21]);
  });

  it('reads `arguments: null` as no arguments', async () => {
    const tool: EnvelopeTool = { name: 'ping', inputSchema: { type: 'object' }, handler: () => 'pong' };
    const { answer } = pipelineOf([tool]);
    expect(await answer({ name: 'ping', arguments: null }, testRequest(), 'legacy')).toEqual({
      content: [{ type: 'text', text: 'pong' }],
    });
  });

  it('admission: answers an unknown name with tool_not_found and a did-you-mean hint, running nothing', async () => {
    const { tool, runs } = countingTool('lookup');
    const { answer } = pipelineOf([tool]);
    const result = await answer({ name: 'lookpu', arguments: { n: 1 } }, testRequest(), 'legacy');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error_kind: 'tool_not_found',
        error_code: 'TOOL_NOT_FOUND',
        tool: 'lookpu',
        summary: 'No tool named "lookpu" is registered on this server.',
        hints: ['Did you mean "lookup"?', 'Call tools/list to see the tools this server offers.'],
        retryable: false,
      },
    });
    expect(JSON.parse((result as { content: { text: string }[] }).content[0]!.text)).toEqual(
      (result as { structuredContent: unknown }).structuredContent,
    );
    expect(runs).toEqual([]);
  });

  it('admission: answers an unknown name with a -32602 error carrying the envelope when asked to', async () => {
    const { answer } = pipelineOf([countingTool('lookup').tool], { unknownToolAs: 'jsonrpc' });
    const failure = await answer({ name: 'nope' }, testRequest(), 'legacy').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ProtocolError);
    expect((failure as ProtocolError).code).toBe(-32602);
    expect((failure as ProtocolError).data).toMatchObject({ error_kind: 'tool_not_found', tool: 'nope' });
    expect(JSON.parse((failure as ProtocolError).message)).toEqual((failure as ProtocolError).data);
  });

  it('admission: a request without a string name is a protocol error, not an envelope', async () => {
    const { answer } = pipelineOf([countingTool('lookup').tool]);
    await expect(answer({ arguments: {} }, testRequest(), 'legacy')).rejects.toThrow(
      'Invalid tools/call request: params.name must be a string',
    );
  });

  it('arguments: refuses arguments off the schema with mcp_input_validation before the handler', async () => {
    const { tool, runs } = countingTool('double');
    const { answer } = pipelineOf([tool]);
    const result = await answer({ name: 'double', arguments: { n: 'seven' } }, testRequest(), 'legacy');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error_kind: 'mcp_input_validation',
        error_code: 'SCHEMA_TYPE_MISMATCH',
        tool: 'double',
        details: [{ path: 'n', received_type: 'string' }],
      },
    });
    expect(runs).toEqual([]);
  });

  it('the limiter runs after the arguments: a refused call takes no token, a valid one does', async () => {
    const { tool, runs } = countingTool('double');
    const limited: EnvelopeTool = { ...tool, rateLimit: { ratePerSecond: 1, burst: 1 } };
    const log = captureLog();
    const settings = resolveRateLimitSettings({ MCP_RATE_LIMIT: 'true', MCP_RATE_LIMIT_MAX_WAIT_MS: '0' }, {});
    const limiter = createRateLimiter({
      settings,
      store: createMemoryRateLimitStore(),
      ownsStore: true,
      logger: log.logger,
      now: () => 1_000_000,
    });
    const server = testServerEnvironment(log.logger);
    const { answer } = pipelineOf([limited], {
      rateLimit: { limiter, serverId: 'sp', logger: log.logger },
      server: { ...server, advertisedKinds: new Set([...server.advertisedKinds, 'rate_limited']) },
    });
    const invalid = await answer({ name: 'double', arguments: { n: 'x' } }, testRequest(), 'legacy');
    const first = await answer({ name: 'double', arguments: { n: 1 } }, testRequest(), 'legacy');
    const second = await answer({ name: 'double', arguments: { n: 2 } }, testRequest(), 'legacy');
    expect(invalid).toMatchObject({ isError: true, structuredContent: { error_kind: 'mcp_input_validation' } });
    expect(first).toEqual({ content: [{ type: 'text', text: '{"doubled":2}' }], structuredContent: { doubled: 2 } });
    expect(second).toMatchObject({
      isError: true,
      structuredContent: { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', tool: 'double', retryable: true },
    });
    expect(runs).toEqual([1]);
    await limiter.close();
  });

  it('the handler: what it throws is classified by the adapter', async () => {
    const upstream404 = new UpstreamHttpError({
      status: 404,
      headers: {},
      body: { errors: [{ message: 'no such order' }] },
      request: { method: 'GET', url: 'https://sellingpartnerapi-eu.amazon.com/orders/v0/orders/1' },
    });
    const { tool } = countingTool('order', () => {
      throw upstream404;
    });
    const { answer } = pipelineOf([tool]);
    const result = await answer({ name: 'order', arguments: { n: 1 } }, testRequest(), 'legacy');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error_kind: 'upstream_http',
        error_code: 'UPSTREAM_HTTP_404',
        upstream: 'sp-api',
        tool: 'order',
        summary: 'Upstream answered HTTP 404: no such order',
        retryable: false,
      },
    });
  });

  it('the handler: an unclassified throw is an internal_error whose correlation id names the log line', async () => {
    const { tool } = countingTool('broken', () => {
      throw new Error('the database is on fire');
    });
    const { answer, log } = pipelineOf([tool]);
    const result = await answer({ name: 'broken', arguments: { n: 1 } }, testRequest(), 'legacy');
    const envelope = (result as { structuredContent: { _meta: { correlation_id: string } } }).structuredContent;
    expect(envelope).toMatchObject({ error_kind: 'internal_error', error_code: 'INTERNAL_ERROR', tool: 'broken' });
    expect(JSON.stringify(envelope)).not.toContain('database');
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      correlation_id: envelope._meta.correlation_id,
      tool: 'broken',
      reason: 'handler',
      error: { type: 'Error', message: 'the database is on fire' },
    });
  });

  it('the handler: a throw after the client cancelled is the bare internal_error, and nothing is logged', async () => {
    const controller = new AbortController();
    const { tool } = countingTool('slow', () => {
      controller.abort();
      throw new Error('aborted');
    });
    const { answer, log } = pipelineOf([tool]);
    const result = await answer({ name: 'slow', arguments: { n: 1 } }, testRequest(controller.signal), 'legacy');
    expect(result).toMatchObject({ isError: true, structuredContent: { error_kind: 'internal_error', tool: 'slow' } });
    expect(log.lines).toEqual([]);
  });

  it('shaping: a value that cannot be sent is an internal_error logged with reason "result"', async () => {
    const { tool, runs } = countingTool('mapper', () => new Map([['a', 1]]));
    const { answer, log } = pipelineOf([tool]);
    const result = await answer({ name: 'mapper', arguments: { n: 3 } }, testRequest(), 'legacy');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error_kind: 'internal_error', tool: 'mapper' },
    });
    expect(runs).toEqual([3]);
    expect(log.lines[0]).toMatchObject({
      reason: 'result',
      error: { type: 'TypeError', message: expect.stringContaining('tool "mapper" returned a Map object') as unknown },
    });
  });

  it('shaping: a handler result marked isError leaves with the envelope it carries', async () => {
    const { tool } = countingTool('relay', () =>
      toolResult({
        isError: true,
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              error_kind: 'upstream_http',
              tool: 'relay',
              summary: 'Upstream answered HTTP 503.',
              details: [],
              hints: ['Retry in a moment.'],
              examples: [],
              error_code: 'UPSTREAM_HTTP_503',
              retryable: true,
              upstream: 'sp-api',
              _envelope_version: 2,
            }),
          },
        ],
      }),
    );
    const { answer } = pipelineOf([tool]);
    const result = await answer({ name: 'relay', arguments: { n: 1 } }, testRequest(), 'legacy');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_503', retryable: true },
    });
  });

  it('completeOnly: an input-required answer becomes an internal_error naming the tool', async () => {
    const asking: EnvelopeTool = {
      name: 'ask',
      inputSchema: { type: 'object' },
      handler: () =>
        inputRequiredResult({ inputRequests: { who: { method: 'roots/list', params: {} } }, requestState: 'x' }),
    };
    const { answer, server, log } = pipelineOf([asking]);
    const inner = completeOnly(answer, server);
    const result = await inner({ name: 'ask', arguments: {} }, testRequest(), 'legacy');
    expect(result).toMatchObject({ isError: true, structuredContent: { error_kind: 'internal_error', tool: 'ask' } });
    expect(log.lines[0]).toMatchObject({
      tool: 'ask',
      reason: 'result',
      error: { message: 'tool "ask" asked the client for input, which this caller cannot give' },
    });
  });
});
