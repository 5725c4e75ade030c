import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FirstInOrder } from '../../src/arguments/first-in-order.js';
import { compileTool } from '../../src/arguments/index.js';

describe('FirstInOrder', () => {
  it('keeps exactly what sorting everything and cutting would keep, ties in offer order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 40 }),
        (values, limit) => {
          const entries = values.map((value, offer) => ({ value, offer }));
          const selection = new FirstInOrder<(typeof entries)[number]>(
            limit,
            (left, right) => left.value - right.value,
          );
          for (const entry of entries) selection.offer(entry);
          const expected = [...entries].sort((left, right) => left.value - right.value).slice(0, limit);
          expect(selection.entries()).toEqual(expected);
          expect(selection.dropped).toBe(entries.length - expected.length);
        },
      ),
    );
  });
});

describe('a huge invalid argument', () => {
  const schema = {
    type: 'object',
    properties: {
      first: { type: 'string' },
      ids: { type: 'array', items: { type: 'integer' } },
      tags: { type: 'array', items: { type: 'string', maxLength: 1 } },
    },
    required: ['first'],
  };

  it('reports the first 200 violations in VIOLATION_ORDER and counts the rest', () => {
    const tool = compileTool('huge', schema, { normalizationEnabled: true, strictUnknownFields: true });
    // items come in reverse order of their paths' ranks, so the kept ones are not simply the first offered
    const args = {
      tags: Array.from({ length: 50_000 }, () => 'too long'),
      ids: Array.from({ length: 50_000 }, () => 'x'),
    };
    const outcome = tool.check(args);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error_code).toBe('SCHEMA_REQUIRED');
    expect(outcome.details).toHaveLength(200);
    expect(outcome.details.slice(0, 3).map((detail) => detail.path)).toEqual(['first', 'ids/0', 'ids/1']);
    expect(outcome.details.at(-1)?.path).toBe('ids/198');
    expect(outcome.omittedDetails).toBe(100_001 - 200);
    expect(outcome.summary).toBe(
      `${outcome.details[0]?.issue ?? ''} (and 100000 more) Correct first, ids/0, ids/1 and the other fields in details, then call again.`,
    );
  });
});
