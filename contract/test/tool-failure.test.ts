/**
 * The ToolFailure mirror: concrete envelopes give the exact objects CONTRACT.md's table says, and
 * for every valid envelope the mirror is read from it (same code, retryable, correlation id) and
 * valid against the proposal's shape.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ERROR_KINDS,
  TOOL_FAILURE_CLASSES,
  TOOL_FAILURE_META_KEY,
  TOOL_FAILURE_SCHEMA,
  isEnvelopeV2,
  toV1Envelope,
  toolFailureClass,
  toolFailureOf,
} from '../src/index.js';
import type { ErrorEnvelope, ErrorKind } from '../src/index.js';
import { FULL_ENVELOPE, MINIMAL_ENVELOPE } from './envelope-fixtures.js';

/** 2026-12-07T12:00:00.000Z in epoch milliseconds. */
const NOW_MS = Date.UTC(2026, 11, 7, 12, 0, 0);

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
const validToolFailure = ajv.compile(TOOL_FAILURE_SCHEMA);

/** The six field names the proposal's `ToolFailure` interface declares. */
const PROPOSAL_FIELDS = ['class', 'code', 'retryable', 'retryNotBefore', 'correlationId', 'agentGuidance'];

describe('toolFailureOf on concrete envelopes', () => {
  it('mirrors a throttled call: reliability, the code and id as they are, retryNotBefore 1.5 s after now', () => {
    expect(toolFailureOf(FULL_ENVELOPE as ErrorEnvelope, NOW_MS)).toEqual({
      class: 'reliability',
      code: 'RATE_LIMITED',
      retryable: true,
      retryNotBefore: NOW_MS + 1500,
      correlationId: 'corr-5d0a9e',
      agentGuidance: 'Wait for retry_after_seconds, then send the same call again.',
    });
  });

  it('rounds a fractional wait up to the next millisecond, so a retry at that time is never early', () => {
    const envelope = { ...FULL_ENVELOPE, _meta: { correlation_id: 'c-1', retry_after_seconds: 0.0004 } };
    expect(toolFailureOf(envelope as ErrorEnvelope, NOW_MS)?.retryNotBefore).toBe(NOW_MS + 1);
  });

  it('caps a wait beyond any date at the last moment a Date holds, so the value stays a safe integer', () => {
    const envelope = { ...FULL_ENVELOPE, _meta: { correlation_id: 'c-3', retry_after_seconds: 1e299 } };
    const retryNotBefore = toolFailureOf(envelope, NOW_MS)?.retryNotBefore ?? 0;
    expect(retryNotBefore).toBe(8_640_000_000_000_000);
    expect(new Date(retryNotBefore).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('gives a validation failure class capability, retryable false and no retryNotBefore or guidance without hints', () => {
    const envelope = { ...MINIMAL_ENVELOPE, _meta: { correlation_id: 'c-2', retry_after_seconds: 5 } };
    expect(toolFailureOf(envelope as ErrorEnvelope, NOW_MS)).toEqual({
      class: 'capability',
      code: 'SCHEMA_REQUIRED',
      retryable: false,
      correlationId: 'c-2',
    });
  });

  it('has no mirror for an envelope without a correlation id, which the proposal requires', () => {
    expect(toolFailureOf(MINIMAL_ENVELOPE as ErrorEnvelope, NOW_MS)).toBeUndefined();
    const empty = { ...MINIMAL_ENVELOPE, _meta: { correlation_id: '' } };
    expect(toolFailureOf(empty as ErrorEnvelope, NOW_MS)).toBeUndefined();
  });

  it('maps each of the eight kinds to the class the CONTRACT.md table states', () => {
    const notRetryable = Object.fromEntries(
      ERROR_KINDS.map((kind) => [kind, toolFailureClass({ error_kind: kind, retryable: false })]),
    );
    expect(notRetryable).toEqual({
      mcp_input_validation: 'capability',
      tool_not_found: 'capability',
      upstream_http: 'capability',
      upstream_client: 'capability',
      auth_error: 'governance',
      rate_limited: 'capability',
      sandbox_runtime: 'capability',
      internal_error: 'capability',
    });
    for (const kind of ERROR_KINDS) expect(toolFailureClass({ error_kind: kind, retryable: true })).toBe('reliability');
  });

  it('names the key and the three classes as the proposal spells them', () => {
    expect(TOOL_FAILURE_META_KEY).toBe('io.modelcontextprotocol/toolFailure');
    expect(TOOL_FAILURE_CLASSES).toEqual(['capability', 'reliability', 'governance']);
  });
});

describe('TOOL_FAILURE_SCHEMA', () => {
  it('is a valid JSON Schema 2020-12 document whose classes are the three of TOOL_FAILURE_CLASSES', () => {
    expect(ajv.validateSchema(TOOL_FAILURE_SCHEMA)).toBe(true);
    expect(TOOL_FAILURE_SCHEMA.properties.class.enum).toEqual(TOOL_FAILURE_CLASSES);
  });

  it.each([
    ['no correlationId', { class: 'capability', code: 'X' }],
    ['an empty correlationId', { class: 'capability', code: 'X', correlationId: '' }],
    ['a class outside the three', { class: 'transient', code: 'X', correlationId: 'c' }],
    ['retryable true outside reliability', { class: 'governance', code: 'X', retryable: true, correlationId: 'c' }],
    [
      'a retryNotBefore that is a date string',
      { class: 'reliability', code: 'X', correlationId: 'c', retryNotBefore: '2026-12-07T12:00:00Z' },
    ],
  ])('refuses %s', (_label, value) => {
    expect(validToolFailure(value)).toBe(false);
  });
});

const KIND_OF_CODE: Readonly<Record<ErrorKind, readonly string[]>> = {
  mcp_input_validation: ['SCHEMA_REQUIRED', 'SCHEMA_TYPE_MISMATCH', 'INPUT_VALIDATION_FAILED'],
  tool_not_found: ['TOOL_NOT_FOUND'],
  upstream_http: ['UPSTREAM_HTTP_404', 'UPSTREAM_HTTP_503'],
  upstream_client: ['TOOL_EXECUTION_FAILED', 'BODY_COERCION_INVALID_JSON'],
  auth_error: ['UPSTREAM_HTTP_401', 'UPSTREAM_HTTP_403', 'AUTHENTICATION_ERROR'],
  rate_limited: ['UPSTREAM_HTTP_429', 'RATE_LIMITED', 'SERVER_BUSY'],
  sandbox_runtime: ['CODE_MODE_SANDBOX_LIMITATION'],
  internal_error: ['INTERNAL_ERROR'],
};

/** Valid v2 envelopes of every kind, with or without a wait, hints and a correlation id. */
function envelopeArbitrary(): fc.Arbitrary<ErrorEnvelope> {
  const head = fc
    .constantFrom(...ERROR_KINDS)
    .chain((kind) => fc.record({ error_kind: fc.constant(kind), error_code: fc.constantFrom(...KIND_OF_CODE[kind]) }));
  const meta = fc.record(
    {
      retry_after_seconds: fc.double({ min: 0, max: 86_400, noNaN: true }),
      correlation_id: fc.string({ minLength: 1, maxLength: 40 }),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      head,
      retryable: fc.boolean(),
      hints: fc.array(fc.string({ maxLength: 300 }), { maxLength: 10 }),
      meta: fc.option(meta, { nil: undefined }),
      upstream: fc.constantFrom('sp-api', 'ads-api', 'github'),
    })
    .map(({ head: { error_kind, error_code }, retryable, hints, meta: _meta, upstream }) => {
      const names =
        error_kind === 'upstream_http' || error_kind === 'upstream_client' || error_code.startsWith('UPSTREAM_HTTP_');
      return {
        ...MINIMAL_ENVELOPE,
        error_kind,
        error_code,
        retryable,
        hints,
        ...(names ? { upstream } : {}),
        ...(_meta === undefined ? {} : { _meta }),
      };
    })
    .filter(isEnvelopeV2);
}

describe('toolFailureOf for every valid envelope', () => {
  it('is read from the envelope, holds only the proposal fields, and is valid against the proposal shape', () => {
    fc.assert(
      fc.property(envelopeArbitrary(), fc.integer({ min: 0, max: 4_102_444_800_000 }), (envelope, now) => {
        const mirror = toolFailureOf(envelope, now);
        const correlationId = envelope._meta?.correlation_id;
        if (correlationId === undefined) {
          expect(mirror).toBeUndefined();
          return;
        }
        expect(mirror).toBeDefined();
        if (mirror === undefined) return;
        expect(validToolFailure(mirror)).toBe(true);
        expect(Object.keys(mirror).filter((key) => !PROPOSAL_FIELDS.includes(key))).toEqual([]);
        expect(mirror.code).toBe(envelope.error_code);
        expect(mirror.retryable).toBe(envelope.retryable);
        expect(mirror.correlationId).toBe(correlationId);
        expect(mirror.agentGuidance).toBe(envelope.hints[0]);
        expect(mirror.class === 'reliability').toBe(envelope.retryable);
        const wait = envelope._meta?.retry_after_seconds;
        expect(mirror.retryNotBefore).toBe(
          envelope.retryable && wait !== undefined ? Math.ceil(now + wait * 1000) : undefined,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('of the version 1 form keeps the class, retryable and id, with the code that form carries', () => {
    fc.assert(
      fc.property(envelopeArbitrary(), (envelope) => {
        const v1 = toV1Envelope(envelope);
        fc.pre(v1 !== undefined && envelope._meta?.correlation_id !== undefined);
        if (v1 === undefined) return;
        const [v2Mirror, v1Mirror] = [toolFailureOf(envelope, NOW_MS), toolFailureOf(v1, NOW_MS)];
        expect(v1Mirror).toEqual({ ...v2Mirror, code: v1.error_code });
        expect(validToolFailure(v1Mirror)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
