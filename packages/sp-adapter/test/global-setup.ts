/** Vitest's global setup: builds the CLI the tests start once, before the test files start in their workers. */
import { buildIfStale } from './helpers/cli.js';

/** Builds `dist/` when it is missing or older than `src/`. */
export async function setup(): Promise<void> {
  await buildIfStale();
}
