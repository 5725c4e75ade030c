/**
 * The tool calls a server is still running, so that a shutdown can wait for them and then answer
 * the ones that did not finish in time.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

import type { EnvelopeLogger } from './logger.js';

/** What {@link InFlightCalls.track} resolves with. */
export type TrackedOutcome<Value> = { readonly forced: false; readonly value: Value } | { readonly forced: true };

/** The registry of a server's unfinished asynchronous tool calls. */
export interface InFlightCalls {
  /**
   * Follows a handler's promise until it settles or {@link InFlightCalls.force} is called.
   *
   * @param pending - the handler's promise.
   * @returns its value (`forced: false`), or `forced: true` when forced first.
   * @throws what `pending` rejects with, unless forced first.
   */
  track<Value>(pending: PromiseLike<Value>): Promise<TrackedOutcome<Value>>;
  /**
   * Settles every tracked call with `forced: true` now (their handlers keep running, unheard).
   *
   * @returns how many calls were forced.
   */
  force(): number;
  /** How many calls are tracked. */
  readonly size: number;
  /**
   * Resolves once no call is tracked (at once when none is).
   *
   * @returns a promise that never rejects.
   */
  idle(): Promise<void>;
}

/**
 * Creates an empty registry.
 *
 * @returns the registry.
 */
export function createInFlightCalls(): InFlightCalls {
  const forcers = new Set<() => void>();
  const idleWaiters = new Set<() => void>();
  const settled = (forcer: () => void): void => {
    forcers.delete(forcer);
    if (forcers.size > 0) return;
    for (const waiter of idleWaiters) waiter();
    idleWaiters.clear();
  };
  return {
    track: <Value>(pending: PromiseLike<Value>): Promise<TrackedOutcome<Value>> => {
      let forcer = (): void => undefined;
      const forced = new Promise<TrackedOutcome<Value>>((resolve) => {
        forcer = () => {
          resolve({ forced: true });
        };
      });
      forcers.add(forcer);
      const finished = Promise.resolve(pending).then((value): TrackedOutcome<Value> => ({ forced: false, value }));
      void finished.then(
        () => {
          settled(forcer);
        },
        () => {
          settled(forcer);
        },
      );
      return Promise.race([finished, forced]);
    },
    force: () => {
      const count = forcers.size;
      for (const forcer of [...forcers]) {
        forcer();
        settled(forcer);
      }
      return count;
    },
    get size() {
      return forcers.size;
    },
    idle: () => (forcers.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.add(resolve))),
  };
}

/**
 * Whether a value is a promise or another thenable (what `await` would wait for).
 *
 * @param value - anything a tool handler returned.
 * @returns `true` when it has a `then` method.
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * The answer to a tool call the server stopped before it finished: `internal_error` /
 * `INTERNAL_ERROR` with `retryable: true` (the same call may succeed against the restarted
 * server) and `details[0].reason: "server_shutting_down"`; logged with its correlation id.
 *
 * @param tool - the tool called.
 * @param logger - where the line goes.
 * @returns the envelope.
 */
export function shutdownEnvelope(tool: string, logger: EnvelopeLogger): ErrorEnvelope {
  const correlationId = randomUUID();
  logger.warn(
    { correlation_id: correlationId, tool },
    'tool call answered with a retryable envelope: the server shut down before it finished',
  );
  return {
    error_kind: 'internal_error',
    tool,
    summary: 'The server shut down before this call finished.',
    details: [
      {
        path: '',
        issue: 'the server stopped while the call was running (its shutdown grace period ended)',
        received_type: 'undefined',
        reason: 'server_shutting_down',
      },
    ],
    hints: [
      'Call again once the server is back (reconnect first).',
      'The call may have reached the upstream API before the server stopped: check its effect before repeating a call that changes data.',
    ],
    examples: [],
    error_code: 'INTERNAL_ERROR',
    retryable: true,
    _envelope_version: CONTRACT_VERSION,
    _meta: { correlation_id: correlationId },
  };
}
