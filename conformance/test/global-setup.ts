/** Vitest's global setup: builds the CLI once, before the test files start in their parallel workers. */
import { buildIfStale } from './helpers/cli-runner.js';

/** Builds `dist/` when it is missing or older than `src/`. */
export async function setup(): Promise<void> {
  await buildIfStale();
}
