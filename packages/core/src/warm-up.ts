/**
 * Compiling in the background what a server's first calls would otherwise compile while a caller
 * waits.
 */
import { validateEnvelope } from '@mcp-envelope/contract';

import type { PipelineCaches } from './arguments/index.js';

/** Starts the warm-up once and cancels it if it has not run yet. */
export interface WarmUp {
  readonly start: () => void;
  readonly cancel: () => void;
}

/**
 * A warm-up of the contract's envelope validators (compiled on the first error result) and the
 * compiler's draft 2020-12 meta-schema (compiled on the first schema check), run once on the next
 * turn of the event loop after `start`. Per-tool validators stay lazy: most tools are never
 * called. The timer is unref'd so that it never keeps a process alive.
 *
 * @param caches - the server's compiler caches.
 * @returns `start` (idempotent) and `cancel`.
 */
export function createWarmUp(caches: PipelineCaches): WarmUp {
  let handle: NodeJS.Immediate | undefined;
  let started = false;
  return {
    start: () => {
      if (started) return;
      started = true;
      handle = setImmediate(() => {
        handle = undefined;
        validateEnvelope({});
        caches.compiler.metaSchemaProblem({});
      });
      handle.unref();
    },
    cancel: () => {
      if (handle !== undefined) clearImmediate(handle);
      handle = undefined;
    },
  };
}
