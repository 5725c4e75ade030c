/**
 * An in-memory event store for resumable Streamable HTTP streams: the SDK transport stores every
 * SSE event it sends, and a client that reconnects with `Last-Event-ID` gets the events of that
 * stream sent after it. Bounded in bytes, per stream and over every session of an endpoint, the
 * oldest events forgotten first; each session sees only its own streams, and event ids carry a
 * random per-stream token, so that they cannot be guessed.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Default {@link EventStoreBounds.maxStreamBytes}: 16 MiB, room for the largest default result (9 MiB) and its progress. */
export const DEFAULT_EVENT_STORE_STREAM_BYTES = 16 * 1024 * 1024;
/** Default {@link EventStoreBounds.maxTotalBytes}: 128 MiB over every session of an endpoint. */
export const DEFAULT_EVENT_STORE_TOTAL_BYTES = 128 * 1024 * 1024;

/**
 * What one kept event costs beside its JSON, in bytes (its record, its place in two collections,
 * the string's header): counted too, so that a flood of tiny events meets the bounds as well.
 */
export const EVENT_OVERHEAD_BYTES = 160;

/** The bounds of an endpoint's event store, in bytes: each event's UTF-8 JSON plus {@link EVENT_OVERHEAD_BYTES}. */
export interface EventStoreBounds {
  /** At most this many bytes kept for one SSE stream (default {@link DEFAULT_EVENT_STORE_STREAM_BYTES}). */
  readonly maxStreamBytes?: number | undefined;
  /** At most this many bytes kept over every stream of every session (default {@link DEFAULT_EVENT_STORE_TOTAL_BYTES}). */
  readonly maxTotalBytes?: number | undefined;
}

/** What a `Last-Event-ID` names in one session's store. */
export type EventIdStatus = 'kept' | 'evicted' | 'unknown';

/** One session's view of an endpoint's event store: the SDK transport's `eventStore`, and more. */
export interface SessionEventStore extends EventStore {
  /** The stream of a kept event of this session (`undefined`: unknown here, or events after it evicted). */
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  /** Whether `eventId` is an event of this session still kept, one evicted by the bounds, or unknown here. */
  status(eventId: string): EventIdStatus;
  /** Forgets every event of this session (when it closes). */
  release(): void;
}

/** The event store of an endpoint: one view per session over shared byte bounds. */
export interface EndpointEventStore {
  /** A new, empty view for one session. */
  forSession(): SessionEventStore;
  /** Bytes held now, over every session. */
  readonly bytesHeld: number;
}

interface StreamRecord {
  readonly streamId: string;
  readonly token: string;
  /** Kept events, oldest first, from `head` on. */
  readonly events: (StoredEvent | undefined)[];
  head: number;
  bytes: number;
  /** The highest sequence number evicted so far (0: none). */
  evictedThrough: number;
  sequence: number;
  /** Called when eviction leaves the stream without events: its session forgets it (see {@link RETIRED_STREAMS}). */
  readonly emptied: (stream: StreamRecord) => void;
}

/**
 * Streams a session remembers after eviction emptied them, so that a `Last-Event-ID` of theirs
 * still reads `evicted`; older ones read `unknown`. Bounded, since a session opens a stream per
 * request and would otherwise keep a record of each forever.
 */
const RETIRED_STREAMS = 64;

interface StoredEvent {
  readonly stream: StreamRecord;
  readonly sequence: number;
  /** The message as JSON: its byte length is what the bounds count, and a later change to the object cannot alter it. */
  readonly json: string;
  readonly bytes: number;
}

function positiveBound(name: string, value: number | undefined, fallback: number): number {
  const bound = value ?? fallback;
  if (!Number.isSafeInteger(bound) || bound < 1)
    throw new RangeError(`${name} must be a whole number of bytes of at least 1, got ${String(value)}`);
  return bound;
}

/** Whether an event after the one a client last received has been evicted: a replay would have a gap. */
function lost(found: { readonly stream: StreamRecord; readonly sequence: number }): boolean {
  return found.stream.evictedThrough > found.sequence;
}

/** Splits `token.sequence`; `undefined` for anything else. */
function parseEventId(eventId: string): { token: string; sequence: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const digits = eventId.slice(dot + 1);
  // only the spelling the store writes: `01`, `1e0` or ` 1` name no event
  if (!/^[1-9]\d*$/.test(digits)) return undefined;
  const sequence = Number(digits);
  return Number.isSafeInteger(sequence) ? { token: eventId.slice(0, dot), sequence } : undefined;
}

/**
 * Creates the event store of an endpoint. Every event is counted by the UTF-8 bytes of its JSON;
 * when a stream passes `maxStreamBytes`, its oldest events go, and when all streams pass
 * `maxTotalBytes`, the endpoint's oldest events go, whatever their session. An event larger than
 * a bound is not kept at all (a reconnect before it then reads `evicted`).
 *
 * @param bounds - see {@link EventStoreBounds}.
 * @returns the store; give each session's transport `forSession()`.
 * @throws RangeError when a bound is not a whole number of at least 1.
 */
export function createEventStore(bounds: EventStoreBounds = {}): EndpointEventStore {
  const maxStream = positiveBound('maxStreamBytes', bounds.maxStreamBytes, DEFAULT_EVENT_STORE_STREAM_BYTES);
  const maxTotal = positiveBound('maxTotalBytes', bounds.maxTotalBytes, DEFAULT_EVENT_STORE_TOTAL_BYTES);
  // Every kept event, oldest first over all sessions (a Set keeps insertion order).
  const all = new Set<StoredEvent>();
  const held = { bytes: 0 };
  const evictHead = (stream: StreamRecord): void => {
    const oldest = stream.events[stream.head];
    if (oldest === undefined) return;
    stream.events[stream.head] = undefined;
    stream.head += 1;
    stream.bytes -= oldest.bytes;
    stream.evictedThrough = oldest.sequence;
    held.bytes -= oldest.bytes;
    all.delete(oldest);
    if (stream.head >= stream.events.length) {
      stream.events.length = 0;
      stream.head = 0;
      stream.emptied(stream);
      return;
    }
    // compact now and then, so that a long stream does not keep an array of holes
    if (stream.head > 1024 && stream.head * 2 > stream.events.length) {
      stream.events.splice(0, stream.head);
      stream.head = 0;
    }
  };
  const store = (stream: StreamRecord, message: JSONRPCMessage): string => {
    const json = JSON.stringify(message);
    stream.sequence += 1;
    const event: StoredEvent = {
      stream,
      sequence: stream.sequence,
      json,
      bytes: Buffer.byteLength(json) + EVENT_OVERHEAD_BYTES,
    };
    stream.events.push(event);
    stream.bytes += event.bytes;
    held.bytes += event.bytes;
    all.add(event);
    while (stream.bytes > maxStream) evictHead(stream);
    while (held.bytes > maxTotal) {
      const oldest = all.values().next().value;
      if (oldest === undefined) break;
      evictHead(oldest.stream);
    }
    return `${stream.token}.${String(stream.sequence)}`;
  };
  return {
    forSession: () => sessionView(store, evictHead),
    get bytesHeld() {
      return held.bytes;
    },
  };
}

/** One session's streams over the shared store (see {@link createEventStore}). */
function sessionView(
  store: (stream: StreamRecord, message: JSONRPCMessage) => string,
  evictHead: (stream: StreamRecord) => void,
): SessionEventStore {
  const byStream = new Map<string, StreamRecord>();
  const byToken = new Map<string, StreamRecord>();
  const retired = new Map<string, StreamRecord>();
  const emptied = (stream: StreamRecord): void => {
    if (byStream.get(stream.streamId) === stream) byStream.delete(stream.streamId);
    byToken.delete(stream.token);
    retired.set(stream.token, stream);
    if (retired.size > RETIRED_STREAMS) retired.delete(retired.keys().next().value ?? stream.token);
  };
  const streamOf = (streamId: string): StreamRecord => {
    let stream = byStream.get(streamId);
    if (stream === undefined) {
      // 128 random bits: an event id of one stream tells nothing about another's
      const token = randomBytes(16).toString('base64url');
      stream = { streamId, token, events: [], head: 0, bytes: 0, evictedThrough: 0, sequence: 0, emptied };
      byStream.set(streamId, stream);
      byToken.set(token, stream);
    }
    return stream;
  };
  const find = (eventId: string): { stream: StreamRecord; sequence: number } | undefined => {
    const parsed = parseEventId(eventId);
    const stream = parsed === undefined ? undefined : (byToken.get(parsed.token) ?? retired.get(parsed.token));
    if (parsed === undefined || stream === undefined || parsed.sequence > stream.sequence) return undefined;
    return { stream, sequence: parsed.sequence };
  };
  return {
    storeEvent: (streamId, message) => Promise.resolve(store(streamOf(streamId), message)),
    status: (eventId) => {
      const found = find(eventId);
      if (found === undefined) return 'unknown';
      return lost(found) ? 'evicted' : 'kept';
    },
    getStreamIdForEventId: (eventId) => {
      const found = find(eventId);
      return Promise.resolve(found === undefined || lost(found) ? undefined : found.stream.streamId);
    },
    replayEventsAfter: async (lastEventId, { send }) => {
      const found = find(lastEventId);
      if (found === undefined || lost(found)) return '';
      const { stream } = found;
      // a copy: sending may store new events on this stream meanwhile
      const after = stream.events
        .slice(stream.head)
        .filter((event): event is StoredEvent => event !== undefined && event.sequence > found.sequence);
      for (const event of after)
        await send(`${stream.token}.${String(event.sequence)}`, JSON.parse(event.json) as JSONRPCMessage);
      return stream.streamId;
    },
    release: () => {
      for (const stream of [...byStream.values()]) while (stream.head < stream.events.length) evictHead(stream);
      byStream.clear();
      byToken.clear();
      retired.clear();
    },
  };
}
