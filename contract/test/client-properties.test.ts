/**
 * Property tests for the client helpers: whatever a server (or a broken proxy) sends, unwrapping
 * never throws and always yields one of the three documented outcomes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ToolCallError,
  callWithEnvelope,
  isReceivedEnvelope,
  parseEnvelopeText,
  unwrapToolResult,
} from '../src/index.js';
import type { UnwrappedToolResult } from '../src/index.js';
import { FULL_ENVELOPE, MAX_ITEMS_ENVELOPE, MINIMAL_ENVELOPE, TOOL_NOT_FOUND_ENVELOPE } from './envelope-fixtures.js';

const RUNS = 400;

/** Checks that an outcome has exactly one of the three documented shapes. */
function expectWellFormed(outcome: UnwrappedToolResult): void {
  if (outcome.ok) {
    expect(Object.keys(outcome).sort()).toEqual(['ok', 'value']);
    return;
  }
  expect(['is_error', 'in_band']).toContain(outcome.channel);
  if ('envelope' in outcome) {
    expect(isReceivedEnvelope(outcome.envelope)).toBe(true);
  } else {
    expect(typeof outcome.text).toBe('string');
  }
}

const envelopeArbitrary = fc.constantFrom<object>(
  MINIMAL_ENVELOPE,
  FULL_ENVELOPE,
  MAX_ITEMS_ENVELOPE,
  TOOL_NOT_FOUND_ENVELOPE,
);

const anythingArbitrary = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const textBlockArbitrary = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  envelopeArbitrary.map((envelope) => ({ type: 'text', text: JSON.stringify(envelope) })),
  fc
    .tuple(
      fc.constantFrom('', 'ToolError: ', 'MCP error -32602: ', 'ToolError: MCP error -32602: ', 'Error: ', 'junk '),
      envelopeArbitrary,
    )
    .map(([prefix, envelope]) => ({ type: 'text', text: `${prefix}${JSON.stringify(envelope)}` })),
);

const contentArbitrary = fc.oneof(
  fc.array(
    fc.oneof(
      textBlockArbitrary,
      fc.record({ type: fc.constant('image'), data: fc.base64String(), mimeType: fc.constant('image/png') }),
      anythingArbitrary,
    ),
    {
      maxLength: 4,
    },
  ),
  anythingArbitrary,
);

const structuredArbitrary = fc.oneof(
  envelopeArbitrary,
  envelopeArbitrary.map((envelope) => ({ error: envelope })),
  fc.record({ error: anythingArbitrary }),
  fc.jsonValue(),
  anythingArbitrary,
);

const toolResultArbitrary = fc.record(
  {
    isError: fc.oneof(fc.boolean(), anythingArbitrary),
    content: contentArbitrary,
    structuredContent: structuredArbitrary,
    _meta: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('unwrapToolResult properties', () => {
  it('never throws for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expectWellFormed(unwrapToolResult(value));
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws for any JavaScript value (BigInt, Map, null-prototype objects, ...)', () => {
    fc.assert(
      fc.property(anythingArbitrary, (value) => {
        expectWellFormed(unwrapToolResult(value));
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws for objects built from isError / content / structuredContent keys', () => {
    fc.assert(
      fc.property(toolResultArbitrary, (result) => {
        expectWellFormed(unwrapToolResult(result));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('finds an isError envelope in structuredContent whatever the content holds', () => {
    fc.assert(
      fc.property(envelopeArbitrary, contentArbitrary, (envelope, content) => {
        expect(unwrapToolResult({ isError: true, structuredContent: envelope, content })).toEqual({
          ok: false,
          envelope,
          channel: 'is_error',
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('finds an isError envelope in the text behind any stack of known prefixes', () => {
    const prefixes = fc.array(fc.constantFrom('ToolError: ', 'MCP error -32602: ', 'MCP error -32603: ', 'Error: '), {
      maxLength: 3,
    });
    fc.assert(
      fc.property(envelopeArbitrary, prefixes, fc.constantFrom('', ' ', '\n'), (envelope, stack, padding) => {
        const wire = `${padding}${stack.join('')}${JSON.stringify(envelope)}${padding}`;
        expect(parseEnvelopeText(wire)).toEqual(envelope);
        expect(unwrapToolResult({ isError: true, content: [{ type: 'text', text: wire }] })).toEqual({
          ok: false,
          envelope,
          channel: 'is_error',
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('finds an envelope behind any prefix without a brace and before any suffix', () => {
    const prefix = fc.string({ maxLength: 200 }).filter((text) => !text.includes('{'));
    fc.assert(
      fc.property(envelopeArbitrary, prefix, fc.string({ maxLength: 200 }), (envelope, before, after) => {
        expect(parseEnvelopeText(`${before}${JSON.stringify(envelope)}${after}`)).toEqual(envelope);
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws and never finds an envelope in text without one', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 500, unit: fc.constantFrom('{', '}', '"', '\\', ':', ',', 'a', ' ', '1', '[', ']') }),
        (text) => {
          expect(parseEnvelopeText(text)).toBe(undefined);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('returns any non-envelope structuredContent of a success unchanged', () => {
    const successValue = fc
      .jsonValue()
      .filter(
        (value) =>
          !isReceivedEnvelope(value) &&
          !(typeof value === 'object' && value !== null && !Array.isArray(value) && 'error' in value),
      );
    fc.assert(
      fc.property(successValue, (value) => {
        const outcome = unwrapToolResult({ content: [], structuredContent: value });
        expect(outcome).toEqual({ ok: true, value });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('callWithEnvelope properties', () => {
  it('for any resolved result, either resolves or rejects with a ToolCallError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(toolResultArbitrary, anythingArbitrary), async (result) => {
        const client = { callTool: () => Promise.resolve(result) };
        const outcome = await callWithEnvelope(client, 'any_tool').then(
          (pair) => ({ pair }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          expect(ToolCallError.isInstance(outcome.error)).toBe(true);
        } else {
          const [value, envelope] = outcome.pair;
          expect(value === null || envelope === null).toBe(true);
          if (envelope !== null) expect(isReceivedEnvelope(envelope)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
