/**
 * Streamable HTTP under attack: the resumability event store stays within its byte bounds and says
 * when events were lost, a session replays and hears only its own events and log lines, a closed
 * connection cancels its calls, one client address cannot take every session, and an oversized
 * body gets HTTP 413 with a JSON-RPC error. Real SDK clients and raw sockets on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { LoggingMessageNotification } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';

import type { EnvelopeTool, StreamableHttpHandle, StreamableHttpOptions } from '../src/index.js';
import { createTestServer } from './fixtures/test-server.js';

const VERSION = '2025-11-25';
const MIB = 1024 * 1024;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(
  tools: readonly EnvelopeTool[],
  options: StreamableHttpOptions = {},
): Promise<StreamableHttpHandle> {
  const handle = await createTestServer({}, tools).serveStreamableHttp({ port: 0, ...options });
  cleanups.push(() => handle.close());
  return handle;
}

function post(handle: StreamableHttpHandle, body: unknown, session?: string): Promise<Response> {
  return fetch(handle.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Opens a 2025-11-25 session with raw requests; returns its id. */
async function openSession(handle: StreamableHttpHandle): Promise<string> {
  const initialized = await post(handle, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
  });
  const session = initialized.headers.get('mcp-session-id');
  await initialized.text();
  if (session === null) throw new Error(`no session: HTTP ${initialized.status}`);
  await (await post(handle, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  return session;
}

/** The `id:` fields of an SSE body. */
function eventIds(text: string): string[] {
  return [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1] ?? '');
}

function replay(handle: StreamableHttpHandle, session: string, lastEventId: string): Promise<Response> {
  return fetch(handle.url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-session-id': session,
      'last-event-id': lastEventId,
    },
  });
}

const BIG: EnvelopeTool = {
  name: 'big_answer',
  inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
  handler: (args) => 'x'.repeat(Number(args['bytes'])),
};

describe('the event store is bounded in bytes', () => {
  it('holds at most its bounds through a burst of large answers, and tells a client whose events were evicted', async () => {
    const handle = await serve([BIG], { eventStoreMaxStreamBytes: 2 * MIB, eventStoreMaxTotalBytes: 4 * MIB });
    const session = await openSession(handle);
    let firstId: string | undefined;
    let peak = 0;
    // 40 answers of 1 MiB: ten times the total bound
    for (let call = 1; call <= 40; call += 1) {
      const answer = await post(
        handle,
        { jsonrpc: '2.0', id: call, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: MIB } } },
        session,
      );
      const text = await answer.text();
      expect(answer.status).toBe(200);
      firstId ??= eventIds(text)[0];
      peak = Math.max(peak, handle.eventStoreBytes);
    }
    expect(peak).toBeGreaterThan(MIB);
    expect(peak).toBeLessThanOrEqual(4 * MIB);
    expect(handle.eventStoreBytes).toBeLessThanOrEqual(4 * MIB);
    // the server still answers
    const small = await post(
      handle,
      { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: 3 } } },
      session,
    );
    expect(await small.text()).toContain('xxx');

    // the first call's priming event: its answer is long gone
    const gone = await replay(handle, session, firstId ?? '');
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, data: { reason: 'events_evicted' } },
    });
  });

  it('forgets the events of a session that ends', async () => {
    const handle = await serve([BIG]);
    const session = await openSession(handle);
    await (
      await post(
        handle,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: 100_000 } } },
        session,
      )
    ).text();
    expect(handle.eventStoreBytes).toBeGreaterThan(100_000);
    const deleted = await fetch(handle.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION },
    });
    expect(deleted.status).toBe(200);
    expect(handle.eventStoreBytes).toBe(0);
  });
});

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIG_SERVER = fileURLToPath(new URL('./fixtures/http-big-server.ts', import.meta.url));

/**
 * Starts the big-answer test server as a process of its own (`options.heapMb` of V8 heap, its
 * event store bounded to `options.eventStoreBytes`), killed after the test.
 *
 * @returns its endpoint and the process.
 */
async function startServerProcess(options: {
  heapMb?: number;
  eventStoreBytes?: number;
}): Promise<{ handle: StreamableHttpHandle; child: ChildProcess }> {
  const heap = options.heapMb === undefined ? [] : [`--max-old-space-size=${options.heapMb}`];
  const child = spawn(process.execPath, [...heap, '--import', 'tsx', BIG_SERVER], {
    cwd: PACKAGE_ROOT,
    env: { PATH: process.env['PATH'] ?? '', EVENT_STORE_BYTES: String(options.eventStoreBytes ?? 0) },
  });
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(`exit ${String(code)} ${String(signal)}`);
    });
  });
  cleanups.push(async () => {
    child.kill();
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      resolve(chunk.toString('utf8').trim());
    });
    void exited.then((how) => {
      reject(new Error(how));
    });
  });
  return { handle: { url: new URL(url) } as StreamableHttpHandle, child };
}

describe('a server process under a burst of large answers', () => {
  it('survives 60 answers of 1 MiB on a 64 MiB heap with an 8 MiB event store', async () => {
    const { handle, child } = await startServerProcess({ heapMb: 64, eventStoreBytes: 8 * MIB });
    const session = await openSession(handle);
    let answered = 0;
    try {
      for (let call = 1; call <= 60; call += 1) {
        const answer = await post(
          handle,
          { jsonrpc: '2.0', id: call, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: MIB } } },
          session,
        );
        if ((await answer.text()).length > MIB) answered += 1;
      }
    } catch {
      // the server died: the count says how far it got
    }
    expect(answered).toBe(60);
    expect(child.exitCode).toBeNull();
  }, 120_000);
});

describe('a session sees only its own', () => {
  it("refuses to replay another session's events, and event ids cannot be guessed from one another", async () => {
    const handle = await serve([BIG]);
    const [a, b] = [await openSession(handle), await openSession(handle)];
    const callA = await post(
      handle,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: 10 } } },
      a,
    );
    const [primingA] = eventIds(await callA.text());
    expect(primingA).toBeDefined();
    // A's own replay works: its answer comes back
    const own = await replay(handle, a, primingA ?? '');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('xxxxxxxxxx');

    const stolen = await replay(handle, b, primingA ?? '');
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).not.toContain('xxxxxxxxxx');

    // ids of the old form, and neighbours of B's own ids, name nothing
    const callB = await post(
      handle,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: 10 } } },
      b,
    );
    const [primingB] = eventIds(await callB.text());
    expect(primingB?.split('.')[0]).not.toBe(primingA?.split('.')[0]);
    expect(primingB?.split('.')[0]).toMatch(/^[\w-]{22}$/);
    for (const guess of ['_GET_stream_000000000001', `${primingB?.split('.')[0] ?? ''}.999`, 'x.1'])
      expect((await replay(handle, b, guess)).status).toBe(400);
  });

  it('sends a session the log lines of its own calls only, without stack or file path', async () => {
    const failing: EnvelopeTool = {
      name: 'crash',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('database at /srv/app/secrets/db.sqlite is locked');
      },
    };
    const handle = await serve([failing]);
    const sessions = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const client = new ClientV2({ name, version: '1' });
        const messages: LoggingMessageNotification['params'][] = [];
        client.setNotificationHandler('notifications/message', (notification) => {
          messages.push(notification.params);
        });
        await client.connect(new TransportV2(handle.url));
        cleanups.push(() => client.close());
        await client.setLoggingLevel('warning');
        return { client, messages };
      }),
    );
    const [a, b] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    await a.client.callTool({ name: 'crash', arguments: {} });
    // B's own call: its log line arrives after A's would have, on the same server
    await b.client.callTool({ name: 'crash', arguments: {} });
    await expect.poll(() => b.messages.length, { timeout: 10_000 }).toBe(1);
    expect(a.messages).toHaveLength(1);
    for (const { messages } of [a, b]) {
      const text = JSON.stringify(messages);
      expect(text).toContain('tool call failed with an unclassified error');
      expect(text).not.toContain('"stack"');
      expect(text).not.toContain('/srv/app');
      expect(text).not.toMatch(/\.ts:\d+/);
    }
  });
});

/** A loopback upstream that counts its requests. */
async function countingUpstream(): Promise<{ url: string; count: () => number }> {
  let count = 0;
  const server: Server = createServer((_request, response) => {
    count += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`, count: () => count };
}

/** A tool that waits, before going upstream, until released or aborted; it records its aborts. */
async function heldCalls(): Promise<{
  tool: EnvelopeTool;
  started: () => Promise<void>;
  aborted: string[];
  release: () => void;
  upstreamCount: () => number;
}> {
  const upstream = await countingUpstream();
  const waiting: (() => void)[] = [];
  const aborted: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool: EnvelopeTool = {
    name: 'held_call',
    inputSchema: { type: 'object' },
    handler: async (_args, context) => {
      waiting.shift()?.();
      const abortedNow = new Promise((resolve) => {
        context.signal.addEventListener('abort', resolve, { once: true });
      });
      void abortedNow.then(() => aborted.push('aborted'));
      await Promise.race([gate, abortedNow]);
      context.signal.throwIfAborted();
      const response = await context.fetch(upstream.url, { timeoutMs: 5000 });
      return response.status;
    },
  };
  return {
    tool,
    started: () => new Promise<void>((resolve) => waiting.push(resolve)),
    aborted,
    release: () => {
      release();
    },
    upstreamCount: upstream.count,
  };
}

/** Sends a tools/call of `held_call` on a raw socket, waits until the handler runs, then drops the connection. */
async function callAndDrop(
  handle: StreamableHttpHandle,
  headers: Record<string, string>,
  body: unknown,
  started: Promise<void>,
): Promise<void> {
  const outgoing = request({
    host: '127.0.0.1',
    port: handle.port,
    path: '/mcp',
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  outgoing.on('error', () => undefined);
  outgoing.end(JSON.stringify(body));
  await started;
  outgoing.destroy();
}

describe('work nobody waits for stops', () => {
  it('aborts the calls of a 2025-11-25 connection that closes before their answer; they never go upstream', async () => {
    const held = await heldCalls();
    const handle = await serve([held.tool]);
    const session = await openSession(handle);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'held_call', arguments: {} } };
    await callAndDrop(handle, { 'mcp-protocol-version': VERSION, 'mcp-session-id': session }, call, held.started());
    // generous: a loaded machine; without the cancellation this never happens
    await expect.poll(() => held.aborted.length, { timeout: 10_000 }).toBe(1);
    held.release();
    // another call of the same session goes upstream once: only that one
    const second = await post(handle, { ...call, id: 8 }, session);
    expect(await second.text()).toContain('200');
    expect(held.upstreamCount()).toBe(1);
  });

  // The SDK's stateless handler already aborts here (it passed before the host change too): kept
  // so that the host's own body reading in front of it never loses that.
  it('aborts a 2026-07-28 request whose connection closes before its answer', async () => {
    const held = await heldCalls();
    const handle = await serve([held.tool]);
    const modern = '2026-07-28';
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'held_call',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': modern,
          'io.modelcontextprotocol/clientInfo': { name: 'dropper', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const headers = { 'mcp-protocol-version': modern, 'mcp-method': 'tools/call', 'mcp-name': 'held_call' };
    await callAndDrop(handle, headers, call, held.started());
    await expect.poll(() => held.aborted.length, { timeout: 10_000 }).toBe(1);
    held.release();
    expect(held.upstreamCount()).toBe(0);
  });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

describe('fairness: sessions per client address', () => {
  it('answers HTTP 429 with the limit past maxSessionsPerClient, and takes a new one once one ends', async () => {
    const handle = await serve([BIG], { maxSessionsPerClient: 3 });
    const clients = [1, 2, 3].map((index) => new Client({ name: `c${index}`, version: '1' }));
    const transports = clients.map(() => new StreamableHTTPClientTransport(handle.url));
    for (const [index, client] of clients.entries())
      await client.connect(transports[index] as StreamableHTTPClientTransport);
    cleanups.push(() => Promise.all(clients.map((client) => client.close())));
    const refused = await post(handle, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Too many sessions from this client address (at most 3); end one you no longer use (HTTP DELETE with its Mcp-Session-Id) or reuse it, then try again',
        data: { limit: 'max_sessions_per_client', max: 3 },
      },
    });
    expect(handle.sessionCount).toBe(3);
    await transports[0]?.terminateSession();
    const fourth = await post(handle, INITIALIZE);
    expect(fourth.status).toBe(200);
    expect(fourth.headers.get('mcp-session-id')).not.toBeNull();
    await fourth.text();
  });
});

describe('an oversized body', () => {
  const tooLarge = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { pad: 'x'.repeat(5 * MIB) },
  });
  const expected = {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: `Payload Too Large: the request body is over ${4 * MIB} bytes; send a smaller request`,
      data: { limit_bytes: 4 * MIB },
    },
  };

  it('gets HTTP 413 with a JSON-RPC error, without a session, in either era', async () => {
    const handle = await serve([BIG]);
    for (const version of ['2025-11-25', '2026-07-28']) {
      const response = await fetch(handle.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': version,
        },
        body: tooLarge,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual(expected);
    }
  });

  it('gets HTTP 413 with the same error within a session, and the session goes on', async () => {
    const handle = await serve([BIG]);
    const session = await openSession(handle);
    const response = await post(handle, tooLarge, session);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(expected);
    const after = await post(
      handle,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'big_answer', arguments: { bytes: 4 } } },
      session,
    );
    expect(await after.text()).toContain('xxxx');
  });

  it('reaches a client of a server process every time, the body read to its end first', async () => {
    // In one process the server reads as fast as the client writes; across processes a socket
    // closed with the body still arriving was reset, and the client read no answer (EPIPE).
    const { handle } = await startServerProcess({});
    const outcomes: unknown[] = [];
    for (const size of [5 * MIB, 50 * MIB])
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { pad: 'x'.repeat(size) } });
        const response = await fetch(handle.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
        }).catch((error: unknown) => (error instanceof Error ? `no answer: ${error.message}` : 'no answer'));
        outcomes.push(
          typeof response === 'string' ? response : { status: response.status, body: await response.json() },
        );
      }
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => ({ status: 413, body: expected })));
  }, 120_000);

  it('reaches a client that streams the body without Content-Length, every time', async () => {
    // Found too large only while read: the body reader stopped by destroying the request, so the
    // rest of the body met a closed socket and the client read no answer.
    const { handle } = await startServerProcess({});
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const outcomes: unknown[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const sent = { chunks: 0 };
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          if (sent.chunks === 320) controller.close();
          else controller.enqueue(sent.chunks++ === 0 ? new TextEncoder().encode('{"pad":"') : chunk);
        },
      });
      const response = await fetch(handle.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
        duplex: 'half',
      }).catch((error: unknown) => (error instanceof Error ? `no answer: ${error.message}` : 'no answer'));
      outcomes.push(typeof response === 'string' ? response : { status: response.status, body: await response.json() });
    }
    expect(outcomes).toEqual(Array.from({ length: 4 }, () => ({ status: 413, body: expected })));
  }, 120_000);
});
