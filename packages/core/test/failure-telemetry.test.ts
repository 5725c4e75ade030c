/**
 * Telemetry recorded during a call reaches the envelope on every failure path, and envelopes
 * relayed in an error message pass through: a real SDK client, in memory, against a server whose
 * tools fetch a loopback upstream answering 200 with rate-limit, Retry-After and Warning headers,
 * then fail.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EnvelopeError, toolResult } from '../src/index.js';
import type { EnvelopeServerOptions, EnvelopeTool, ToolHandlerContext } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { useTestSession } from './fixtures/session.js';
import { RELAYED_ENVELOPE } from './fixtures/test-server.js';

let replay: UpstreamReplay;

beforeAll(async () => {
  replay = await startUpstreamReplay({
    routes: [
      {
        path: '/telemetry',
        response: {
          status: 200,
          headers: {
            'content-type': 'application/json',
            'x-test-ratelimit-limit': '0.5',
            'x-test-ratelimit-remaining': '3',
            'retry-after': '4',
            warning: '199 - "cached response"',
          },
          body: { ok: true },
        },
      },
    ],
  });
});

afterAll(async () => {
  await replay.close();
});

const session = useTestSession();

/** What the replay's headers become once the test adapter has read them. */
const TELEMETRY = {
  rate_limit: { limit_per_second: 0.5, remaining: 3 },
  retry_after_seconds: 4,
  warnings: [{ kind: 'upstream_warning', summary: '199 - "cached response"', details: [], hints: [] }],
};

/** The event of the wrong-case key every call below sends. */
const RENAMED = [{ kind: 'renamed', from: 'MarketplaceIds', to: 'marketplaceIds', reason: 'schema_canonical_key' }];

const SANDBOX = {
  error_kind: 'sandbox_runtime',
  error_code: 'CODE_MODE_SANDBOX_LIMITATION',
  summary: 'The sandbox blocks the subprocess module.',
} as const;

/** A tool that fetches the telemetry route, then fails with `fail`. */
function failingTool(name: string, fail: (context: ToolHandlerContext) => unknown): EnvelopeTool {
  return {
    name,
    inputSchema: { type: 'object', properties: { marketplaceIds: { type: 'array', items: { type: 'string' } } } },
    handler: async (_args, context) => {
      await context.fetch(`${replay.url}/telemetry`);
      return fail(context);
    },
  };
}

const TOOLS: readonly EnvelopeTool[] = [
  failingTool('throws_envelope_error', () => {
    throw new EnvelopeError(SANDBOX);
  }),
  failingTool('throws_envelope_error_with_meta', () => {
    throw new EnvelopeError({ ...SANDBOX, _meta: { rate_limit: { remaining: 0 } } });
  }),
  failingTool('throws_error', () => {
    throw new TypeError('cannot read properties of undefined');
  }),
  failingTool('returns_is_error', () =>
    toolResult({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(new EnvelopeError({ ...SANDBOX, tool: 'returns_is_error' })) }],
    }),
  ),
];

/** A tool that throws an `Error` with `message`, without any upstream call. */
function throwingTool(name: string, message: string): EnvelopeTool {
  return {
    name,
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error(message);
    },
  };
}

const RELAYED_JSON = JSON.stringify(RELAYED_ENVELOPE);

/** `value` inside `depth` one-item arrays. */
function nested(value: unknown, depth: number): unknown {
  let result = value;
  for (let level = 0; level < depth; level += 1) result = [result];
  return result;
}

const RELAY_TOOLS: readonly EnvelopeTool[] = [
  throwingTool('relays_bare', RELAYED_JSON),
  throwingTool('relays_tool_error', `ToolError: ${RELAYED_JSON}`),
  throwingTool('relays_error', `Error: ${JSON.stringify(RELAYED_ENVELOPE, null, 2)}\n`),
  throwingTool(
    'relays_fragment',
    `ToolError: ${JSON.stringify({ error_kind: 'sp_api_http', summary: 'half an envelope' })}`,
  ),
  throwingTool('relays_other_prefix', `RuntimeError: ${RELAYED_JSON}`),
  throwingTool(
    'relays_unadvertised',
    `ToolError: ${JSON.stringify({ ...RELAYED_ENVELOPE, error_kind: 'sandbox_runtime', error_code: 'CODE_MODE_SANDBOX_LIMITATION' })}`,
  ),
  throwingTool(
    'relays_secret',
    `ToolError: ${JSON.stringify({ ...RELAYED_ENVELOPE, summary: 'Inner server refused Authorization: Bearer eyJhbGciOi.secretpart' })}`,
  ),
  throwingTool(
    'relays_deep_secret',
    `ToolError: ${JSON.stringify({ ...RELAYED_ENVELOPE, examples: [nested('Bearer eyJhbGciOi.deepsecretpart', 70)] })}`,
  ),
];

async function call(
  name: string,
  env: Record<string, string> = { MCP_SCHEMA_KEY_NORMALIZATION_META: 'true' },
): Promise<Record<string, unknown>> {
  const { client } = await session.start({ env, logger: captureLog().logger }, TOOLS);
  const result = await client.callTool({ name, arguments: { MarketplaceIds: ['ATVPDKIKX0DER'] } });
  expect(result.isError).toBe(true);
  const envelope = result.structuredContent as Record<string, unknown>;
  expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(envelope);
  return envelope;
}

describe('telemetry on failure paths', () => {
  it('a thrown EnvelopeError carries normalized, rate_limit, retry_after_seconds and warnings', async () => {
    const envelope = await call('throws_envelope_error');
    expect([envelope['error_kind'], envelope['tool']]).toEqual(['sandbox_runtime', 'throws_envelope_error']);
    expect(envelope['_meta']).toEqual({ normalized: RENAMED, ...TELEMETRY });
  });

  it('keys the thrown envelope sets itself win over the recorded ones', async () => {
    const envelope = await call('throws_envelope_error_with_meta');
    expect(envelope['_meta']).toEqual({
      normalized: RENAMED,
      rate_limit: { remaining: 0 },
      retry_after_seconds: 4,
      warnings: TELEMETRY.warnings,
    });
  });

  it('an internal_error keeps its correlation_id and gains the telemetry', async () => {
    const envelope = await call('throws_error');
    expect(envelope['error_kind']).toBe('internal_error');
    const meta = envelope['_meta'] as Record<string, unknown>;
    expect(meta['correlation_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta).toEqual({ correlation_id: meta['correlation_id'], normalized: RENAMED, ...TELEMETRY });
  });

  it('an isError result with an envelope gains the telemetry', async () => {
    const envelope = await call('returns_is_error');
    expect([envelope['error_kind'], envelope['tool']]).toEqual(['sandbox_runtime', 'returns_is_error']);
    expect(envelope['_meta']).toEqual({ normalized: RENAMED, ...TELEMETRY });
  });

  it('leaves out normalized when MCP_SCHEMA_KEY_NORMALIZATION_META is off', async () => {
    const envelope = await call('throws_envelope_error', {});
    expect(envelope['_meta']).toEqual(TELEMETRY);
  });
});

describe('envelopes relayed in an error message', () => {
  async function relay(name: string, options: EnvelopeServerOptions = {}): Promise<Record<string, unknown>> {
    const { client } = await session.start({ logger: captureLog().logger, ...options }, RELAY_TOOLS);
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError).toBe(true);
    return result.structuredContent as Record<string, unknown>;
  }

  it.each(['relays_bare', 'relays_tool_error', 'relays_error'])(
    '%s answers with the relayed envelope unchanged',
    async (name) => {
      expect(await relay(name)).toEqual(RELAYED_ENVELOPE);
    },
  );

  it.each(['relays_fragment', 'relays_other_prefix'])(
    '%s (no v1 envelope behind a known prefix) stays internal_error',
    async (name) => {
      expect((await relay(name))['error_kind']).toBe('internal_error');
    },
  );

  it('a relayed envelope of a kind the server does not advertise is replaced by internal_error', async () => {
    // without Code Mode's kind, this server never advertises sandbox_runtime
    expect((await relay('relays_unadvertised', { additionalErrorKinds: [] }))['error_kind']).toBe('internal_error');
    expect((await relay('relays_unadvertised'))['error_kind']).toBe('sandbox_runtime');
  });

  it('a relayed envelope passes the redactor like an EnvelopeError', async () => {
    const envelope = await relay('relays_secret');
    expect(envelope['error_code']).toBe('SP_API_HTTP_404');
    expect(String(envelope['summary'])).not.toContain('secretpart');
  });

  it('a secret nested deeper than the redactor walks is still redacted', async () => {
    const envelope = await relay('relays_deep_secret');
    expect(envelope['error_code']).toBe('SP_API_HTTP_404');
    expect(JSON.stringify(envelope)).not.toContain('deepsecretpart');
  });
});
