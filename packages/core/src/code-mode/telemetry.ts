/**
 * The telemetry of the inner calls of one `execute_code` call, folded into the `_meta` of its own
 * result: the most restrictive `rate_limit`, the largest `retry_after_seconds`, and the warnings
 * without repeats. Implements CONTRACT.md "Code Mode".
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeWarning, RateLimitMeta } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';

import type { ResponseMeta } from '../adapter.js';
import { ratePerSecond } from '../rate-limit/per-second.js';

/** The most warnings one `execute_code` result carries. */
export const MAX_AGGREGATED_WARNINGS = 20;

/** Collects the `_meta` of inner call results. */
export interface TelemetryAggregate {
  /** Reads the `_meta` of one inner call's result (success `structuredContent` or envelope). */
  add(result: CallToolResult): void;
  /** What was collected, as response meta to record in the `execute_code` call. */
  meta(): ResponseMeta;
}

/**
 * How much budget a `rate_limit` says is left: `remaining` over its rate per second (see
 * {@link ratePerSecond}: `limit_per_second`, else `limit / window_seconds`) when both are numbers,
 * else `remaining`; `Infinity` when `remaining` is not a number. Lower is more restrictive.
 */
export function headroom(rateLimit: RateLimitMeta): number {
  const { remaining } = rateLimit;
  if (typeof remaining !== 'number') return Number.POSITIVE_INFINITY;
  const rate = ratePerSecond(rateLimit);
  return rate === undefined ? remaining : remaining / rate;
}

function isRateLimit(value: unknown): value is RateLimitMeta {
  return isRecord(value) && Object.keys(value).length > 0;
}

function isWarning(value: unknown): value is EnvelopeWarning {
  return (
    isRecord(value) &&
    typeof value['kind'] === 'string' &&
    typeof value['summary'] === 'string' &&
    Array.isArray(value['details']) &&
    Array.isArray(value['hints'])
  );
}

/**
 * Creates an empty aggregate for one `execute_code` call.
 *
 * @returns the aggregate.
 */
export function createTelemetryAggregate(): TelemetryAggregate {
  let rateLimit: RateLimitMeta | undefined;
  let retryAfter: number | undefined;
  const warnings = new Map<string, EnvelopeWarning>();
  return {
    add: (result) => {
      const meta = isRecord(result.structuredContent) ? result.structuredContent['_meta'] : undefined;
      if (!isRecord(meta)) return;
      const limit = meta['rate_limit'];
      // ties go to the later call: its headroom is the more recent reading
      if (isRateLimit(limit) && (rateLimit === undefined || headroom(limit) <= headroom(rateLimit))) rateLimit = limit;
      const seconds = meta['retry_after_seconds'];
      if (typeof seconds === 'number' && seconds >= 0 && (retryAfter === undefined || seconds > retryAfter))
        retryAfter = seconds;
      const list = meta['warnings'];
      if (!Array.isArray(list)) return;
      for (const warning of list) {
        if (warnings.size >= MAX_AGGREGATED_WARNINGS) break;
        if (isWarning(warning)) warnings.set(JSON.stringify(warning), warning);
      }
    },
    meta: () => ({
      ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
      ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
      ...(warnings.size === 0 ? {} : { warnings: [...warnings.values()] }),
    }),
  };
}
