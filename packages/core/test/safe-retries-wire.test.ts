/**
 * Safe retries against a real server process (test/fixtures/safe-retry-stdio-server.ts, over
 * stdio) and a real SDK client, with a loopback upstream of this test that holds a request past
 * the server's deadline, resets the connection, or answers 500 or 503; and a port that refuses
 * connections. A POST tool (not idempotent) whose request may have reached the upstream gets a
 * not-retryable envelope that says its effect is unknown; a GET tool, and a request never sent,
 * stay retryable as classified. Nothing waits on a clock: the server's own deadline ends the
 * held request, and the test awaits the answers.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/safe-retry-stdio-server.ts', import.meta.url));
const V2 = { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } };

const EFFECT_UNKNOWN_HINT =
  'Check whether the call took effect (read the resource back, or list what the tool creates or changes) before calling it again: a repeat may do it twice.';

interface Result {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
}

/** The upstream body limit of the first suite's server process, and a body past it. */
const BODY_LIMIT_BYTES = 4096;
const BIG_BODY_BYTES = 2 * BODY_LIMIT_BYTES;

/**
 * The loopback upstream: `/hang` never answers, `/reset` drops the connection, `/big` answers 201
 * with a body past {@link BODY_LIMIT_BYTES}, `/status/<n>` answers n.
 */
async function startFaultUpstream(): Promise<{ url: string; methods: string[]; close: () => Promise<void> }> {
  const held = new Set<ServerResponse>();
  const methods: string[] = [];
  const server: Server = createServer((request, response) => {
    methods.push(`${request.method ?? ''} ${request.url ?? ''}`);
    if (request.url === '/hang') {
      held.add(response);
      return;
    }
    if (request.url === '/reset') {
      request.socket.destroy();
      return;
    }
    if (request.url === '/big') {
      response
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'o-1', note: 'x'.repeat(BIG_BODY_BYTES) }));
      return;
    }
    const status = Number(/^\/status\/(\d{3})$/.exec(request.url ?? '')?.[1] ?? '200');
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Boom' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A loopback URL whose port was just free: connecting to it is refused. */
async function refusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    probe.close(() => {
      resolve();
    });
  });
  return `http://127.0.0.1:${port}/orders`;
}

/**
 * The server's upstream deadline. The held request must reach the upstream before it, so it
 * leaves a loaded two-core machine 1.5 s to deliver a loopback request (at 400 ms one was seen
 * to arrive late).
 */
const UPSTREAM_DEADLINE_MS = '1500';

/** A client connected to a new server process, with `env` beside the upstream deadline. */
async function connectServer(env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', SERVER],
    cwd: PACKAGE_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      SAFE_RETRY_TIMEOUT_MS: UPSTREAM_DEADLINE_MS,
      MCP_RATE_LIMIT: 'off',
      ...env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'safe-retry-test', version: '0.0.1' });
  await client.connect(transport);
  return client;
}

describe('safe retries over a real server process', () => {
  let upstream: Awaited<ReturnType<typeof startFaultUpstream>>;
  let refused: string;
  let client: Client;

  beforeAll(async () => {
    upstream = await startFaultUpstream();
    refused = await refusedUrl();
    client = await connectServer({ MCP_MAX_UPSTREAM_BODY_BYTES: String(BODY_LIMIT_BYTES) });
  });

  afterAll(async () => {
    await client.close();
    await upstream.close();
  });

  const envelopeOf = async (name: string, url: string): Promise<Record<string, unknown>> => {
    const result = (await client.callTool({ name, arguments: { url }, _meta: V2 })) as Result;
    expect(result.isError).toBe(true);
    const envelope = result.structuredContent ?? {};
    expect(validateEnvelope(envelope).valid).toBe(true);
    return envelope;
  };
  const verdict = (envelope: Record<string, unknown>) => ({
    kind: envelope['error_kind'],
    code: envelope['error_code'],
    retryable: envelope['retryable'],
    firstHint: (envelope['hints'] as string[])[0],
    effectDetails: (envelope['details'] as Record<string, unknown>[]).filter(
      (detail) => detail['reason'] === 'effect_unknown',
    ),
  });
  const effectUnknown = (code: string, kind: string) => ({
    kind,
    code,
    retryable: false,
    firstHint: EFFECT_UNKNOWN_HINT,
    effectDetails: [
      {
        path: '',
        issue:
          'The request may have reached orders-api before the call failed: whether it took effect is unknown, and create_order is not idempotent.',
        received_type: 'null',
        reason: 'effect_unknown',
      },
    ],
  });

  it('lists the tools with the annotations of their methods', async () => {
    const { tools } = await client.listTools();
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))).toEqual({
      create_order: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      get_order: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      get_envelope_contract: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
  });

  it('a POST that times out: not retryable, the effect-unknown detail first and the check-first hint first', async () => {
    const envelope = await envelopeOf('create_order', `${upstream.url}/hang`);
    expect(verdict(envelope)).toEqual(effectUnknown('TOOL_EXECUTION_FAILED', 'upstream_client'));
    expect((envelope['details'] as unknown[])[0]).toEqual(effectUnknown('', '').effectDetails[0]);
    expect(envelope['upstream']).toBe('orders-api');
    expect(upstream.methods).toContain('POST /hang');
  });

  it('a POST whose connection is reset, or that answers 500: not retryable, effect unknown', async () => {
    expect(verdict(await envelopeOf('create_order', `${upstream.url}/reset`))).toEqual(
      effectUnknown('TOOL_EXECUTION_FAILED', 'upstream_client'),
    );
    expect(verdict(await envelopeOf('create_order', `${upstream.url}/status/500`))).toEqual(
      effectUnknown('UPSTREAM_HTTP_500', 'upstream_http'),
    );
  });

  it('a GET that times out, is reset or answers 500 stays retryable, without the warning', async () => {
    for (const path of ['/hang', '/reset', '/status/500']) {
      const envelope = await envelopeOf('get_order', `${upstream.url}${path}`);
      expect({ path, retryable: envelope['retryable'], effect: verdict(envelope).effectDetails }).toEqual({
        path,
        retryable: true,
        effect: [],
      });
      expect(verdict(envelope).firstHint).not.toBe(EFFECT_UNKNOWN_HINT);
    }
  });

  it('a POST whose 2xx answer is over the body limit: the upstream acted, so not "ask for less and call again" alone', async () => {
    expect(verdict(await envelopeOf('create_order', `${upstream.url}/big`))).toEqual(
      effectUnknown('TOOL_EXECUTION_FAILED', 'upstream_client'),
    );
    const read = verdict(await envelopeOf('get_order', `${upstream.url}/big`));
    expect({ retryable: read.retryable, effect: read.effectDetails }).toEqual({ retryable: false, effect: [] });
  });

  it('a POST never sent (connection refused) or turned away (503) stays retryable', async () => {
    const refusedEnvelope = verdict(await envelopeOf('create_order', refused));
    expect({ retryable: refusedEnvelope.retryable, effect: refusedEnvelope.effectDetails }).toEqual({
      retryable: true,
      effect: [],
    });
    const busy = verdict(await envelopeOf('create_order', `${upstream.url}/status/503`));
    expect({ code: busy.code, retryable: busy.retryable, effect: busy.effectDetails }).toEqual({
      code: 'UPSTREAM_HTTP_503',
      retryable: true,
      effect: [],
    });
  });
});

describe('safe retries of Code Mode inner calls', () => {
  let upstream: Awaited<ReturnType<typeof startFaultUpstream>>;
  let client: Client;

  beforeAll(async () => {
    upstream = await startFaultUpstream();
    client = await connectServer({ CODE_MODE: 'true' });
  });

  afterAll(async () => {
    await client.close();
    await upstream.close();
  });

  it('the inner tool decides: an inner POST that times out is not retryable, an inner GET stays retryable', async () => {
    const hang = JSON.stringify(`${upstream.url}/hang`);
    const code = [
      `const created = await callTool("create_order", { url: ${hang} });`,
      `const read = await callTool("get_order", { url: ${hang} });`,
      'return [created.retryable, created.details[0].reason, read.retryable, read.details[0].reason ?? null];',
    ].join('\n');
    const result = (await client.callTool({ name: 'execute_code', arguments: { code }, _meta: V2 })) as Result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent?.['result']).toEqual([false, 'effect_unknown', true, null]);
  });
});
