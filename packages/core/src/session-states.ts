/**
 * Per-session state for tools: what one MCP session chose (a region, an active account) stays in
 * that session, so two clients of one Streamable HTTP server never act on each other's choice.
 *
 * @packageDocumentation
 */
import type { ToolHandlerContext } from './server.js';

/** Default {@link SessionStates} bound: the most sessions whose state is kept. */
export const MAX_SESSION_STATES = 10_000;

/**
 * The state of each MCP session of one server, keyed by the session id (`''` for a transport
 * without sessions: stdio, in-memory, and 2026-07-28 requests, which carry no session), created
 * on first use. Sessions end without telling the tools, so at most `maxSessions` states are kept:
 * past it, the state of the session unused the longest is forgotten, and that session starts
 * over with a new state if it comes back.
 */
export class SessionStates<State> {
  readonly #states = new Map<string, State>();
  readonly #create: () => State;
  readonly #maxSessions: number;

  /**
   * @param create - a new session's state.
   * @param maxSessions - the most states kept (default {@link MAX_SESSION_STATES}).
   */
  constructor(create: () => State, maxSessions: number = MAX_SESSION_STATES) {
    this.#create = create;
    this.#maxSessions = maxSessions;
  }

  /**
   * The state of the session a call belongs to.
   *
   * @param context - the call's context (its `request.sessionId` is read).
   * @returns the session's state, created if it has none yet.
   */
  of(context: Pick<ToolHandlerContext, 'request'>): State {
    return this.forSession(context.request.sessionId);
  }

  /**
   * The state of the session with this id.
   *
   * @param sessionId - the MCP session id; `undefined` for a transport without sessions.
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

  /** How many sessions have a state. */
  get size(): number {
    return this.#states.size;
  }
}
