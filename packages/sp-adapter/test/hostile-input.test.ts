import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { CLI, PACKAGE } from './helpers/cli.js';
import { lwaEnv, startSpUpstream } from './helpers/sp-client.js';

let upstream: UpstreamReplay;
let scratch: string;
beforeAll(async () => {
  upstream = await startSpUpstream();
  scratch = mkdtempSync(join(tmpdir(), 'sp-hostile-test-'));
});
afterAll(async () => {
  await upstream.close();
  rmSync(scratch, { recursive: true, force: true });
});

function baseEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', XDG_CACHE_HOME: join(scratch, 'xdg-cache'), ...lwaEnv(upstream) };
}

/** A running `mcp-envelope-sp --http` child: its endpoint, its stderr so far, and a wait for a stderr line. */
interface HttpServerChild {
  readonly child: ChildProcess;
  readonly endpoint: URL;
  readonly stderr: () => string;
  /** Resolves once stderr matches `pattern` (at once if it already does); rejects if the child's output ends first. */
  readonly whenStderr: (pattern: RegExp) => Promise<void>;
}

/** Starts `mcp-envelope-sp --http 0` with `extra` flags; resolves with the child and its endpoint. */
async function startHttpServer(
  extra: readonly string[] = [],
  target: UpstreamReplay = upstream,
): Promise<HttpServerChild> {
  const child = spawn(
    process.execPath,
    [...CLI, '--http', '0', '--upstream', target.url, '--models', 'test/fixtures/models', ...extra],
    {
      cwd: PACKAGE,
      // the SIGTERM tests keep 40 calls of one tool running at once, past the default bound of 8
      env: { ...baseEnv(), ...lwaEnv(target), MCP_MAX_CONCURRENT_CALLS_PER_TOOL: '40', MCP_MAX_CONCURRENT_CALLS: '40' },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const whenStderr = (pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pattern.test(stderr)) return;
        child.stderr?.off('data', check);
        resolve();
      };
      child.stderr?.on('data', check);
      // 'close' rather than 'exit': the last stderr chunks can arrive after the exit
      child.once('close', () => {
        reject(new Error(`server exited before writing ${String(pattern)}: ${stderr}`));
      });
      check();
    });
  const listening = /on (http:\/\/\S+)\n/;
  await whenStderr(listening);
  const endpoint = new URL(listening.exec(stderr)?.[1] ?? '');
  return { child, endpoint, stderr: () => stderr, whenStderr };
}

/** Sends one JSON-RPC request as raw text (so it can hold what JSON.stringify never writes, like 1e400). */
async function rawCall(endpoint: URL, sessionId: string, text: string): Promise<Record<string, unknown>> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: text,
  });
  const body = await response.text();
  // the stream may open with a priming event whose data is empty; the answer is the event with data
  const data = body.split('\n').find((line) => line.startsWith('data: ') && line.length > 'data: '.length);
  return JSON.parse(data === undefined ? body : data.slice('data: '.length)) as Record<string, unknown>;
}

describe('numbers are numbers, strings are Unicode (mcp-envelope-sp over Streamable HTTP)', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    server = await startHttpServer();
    transport = new StreamableHTTPClientTransport(server.endpoint);
    client = new Client({ name: 'hostile-input-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    server.child.kill('SIGKILL');
  });

  it('answers 1e400 in a number field with SCHEMA_TYPE_MISMATCH and sends nothing upstream', async () => {
    const before = upstream.requests.length;
    const text =
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"widgetsV0_createWidget","arguments":{"x-amzn-idempotency-token":"idem-1","body":{"name":"Cog","price":{"amount":1e400,"currencyCode":"EUR"}}}}}';
    const answer = await rawCall(server.endpoint, transport.sessionId ?? '', text);
    const result = answer['result'] as CallToolResult;
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
      'mcp_input_validation',
      'SCHEMA_TYPE_MISMATCH',
      false,
    ]);
    expect(envelope['details']).toEqual([
      {
        path: 'body/price/amount',
        field: 'body/price/amount',
        issue: 'body/price/amount should be a finite number, not Infinity.',
        received_type: 'Infinity',
        expected_type: 'number',
        expected: 'a finite number',
      },
    ]);
    expect(upstream.requests.length).toBe(before);
  });

  it('answers a lone surrogate in a path argument (encodeURIComponent refuses it) with SCHEMA_FORMAT_INVALID, not internal_error, and sends nothing upstream', async () => {
    const before = upstream.requests.length;
    const result = (await client.callTool({
      name: 'widgetsV0_getWidget',
      arguments: { widgetId: 'w-\ud800' },
    })) as CallToolResult;
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
    expect([envelope['error_kind'], envelope['error_code']]).toEqual(['mcp_input_validation', 'SCHEMA_FORMAT_INVALID']);
    expect((envelope['details'] as Record<string, unknown>[])[0]).toMatchObject({
      path: 'widgetId',
      received_type: 'string',
      format: 'unicode',
    });
    expect(upstream.requests.length).toBe(before);
  });
});

/** Opens `clients` SDK clients and starts `perClient` calls of a slow tool on each; resolves once all are sent. */
async function startCalls(
  endpoint: URL,
  clients: number,
  perClient: number,
): Promise<{ results: Promise<CallToolResult[]>; clients: Client[] }> {
  const connected: Client[] = [];
  for (let index = 0; index < clients; index += 1) {
    const client = new Client({ name: `drain-${index}`, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    connected.push(client);
  }
  const calls = connected.flatMap((client) =>
    Array.from(
      { length: perClient },
      (_, call) =>
        client.callTool({ name: 'widgetsV0_getWidget', arguments: { widgetId: `w-${call}` } }, undefined, {
          timeout: 30_000,
        }) as Promise<CallToolResult>,
    ),
  );
  return { results: Promise.all(calls), clients: connected };
}

describe('SIGTERM in HTTP mode (mcp-envelope-sp child process)', () => {
  async function exitCode(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => child.once('exit', resolve));
  }

  it('answers all 40 calls still running when the grace period ends with a retryable envelope, then exits 0', async () => {
    const slow = await startAmazonReplay({ standing: { status: 200, body: { widgetId: 'late' }, delayMs: 8000 } });
    try {
      const { child, endpoint, stderr } = await startHttpServer(['--shutdown-grace', '0.5'], slow);
      const { results } = await startCalls(endpoint, 4, 10);
      await slow.whenRequests(40, (request) => request.path.startsWith('/widgets/'));
      const exited = exitCode(child);
      child.kill('SIGTERM');
      const answered = await results;
      expect(answered).toHaveLength(40);
      for (const result of answered) {
        const envelope = result.structuredContent as Record<string, unknown>;
        expect(result.isError).toBe(true);
        expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
        expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
          'internal_error',
          'INTERNAL_ERROR',
          true,
        ]);
        expect((envelope['details'] as Record<string, unknown>[])[0]?.['reason']).toBe('server_shutting_down');
      }
      expect(await exited).toBe(0);
      expect(stderr()).toContain('"forced_calls":40');
    } finally {
      await slow.close();
    }
  });

  it('lets calls that finish within the grace period answer normally, and refuses new connections meanwhile', async () => {
    const slow = await startAmazonReplay({ standing: { status: 200, body: { widgetId: 'done' }, delayMs: 700 } });
    try {
      const { child, endpoint, whenStderr } = await startHttpServer(['--shutdown-grace', '10'], slow);
      const { results } = await startCalls(endpoint, 4, 10);
      await slow.whenRequests(40, (request) => request.path.startsWith('/widgets/'));
      const exited = exitCode(child);
      child.kill('SIGTERM');
      // the server logs this line once it has stopped listening
      await whenStderr(/shutting down: no new connections/);
      await expect(fetch(endpoint, { method: 'POST', body: '{}' })).rejects.toThrow();
      const answered = await results;
      expect(
        answered.map((result) => [
          result.isError,
          (result.structuredContent as Record<string, unknown> | undefined)?.['widgetId'],
        ]),
      ).toEqual(Array.from({ length: 40 }, () => [undefined, 'done']));
      expect(await exited).toBe(0);
    } finally {
      await slow.close();
    }
  });
});
