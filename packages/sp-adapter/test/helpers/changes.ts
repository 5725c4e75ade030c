/**
 * Waiting for a test's own state to change, without timers: code under test calls `changed()`
 * whenever it records something, and the test awaits `until(check)`, which wakes at each change
 * and resolves once `check()` holds. A loaded machine only makes it slower, never wrong.
 */

/** A change signal for one test. */
export interface Changes {
  /** Wakes every `until` waiting now, to test its condition again. */
  readonly changed: () => void;
  /** Resolves once `check()` holds, testing it now and after each `changed()`. */
  readonly until: (check: () => boolean) => Promise<void>;
}

/** Creates a {@link Changes} with no one waiting. */
export function createChanges(): Changes {
  const waiters: (() => void)[] = [];
  return {
    changed: () => {
      for (const waiter of waiters.splice(0)) waiter();
    },
    until: async (check) => {
      while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
