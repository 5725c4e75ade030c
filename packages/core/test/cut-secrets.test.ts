/**
 * A long argument value is echoed cut (`received_value` at 200 characters, a hint's quote at 80).
 * A cut that lands inside a token leaves its head, which no redaction pattern recognizes any
 * more: a real SDK client must never read a piece of a token in either place.
 */
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../src/index.js';
import { useTestSession } from './fixtures/session.js';

const session = useTestSession();

const TOOLS: readonly EnvelopeTool[] = [
  {
    name: 'label_it',
    inputSchema: {
      type: 'object',
      properties: {
        label: { type: 'string', maxLength: 5 },
        kind: { enum: ['alpha', 'beta'] },
        title: { type: 'string', maxLength: 195 },
      },
    },
    handler: () => ({ ok: true }),
  },
];

// the test adapter redacts tok_ followed by 8 or more letters and digits
const TOKEN = 'tok_ABCDEFGHIJKLMNOP';

async function envelopeOf(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { client } = await session.start({}, TOOLS);
  const result = await client.callTool({ name: 'label_it', arguments: args });
  expect(result.isError).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

describe('a token cut by an echo of the value', () => {
  it('is not echoed in part in received_value', async () => {
    // 188 characters, then the token: the 199-character cut ends 7 characters into it
    const label = `${'x'.repeat(187)} ${TOKEN}`;
    const envelope = await envelopeOf({ label });
    const text = JSON.stringify(envelope);
    expect(text).not.toContain('tok_');
    expect(envelope['details']).toEqual([
      expect.objectContaining({
        path: 'label',
        received_value: `${'x'.repeat(187)} …`,
        received_truncated: true,
      }),
    ]);
  });

  it('is not quoted in part in a hint: the whole value is checked, and concealed', async () => {
    // 68 characters, then the token: the 79-character quote ends 7 characters into it
    const kind = `${'y'.repeat(67)} ${TOKEN}`;
    const envelope = await envelopeOf({ kind });
    const text = JSON.stringify(envelope);
    expect(text).not.toContain('tok_');
    expect(envelope['hints']).toEqual(['[REDACTED]… is not valid for kind. Valid: alpha, beta.']);
    expect(envelope['details']).toEqual([expect.objectContaining({ path: 'kind', received_value: '[REDACTED]' })]);
  });

  it('is not offered in part as did_you_mean, the value cut to maxLength', async () => {
    // 186 characters, then the token: the 195-character suggestion ends 5 characters into it
    const title = `${'x'.repeat(185)} ${TOKEN} and more`;
    const envelope = await envelopeOf({ title });
    expect(JSON.stringify(envelope)).not.toContain('tok_');
    expect(envelope['details']).toEqual([
      expect.objectContaining({ path: 'title', did_you_mean: `${'x'.repeat(185)} ` }),
    ]);
  });
});
