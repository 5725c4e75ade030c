/**
 * OpenTelemetry: the real SDK (tracer provider with an in-memory exporter, meter provider with a
 * reader collected on demand, AsyncLocalStorage context, W3C propagator) registered around each
 * test, and the spans and counters of a success, a validation error, an upstream 429 (a real
 * HTTP upstream on 127.0.0.1) and an internal error, called by a real MCP SDK client over
 * Streamable HTTP. The providers are unregistered after each test.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram, MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createEnvelopeServer, readSuccessBody } from '../src/index.js';
import type { EnvelopeServerOptions, EnvelopeTool, StreamableHttpHandle } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

/** A reader whose `collect()` the test calls: no timer, no export. */
class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface Sdk {
  readonly spans: InMemorySpanExporter;
  readonly reader: OnDemandReader;
  shutdown(): Promise<void>;
}

function registerSdk(): Sdk {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans,
    reader,
    shutdown: async () => {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** An upstream on 127.0.0.1 that answers every request 429 with `Retry-After: 3`. */
async function throttlingUpstream(): Promise<{ readonly server: HttpServer; readonly port: number }> {
  const server = createServer((_request, response) => {
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
    response.end(JSON.stringify({ errors: [{ message: 'QuotaExceeded' }] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** A handler that waits until the test lets it go, and says when it started. */
interface Gate {
  readonly entered: Promise<void>;
  enter(): void;
  readonly released: Promise<void>;
  release(): void;
}

function gate(): Gate {
  let enter = (): void => undefined;
  let release = (): void => undefined;
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { entered, enter, released, release };
}

function tools(upstreamPort: number, slow: Gate): EnvelopeTool[] {
  return [
    {
      name: 'slow',
      inputSchema: { type: 'object' },
      handler: async () => {
        slow.enter();
        await slow.released;
        return { done: true };
      },
    },
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: (args) => ({ echoed: args['text'] }),
    },
    {
      name: 'fetch_items',
      inputSchema: { type: 'object' },
      // the query carries a credential: it may not reach a span
      handler: async (_args, call) =>
        readSuccessBody(await call.fetch(`http://127.0.0.1:${upstreamPort}/v1/items?token=tok_SECRET12345#part`)),
    },
    {
      name: 'explode',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('boom with tok_SECRET12345');
      },
    },
  ];
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';

interface Harness {
  readonly sdk: Sdk;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly upstreamPort: number;
  readonly slow: Gate;
  close(): Promise<void>;
}

async function start(extra: EnvelopeServerOptions = {}): Promise<Harness> {
  const sdk = registerSdk();
  const upstream = await throttlingUpstream();
  const slow = gate();
  const server = createEnvelopeServer({
    info: { name: 'otel-test', version: '1.0.0' },
    adapter: testAdapter,
    tools: tools(upstream.port, slow),
    options: { env: {}, logger: captureLog().logger, unknownToolAs: 'jsonrpc', maxConcurrentCalls: 1, ...extra },
  });
  const handle: StreamableHttpHandle = await server.serveStreamableHttp({ port: 0 });
  const client = new Client({ name: 'otel-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(handle.url);
  await client.connect(transport);
  return {
    sdk,
    client,
    transport,
    upstreamPort: upstream.port,
    slow,
    close: async () => {
      await client.close();
      await handle.close();
      await server.close();
      upstream.server.close();
      await once(upstream.server, 'close');
      await sdk.shutdown();
    },
  };
}

function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** What every `tools/call` span of the harness carries besides its outcome. */
function callBase(harness: Harness, tool: string): Record<string, unknown> {
  return {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
    'mcp.session.id': harness.transport.sessionId,
    'mcp.protocol.version': harness.transport.protocolVersion,
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
  };
}

function points(collected: readonly MetricData[], name: string): readonly DataPoint<unknown>[] {
  return collected.find((metric) => metric.descriptor.name === name)?.dataPoints ?? [];
}

describe('OpenTelemetry spans and counters of tools/call', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await start();
  });
  afterEach(async () => {
    await harness.close();
  });

  it('a success is a SERVER span under the traceparent the request carried, with no error', async () => {
    const result = await harness.client.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` },
    });
    expect(result.isError).toBeUndefined();
    const span = spanNamed(harness.sdk.spans.getFinishedSpans(), 'tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toEqual(callBase(harness, 'echo'));
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
  });

  it('a validation error is a tool_error span with the envelope kind and code', async () => {
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 7 } });
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(envelope['error_kind']).toBe('mcp_input_validation');
    const span = spanNamed(harness.sdk.spans.getFinishedSpans(), 'tools/call echo');
    expect(span.attributes).toEqual({
      ...callBase(harness, 'echo'),
      'error.type': 'tool_error',
      'mcp_envelope.error_kind': 'mcp_input_validation',
      'mcp_envelope.error_code': 'SCHEMA_TYPE_MISMATCH',
      'mcp_envelope.retryable': false,
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'SCHEMA_TYPE_MISMATCH' });
  });

  it('an upstream 429 is a rate_limited call span whose child CLIENT span holds the HTTP exchange, with no secret', async () => {
    const result = await harness.client.callTool({ name: 'fetch_items', arguments: {} });
    // the client reads contract version 1; spans and counters always name the version 2 kinds
    expect(result.structuredContent).toMatchObject({ error_code: 'RATE_LIMITED', _envelope_version: 1 });
    const spans = harness.sdk.spans.getFinishedSpans();
    const call = spanNamed(spans, 'tools/call fetch_items');
    expect(call.attributes).toEqual({
      ...callBase(harness, 'fetch_items'),
      'error.type': 'tool_error',
      'mcp_envelope.error_kind': 'rate_limited',
      'mcp_envelope.error_code': 'RATE_LIMITED',
      'mcp_envelope.retryable': true,
      'mcp_envelope.upstream': 'sp-api',
    });
    const exchange = spanNamed(spans, 'GET');
    expect(exchange.kind).toBe(SpanKind.CLIENT);
    expect(exchange.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(exchange.spanContext().traceId).toBe(call.spanContext().traceId);
    expect(exchange.attributes).toEqual({
      'http.request.method': 'GET',
      'url.full': `http://127.0.0.1:${harness.upstreamPort}/v1/items`,
      'server.address': '127.0.0.1',
      'server.port': harness.upstreamPort,
      'http.response.status_code': 429,
      'error.type': '429',
    });
    expect(exchange.status.code).toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toMatch(/SECRET|part/);
  });

  it('an internal error names the correlation id of its envelope and none of the thrown message', async () => {
    const result = await harness.client.callTool({ name: 'explode', arguments: {} });
    const envelope = result.structuredContent as { _meta: { correlation_id: string } };
    const span = spanNamed(harness.sdk.spans.getFinishedSpans(), 'tools/call explode');
    expect(span.attributes).toEqual({
      ...callBase(harness, 'explode'),
      'error.type': 'tool_error',
      'mcp_envelope.error_kind': 'internal_error',
      'mcp_envelope.error_code': 'INTERNAL_ERROR',
      'mcp_envelope.retryable': false,
      'mcp_envelope.correlation_id': envelope._meta.correlation_id,
    });
    expect(envelope._meta.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify([span.attributes, span.status, span.events])).not.toMatch(/boom|SECRET/);
  });

  it('an unknown tool answered as a JSON-RPC error is a span named by the method alone, error.type its code', async () => {
    await expect(harness.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /-32602|TOOL_NOT_FOUND/,
    );
    const span = spanNamed(harness.sdk.spans.getFinishedSpans(), 'tools/call');
    expect(span.attributes).toEqual({
      ...callBase(harness, 'no_such_tool'),
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
      'mcp_envelope.error_kind': 'tool_not_found',
      'mcp_envelope.error_code': 'TOOL_NOT_FOUND',
      'mcp_envelope.retryable': false,
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TOOL_NOT_FOUND' });
  });

  it('counts calls by tool and outcome, failures by kind, and durations by error.type', async () => {
    await harness.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await harness.client.callTool({ name: 'echo', arguments: {} });
    await harness.client.callTool({ name: 'fetch_items', arguments: {} });
    await harness.client.callTool({ name: 'explode', arguments: {} });
    const { resourceMetrics } = await harness.sdk.reader.collect();
    const collected = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    const calls = points(collected, 'mcp_envelope.calls').map((point) => [point.attributes, point.value]);
    expect(calls).toEqual(
      expect.arrayContaining([
        [{ 'gen_ai.tool.name': 'echo', 'mcp_envelope.outcome': 'ok' }, 1],
        [{ 'gen_ai.tool.name': 'echo', 'mcp_envelope.outcome': 'tool_error' }, 1],
        [{ 'gen_ai.tool.name': 'fetch_items', 'mcp_envelope.outcome': 'tool_error' }, 1],
        [{ 'gen_ai.tool.name': 'explode', 'mcp_envelope.outcome': 'tool_error' }, 1],
      ]),
    );
    expect(calls).toHaveLength(4);
    const failures = points(collected, 'mcp_envelope.failures').map((point) => [point.attributes, point.value]);
    expect(failures).toEqual(
      expect.arrayContaining([
        [{ 'gen_ai.tool.name': 'echo', 'mcp_envelope.error_kind': 'mcp_input_validation' }, 1],
        [{ 'gen_ai.tool.name': 'fetch_items', 'mcp_envelope.error_kind': 'rate_limited' }, 1],
        [{ 'gen_ai.tool.name': 'explode', 'mcp_envelope.error_kind': 'internal_error' }, 1],
      ]),
    );
    expect(failures).toHaveLength(3);
    const durations = points(collected, 'mcp.server.operation.duration') as DataPoint<Histogram>[];
    const counts = durations.map((point) => [
      point.attributes['gen_ai.tool.name'],
      point.attributes['error.type'],
      point.value.count,
    ]);
    expect(counts).toEqual(
      expect.arrayContaining([
        ['echo', undefined, 1],
        ['echo', 'tool_error', 1],
        ['fetch_items', 'tool_error', 1],
        ['explode', 'tool_error', 1],
      ]),
    );
    // the upstream 429 is not a refusal of the server's own: no refusal was counted
    expect(points(collected, 'mcp_envelope.limiter.refusals')).toEqual([]);
  });

  it('counts a call the concurrency guard refused as a SERVER_BUSY refusal', async () => {
    const first = harness.client.callTool({ name: 'slow', arguments: {} });
    await harness.slow.entered;
    const refused = await harness.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(refused.structuredContent).toMatchObject({ error_code: 'SERVER_BUSY' });
    harness.slow.release();
    expect((await first).isError).toBeUndefined();
    const { resourceMetrics } = await harness.sdk.reader.collect();
    const collected = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    const refusals = points(collected, 'mcp_envelope.limiter.refusals').map((point) => [point.attributes, point.value]);
    expect(refusals).toEqual([[{ 'gen_ai.tool.name': 'echo', 'mcp_envelope.error_code': 'SERVER_BUSY' }, 1]]);
    const span = spanNamed(harness.sdk.spans.getFinishedSpans(), 'tools/call echo');
    expect(span.attributes['mcp_envelope.error_code']).toBe('SERVER_BUSY');
  });
});

describe('an upstream exchange that got no answer', () => {
  it('is a CLIENT span with the client failure as error.type and no status code', async () => {
    // a port that was just closed: the connection is refused
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const sdk = registerSdk();
    const server = createEnvelopeServer({
      info: { name: 'otel-refused', version: '1.0.0' },
      adapter: testAdapter,
      tools: [
        {
          name: 'fetch_refused',
          inputSchema: { type: 'object' },
          handler: async (_args, call) => readSuccessBody(await call.fetch(`http://127.0.0.1:${port}/v1/items`)),
        },
      ],
      options: { env: {}, logger: captureLog().logger },
    });
    const handle = await server.serveStreamableHttp({ port: 0 });
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    try {
      const result = await client.callTool({ name: 'fetch_refused', arguments: {} });
      expect(result.isError).toBe(true);
      const spans = sdk.spans.getFinishedSpans();
      const call = spanNamed(spans, 'tools/call fetch_refused');
      expect(call.attributes['mcp_envelope.error_kind']).toBe('upstream_client');
      const exchange = spanNamed(spans, 'GET');
      expect(exchange.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(exchange.attributes).toEqual({
        'http.request.method': 'GET',
        'url.full': `http://127.0.0.1:${port}/v1/items`,
        'server.address': '127.0.0.1',
        'server.port': port,
        'error.type': 'network',
      });
      expect(exchange.status.code).toBe(SpanStatusCode.ERROR);
    } finally {
      await client.close();
      await handle.close();
      await server.close();
      await sdk.shutdown();
    }
  });
});

describe('an SDK registered after the server started', () => {
  it('gets the spans and counters of the calls made after it', async () => {
    const server = createEnvelopeServer({
      info: { name: 'otel-late', version: '1.0.0' },
      adapter: testAdapter,
      tools: [{ name: 'echo', inputSchema: { type: 'object' }, handler: () => ({ ok: true }) }],
      options: { env: {}, logger: captureLog().logger },
    });
    const handle = await server.serveStreamableHttp({ port: 0 });
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    const sdk = { current: undefined as Sdk | undefined };
    try {
      expect((await client.callTool({ name: 'echo', arguments: {} })).isError).toBeUndefined();
      sdk.current = registerSdk();
      expect((await client.callTool({ name: 'echo', arguments: {} })).isError).toBeUndefined();
      expect(sdk.current.spans.getFinishedSpans().map((span) => span.name)).toEqual(['tools/call echo']);
      const { resourceMetrics } = await sdk.current.reader.collect();
      const collected = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
      expect(points(collected, 'mcp_envelope.calls').map((point) => point.value)).toEqual([1]);
    } finally {
      await client.close();
      await handle.close();
      await server.close();
      await sdk.current?.shutdown();
    }
  });
});

describe('a credential in an upstream URL path', () => {
  it('reaches the CLIENT span redacted, as the server redacts it everywhere else', async () => {
    const upstream = await throttlingUpstream();
    const sdk = registerSdk();
    const server = createEnvelopeServer({
      info: { name: 'otel-path', version: '1.0.0' },
      adapter: testAdapter,
      tools: [
        {
          name: 'fetch_keyed',
          inputSchema: { type: 'object' },
          // some APIs put the key in the path (a webhook or bot URL): the test adapter redacts tok_...
          handler: async (_args, call) =>
            readSuccessBody(await call.fetch(`http://127.0.0.1:${upstream.port}/bot/tok_SECRET12345/items`)),
        },
      ],
      options: { env: {}, logger: captureLog().logger },
    });
    const handle = await server.serveStreamableHttp({ port: 0 });
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    try {
      expect((await client.callTool({ name: 'fetch_keyed', arguments: {} })).isError).toBe(true);
      const exchange = spanNamed(sdk.spans.getFinishedSpans(), 'GET');
      expect(exchange.attributes['url.full']).toBe(`http://127.0.0.1:${upstream.port}/bot/[REDACTED]/items`);
    } finally {
      await client.close();
      await handle.close();
      await server.close();
      await sdk.shutdown();
      upstream.server.close();
    }
  });
});

describe('telemetry: false', () => {
  it('records no span and no point, with the SDK registered, for a call and its upstream exchange', async () => {
    const harness = await start({ telemetry: false });
    try {
      const result = await harness.client.callTool({ name: 'fetch_items', arguments: {} });
      expect(result.structuredContent).toMatchObject({ error_code: 'RATE_LIMITED' });
      expect(harness.sdk.spans.getFinishedSpans()).toEqual([]);
      const { resourceMetrics } = await harness.sdk.reader.collect();
      expect(resourceMetrics.scopeMetrics).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});
