/**
 * `toolError` and `partialSuccess` on their own: what they build, what their types refuse (the
 * `@ts-expect-error` lines fail the type check when a type stops refusing), and the checks
 * `build()` runs for callers without the types. Over the wire: busy-wire.test.ts.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';

import { EnvelopeError, partialSuccess, toolError } from '../src/index.js';
import type { CodeFor } from '../src/index.js';

describe('toolError', () => {
  it('builds the envelope of a domain failure, step by step', () => {
    const error = toolError('upstream_http')
      .code('UPSTREAM_HTTP_409')
      .summary('The order changed meanwhile.')
      .detail({ path: 'orderId', issue: 'the order was updated by another call', received_type: 'string' })
      .detail({ issue: 'no detail path given' })
      .hint('Read the order again, then retry.')
      .example({ orderId: '123-456' })
      .upstream('sp-api')
      .build();
    expect(EnvelopeError.isInstance(error)).toBe(true);
    expect(error.hasTool).toBe(false);
    expect(error.toEnvelope()).toEqual({
      error_kind: 'upstream_http',
      tool: 'unknown_tool',
      summary: 'The order changed meanwhile.',
      details: [
        { path: 'orderId', issue: 'the order was updated by another call', received_type: 'string' },
        { path: '', issue: 'no detail path given', received_type: 'object' },
      ],
      hints: ['Read the order again, then retry.'],
      examples: [{ orderId: '123-456' }],
      error_code: 'UPSTREAM_HTTP_409',
      retryable: false,
      _envelope_version: 2,
      upstream: 'sp-api',
    });
  });

  it('defaults the code of a kind that has a canonical one, and retryAfter makes it retryable', () => {
    expect(toolError('rate_limited').summary('Quota spent.').retryAfter(2.5).build().toEnvelope()).toMatchObject({
      error_code: 'RATE_LIMITED',
      retryable: true,
      _meta: { retry_after_seconds: 2.5 },
    });
    expect(toolError('upstream_client').summary('x').build().envelope.error_code).toBe('TOOL_EXECUTION_FAILED');
    expect(toolError('auth_error').summary('x').retryable(true).build().envelope).toMatchObject({
      error_code: 'AUTHENTICATION_ERROR',
      retryable: true,
    });
  });

  it('each step returns a new builder, so a shared start stays unchanged', () => {
    const conflict = toolError('upstream_http').code('UPSTREAM_HTTP_409');
    const one = conflict.summary('one').hint('a').build();
    const two = conflict.summary('two').build();
    expect([one.envelope.summary, one.envelope.hints, two.envelope.summary, two.envelope.hints]).toEqual([
      'one',
      ['a'],
      'two',
      [],
    ]);
  });

  it('its types refuse a code the contract pairs with another kind, and a reserved code', () => {
    expectTypeOf<CodeFor<'rate_limited', 'SERVER_BUSY'>>().toEqualTypeOf<'SERVER_BUSY'>();
    expectTypeOf<CodeFor<'upstream_http', 'RATE_LIMITED'>>().toBeNever();
    expectTypeOf<CodeFor<'upstream_client', 'SCHEMA_REQUIRED'>>().toBeNever();
    expectTypeOf<CodeFor<'upstream_http', 'ORDER_LOCKED'>>().toEqualTypeOf<'ORDER_LOCKED'>();
    const start = toolError('upstream_http');
    // @ts-expect-error -- RATE_LIMITED goes with rate_limited
    expect(() => start.code('RATE_LIMITED').summary('x').build()).toThrow(
      'toolError: error_code RATE_LIMITED goes with rate_limited, not upstream_http',
    );
    // @ts-expect-error -- SCHEMA_* codes go with mcp_input_validation
    expect(() => start.code('SCHEMA_REQUIRED').summary('x').build()).toThrow(
      'toolError: error_code SCHEMA_REQUIRED goes with mcp_input_validation, not upstream_http',
    );
    // @ts-expect-error -- reserved codes are emitted by no server
    expect(() => toolError('auth_error').code('OAUTH_ERROR').summary('x').build()).toThrow(
      'toolError: error_code OAUTH_ERROR is reserved',
    );
  });

  it.each([
    [
      () => toolError('upstream_http').summary('x').build(),
      "toolError('upstream_http') needs a code (e.g. UPSTREAM_HTTP_409)",
    ],
    [() => toolError('internal_error').build(), "toolError('internal_error') needs a summary"],
    [
      () => toolError('upstream_http').code('Conflict').summary('x').build(),
      'toolError: error_code "Conflict" is not UPPER_SNAKE_CASE',
    ],
    [
      () => toolError('upstream_http').code('UPSTREAM_HTTP_409').summary('x').upstream('Sp API').build(),
      'toolError: the envelope breaks the contract at /upstream:',
    ],
    [() => toolError('rate_limited').retryAfter(-1), 'toolError: retryAfter needs a number of seconds ≥ 0, got -1'],
    [
      () => toolError('sp_api_http' as 'upstream_http'),
      'toolError: "sp_api_http" is not an error_kind of contract version 2',
    ],
  ])('build() refuses what the types cannot see: %#', (make, message) => {
    expect(make).toThrow(message);
  });
});

describe('partialSuccess', () => {
  it('without a total, the summary counts the failures alone; a failure keeps its own keys', () => {
    const value = partialSuccess({ ok: 1 }, [{ path: 'ids/2', issue: 'no such id', id: 'B07' }]);
    expect(value).toEqual({
      data: { ok: 1 },
      warning: {
        kind: 'partial_results',
        summary: '1 item failed; the others succeeded and are in the result.',
        details: [{ received_type: 'object', path: 'ids/2', issue: 'no such id', id: 'B07' }],
        hints: [
          'Keep the items that succeeded; send again only the failed ones (details[].path), those with retryable: true first.',
        ],
      },
    });
    expect(partialSuccess({}, [{ path: '', issue: 'x' }], { summary: 'S', hints: ['H'] }).warning).toMatchObject({
      summary: 'S',
      hints: ['H'],
    });
  });

  it('no failure: no warning', () => {
    expect(partialSuccess({ all: true }, [])).toEqual({ data: { all: true }, warning: undefined });
  });

  it('refuses data that cannot carry _meta and a total below the failures', () => {
    expect(() => partialSuccess([1] as unknown as Record<string, unknown>, [])).toThrow(
      'partialSuccess needs a JSON object as data: only an object result carries _meta',
    );
    expect(() =>
      partialSuccess(
        {},
        [
          { path: 'a', issue: 'x' },
          { path: 'b', issue: 'y' },
        ],
        { total: 1 },
      ),
    ).toThrow('partialSuccess: total (1) must be an integer of at least the 2 failures');
  });
});
