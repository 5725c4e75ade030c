import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';

import { loopbackHostname, parseAllowedOrigins } from '../src/http-host.js';
import type { StreamableHttpHandle, StreamableHttpOptions } from '../src/index.js';
import { createTestServer } from './fixtures/test-server.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

/** POSTs an initialize with the given Host and Origin headers to the endpoint's socket; resolves with the status. */
function postInitialize(handle: StreamableHttpHandle, headers: Record<string, string>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const outgoing = request(
      {
        host: handle.url.hostname.replace(/^\[|\]$/g, ''),
        port: handle.port,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(INITIALIZE);
  });
}

/** `report` for a server's onSessionClosed; `next` resolves with the first session id it is told. */
function sessionClosed(): { report: (sessionId: string) => void; next: Promise<string> } {
  const told: { report: (sessionId: string) => void } = { report: () => undefined };
  const next = new Promise<string>((resolve) => {
    told.report = resolve;
  });
  return {
    report: (sessionId) => {
      told.report(sessionId);
    },
    next,
  };
}

async function serve(options: StreamableHttpOptions): Promise<StreamableHttpHandle> {
  return createTestServer().serveStreamableHttp({ port: 0, ...options });
}

describe('Host and Origin checks on every loopback spelling', () => {
  it('folds the spellings of loopback addresses and refuses the rest', () => {
    expect(
      [
        '127.1',
        '127.0.0.1',
        '127.9.8.7',
        '0x7f.1',
        'localhost',
        '::1',
        '[::1]',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
      ].map(loopbackHostname),
    ).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '127.9.8.7',
      '127.0.0.1',
      'localhost',
      '[::1]',
      '[::1]',
      '[::ffff:7f00:1]',
      '[::ffff:7f00:1]',
    ]);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1'].map(loopbackHostname)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each(['127.1', '127.0.0.2', '::ffff:127.0.0.1'])(
    'bound on %s: refuses a foreign Host and a foreign Origin, serves the SDK client',
    async (host) => {
      const handle = await serve({ host });
      try {
        const own = handle.url.host;
        expect(await postInitialize(handle, { host: `attacker.example:${handle.port}` })).toBe(403);
        expect(await postInitialize(handle, { host: own, origin: 'http://evil.example' })).toBe(403);
        expect(await postInitialize(handle, { host: own, origin: `http://${own}` })).toBe(200);
        const client = new Client({ name: 'spelling', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(handle.url));
        expect((await client.callTool({ name: 'report_summary', arguments: {} })).isError).toBeUndefined();
        await client.close();
      } finally {
        await handle.close();
      }
    },
  );

  it('refuses to start on a non-loopback interface without allowedOrigins, before binding anything', async () => {
    await expect(serve({ host: '0.0.0.0' })).rejects.toThrow(
      'serveStreamableHttp: 0.0.0.0 is not a loopback address, so allowedOrigins must be given',
    );
  });

  it('with allowedOrigins: [] refuses every request that sends an Origin, even its own', async () => {
    const handle = await serve({ allowedOrigins: [] });
    try {
      expect(await postInitialize(handle, { host: handle.url.host, origin: `http://${handle.url.host}` })).toBe(403);
      expect(await postInitialize(handle, { host: handle.url.host })).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it('parses the allowed-origins setting of the command lines', () => {
    expect(parseAllowedOrigins('http://localhost:3000, https://app.example')).toEqual([
      'http://localhost:3000',
      'https://app.example',
    ]);
    expect(parseAllowedOrigins('none')).toEqual([]);
    expect(() => parseAllowedOrigins('http://app.example/path')).toThrow('is not an origin');
  });
});

describe('sessions are capped and expire when idle', () => {
  it('answers HTTP 503 past maxSessions, and takes a new session once one is closed', async () => {
    const handle = await serve({ maxSessions: 2 });
    try {
      const clients = [new Client({ name: 'a', version: '1' }), new Client({ name: 'b', version: '1' })];
      const transports = clients.map(() => new StreamableHTTPClientTransport(handle.url));
      for (const [index, client] of clients.entries())
        await client.connect(transports[index] as StreamableHTTPClientTransport);
      expect(handle.sessionCount).toBe(2);
      const refused = await fetch(handle.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INITIALIZE,
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(await refused.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Too many sessions (at most 2); try again later',
          data: { limit: 'max_sessions', max: 2 },
        },
        id: null,
      });
      await transports[0]?.terminateSession();
      await clients[0]?.close();
      const third = new Client({ name: 'c', version: '1' });
      await third.connect(new StreamableHTTPClientTransport(handle.url));
      expect(handle.sessionCount).toBe(2);
      await Promise.all([clients[1]?.close(), third.close()]);
    } finally {
      await handle.close();
    }
  });

  it('closes a session idle for sessionIdleTimeoutMs; its client then gets 404 Session not found', async () => {
    const closed = sessionClosed();
    const handle = await createTestServer({ onSessionClosed: closed.report }).serveStreamableHttp({
      port: 0,
      sessionIdleTimeoutMs: 300,
    });
    try {
      const transport = new StreamableHTTPClientTransport(handle.url);
      const client = new Client({ name: 'idle', version: '1' });
      await client.connect(transport);
      const lastActivity = performance.now();
      await client.callTool({ name: 'report_summary', arguments: {} });
      expect(handle.sessionCount).toBe(1);
      // the host says when it closed the session, which was idle its 300 ms first (10 ms of slack:
      // the event loop reads its clock once per turn, so a timer may fire a little early by ours)
      expect(await closed.next).toBe(transport.sessionId);
      expect(performance.now() - lastActivity).toBeGreaterThanOrEqual(290);
      expect(handle.sessionCount).toBe(0);
      const stale = await fetch(handle.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId ?? '',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
      await stale.body?.cancel();
      await client.close();
    } finally {
      await handle.close();
    }
  });
});

describe("the server's onSessionClosed", () => {
  /** A server that reports each ended session's id into `ended`. */
  function reporting(ended: string[], sessionIdleTimeoutMs: number): Promise<StreamableHttpHandle> {
    return createTestServer({ onSessionClosed: (id) => ended.push(id) }).serveStreamableHttp({
      port: 0,
      sessionIdleTimeoutMs,
    });
  }

  /** A client session on `handle`; its transport knows the session id. */
  async function session(handle: StreamableHttpHandle): Promise<StreamableHTTPClientTransport> {
    const transport = new StreamableHTTPClientTransport(handle.url);
    await new Client({ name: 'ending', version: '1' }).connect(transport);
    return transport;
  }

  it('is told the id of a session its client deleted, then of one still open when the host closes', async () => {
    const ended: string[] = [];
    const handle = await reporting(ended, 60_000);
    const deleted = await session(handle);
    const open = await session(handle);
    const deletedId = deleted.sessionId;
    await deleted.terminateSession();
    expect(ended).toEqual([deletedId]);
    await handle.close();
    expect(ended).toEqual([deletedId, open.sessionId]);
  });

  it('is told the id of a session that expired', async () => {
    const closed = sessionClosed();
    const handle = await createTestServer({ onSessionClosed: closed.report }).serveStreamableHttp({
      port: 0,
      sessionIdleTimeoutMs: 300,
    });
    try {
      const started = performance.now();
      const expired = await session(handle);
      expect(await closed.next).toBe(expired.sessionId);
      // the session was idle its 300 ms before it expired (10 ms of slack, as above)
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await handle.close();
    }
  });
});

describe('stdio: a line over the transport limit', () => {
  it('gets a JSON-RPC error with its id (written first or last) and a log line, and the connection stays up', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', STDIO_SERVER], {
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const answer = async (id: number): Promise<Record<string, unknown>> => {
      for (;;) {
        const line = stdout.split('\n').find((candidate) => candidate.includes(`"id":${id}`));
        if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
        await once(child.stdout, 'data');
      }
    };
    try {
      child.stdin.write(`${INITIALIZE}\n`);
      await answer(1);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const huge = JSON.stringify({
        method: 'tools/call',
        params: { name: 'report_summary', arguments: { note: 'x'.repeat(11 * 1024 * 1024) } },
        jsonrpc: '2.0',
        id: 2,
      });
      child.stdin.write(`${huge}\n`);
      const refused = await answer(2);
      expect(refused).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32600,
          message: `Request too large: a message of ${huge.length} bytes exceeds the stdio limit of 10485760 bytes`,
          data: { limit_bytes: 10_485_760, received_bytes: huge.length },
        },
      });
      expect(stderr).toContain('"msg":"stdio message over the size limit refused"');
      // a client that writes `id` first (field order jsonrpc, id, method, params) gets its id back too
      const idFirst = JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'report_summary', arguments: { note: 'y'.repeat(11 * 1024 * 1024) } },
      });
      child.stdin.write(`${idFirst}\n`);
      expect(await answer(4)).toMatchObject({
        id: 4,
        error: { code: -32600, data: { limit_bytes: 10_485_760, received_bytes: idFirst.length } },
      });
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'report_summary', arguments: {} } })}\n`,
      );
      expect((await answer(3))['result']).toMatchObject({ structuredContent: { total: 42 } });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("a result limit at or above the SDK stdio client's 10 MiB line is said at start", async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', STDIO_SERVER], {
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', MCP_MAX_RESULT_BYTES: String(20 * 1024 * 1024) },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      while (!stderr.includes('MCP_MAX_RESULT_BYTES is above')) await once(child.stderr, 'data');
      const line = JSON.parse(
        stderr.split('\n').find((candidate) => candidate.includes('MCP_MAX_RESULT_BYTES is above'))!,
      ) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 40, MCP_MAX_RESULT_BYTES: 20_971_520, stdio_client_limit_bytes: 10_485_760 });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a line that is not JSON, or JSON that is not JSON-RPC, gets a JSON-RPC error with id null, not silence', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', STDIO_SERVER], {
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const lineWith = async (text: string): Promise<Record<string, unknown>> => {
      for (;;) {
        const line = stdout.split('\n').find((candidate) => candidate.includes(text));
        if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
        await once(child.stdout, 'data');
      }
    };
    try {
      child.stdin.write(`${INITIALIZE}\n`);
      await lineWith('"id":1');
      child.stdin.write(
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"report_summary","arguments":{"n":NaN}}}\n',
      );
      expect(await lineWith('-32700')).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the message is not valid JSON' },
      });
      child.stdin.write('{"hello":"world"}\n');
      expect(await lineWith('-32600')).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: the message is not a JSON-RPC 2.0 message' },
      });
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'report_summary', arguments: {} } })}\n`,
      );
      expect((await lineWith('"id":8'))['result']).toMatchObject({ structuredContent: { total: 42 } });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
