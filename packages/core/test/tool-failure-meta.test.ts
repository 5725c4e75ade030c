/**
 * The ToolFailure mirror on the wire: the test server as a child process over stdio (switched by
 * `MCP_TOOL_FAILURE_META`) and in process over Streamable HTTP on 127.0.0.1 (switched by the
 * option, on a fixed clock), read by real SDK v2 and v1 clients. A validation error, an upstream
 * 429 from a loopback upstream and an internal error each carry the mirror when it is on and
 * nothing when it is off; the capability names it only when it is on.
 */
import { fileURLToPath } from 'node:url';

import { ENVELOPE_EXTENSION_ID, TOOL_FAILURE_META_KEY, TOOL_FAILURE_SCHEMA } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { resolveToolFailureMeta } from '../src/options.js';
import type { StreamableHttpHandle } from '../src/index.js';
import { captureLog } from './fixtures/log-capture.js';
import { createTestServer } from './fixtures/test-server.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));

/** The fixed clock of the in-process server: 2026-12-07T12:00:00.000Z. */
const NOW = new Date('2026-12-07T12:00:00.000Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const validToolFailure = new Ajv2020({ strict: true, strictRequired: false }).compile(TOOL_FAILURE_SCHEMA);

let replay: UpstreamReplay;

beforeAll(async () => {
  replay = await startUpstreamReplay({
    routes: [
      {
        path: '/throttled',
        response: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '30' }, body: {} },
      },
    ],
  });
});

afterAll(async () => {
  await replay.close();
});

/** A tools/call result as the tests read it. */
interface Answer {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: unknown;
  readonly _meta?: Record<string, unknown>;
}

/** What both SDK clients offer these tests. */
interface Caller {
  call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Answer>;
  extensions(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** An SDK v2 client of the test server as a child process, its env holding `MCP_TOOL_FAILURE_META` when given. */
async function stdioV2(toolFailureMeta: string | undefined): Promise<Caller> {
  const client = new Client({ name: 'mirror-stdio', version: '0.0.1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER],
      cwd: PACKAGE_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...(toolFailureMeta === undefined ? {} : { MCP_TOOL_FAILURE_META: toolFailureMeta }),
      },
      stderr: 'ignore',
    }),
  );
  return {
    call: async (name, args, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) })) as Answer,
    extensions: () => client.getServerCapabilities()?.extensions,
    close: () => client.close(),
  };
}

/** An SDK v1 client over Streamable HTTP. */
async function httpV1(url: URL): Promise<Caller> {
  const client = new ClientV1({ name: 'mirror-http-v1', version: '0.0.1' });
  await client.connect(new StreamableHttpV1(url));
  return {
    call: async (name, args, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) })) as Answer,
    extensions: () => client.getServerCapabilities()?.['extensions'],
    close: () => client.close(),
  };
}

/** The mirror of a result, checked against the proposal's shape. */
function mirrorOf(answer: Answer): Record<string, unknown> {
  expect(answer.isError).toBe(true);
  const mirror = answer._meta?.[TOOL_FAILURE_META_KEY] as Record<string, unknown>;
  expect(validToolFailure(mirror)).toBe(true);
  return mirror;
}

/** The envelope's `_meta.correlation_id`. */
function correlationOf(answer: Answer): unknown {
  return (answer.structuredContent?.['_meta'] as Record<string, unknown> | undefined)?.['correlation_id'];
}

/** What `get_envelope_contract` reports of the mirror's switch under `settings`. */
async function reportedSwitch(caller: Caller): Promise<unknown> {
  const answer = await caller.call('get_envelope_contract', {});
  expect(answer.isError).not.toBe(true);
  return (answer.structuredContent?.['settings'] as Record<string, unknown> | undefined)?.['MCP_TOOL_FAILURE_META'];
}

/** States contract version 2 on one request. */
const READS_V2 = { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } };

describe('an SDK v2 client, the test server over stdio with MCP_TOOL_FAILURE_META=true', () => {
  let caller: Caller;

  beforeAll(async () => {
    caller = await stdioV2('true');
  });

  afterAll(async () => {
    await caller.close();
  });

  it('advertises the mirror in capabilities.extensions beside the envelope', () => {
    const extensions = caller.extensions();
    expect(extensions?.[TOOL_FAILURE_META_KEY]).toEqual({});
    expect(extensions?.[ENVELOPE_EXTENSION_ID]).toMatchObject({ contract_versions: [1, 2] });
  });

  it('reports the switch on in get_envelope_contract', async () => {
    expect(await reportedSwitch(caller)).toBe(true);
  });

  it('mirrors a validation error: capability, its code, not retryable, a new correlation id the envelope carries too', async () => {
    const answer = await caller.call('list_orders', {});
    const correlationId = correlationOf(answer);
    expect(correlationId).toMatch(UUID);
    expect(mirrorOf(answer)).toEqual({
      class: 'capability',
      code: 'SCHEMA_REQUIRED',
      retryable: false,
      correlationId,
      agentGuidance: (answer.structuredContent?.['hints'] as string[])[0],
    });
    expect(JSON.parse((answer.content as { text: string }[])[0]!.text)).toEqual(answer.structuredContent);
  });

  it('mirrors a loopback 429 with Retry-After: 30 as reliability, retryNotBefore 30 s after the answer was made', async () => {
    const before = Date.now();
    const answer = await caller.call('fetch_upstream', { url: `${replay.url}/throttled` }, READS_V2);
    const after = Date.now();
    expect(answer.structuredContent).toMatchObject({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED' });
    const mirror = mirrorOf(answer);
    expect(mirror).toMatchObject({
      class: 'reliability',
      code: 'RATE_LIMITED',
      retryable: true,
      correlationId: correlationOf(answer),
    });
    expect(mirror['retryNotBefore']).toBeGreaterThanOrEqual(before + 30_000);
    expect(mirror['retryNotBefore']).toBeLessThanOrEqual(after + 30_000);
  });

  it('mirrors an internal error with the correlation id the envelope already had', async () => {
    const answer = await caller.call('explode', {});
    expect(answer.structuredContent?.['error_code']).toBe('INTERNAL_ERROR');
    expect(mirrorOf(answer)).toEqual({
      class: 'capability',
      code: 'INTERNAL_ERROR',
      retryable: false,
      correlationId: correlationOf(answer),
      agentGuidance: `If this keeps happening, report correlation_id ${String(correlationOf(answer))} to the server operator.`,
    });
  });

  it('reads the code from the envelope in the version the client reads: SP_API_HTTP_404 in v1, UPSTREAM_HTTP_404 in v2', async () => {
    const v1 = await caller.call('report_summary', { fail: true });
    expect(v1.structuredContent?.['error_code']).toBe('SP_API_HTTP_404');
    expect(mirrorOf(v1)['code']).toBe('SP_API_HTTP_404');
    const v2 = await caller.call('report_summary', { fail: true }, READS_V2);
    expect(v2.structuredContent?.['error_code']).toBe('UPSTREAM_HTTP_404');
    expect(mirrorOf(v2)['code']).toBe('UPSTREAM_HTTP_404');
  });

  it('leaves a success without the mirror', async () => {
    const answer = await caller.call('report_summary', {});
    expect(answer.isError).toBeUndefined();
    expect(answer._meta?.[TOOL_FAILURE_META_KEY]).toBeUndefined();
  });
});

describe('an SDK v2 client, the test server over stdio with the switch unset', () => {
  let caller: Caller;

  beforeAll(async () => {
    caller = await stdioV2(undefined);
  });

  afterAll(async () => {
    await caller.close();
  });

  it('advertises no mirror, and its three failures carry none (and no added correlation id)', async () => {
    expect(caller.extensions()?.[TOOL_FAILURE_META_KEY]).toBeUndefined();
    const invalid = await caller.call('list_orders', {});
    const throttled = await caller.call('fetch_upstream', { url: `${replay.url}/throttled` }, READS_V2);
    const internal = await caller.call('explode', {});
    for (const answer of [invalid, throttled, internal]) {
      expect(answer.isError).toBe(true);
      // the statement of the contract is the only key of the result's own _meta
      expect(Object.keys(answer._meta ?? {})).toEqual([ENVELOPE_EXTENSION_ID]);
    }
    expect(correlationOf(invalid)).toBeUndefined();
    expect(correlationOf(throttled)).toBeUndefined();
    expect(correlationOf(internal)).toMatch(UUID);
  });

  it('reports the switch off in get_envelope_contract', async () => {
    expect(await reportedSwitch(caller)).toBe(false);
  });
});

describe('an SDK v1 client over Streamable HTTP, the test server on a fixed clock', () => {
  let on: StreamableHttpHandle;
  let off: StreamableHttpHandle;
  const log = captureLog();

  beforeAll(async () => {
    on = await createTestServer({ toolFailureMeta: true, now: () => NOW, logger: log.logger }).serveStreamableHttp();
    // the option wins over the environment
    off = await createTestServer({
      toolFailureMeta: false,
      env: { MCP_TOOL_FAILURE_META: 'true' },
    }).serveStreamableHttp();
  });

  afterAll(async () => {
    await Promise.all([on.close(), off.close()]);
  });

  it('mirrors the 429 with retryNotBefore exactly 30 s after the clock, and logs the id it made', async () => {
    const caller = await httpV1(on.url);
    try {
      expect(caller.extensions()?.[TOOL_FAILURE_META_KEY]).toEqual({});
      expect(await reportedSwitch(caller)).toBe(true);
      const answer = await caller.call('fetch_upstream', { url: `${replay.url}/throttled` }, READS_V2);
      const correlationId = correlationOf(answer);
      expect(mirrorOf(answer)).toEqual({
        class: 'reliability',
        code: 'RATE_LIMITED',
        retryable: true,
        retryNotBefore: NOW.getTime() + 30_000,
        correlationId,
        agentGuidance: 'Wait retry_after_seconds, then retry.',
      });
      const line = log.lines.find((entry) => entry['correlation_id'] === correlationId);
      expect(line).toMatchObject({
        level: 30,
        msg: 'tool call failed',
        tool: 'fetch_upstream',
        error_kind: 'rate_limited',
        error_code: 'RATE_LIMITED',
        retryable: true,
      });
    } finally {
      await caller.close();
    }
  });

  it('sends nothing of the mirror when the option is off, whatever the environment says', async () => {
    const caller = await httpV1(off.url);
    try {
      expect(caller.extensions()?.[TOOL_FAILURE_META_KEY]).toBeUndefined();
      for (const [name, args] of [
        ['list_orders', {}],
        ['fetch_upstream', { url: `${replay.url}/throttled` }],
        ['explode', {}],
      ] as const) {
        const answer = await caller.call(name, args);
        expect(answer.isError).toBe(true);
        expect(Object.keys(answer._meta ?? {})).toEqual([ENVELOPE_EXTENSION_ID]);
      }
      expect(await reportedSwitch(caller)).toBe(false);
    } finally {
      await caller.close();
    }
  });
});

describe('resolveToolFailureMeta', () => {
  it('reads the switch words, defaults to off, and warns (without the value) on anything else', () => {
    const log = captureLog();
    const read = (value: string | undefined): boolean =>
      resolveToolFailureMeta(value === undefined ? {} : { MCP_TOOL_FAILURE_META: value }, {}, log.logger);
    expect([read(undefined), read(''), read(' ON '), read('1'), read('no'), read('maybe')]).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
    ]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ variable: 'MCP_TOOL_FAILURE_META', default: false, level: 40 });
    expect(log.raw[0]).not.toContain('maybe');
    expect(resolveToolFailureMeta({ MCP_TOOL_FAILURE_META: 'true' }, { toolFailureMeta: false }, log.logger)).toBe(
      false,
    );
  });
});
