import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

/** The test files that replace a module of core or Node for their own tests. */
const MOCKING_FILES = ['test/warm-up.test.ts', 'test/code-mode/runner.test.ts', 'test/exit-walk.test.ts'];

export default defineConfig({
  resolve: {
    // @mcp-envelope/testing depends on core, so core cannot depend on it without a cycle in the
    // workspace graph; core's own tests load its source instead (as tsconfig.json's `paths` does).
    alias: { '@mcp-envelope/testing': fileURLToPath(new URL('../testing/src/index.ts', import.meta.url)) },
  },
  test: {
    // The suites wait on child processes, worker threads and loopback HTTP more than they compute:
    // two test files at once keep two cores busy, where the default (one less than the cores) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // A worker keeps the modules it loaded for its next test file: re-importing the SDK and
      // core for every file cost about a third of the suite's CPU. The files that undo their
      // fake timers and stubs share a worker's modules ...
      { extends: true, test: { name: 'core', include: ['test/**/*.test.ts'], exclude: MOCKING_FILES, isolate: false } },
      // ... and the files that replace a module (vi.mock, vi.doMock) get fresh ones, so that the
      // replacement reaches no other file.
      { extends: true, test: { name: 'core-isolated', include: MOCKING_FILES, isolate: true } },
    ],
  },
});
