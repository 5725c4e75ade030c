/**
 * Resumable SSE on Streamable HTTP (2025-11-25 sessions): the server primes each POST stream with
 * an event id, a tool may close its stream mid-call, and a client that reconnects with
 * `Last-Event-ID` gets the result it missed, from the event store.
 */
import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import { officialSuiteTools } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { StreamableHttpHandle } from '../src/index.js';
import { createTestServer } from './fixtures/test-server.js';

const VERSION = '2025-11-25';
let handle: StreamableHttpHandle;

beforeAll(async () => {
  handle = await createTestServer({}, officialSuiteTools()).serveStreamableHttp();
});

afterAll(async () => {
  await handle.close();
});

interface SseEvent {
  readonly id?: string | undefined;
  readonly retry?: string | undefined;
  readonly data: string;
}

/** Reads a whole SSE body (the server closes it) into events. */
async function events(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      return {
        ...(fields.has('id') ? { id: fields.get('id') } : {}),
        ...(fields.has('retry') ? { retry: fields.get('retry') } : {}),
        data: fields.get('data') ?? '',
      };
    });
}

function post(body: unknown, session?: string, version = VERSION): Promise<Response> {
  return fetch(handle.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify(body),
  });
}

/** Opens a 2025-11-25 session with `initialize` and returns its id. */
async function initializeSession(): Promise<string | undefined> {
  const initialized = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'sse-test', version: '0.0.1' } },
  });
  const session = initialized.headers.get('mcp-session-id') ?? undefined;
  await initialized.text();
  return session;
}

describe('resumable SSE streams', () => {
  it('primes the stream, closes it mid-call, and replays the result after Last-Event-ID', async () => {
    const session = await initializeSession();
    expect(session).toBeDefined();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();

    const call = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } },
      session,
    );
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    const first = await events(call);
    // the priming event only: an id, the retry interval and no data; the result did not come
    expect(first).toEqual([{ id: expect.any(String) as unknown, retry: '1000', data: '' }]);

    const resumed = await fetch(handle.url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-session-id': session ?? '',
        'last-event-id': first[0]?.id ?? '',
      },
    });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    const data = text.split('\n').find((line) => line.startsWith('data: {'));
    expect(JSON.parse(data!.slice('data: '.length))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'Reconnection test completed' }],
        _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: 1 } },
      },
    });
  });

  it('primes a stream of a 2025-11-25 session whose request header names an older version', async () => {
    const session = await initializeSession();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();

    // the official suite's SSE polling check sends this stale header after negotiating 2025-11-25
    const call = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } },
      session,
      '2025-03-26',
    );
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    expect(await events(call)).toEqual([{ id: expect.any(String) as unknown, retry: '1000', data: '' }]);
  });

  it('still refuses an unsupported protocol version on a session', async () => {
    const session = await initializeSession();
    const refused = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, session, '2020-01-01');
    expect(refused.status).toBe(400);
    await refused.text();
  });
});
