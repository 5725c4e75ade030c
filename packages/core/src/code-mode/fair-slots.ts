/**
 * The worker slots of a sandbox runner, shared fairly between sessions: a caller past the slot
 * limit waits in its session's queue; a freed slot goes to the waiting session with the fewest
 * runs running, and among those to the one given a slot the longest ago (round robin); and a
 * session with too many runs queued or running is refused at once. Without this, one session's
 * burst of `execute_code` calls made every other session wait behind all of it. Implements
 * CONTRACT.md "Code Mode".
 *
 * @packageDocumentation
 */

/**
 * Thrown by {@link FairSlots.acquire} when the session already has `limit` runs queued or running.
 */
export class SessionRunsExceededError extends Error {
  /** The most runs one session may have queued or running (`CODE_MODE_MAX_SESSION_RUNS`). */
  readonly limit: number;

  /** @param limit - the per-session limit that was reached. */
  constructor(limit: number) {
    super(`this session already has ${limit} execute_code runs queued or running`);
    this.name = 'SessionRunsExceededError';
    this.limit = limit;
  }
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** The slots of one runner. */
export interface FairSlots {
  /**
   * Takes a slot for a run of `session`: at once while fewer than the limit are held, else when
   * the session's turn comes.
   *
   * @param session - the run's session key (compared with `Map` semantics: a string or an object).
   * @param signal - aborting it takes a waiting run out of its queue at once.
   * @returns the slot's release, which the caller must call when the run ends.
   * @throws SessionRunsExceededError (as a rejection) when the session is at its per-session limit;
   *   the signal's reason when it is or becomes aborted before the turn comes.
   */
  acquire(session: unknown, signal: AbortSignal): Promise<ReleaseSlot>;
}

/** One waiting run: `grant` hands it the slot of a run that ended. */
interface Turn {
  readonly grant: () => void;
}

/** The waiting runs, one queue per session. */
function createTurnQueues(): {
  push(session: unknown, turn: Turn): void;
  remove(session: unknown, turn: Turn): void;
  /**
   * The first turn of the session with the lowest rank: its runs running, then when it was last
   * given a slot (sessions never given one first).
   */
  next(rank: (session: unknown) => readonly [running: number, served: number]): Turn | undefined;
} {
  const queues = new Map<unknown, Turn[]>();
  return {
    push: (session, turn) => {
      const queue = queues.get(session);
      if (queue === undefined) queues.set(session, [turn]);
      else queue.push(turn);
    },
    remove: (session, turn) => {
      const queue = queues.get(session) ?? [];
      const index = queue.indexOf(turn);
      if (index >= 0) queue.splice(index, 1);
      if (queue.length === 0) queues.delete(session);
    },
    next: (rank) => {
      const best: { session: unknown; queue: Turn[] | undefined; rank: readonly [number, number] } = {
        session: undefined,
        queue: undefined,
        rank: [Infinity, Infinity],
      };
      for (const [session, queue] of queues) {
        const [running, served] = rank(session);
        if (running < best.rank[0] || (running === best.rank[0] && served < best.rank[1]))
          Object.assign(best, { session, queue, rank: [running, served] });
      }
      const turn = best.queue?.shift();
      if (best.queue === undefined || turn === undefined) return undefined;
      if (best.queue.length === 0) queues.delete(best.session);
      return turn;
    },
  };
}

/**
 * Creates the slots of one runner.
 *
 * @param limit - the most slots held at once (the runner's workers).
 * @param perSession - the most runs one session may have queued or running together.
 * @returns the slots.
 */
export function createFairSlots(limit: number, perSession: number): FairSlots {
  const state = { held: 0, grants: 0 };
  // per session with runs: their count queued or running, those running, and when it last got a slot
  const runs = new Map<unknown, number>();
  const running = new Map<unknown, number>();
  const served = new Map<unknown, number>();
  const turns = createTurnQueues();
  const count = (map: Map<unknown, number>, session: unknown, by: 1 | -1): void => {
    const value = (map.get(session) ?? 0) + by;
    if (value <= 0) map.delete(session);
    else map.set(session, value);
  };
  const ended = (session: unknown): void => {
    count(runs, session, -1);
    if (!runs.has(session)) served.delete(session);
  };
  const releaseOf = (session: unknown): ReleaseSlot => {
    count(running, session, 1);
    state.grants += 1;
    served.set(session, state.grants);
    const once = { done: false };
    return () => {
      if (once.done) return;
      once.done = true;
      ended(session);
      count(running, session, -1);
      // the slot passes from the ending run to the next one, so `held` stays as it is
      const next = turns.next((waiting) => [running.get(waiting) ?? 0, served.get(waiting) ?? 0]);
      if (next === undefined) state.held -= 1;
      else next.grant();
    };
  };
  return {
    acquire: (session, signal) => {
      if (signal.aborted) return Promise.reject(signal.reason as Error);
      if ((runs.get(session) ?? 0) >= perSession) return Promise.reject(new SessionRunsExceededError(perSession));
      count(runs, session, 1);
      if (state.held < limit) {
        state.held += 1;
        return Promise.resolve(releaseOf(session));
      }
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          turns.remove(session, turn);
          ended(session);
          reject(signal.reason as Error);
        };
        const turn: Turn = {
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve(releaseOf(session));
          },
        };
        turns.push(session, turn);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
