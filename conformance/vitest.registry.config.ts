import { defineConfig } from 'vitest/config';

// The release rehearsal: a real registry, real `changeset version` / `changeset publish` and a
// consumer install. It runs on its own (`pnpm test:registry`, a step of `npm test`), not among
// the package's unit tests, because it builds and publishes a whole clone of the repository.
export default defineConfig({
  test: {
    include: ['test/registry/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
