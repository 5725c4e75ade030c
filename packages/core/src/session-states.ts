/**
 * Per-session state for tools: what one MCP session chose (a region, an active account) stays in
 * that session, so two clients of one Streamable HTTP server never act on each other's choice.
 *
 * @packageDocumentation
 */
import type { ToolHandlerContext } from './types.js';

/** Default {@link SessionStates} bound: the most sessions whose state is kept. */
export const MAX_SESSION_STATES = 10_000;

/**
 * The state of each MCP session of one server, created on first use:
 * - a session with an id (a 2025-11-25 Streamable HTTP client) has its own state, until
 *   {@link SessionStates.forget} drops it (pass `forget` as the server's `onSessionClosed`);
 * - a connection without sessions (stdio, in-memory) has one state, as it has one client;
 * - a Streamable HTTP request without a session (the 2026-07-28 era is stateless) gets a new state
 *   that lasts for that request only (the inner calls of one `execute_code` share it): those
 *   requests may come from any client, so no choice made in one may reach another.
 *
 * At most `maxSessions` session states are kept (sessions that end without `forget` being told
 * would otherwise pile up); past it, the state of the session unused the longest is dropped, and
 * that session starts over from a new state if it comes back.
 */
export class SessionStates<State> {
  readonly #states = new Map<string, State>();
  readonly #perRequest = new WeakMap<object, State>();
  readonly #create: () => State;
  readonly #maxSessions: number;

  /**
   * @param create - a new session's state.
   * @param maxSessions - the most session states kept (default {@link MAX_SESSION_STATES}).
   * @throws RangeError when `maxSessions` is not a positive integer.
   */
  constructor(create: () => State, maxSessions: number = MAX_SESSION_STATES) {
    if (!Number.isInteger(maxSessions) || maxSessions < 1)
      throw new RangeError(`maxSessions must be a positive integer, not ${String(maxSessions)}`);
    this.#create = create;
    this.#maxSessions = maxSessions;
  }

  /**
   * The state of the session (or the stateless request) a call belongs to.
   *
   * @param context - the call's context (its `request.sessionId` and `request.http` are read).
   * @returns the state, created if there is none yet.
   */
  of(context: Pick<ToolHandlerContext, 'request'>): State {
    const { sessionId, http } = context.request;
    const request = http?.req;
    if (sessionId !== undefined || request === undefined) return this.forSession(sessionId);
    let state = this.#perRequest.get(request);
    if (state === undefined) {
      state = this.#create();
      this.#perRequest.set(request, state);
    }
    return state;
  }

  /**
   * The state of the session with this id.
   *
   * @param sessionId - the MCP session id; `undefined` for a connection without sessions (stdio).
   * @returns the session's state, created if it has none yet.
   */
  forSession(sessionId: string | undefined): State {
    const key = sessionId ?? '';
    const state = this.#states.get(key) ?? this.#create();
    // re-inserted on every use, so the map's first key is the session unused the longest
    this.#states.delete(key);
    this.#states.set(key, state);
    if (this.#states.size > this.#maxSessions) this.#states.delete(this.#states.keys().next().value ?? key);
    return state;
  }

  /**
   * Drops the state of a session that has ended.
   *
   * @param sessionId - the session's id.
   */
  readonly forget = (sessionId: string): void => {
    this.#states.delete(sessionId);
  };

  /** How many sessions have a state (stateless requests not counted). */
  get size(): number {
    return this.#states.size;
  }
}
