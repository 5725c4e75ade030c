/**
 * The envelope server every benchmark builds: a silent logger, an adapter that classifies
 * nothing (the benchmarks' handlers never fail upstream), and no environment switches, so that
 * the figures measure core alone.
 */
import { Writable } from 'node:stream';

import { createEnvelopeLogger, createEnvelopeServer } from '../dist/index.js';
import type { EnvelopeAdapter, EnvelopeServer, EnvelopeServerOptions, EnvelopeTool } from '../dist/index.js';

/** A logger whose lines go nowhere. */
export const silentLogger = createEnvelopeLogger(
  new Writable({
    write: (_chunk, _encoding, callback) => {
      callback();
    },
  }),
);

/** An adapter with no error kinds of its own, whose classification is never reached. */
export const benchAdapter: EnvelopeAdapter = {
  id: 'bench',
  errorKinds: [],
  classify: () => ({
    error_kind: 'internal_error',
    error_code: 'INTERNAL_ERROR',
    retryable: false,
    summary: 'unused',
    details: [],
    hints: [],
  }),
  parseResponseMeta: () => ({}),
};

/**
 * An envelope server named `name` serving `tools` with {@link benchAdapter}, {@link silentLogger}
 * and an empty environment.
 *
 * @param options - further server options (e.g. `codeMode`).
 */
export function benchServer(
  name: string,
  tools: readonly EnvelopeTool[],
  options: EnvelopeServerOptions = {},
): EnvelopeServer {
  return createEnvelopeServer({
    info: { name, version: '0.0.0' },
    adapter: benchAdapter,
    tools,
    options: { env: {}, logger: silentLogger, ...options },
  });
}
