import { afterEach, describe, expect, it } from 'vitest';

import { decodeCursor, encodeCursor, toolSetFingerprint } from '../src/pagination.js';
import type { EnvelopeTool } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { createTestServer } from './fixtures/test-server.js';

const FIVE_TOOLS: EnvelopeTool[] = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((name) => ({
  name,
  inputSchema: { type: 'object' },
  handler: () => name,
}));

let connected: Connected[] = [];
afterEach(async () => {
  await Promise.all(connected.map((connection) => connection.close()));
  connected = [];
});

async function start(pageSize: number, tools: EnvelopeTool[] = FIVE_TOOLS): Promise<Connected> {
  const connection = await connectInMemory(createTestServer({ pageSize }, tools));
  connected.push(connection);
  return connection;
}

describe('tools/list pagination', () => {
  it('pages with opaque cursors until the last page, which has no nextCursor', async () => {
    const { client } = await start(2);
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['alpha', 'bravo']);
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await client.listTools({ cursor: first.nextCursor! });
    expect(second.tools.map((tool) => tool.name)).toEqual(['charlie', 'delta']);
    const third = await client.listTools({ cursor: second.nextCursor! });
    expect(third.tools.map((tool) => tool.name)).toEqual(['echo', 'get_envelope_contract']);
    expect(third.nextCursor).toBeUndefined();
  });

  it('answers everything on one page when it fits (default page size 100)', async () => {
    const { client } = await start(100);
    const page = await client.listTools();
    expect(page.tools).toHaveLength(6);
    expect(page.nextCursor).toBeUndefined();
  });

  it('rejects a malformed cursor with JSON-RPC -32602', async () => {
    const { client } = await start(2);
    for (const cursor of ['not a cursor!', 'bm9wZQ', '', encodeCursor(0, toolSetFingerprint(['alpha']))]) {
      await expect(client.listTools({ cursor })).rejects.toMatchObject({
        code: -32602,
        message: 'MCP error -32602: Invalid cursor: it was not issued by this server for its current tool list',
      });
    }
  });

  it('rejects a cursor issued by a server with another tool set', async () => {
    const one = await start(2);
    const other = await start(2, FIVE_TOOLS.slice(0, 4));
    const cursor = (await one.client.listTools()).nextCursor!;
    await expect(other.client.listTools({ cursor })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('cursor codec', () => {
  it('round-trips an offset for the same fingerprint and range only', () => {
    const fingerprint = toolSetFingerprint(['a', 'b', 'c']);
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(toolSetFingerprint(['a', 'b', 'c'])).toBe(fingerprint);
    expect(toolSetFingerprint(['a', 'c', 'b'])).not.toBe(fingerprint);
    const cursor = encodeCursor(2, fingerprint);
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).toBe(`v1:2:${fingerprint}`);
    expect(decodeCursor(cursor, fingerprint, 3)).toBe(2);
    expect(decodeCursor(cursor, fingerprint, 2)).toBeUndefined();
    expect(decodeCursor(encodeCursor(0, fingerprint), fingerprint, 3)).toBeUndefined();
    expect(decodeCursor(cursor, toolSetFingerprint(['x']), 3)).toBeUndefined();
    expect(decodeCursor('x'.repeat(200), fingerprint, 3)).toBeUndefined();
  });
});
