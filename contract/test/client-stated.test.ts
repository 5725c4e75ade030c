/**
 * A result that states the contract (`_meta["io.github.mcp-envelope/envelope"].contract_version`)
 * is read by `isError` alone: data shaped like a refusal stays data, as the server decided.
 */
import { describe, expect, it } from 'vitest';

import { ENVELOPE_EXTENSION_ID, statesContract, unwrapToolResult } from '../src/index.js';

const STATED = { [ENVELOPE_EXTENSION_ID]: { contract_version: 2 } };
const REFUSAL = { error: { code: 'NotFound', message: 'No such widget.' } };
const ENVELOPE = {
  error_kind: 'upstream_http',
  tool: 'get_widget',
  summary: 'HTTP 404',
  details: [],
  hints: [],
  examples: [],
  error_code: 'UPSTREAM_HTTP_404',
  retryable: false,
  _envelope_version: 2,
};

function result(structuredContent: unknown, meta?: Record<string, unknown>): Record<string, unknown> {
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

describe('statesContract', () => {
  it.each([
    [{ _meta: STATED }, true],
    [{ _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: 1 } } }, true],
    [{ _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: 0 } } }, false],
    [{ _meta: { [ENVELOPE_EXTENSION_ID]: { contract_version: '2' } } }, false],
    [{ _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } } }, false],
    [{ _meta: {} }, false],
    [{ structuredContent: { _meta: STATED } }, false],
    [null, false],
  ])('%j -> %s', (value, expected) => {
    expect(statesContract(value)).toBe(expected);
  });
});

describe('unwrapToolResult of a stated result', () => {
  it.each([
    ['a refusal-shaped { error }', REFUSAL],
    ['an envelope-shaped object', ENVELOPE],
    ['{ error: envelope }', { error: ENVELOPE }],
  ])('reads %s without isError as data', (_, data) => {
    expect(unwrapToolResult(result(data, STATED))).toEqual({ ok: true, value: data });
  });

  it('reads text that holds envelope JSON without isError as data', () => {
    const text = JSON.stringify(ENVELOPE);
    expect(unwrapToolResult({ content: [{ type: 'text', text }], _meta: STATED })).toEqual({ ok: true, value: text });
  });

  it('still reads an isError result as the failure', () => {
    expect(unwrapToolResult({ ...result(ENVELOPE, STATED), isError: true })).toEqual({
      ok: false,
      envelope: ENVELOPE,
      channel: 'is_error',
    });
  });

  it('reads the same data without the statement by the in-band rules, as from a server that predates it', () => {
    expect(unwrapToolResult(result(REFUSAL))).toMatchObject({ ok: false, channel: 'in_band', error: REFUSAL.error });
    expect(unwrapToolResult(result(ENVELOPE))).toEqual({ ok: false, envelope: ENVELOPE, channel: 'in_band' });
  });
});
