/**
 * An in-memory event store for resumable Streamable HTTP streams: the SDK transport stores every
 * SSE event it sends, and a client that reconnects with `Last-Event-ID` gets the events of that
 * stream sent after it. Bounded: the oldest events are forgotten first.
 *
 * @packageDocumentation
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Default {@link createEventStore} bound: events kept per endpoint. */
export const DEFAULT_MAX_STORED_EVENTS = 10_000;

interface StoredEvent {
  readonly streamId: string;
  readonly message: JSONRPCMessage;
}

/**
 * Creates an event store keeping at most `maxEvents` events (over every stream of an endpoint).
 *
 * @param maxEvents - the bound; the oldest event goes when a new one would pass it.
 * @returns the store, for the transport's `eventStore` option.
 */
export function createEventStore(maxEvents: number = DEFAULT_MAX_STORED_EVENTS): EventStore {
  // Map keeps insertion order: the first key is the oldest event, and ids sort by that order.
  const events = new Map<string, StoredEvent>();
  let sequence = 0;
  return {
    storeEvent: (streamId, message) => {
      sequence += 1;
      const eventId = `${streamId}_${String(sequence).padStart(12, '0')}`;
      events.set(eventId, { streamId, message });
      if (events.size > maxEvents) events.delete(events.keys().next().value ?? eventId);
      return Promise.resolve(eventId);
    },
    getStreamIdForEventId: (eventId) => Promise.resolve(events.get(eventId)?.streamId),
    replayEventsAfter: async (lastEventId, { send }) => {
      const last = events.get(lastEventId);
      if (last === undefined) return '';
      let after = false;
      for (const [eventId, event] of events) {
        if (eventId === lastEventId) {
          after = true;
          continue;
        }
        if (after && event.streamId === last.streamId) await send(eventId, event.message);
      }
      return last.streamId;
    },
  };
}
