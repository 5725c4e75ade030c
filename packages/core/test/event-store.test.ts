/**
 * The resumability event store under hostile input: floods of tiny and huge events stay within
 * its byte bounds, a session cannot name another's events, and a replay after an evicted event
 * is refused rather than sent with a gap.
 */
import { describe, expect, it } from 'vitest';

import { createEventStore, EVENT_OVERHEAD_BYTES } from '../src/event-store.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

const note = (text: string): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { text } });

async function replayed(
  store: ReturnType<ReturnType<typeof createEventStore>['forSession']>,
  after: string,
): Promise<string[]> {
  const sent: string[] = [];
  await store.replayEventsAfter(after, {
    send: (_id, message) => {
      sent.push((message as unknown as { params: { text: string } }).params.text);
      return Promise.resolve();
    },
  });
  return sent;
}

describe('createEventStore', () => {
  it('holds at most maxTotalBytes through 30,000 tiny events, counting each one’s overhead', async () => {
    const endpoint = createEventStore({ maxTotalBytes: 256 * 1024 });
    const session = endpoint.forSession();
    let last = '';
    for (let index = 0; index < 30_000; index += 1) {
      last = await session.storeEvent('s', {} as JSONRPCMessage);
      expect(endpoint.bytesHeld).toBeLessThanOrEqual(256 * 1024);
    }
    // 2 bytes of JSON each: without the overhead, all 30,000 would be counted as 60 KB and kept
    expect(endpoint.bytesHeld).toBeGreaterThan(256 * 1024 - (EVENT_OVERHEAD_BYTES + 2));
    expect(session.status(last)).toBe('kept');
  });

  it('keeps one stream under maxStreamBytes, evicting oldest first, and refuses a replay with a gap', async () => {
    const endpoint = createEventStore({ maxStreamBytes: 10_000, maxTotalBytes: 1_000_000 });
    const session = endpoint.forSession();
    const ids: string[] = [];
    for (let index = 0; index < 50; index += 1)
      ids.push(await session.storeEvent('s', note(`${index}:${'y'.repeat(1000)}`)));
    expect(endpoint.bytesHeld).toBeLessThanOrEqual(10_000);
    // the last events are kept and replayed in order
    expect((await replayed(session, ids[47] ?? '')).map((text) => text.split(':')[0])).toEqual(['48', '49']);
    // after an early id, events are missing: evicted, not replayed
    expect(session.status(ids[0] ?? '')).toBe('evicted');
    expect(await session.getStreamIdForEventId(ids[0] ?? '')).toBeUndefined();
    expect(await replayed(session, ids[0] ?? '')).toEqual([]);
  });

  it('does not keep an event larger than a bound, and the bytes held stay within it', async () => {
    const endpoint = createEventStore({ maxStreamBytes: 4096 });
    const session = endpoint.forSession();
    const before = await session.storeEvent('s', note('small'));
    await session.storeEvent('s', note('z'.repeat(100_000)));
    expect(endpoint.bytesHeld).toBe(0);
    expect(session.status(before)).toBe('evicted');
  });

  it("gives a session no access to another's events, and releases a session's bytes", async () => {
    const endpoint = createEventStore();
    const [a, b] = [endpoint.forSession(), endpoint.forSession()];
    const first = await a.storeEvent('_GET_stream', note('for a'));
    await a.storeEvent('_GET_stream', note('for a, later'));
    expect(b.status(first)).toBe('unknown');
    expect(await b.getStreamIdForEventId(first)).toBeUndefined();
    expect(await replayed(b, first)).toEqual([]);
    expect(await replayed(a, first)).toEqual(['for a, later']);
    a.release();
    expect(endpoint.bytesHeld).toBe(0);
    expect(a.status(first)).toBe('unknown');
  });

  it('knows an event id only in the spelling it wrote', async () => {
    const session = createEventStore().forSession();
    const first = await session.storeEvent('_GET_stream', note('one'));
    const token = first.slice(0, first.lastIndexOf('.'));
    expect(first).toBe(`${token}.1`);
    expect(session.status(first)).not.toBe('unknown');
    for (const spelling of ['.01', '.1e0', '. 1', '.1 ', '.+1', '.0x1'])
      expect([spelling, session.status(`${token}${spelling}`)]).toEqual([spelling, 'unknown']);
  });

  it('refuses bounds that are not whole numbers of bytes', () => {
    expect(() => createEventStore({ maxTotalBytes: 0 })).toThrow(RangeError);
    expect(() => createEventStore({ maxStreamBytes: Number.NaN })).toThrow(/maxStreamBytes must be a whole number/);
  });
});

describe('createEventStore: one stream per request', () => {
  it('keeps no record of the streams eviction emptied but the last 64, which still read evicted', async () => {
    const endpoint = createEventStore({ maxTotalBytes: 64 * 1024 });
    const session = endpoint.forSession();
    const firsts: string[] = [];
    // 20,000 requests, each its own stream with a priming event and an answer
    for (let request = 0; request < 20_000; request += 1) {
      firsts.push(await session.storeEvent(`stream-${request}`, {} as JSONRPCMessage));
      await session.storeEvent(`stream-${request}`, note('answer'));
    }
    expect(endpoint.bytesHeld).toBeLessThanOrEqual(64 * 1024);
    // kept, retired (evicted), and forgotten (unknown), oldest last
    expect(session.status(firsts[19_999] ?? '')).toBe('kept');
    const statuses = firsts.map((id) => session.status(id));
    expect(statuses.filter((status) => status === 'kept').length).toBeLessThan(200);
    expect(statuses.filter((status) => status === 'evicted')).toHaveLength(64);
    expect(statuses[0]).toBe('unknown');
  });
});
