/**
 * The correction keys of `SCHEMA_*` details: the value received (bounded), what was expected, and
 * the nearest valid value; the summary's closing instruction; and no secret echoed on the wire.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../../src/index.js';
import { useTestSession } from '../fixtures/session.js';
import { failed, tool } from './fixtures.js';

const FORM = tool({
  type: 'object',
  properties: {
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    id: { type: 'string', pattern: '^[a-zA-Z0-9-]{4,8}$' },
    code: { type: 'string', pattern: '^[A-Z]{2}-\\d+$', examples: ['lowercase', 'AB-12'] },
    quantity: { type: 'integer', minimum: 10, maximum: 100, multipleOf: 25 },
    ratio: { type: 'number', exclusiveMaximum: 1 },
    count: { type: 'integer', exclusiveMinimum: 0 },
    flag: { type: 'boolean' },
    body: { type: 'object' },
    note: { type: 'string' },
    kind: { type: 'string', enum: ['Marketplace'] },
    region: { type: 'string', enum: ['na', 'eu', 'fe'] },
    list: { type: 'array', items: { type: 'integer' }, maxItems: 2 },
    pageSize: { type: 'integer', default: 10 },
  },
});

/** The first detail of a failed check of `args` against {@link FORM}. */
function detailOf(args: Record<string, unknown>): Record<string, unknown> {
  return failed(FORM.check(args)).details[0] as Record<string, unknown>;
}

describe('did_you_mean', () => {
  it('writes a date or a spaced date-time as an RFC 3339 date-time, and a date-time as a date', () => {
    expect(detailOf({ when: '2025-03-01' })['did_you_mean']).toBe('2025-03-01T00:00:00Z');
    expect(detailOf({ when: '2025-03-01 10:30' })['did_you_mean']).toBe('2025-03-01T10:30:00Z');
    expect(detailOf({ when: '2025-03-01T10:30:00+02:00 ' })['did_you_mean']).toBe('2025-03-01T10:30:00+02:00');
    expect(detailOf({ day: '2025-03-01T10:30:00Z' })['did_you_mean']).toBe('2025-03-01');
    // no single reading: month and day could be either way round
    expect(detailOf({ when: '03/01/2025' })).not.toHaveProperty('did_you_mean');
  });

  it('changes the case or drops the characters a one-class pattern refuses, else offers the first schema example that matches', () => {
    expect(detailOf({ id: 'ab_c d' })['did_you_mean']).toBe('abcd');
    // stripping would leave too short a value: no suggestion
    expect(detailOf({ id: 'a_b' })).not.toHaveProperty('did_you_mean');
    expect(detailOf({ code: 'ab12' })['did_you_mean']).toBe('AB-12');
    expect(detailOf({ code: 'ab-12' })['did_you_mean']).toBe('AB-12');
    expect(detailOf({ code: 'x-12' })['did_you_mean']).toBe('AB-12');
  });

  it('takes the nearest multiple inside the bounds, and the bound itself (exclusive bounds on integers step inside)', () => {
    expect(detailOf({ quantity: 60 })['did_you_mean']).toBe(50);
    expect(detailOf({ quantity: 12 })['did_you_mean']).toBe(25);
    expect(detailOf({ quantity: 500 })).toMatchObject({ limit: 100, did_you_mean: 100 });
    expect(detailOf({ count: 0 })).toMatchObject({ limit: 0, exclusive: true, did_you_mean: 1 });
    // a number below an exclusive bound has no nearest value
    expect(detailOf({ ratio: 1 })).not.toHaveProperty('did_you_mean');
  });

  it('converts a type only where one reading exists', () => {
    expect(detailOf({ quantity: '50' })['did_you_mean']).toBe(50);
    expect(detailOf({ quantity: '50.5' })).not.toHaveProperty('did_you_mean');
    expect(detailOf({ flag: 'TRUE' })['did_you_mean']).toBe(true);
    expect(detailOf({ body: '{"a":1}' })['did_you_mean']).toEqual({ a: 1 });
    expect(detailOf({ note: 7 })['did_you_mean']).toBe('7');
    expect(detailOf({ note: null })).not.toHaveProperty('did_you_mean');
  });

  it('offers a too short value only what the schema gives: its default or first example long enough', () => {
    const short = tool({
      type: 'object',
      properties: {
        statuses: { type: 'array', minItems: 1, items: { enum: ['DONE', 'FATAL'] }, default: ['DONE'] },
        planId: { type: 'string', minLength: 6, examples: ['wf1', 'wf1a2b3c'] },
        sellerId: { type: 'string', minLength: 6 },
        markets: { type: 'array', minItems: 1, items: { enum: ['na', 'eu'] } },
      },
    });
    const detail = (args: Record<string, unknown>) => failed(short.check(args)).details[0];
    expect(detail({ statuses: [] })).toMatchObject({ limit: 1, actual: 0, did_you_mean: ['DONE'] });
    expect(detail({ planId: 'wf' })).toMatchObject({ limit: 6, actual: 2, did_you_mean: 'wf1a2b3c' });
    // no default, no example: the missing content is the caller's (an item enum is no choice made)
    expect(detail({ sellerId: 'A1' })).not.toHaveProperty('did_you_mean');
    expect(detail({ markets: [] })).not.toHaveProperty('did_you_mean');
  });

  it('names the allowed value equal but for case, the closest one, or the only one', () => {
    expect(detailOf({ region: 'EU' })['did_you_mean']).toBe('eu');
    expect(detailOf({ region: 'nax' })['did_you_mean']).toBe('na');
    expect(detailOf({ region: 'somewhere' })).not.toHaveProperty('did_you_mean');
    expect(detailOf({ kind: 'marketplaces' })['did_you_mean']).toBe('Marketplace');
  });

  it('offers a missing field only the value its schema gives (a default, a single allowed value)', () => {
    const required = tool({
      type: 'object',
      required: ['kind', 'pageSize', 'note'],
      properties: FORM.publishedInputSchema['properties'],
    });
    const details = failed(required.check({})).details;
    expect(details.map((detail) => [detail.path, detail['did_you_mean'], detail['expected']])).toEqual([
      ['note', undefined, 'a value of type string'],
      ['kind', 'Marketplace', 'a value of type string'],
      ['pageSize', 10, 'a value of type integer'],
    ]);
  });
});

describe('received_value', () => {
  it('cuts a string to 200 characters, leaves out a structure over 200 characters of JSON (not its short fix), and never echoes a lone surrogate', () => {
    const long = detailOf({ note: 5, region: 'x'.repeat(500) });
    expect(long['received_value']).toBe(5);
    const cut = failed(FORM.check({ region: 'x '.repeat(250) })).details[0] as Record<string, unknown>;
    expect(cut['received_value']).toBe(`${'x '.repeat(99)}x…`);
    expect(cut['received_truncated']).toBe(true);
    // a cut that lands inside a word drops the word: its head may be a token's, which no pattern redacts
    const inWord = failed(FORM.check({ region: 'ab '.repeat(200) })).details[0] as Record<string, unknown>;
    expect(inWord['received_value']).toBe(`${'ab '.repeat(66)}…`);
    const oneWord = failed(FORM.check({ region: 'x'.repeat(500) })).details[0] as Record<string, unknown>;
    expect(oneWord['received_value']).toBe('…');
    const big = detailOf({ list: Array.from({ length: 100 }, (_, index) => index) });
    expect(big).not.toHaveProperty('received_value');
    // the first items still make a short value
    expect(big['did_you_mean']).toEqual([0, 1]);
    expect(big['expected']).toBe('at most 2 items');
    expect(detailOf({ list: [1, 2, 3] })).toMatchObject({ received_value: [1, 2, 3], did_you_mean: [1, 2] });
    expect(detailOf({ note: 'a\ud800b' })).not.toHaveProperty('received_value');
  });

  it('is the value as JSON carries it: a -0 inside reads 0 in both channels, and the arguments are not shared', () => {
    const list = [-0, 2, 3];
    const detail = detailOf({ list });
    // the text channel is JSON, which has no -0: structured content must say the same
    expect(detail['received_value']).toEqual([0, 2, 3]);
    expect(detail['received_value']).not.toBe(list);
  });
});

describe('the summary', () => {
  it('ends with one instruction naming the fields to correct', () => {
    expect(failed(FORM.check({ note: 1 })).summary).toBe(
      'note should be string, not integer. Correct note and call again.',
    );
    expect(failed(FORM.check({ note: 1, flag: 'x', region: 'x' })).summary).toBe(
      'flag should be boolean, not string. (and 2 more) Correct flag, note and region, then call again.',
    );
    expect(failed(FORM.check({ note: 1, flag: 'x', region: 'x', list: {} })).summary).toBe(
      'flag should be boolean, not string. (and 3 more) Correct flag, note, list and the other fields in details, then call again.',
    );
  });
});

const session = useTestSession();

const LOGIN_TOOL: EnvelopeTool = {
  name: 'login',
  inputSchema: {
    type: 'object',
    properties: {
      password: { type: 'string', minLength: 30 },
      limit: { type: 'integer' },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      tokens: { type: 'array', items: { type: 'string' }, maxItems: 1 },
    },
  },
  handler: () => ({ ok: true }),
};

describe('secrets on the wire', () => {
  it('replaces a received value the redactor takes for a secret, drops a did_you_mean made from it, and quotes it in no hint', async () => {
    const { client } = await session.start({}, [LOGIN_TOOL]);
    const result = await client.callTool({
      name: 'login',
      arguments: { password: 'hunter2-hunter2', limit: 'Bearer abc.def.ghi', mode: 'Bearer faster-token' },
    });
    const envelope = result.structuredContent as Record<string, unknown>;
    expect(validateEnvelope(envelope).valid).toBe(true);
    expect(envelope['details']).toEqual([
      {
        path: 'limit',
        issue: 'limit should be integer, not string.',
        received_type: 'string',
        field: 'limit',
        expected_type: 'integer',
        received_value: '[REDACTED]',
        expected: 'a value of type integer',
      },
      {
        path: 'mode',
        issue: 'mode is not one of the allowed values.',
        received_type: 'string',
        field: 'mode',
        allowed: ['fast', 'slow'],
        received_value: '[REDACTED]',
        expected: 'one of: fast, slow',
      },
      {
        path: 'password',
        issue: 'password is 15 characters long; at least 30 are needed.',
        received_type: 'string',
        field: 'password',
        limit: 30,
        actual: 15,
        received_value: '[REDACTED]',
        expected: 'at least 30 characters',
      },
    ]);
    const wire = JSON.stringify(result);
    for (const secret of ['hunter2', 'abc.def.ghi', 'faster-token']) expect(wire).not.toContain(secret);
  });

  it('drops a did_you_mean that is a secret although the value sent was too large to echo', async () => {
    const { client } = await session.start({}, [LOGIN_TOOL]);
    const tokens = Array.from({ length: 12 }, (_, index) => `Bearer tok-${String(index).padStart(12, '0')}`);
    const result = await client.callTool({ name: 'login', arguments: { tokens } });
    const details = (result.structuredContent as { details: Record<string, unknown>[] }).details;
    expect(details).toEqual([
      {
        path: 'tokens',
        issue: 'tokens holds 12 items; at most 1 are allowed.',
        received_type: 'array',
        field: 'tokens',
        limit: 1,
        actual: 12,
        expected: 'at most 1 item',
      },
    ]);
    expect(JSON.stringify(result)).not.toContain('tok-0');
  });
});
