import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // @mcp-envelope/testing depends on core, so core cannot depend on it without a cycle in the
    // workspace graph; core's own tests load its source instead (as tsconfig.json's `paths` does).
    alias: { '@mcp-envelope/testing': fileURLToPath(new URL('../testing/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The suites wait on child processes, worker threads and loopback HTTP more than they compute:
    // two test files at once keep two cores busy, where the default (one less than the cores) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
