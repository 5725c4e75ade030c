/**
 * The pure part of version negotiation and the v1 projection at the way out: which version a
 * client states, which the server answers in, and the v1 form (with the v1 window's legacy kind)
 * of what core builds in v2.
 */
import { activeMigrations, MIGRATIONS, validateEnvelopeVersion } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { answerVersion, envelopeFor, jsonRpcErrorFor, resultFor, statedVersions } from '../src/contract-version.js';
import type { VersionSettings } from '../src/contract-version.js';

const KEY = 'io.github.mcp-envelope/envelope';

/** SP during the window release: v1 and v2, the real table open at 0.2.0. */
const SP: VersionSettings = {
  spoken: [1, 2],
  serverId: 'sp',
  primaryUpstream: 'sp-api',
  openMigrations: activeMigrations('0.2.0', MIGRATIONS),
};

const UPSTREAM_404: ErrorEnvelope = {
  error_kind: 'upstream_http',
  tool: 'get_order',
  summary: 'Upstream answered HTTP 404.',
  details: [],
  hints: [],
  examples: [],
  error_code: 'UPSTREAM_HTTP_404',
  retryable: false,
  _envelope_version: 2,
  upstream: 'sp-api',
  legacy_error_kind: 'sp_api_http',
  _meta: { rate_limit: { limit: 5000, window_seconds: 3600, remaining: 4999, reset_after_seconds: 12 } },
};

/** `envelope` without the named optional keys. */
function without(
  envelope: ErrorEnvelope,
  ...keys: readonly ('upstream' | 'legacy_error_kind' | '_meta')[]
): ErrorEnvelope {
  return Object.fromEntries(
    Object.entries(envelope).filter(([key]) => !keys.some((dropped) => dropped === key)),
  ) as ErrorEnvelope;
}

const WITHOUT_LEGACY = without(UPSTREAM_404, 'legacy_error_kind');

const UPSTREAM_429: ErrorEnvelope = {
  ...WITHOUT_LEGACY,
  error_kind: 'rate_limited',
  error_code: 'RATE_LIMITED',
  retryable: true,
};

describe('statedVersions', () => {
  it('reads the request key first, then the extension capability, then the experimental one', () => {
    const capabilities = { extensions: { [KEY]: { contract_versions: [1] } } };
    expect(statedVersions({ [KEY]: { contract_versions: [2] } }, capabilities)).toEqual([2]);
    expect(statedVersions({}, capabilities)).toEqual([1]);
    expect(statedVersions(undefined, { experimental: { openbridge_envelope: { contract_versions: [1, 2] } } })).toEqual(
      [1, 2],
    );
    expect(statedVersions(undefined, undefined)).toBeUndefined();
  });

  it('a request key of the wrong shape states nothing, and the capabilities decide', () => {
    expect(statedVersions({ [KEY]: '2' }, { extensions: { [KEY]: { contract_versions: [1] } } })).toEqual([1]);
    expect(statedVersions({ [KEY]: {} }, undefined)).toBeUndefined();
    expect(statedVersions('x', null)).toBeUndefined();
  });
});

describe('answerVersion', () => {
  it.each([
    ['nothing stated', undefined, [1, 2], 1],
    ['nothing stated, v2-only server', undefined, [2], 2],
    ['[1]', [1], [1, 2], 1],
    ['[2]', [2], [1, 2], 2],
    ['[1, 2]', [1, 2], [1, 2], 2],
    ['[1] to a v2-only server', [1], [2], 2],
    ['[3]', [3], [1, 2], 1],
    ['"2"', '2', [1, 2], 1],
    ['["2"]', ['2'], [1, 2], 1],
  ] as const)('%s -> the server answers in the right version', (_label, versions, spoken, expected) => {
    const meta = versions === undefined ? undefined : { [KEY]: { contract_versions: versions } };
    expect(answerVersion(meta, undefined, spoken)).toBe(expected);
  });

  it('a request key that is an object without a list leaves the capability to decide', () => {
    expect(answerVersion({ [KEY]: {} }, { extensions: { [KEY]: { contract_versions: [2] } } }, [1, 2])).toBe(2);
  });
});

describe('envelopeFor', () => {
  it('gives a reader of v2 the envelope itself', () => {
    expect(envelopeFor(UPSTREAM_404, 2, SP)).toBe(UPSTREAM_404);
  });

  it('gives a reader of v1 the vendor kind and code, a v1 rate_limit and no upstream', () => {
    const v1 = envelopeFor(UPSTREAM_404, 1, SP);
    expect(v1).toEqual({
      error_kind: 'sp_api_http',
      tool: 'get_order',
      summary: 'Upstream answered HTTP 404.',
      details: [],
      hints: [],
      examples: [],
      error_code: 'SP_API_HTTP_404',
      retryable: false,
      _envelope_version: 1,
      _meta: { rate_limit: { remaining: 4999 } },
    });
    expect(validateEnvelopeVersion(v1, 1)).toEqual({ valid: true, version: 1 });
    expect(validateEnvelopeVersion(UPSTREAM_404, 2)).toEqual({ valid: true, version: 2 });
  });

  it("adds the v1 window's legacy kind to a 429 of the primary upstream only", () => {
    const upstream429 = UPSTREAM_429;
    expect(envelopeFor(upstream429, 1, SP)).toMatchObject({
      error_kind: 'rate_limited',
      legacy_error_kind: 'sp_api_http',
    });
    // the limiter's refusal names no upstream; the identity service is not the API SP fronts
    const limiter = without(upstream429, 'upstream');
    expect(envelopeFor(limiter, 1, SP)).not.toHaveProperty('legacy_error_kind');
    expect(envelopeFor({ ...upstream429, upstream: 'openbridge' }, 1, SP)).not.toHaveProperty('legacy_error_kind');
    // after the window the table is closed
    expect(envelopeFor(upstream429, 1, { ...SP, openMigrations: [] })).not.toHaveProperty('legacy_error_kind');
  });

  it('adds the v1 legacy kind of a 401 of the primary upstream, on its v1 code', () => {
    const auth: ErrorEnvelope = { ...UPSTREAM_404, error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_401' };
    expect(envelopeFor(auth, 1, SP)).toMatchObject({
      error_kind: 'auth_error',
      error_code: 'SP_API_HTTP_401',
      legacy_error_kind: 'sp_api_http',
    });
  });

  it('keeps v2 for an envelope naming an upstream v1 never knew, rather than losing it', () => {
    const relayed: ErrorEnvelope = { ...UPSTREAM_404, upstream: 'github' };
    expect(envelopeFor(relayed, 1, SP)).toBe(relayed);
  });
});

describe('resultFor', () => {
  it('projects both channels of an error result for a reader of v1', () => {
    const result = {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(UPSTREAM_404) }],
      structuredContent: UPSTREAM_404,
    };
    const projected = resultFor(result, 1, SP);
    expect(projected.structuredContent).toMatchObject({ error_kind: 'sp_api_http', _envelope_version: 1 });
    expect(JSON.parse(projected.content[0]!.text)).toEqual(projected.structuredContent);
    expect(resultFor(result, 2, SP)).toBe(result);
  });

  it("reduces a success result's rate_limit to the v1 keys, in the data and in the text mirroring it", () => {
    const data = {
      total: 1,
      _meta: { rate_limit: { limit: 5, window_seconds: 1, limit_per_second: 5, remaining: 4 } },
    };
    const result = { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    const projected = resultFor(result, 1, SP);
    const expected = { total: 1, _meta: { rate_limit: { limit_per_second: 5, remaining: 4 } } };
    expect(projected).toEqual({
      content: [{ type: 'text', text: JSON.stringify(expected) }],
      structuredContent: expected,
    });
    const plain = { content: [{ type: 'text', text: 'hi' }] };
    expect(resultFor(plain, 1, SP)).toBe(plain);
  });

  it('leaves an error result without a v2 envelope alone', () => {
    const result = { isError: true, content: [{ type: 'text', text: 'no' }], structuredContent: { x: 1 } };
    expect(resultFor(result, 1, SP)).toBe(result);
  });
});

describe('jsonRpcErrorFor', () => {
  it('projects the message and data of an envelope error for a reader of v1', () => {
    const clean: ErrorEnvelope = {
      ...without(WITHOUT_LEGACY, 'upstream', '_meta'),
      error_kind: 'tool_not_found',
      error_code: 'TOOL_NOT_FOUND',
    };
    const projected = jsonRpcErrorFor(clean, 1, SP);
    expect(projected?.data).toMatchObject({ error_kind: 'tool_not_found', _envelope_version: 1 });
    // the v1 window moved unknown tools from mcp_input_validation on SP and Ads
    expect(projected?.data.legacy_error_kind).toBe('mcp_input_validation');
    expect(JSON.parse(projected!.message)).toEqual(projected?.data);
    expect(jsonRpcErrorFor(clean, 2, SP)).toBeUndefined();
    expect(jsonRpcErrorFor({ not: 'an envelope' }, 1, SP)).toBeUndefined();
  });
});
