import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // builds dist/ once for the suites that start the CLI, before the workers start
    globalSetup: ['test/global-setup.ts'],
    // The suites wait on child processes, worker threads and loopback HTTP more than they compute:
    // two test files at once keep two cores busy, where the default (one less than the cores) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker keeps the modules it loaded for its next test file: re-importing the SDK, core and
    // the adapter for every file cost more CPU than most files' tests. No test mocks a module, and
    // the files that stub fetch or fake timers undo it, so a file finds what a fresh worker has.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
