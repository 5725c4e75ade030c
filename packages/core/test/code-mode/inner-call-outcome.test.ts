import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { innerCallOutcome, recursionEnvelope } from '../../src/code-mode/inner-call.js';

const ENVELOPE = {
  error_kind: 'mcp_input_validation',
  tool: 'list_orders',
  summary: 'marketplaceIds is required.',
  details: [{ path: 'marketplaceIds', issue: 'required', received_type: 'undefined' }],
  hints: [],
  examples: [],
  error_code: 'SCHEMA_REQUIRED',
  retryable: false,
  _envelope_version: 1,
};

describe('innerCallOutcome', () => {
  it('gives a success its structuredContent, or its text parsed as JSON, or the text itself', () => {
    expect(innerCallOutcome({ content: [], structuredContent: { a: 1 } })).toEqual({ value: { a: 1 } });
    expect(innerCallOutcome({ content: [{ type: 'text', text: '[1,2]' }] })).toEqual({ value: [1, 2] });
    expect(innerCallOutcome({ content: [{ type: 'text', text: 'plain words' }] })).toEqual({ value: 'plain words' });
    expect(innerCallOutcome({ content: [] })).toEqual({ value: null });
  });

  it('returns the envelope of an error result as a value, from structuredContent or from the text', () => {
    expect(innerCallOutcome({ isError: true, content: [], structuredContent: ENVELOPE })).toEqual({ value: ENVELOPE });
    expect(
      innerCallOutcome({ isError: true, content: [{ type: 'text', text: `Error: ${JSON.stringify(ENVELOPE)}` }] }),
    ).toEqual({
      value: ENVELOPE,
    });
  });

  it('throws the text of an error result without a valid envelope', () => {
    expect(innerCallOutcome({ isError: true, content: [{ type: 'text', text: 'it broke' }] })).toEqual({
      throw: 'it broke',
    });
    expect(
      innerCallOutcome({ isError: true, content: [], structuredContent: { ...ENVELOPE, _envelope_version: '1' } }),
    ).toEqual({ throw: 'the tool failed without an error envelope' });
  });
});

describe('recursionEnvelope', () => {
  it('is a valid sandbox_runtime envelope naming the blocked capability', () => {
    const envelope = recursionEnvelope();
    expect(validateEnvelope(envelope).valid).toBe(true);
    expect(envelope).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      tool: 'execute_code',
      details: [{ path: 'name', reason: 'blocked_capability' }],
    });
  });
});
