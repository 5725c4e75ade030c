import fc from 'fast-check';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import { classifyCallError, classifyToolResult, DeadlineError, withDeadline } from '../src/call-outcome.js';
import { checkCapability, kindAdvertisementIssue } from '../src/capability-check.js';
import { judgeExpectedFailure } from '../src/probe-evaluate.js';

const envelope = {
  error_kind: 'tool_not_found',
  tool: 'orders_serch',
  summary: 'No tool named orders_serch.',
  details: [],
  hints: ['Did you mean orders_search?'],
  examples: [],
  error_code: 'TOOL_NOT_FOUND',
  retryable: false,
  _envelope_version: 1,
};

describe('classifyToolResult', () => {
  it('finds an envelope on the isError channels and in-band', () => {
    expect(classifyToolResult({ isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] })).toEqual({
      type: 'envelope',
      envelope,
      channel: 'is_error',
    });
    const inBand = { error: envelope };
    expect(
      classifyToolResult({ structuredContent: inBand, content: [{ type: 'text', text: JSON.stringify(inBand) }] }),
    ).toEqual({ type: 'envelope', envelope, channel: 'in_band' });
  });

  it('flags a text copy that is missing, prose, behind a prefix, or another envelope', () => {
    const withText = (content: unknown): unknown =>
      classifyToolResult({ isError: true, structuredContent: envelope, content });
    expect(withText([{ type: 'text', text: JSON.stringify(envelope) }])).toEqual({
      type: 'envelope',
      envelope,
      channel: 'is_error',
    });
    expect(withText([])).toMatchObject({
      type: 'envelope',
      textCopyIssue: 'content[0] is not a text block carrying the envelope',
    });
    expect(withText([{ type: 'text', text: 'Tool orders_serch not found.' }])).toMatchObject({
      type: 'envelope',
      textCopyIssue: 'content[0].text is not the envelope as JSON: "Tool orders_serch not found."',
    });
    expect(
      classifyToolResult({
        isError: true,
        content: [{ type: 'text', text: `ToolError: ${JSON.stringify(envelope)}` }],
      }),
    ).toMatchObject({
      type: 'envelope',
      textCopyIssue: expect.stringMatching(/^content\[0\]\.text is not the envelope as JSON: "ToolError: \{/) as string,
    });
    const other = { ...envelope, error_kind: 'internal_error', error_code: 'INTERNAL_ERROR' };
    expect(withText([{ type: 'text', text: JSON.stringify(other) }])).toMatchObject({
      type: 'envelope',
      textCopyIssue:
        'content[0].text holds another value (internal_error/INTERNAL_ERROR) than the envelope tool_not_found/TOOL_NOT_FOUND',
    });
  });

  it('reports an envelope-like object that breaks the schema, with its violations', () => {
    const broken = { ...envelope, error_kind: 'precondition_failed' };
    const outcome = classifyToolResult({
      isError: true,
      content: [{ type: 'text', text: `ToolError: ${JSON.stringify(broken)}` }],
    });
    expect(outcome).toMatchObject({ type: 'invalid-envelope', candidate: broken, channel: 'is_error' });
    expect(outcome.type === 'invalid-envelope' ? outcome.violations.map((violation) => violation.path) : []).toEqual([
      '/error_kind',
    ]);
  });

  it('quotes what arrived when there is no envelope, and never throws on odd input', () => {
    expect(classifyToolResult({ isError: true, content: [{ type: 'text', text: 'upstream said no' }] })).toEqual({
      type: 'no-envelope',
      text: 'upstream said no',
      channel: 'is_error',
    });
    expect(classifyToolResult({ isError: true, content: [] })).toEqual({
      type: 'no-envelope',
      text: '(empty) {"isError":true,"content":[]}',
      channel: 'is_error',
    });
    expect(classifyToolResult(42)).toEqual({ type: 'no-envelope', text: 'not a tool result: 42', channel: 'is_error' });
    expect(classifyToolResult({ content: [{ type: 'text', text: 'ok' }] })).toEqual({ type: 'success', value: 'ok' });
  });
});

describe('classifyCallError', () => {
  it('reads an envelope from a JSON-RPC error', () => {
    expect(classifyCallError(new McpError(ErrorCode.InvalidParams, JSON.stringify(envelope), envelope), 1000)).toEqual({
      type: 'envelope',
      envelope,
      channel: 'json_rpc_error',
    });
  });

  it('tells a timeout from other failures', () => {
    expect(classifyCallError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 2500)).toEqual({
      type: 'no-envelope',
      text: 'timed out after 2500 ms',
      channel: 'timeout',
    });
    expect(classifyCallError(new DeadlineError(3500), 2500)).toEqual({
      type: 'no-envelope',
      text: 'timed out after 2500 ms',
      channel: 'timeout',
    });
    expect(classifyCallError(new Error('Connection closed'), 2500)).toEqual({
      type: 'no-envelope',
      text: 'Connection closed',
      channel: 'transport',
    });
    expect(classifyCallError(new McpError(ErrorCode.MethodNotFound, 'Method not found'), 2500)).toEqual({
      type: 'no-envelope',
      text: 'MCP error -32601: Method not found',
      channel: 'json_rpc_error',
    });
  });
});

describe('withDeadline', () => {
  it('rejects with DeadlineError when the work takes too long', async () => {
    await expect(withDeadline(new Promise(() => undefined), 20)).rejects.toThrow(new DeadlineError(20));
    await expect(withDeadline(Promise.resolve('done'), 1000)).resolves.toBe('done');
  });
});

describe('checkCapability', () => {
  it('accepts a valid capability under experimental', () => {
    const status = checkCapability({
      experimental: {
        openbridge_envelope: {
          contract_version: 1,
          error_kinds: ['mcp_input_validation', 'tool_not_found'],
          normalized_kinds: ['renamed'],
        },
      },
    });
    expect(status).toMatchObject({
      advertised: true,
      location: 'capabilities.experimental.openbridge_envelope',
      error_kinds: ['mcp_input_validation', 'tool_not_found'],
      issues: [],
    });
    expect(kindAdvertisementIssue(status, 'tool_not_found')).toBeUndefined();
    expect(kindAdvertisementIssue(status, 'rate_limited')).toBe(
      'error_kind rate_limited is not in the advertised error_kinds',
    );
  });

  it('accepts a top-level capability and says where it was found', () => {
    expect(
      checkCapability({ openbridge_envelope: { contract_version: 1, error_kinds: ['internal_error'] } }),
    ).toMatchObject({ location: 'capabilities.openbridge_envelope', issues: [] });
  });

  it('lists every problem of an invalid capability', () => {
    expect(
      checkCapability({
        experimental: {
          openbridge_envelope: {
            contract_version: 2,
            error_kinds: ['auth_error', 'precondition_failed', 'auth_error'],
            normalized_kinds: 'renamed',
          },
        },
      }).issues,
    ).toEqual([
      'contract_version is 2, expected 1',
      'error_kinds contains "precondition_failed", which is not in the v1 taxonomy',
      'error_kinds lists "auth_error" twice',
      'normalized_kinds is not a list',
    ]);
    expect(checkCapability({ experimental: { openbridge_envelope: 'yes' } }).issues).toEqual([
      'capabilities.experimental.openbridge_envelope is not an object',
    ]);
  });

  it('fails the advertised-kind check when nothing is advertised', () => {
    const status = checkCapability({ tools: {} });
    expect(status.advertised).toBe(false);
    const judgement = judgeExpectedFailure(
      { type: 'envelope', envelope: envelope as never, channel: 'is_error' },
      { kind: 'tool_not_found', code: 'TOOL_NOT_FOUND' },
      status,
    );
    expect(judgement).toEqual({
      got: 'tool_not_found/TOOL_NOT_FOUND',
      result: 'FAIL',
      notes: ['no capability advertised'],
    });
  });
});

describe('classification never throws', () => {
  it('on anything a server could send as a result or an error', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(['success', 'envelope', 'invalid-envelope', 'no-envelope']).toContain(classifyToolResult(value).type);
        expect(['envelope', 'invalid-envelope', 'no-envelope']).toContain(classifyCallError(value, 10).type);
      }),
      { numRuns: 500 },
    );
  });
});
