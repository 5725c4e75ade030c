import { validateMeta } from '@mcp-envelope/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';

import { createTelemetryAggregate, headroom, MAX_AGGREGATED_WARNINGS } from '../../src/code-mode/telemetry.js';

function success(meta: Record<string, unknown> | undefined): CallToolResult {
  return { content: [], structuredContent: meta === undefined ? { ok: 1 } : { ok: 1, _meta: meta } };
}

function warning(summary: string): Record<string, unknown> {
  return { kind: 'upstream_warning', summary, details: [], hints: [] };
}

describe('createTelemetryAggregate', () => {
  it('keeps the most restrictive rate_limit, the largest retry_after_seconds and every distinct warning', () => {
    const aggregate = createTelemetryAggregate();
    aggregate.add(success({ rate_limit: { limit_per_second: 10, remaining: 5 }, warnings: [warning('a')] }));
    aggregate.add(success({ rate_limit: { limit_per_second: 0.5, remaining: 1 }, retry_after_seconds: 2 }));
    aggregate.add(success({ rate_limit: { limit_per_second: 1, remaining: 3 }, retry_after_seconds: 0.5 }));
    aggregate.add(success({ warnings: [warning('a'), warning('b')] }));
    aggregate.add(success(undefined));
    const meta = aggregate.meta();
    expect(meta).toEqual({
      rate_limit: { limit_per_second: 10, remaining: 5 },
      retry_after_seconds: 2,
      warnings: [warning('a'), warning('b')],
    });
    expect(validateMeta(meta).valid).toBe(true);
  });

  it('reads the _meta of an error envelope too, and prefers a numeric remaining over none', () => {
    const aggregate = createTelemetryAggregate();
    aggregate.add(success({ rate_limit: { reset_at: 'soon' } }));
    aggregate.add({
      isError: true,
      content: [],
      structuredContent: {
        error_kind: 'rate_limited',
        _meta: { rate_limit: { remaining: 0 }, retry_after_seconds: 7 },
      },
    });
    expect(aggregate.meta()).toEqual({ rate_limit: { remaining: 0 }, retry_after_seconds: 7 });
  });

  it('bounds the warnings and is empty when no call carried telemetry', () => {
    const aggregate = createTelemetryAggregate();
    expect(aggregate.meta()).toEqual({});
    for (let index = 0; index < MAX_AGGREGATED_WARNINGS + 5; index += 1)
      aggregate.add(success({ warnings: [warning(`w${index}`)] }));
    expect(aggregate.meta().warnings).toHaveLength(MAX_AGGREGATED_WARNINGS);
  });
});

describe('headroom', () => {
  it('is remaining per limit when both are numbers, remaining alone otherwise, Infinity without a number', () => {
    expect(headroom({ limit_per_second: 2, remaining: 1 })).toBe(0.5);
    expect(headroom({ remaining: 3 })).toBe(3);
    expect(headroom({ remaining: 'many', limit_per_second: 1 })).toBe(Number.POSITIVE_INFINITY);
  });
});
