/**
 * What the fixture tools' tests serve them with: the smallest adapter core accepts (the tests
 * never reach an upstream, so its classification is never asked) and a logger whose JSON lines
 * are kept in memory for assertions on what was logged.
 */
import { Writable } from 'node:stream';

import { createEnvelopeLogger } from '@mcp-envelope/core';
import type { EnvelopeAdapter, EnvelopeLogger } from '@mcp-envelope/core';

/** An adapter for an upstream the tests never call. */
export const fixtureAdapter: EnvelopeAdapter = {
  id: 'fixtures',
  errorKinds: ['upstream_client'],
  upstreams: ['fixture-api'],
  classify: () => ({
    error_kind: 'upstream_client',
    error_code: 'TOOL_EXECUTION_FAILED',
    upstream: 'fixture-api',
    retryable: false,
    summary: 'The fixture API failed.',
    details: [],
    hints: [],
  }),
  parseResponseMeta: () => ({}),
};

/** A logger and every line it wrote so far, parsed. */
export interface CapturedLog {
  readonly logger: EnvelopeLogger;
  readonly lines: Record<string, unknown>[];
}

/** A logger that keeps its lines in memory instead of writing them to stderr. */
export function captureLog(): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  return { logger: createEnvelopeLogger(stream), lines };
}
