import { describe, expect, it } from 'vitest';

import { compileTool } from '../../src/arguments/index.js';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, amount: { type: 'number' }, anything: {} },
  required: ['name'],
};

function check(args: unknown): ReturnType<ReturnType<typeof compileTool>['check']> {
  return compileTool('t', schema, { normalizationEnabled: true, strictUnknownFields: false }).check(args);
}

describe('values that cannot be sent on', () => {
  it('rejects non-finite numbers wherever they are, typed or not', () => {
    const outcome = check({ name: 'n', amount: Number.NEGATIVE_INFINITY, anything: { deep: [1, Number.NaN] } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error_code).toBe('SCHEMA_TYPE_MISMATCH');
    expect(outcome.details).toEqual([
      {
        path: 'amount',
        field: 'amount',
        issue: 'amount should be a finite number, not -Infinity.',
        received_type: '-Infinity',
        expected_type: 'number',
        expected: 'a finite number',
      },
      {
        path: 'anything/deep/1',
        field: 'anything/deep/1',
        issue: 'anything/deep/1 should be a finite number, not NaN.',
        received_type: 'NaN',
        expected_type: 'number',
        expected: 'a finite number',
      },
    ]);
    expect(outcome.hints).toContain('Send amount as a finite number.');
  });

  it('rejects lone surrogates in values and in keys, and keeps well-formed pairs', () => {
    expect(check({ name: 'emoji \u{1F600}', anything: { '\u{1F600}': 'ok' } }).ok).toBe(true);
    const outcome = check({ name: 'x\udfff', anything: { 'key\ud83d': 1 } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error_code).toBe('SCHEMA_FORMAT_INVALID');
    expect(outcome.details.map((detail) => [detail.path, detail['format']])).toEqual([
      ['name', 'unicode'],
      ['anything/key\ud83d', 'unicode'],
    ]);
  });

  it('merges with the schema violations in VIOLATION_ORDER: a missing required field still comes first', () => {
    const outcome = check({ amount: Number.POSITIVE_INFINITY });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.details.map((detail) => detail.path)).toEqual(['name', 'amount']);
    expect(outcome.error_code).toBe('SCHEMA_REQUIRED');
  });

  it('walks circular and deeply nested values without a stack overflow', () => {
    const circular: Record<string, unknown> = { level: 1 };
    circular['self'] = circular;
    expect(check({ name: 'n', anything: circular }).ok).toBe(true);
    let deep: unknown = Number.POSITIVE_INFINITY;
    for (let level = 0; level < 20_000; level += 1) deep = [deep];
    const outcome = check({ name: 'n', anything: deep });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    // the detail's path is capped like every detail string; its start names the place
    expect(outcome.details[0]?.path.startsWith('anything/0/0/0/0')).toBe(true);
    expect(outcome.error_code).toBe('SCHEMA_TYPE_MISMATCH');
  });
});
