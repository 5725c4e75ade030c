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

/** The capability SP advertises during the window: versions 1 and 2, version 1 to a client that states none. */
const WINDOW_CAPABILITY = {
  contract_version: 1,
  error_kinds: ['tool_not_found', 'sp_api_http', 'sp_api_client'],
  normalized_kinds: ['renamed'],
  contract_versions: [1, 2],
  upstreams: ['sp-api', 'openbridge'],
  error_kinds_by_version: {
    '1': ['tool_not_found', 'sp_api_http', 'sp_api_client'],
    '2': ['tool_not_found', 'upstream_http', 'upstream_client'],
  },
};

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
      'error_kind rate_limited is not in the advertised error_kinds of version 1',
    );
    // a capability of a release before version 2 speaks version 1 only
    expect(status.contract_versions).toEqual([1]);
    expect(kindAdvertisementIssue(status, 'tool_not_found', 2)).toBe(
      'no error_kinds advertised for contract version 2',
    );
  });

  it("reads the capability of SP and Ads in the window (v1 by default, v2 on request) and each version's kinds", () => {
    const status = checkCapability({ experimental: { openbridge_envelope: WINDOW_CAPABILITY } });
    expect(status).toMatchObject({ contract_versions: [1, 2], issues: [] });
    expect(kindAdvertisementIssue(status, 'sp_api_http', 1)).toBeUndefined();
    expect(kindAdvertisementIssue(status, 'upstream_http', 2)).toBeUndefined();
    expect(kindAdvertisementIssue(status, 'upstream_http', 1)).toBe(
      'error_kind upstream_http is not in the advertised error_kinds of version 1',
    );
    expect(kindAdvertisementIssue(status, 'sp_api_http', 2)).toBe(
      'error_kind sp_api_http is not in the advertised error_kinds of version 2',
    );
  });

  it('accepts a server that speaks version 2 only', () => {
    const status = checkCapability({
      experimental: {
        openbridge_envelope: {
          contract_version: 2,
          error_kinds: ['tool_not_found', 'upstream_http'],
          normalized_kinds: [],
          contract_versions: [2],
          upstreams: ['github'],
          error_kinds_by_version: { '2': ['tool_not_found', 'upstream_http'] },
        },
      },
    });
    expect(status).toMatchObject({ contract_versions: [2], issues: [] });
    expect(kindAdvertisementIssue(status, 'upstream_http', 2)).toBeUndefined();
  });

  it('names each broken rule of a capability with versions', () => {
    const broken = (patch: Record<string, unknown>): readonly string[] =>
      checkCapability({ experimental: { openbridge_envelope: { ...WINDOW_CAPABILITY, ...patch } } }).issues;
    expect(broken({ contract_version: 2 })).toEqual([
      'contract_version 2 is not the oldest of contract_versions [1, 2]',
      'error_kinds contains "sp_api_http", which is not in the v2 taxonomy',
      'error_kinds contains "sp_api_client", which is not in the v2 taxonomy',
      'error_kinds differs from error_kinds_by_version["2"] (the kinds of contract_version)',
    ]);
    expect(broken({ contract_versions: [1, 3] })).toEqual([
      'contract_versions contains 3, which is not a contract version',
      'error_kinds_by_version has "2", which contract_versions does not list',
    ]);
    expect(broken({ error_kinds: ['tool_not_found', 'sp_api_http'] })).toEqual([
      'error_kinds differs from error_kinds_by_version["1"] (the kinds of contract_version)',
    ]);
    expect(
      broken({
        error_kinds_by_version: { '1': WINDOW_CAPABILITY.error_kinds, '2': ['tool_not_found', 'sp_api_http'] },
      }),
    ).toEqual(['error_kinds_by_version["2"] contains "sp_api_http", which is not in the v2 taxonomy']);
    expect(broken({ error_kinds_by_version: { '1': WINDOW_CAPABILITY.error_kinds } })).toEqual([
      'error_kinds_by_version has no "2"',
    ]);
    expect(broken({ upstreams: ['SP API', 'sp-api', 'sp-api'] })).toEqual([
      'upstreams contains "SP API", which is not an upstream name (^[a-z0-9][a-z0-9._-]{0,63}$)',
      'upstreams lists a name twice',
    ]);
    expect(broken({ upstreams: [] })).toEqual([
      'upstreams is empty, but upstream kinds are advertised (their envelopes must name an upstream)',
    ]);
    // without contract_versions a capability is read as version 1 only, so version 2 kinds are out of place
    expect(broken({ contract_versions: undefined })).toEqual([
      'error_kinds_by_version has "2", which contract_versions does not list',
    ]);
    const noVersions = { contract_version: 2, error_kinds: ['tool_not_found'], upstreams: [] };
    expect(checkCapability({ openbridge_envelope: noVersions }).issues).toEqual(['contract_versions is absent']);
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
      'contract_versions is absent',
      'error_kinds contains "precondition_failed", which is not in the v2 taxonomy',
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
