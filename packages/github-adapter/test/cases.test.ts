import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { validateEnvelope } from '@mcp-envelope/contract';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  CLI,
  PACKAGE,
  readCases,
  serverArgs,
  serverEnv,
  startHttpServer,
  TEST_TOKEN,
} from './support/server-process.js';
import type { GithubCase } from './support/server-process.js';

const CASES = readCases().map((recorded) => [recorded.id, recorded] as const);

/** Preloaded into the server process: refuses and logs any connection outside 127.0.0.0/8. */
const GUARD = pathToFileURL(join(PACKAGE, '..', '..', 'conformance', 'test', 'helpers', 'loopback-guard.mjs')).href;
const GUARD_LOG = join(tmpdir(), `github-adapter-loopback-${process.pid}.log`);

let replay: UpstreamReplay;

beforeAll(async () => {
  replay = await startUpstreamReplay();
});

afterAll(async () => {
  await replay.close();
  rmSync(GUARD_LOG, { force: true });
});

/** Serves one case's routes, makes its call, checks what reached the upstream. */
async function play(recorded: GithubCase, call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  replay.reset();
  replay.route(...recorded.upstream);
  const before = replay.requests.length;
  const result = await call();
  const sent = replay.requests.slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0]?.method).toBe(recorded.upstream[0]?.method);
  expect(sent[0]?.path).toBe(recorded.upstream[0]?.path);
  expect(sent[0]?.headers['authorization']).toBe(`Bearer ${TEST_TOKEN}`);
  expect(sent[0]?.headers['x-github-api-version']).toBe('2022-11-28');
  return result;
}

/** The case's expectation, checked on a result, whatever client read it. */
function expectRecorded(recorded: GithubCase, result: CallToolResult): void {
  const expected = recorded.expected;
  const structured = result.structuredContent as Record<string, unknown>;
  expect(JSON.stringify(result)).not.toContain(TEST_TOKEN);
  if (expected.outcome === 'success') {
    expect(result.isError).toBeFalsy();
    expect(structured['_meta']).toEqual(expected._meta);
    return;
  }
  expect(result.isError).toBe(true);
  expect(validateEnvelope(structured)).toEqual({ valid: true, version: 2 });
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(structured);
  expect({
    error_kind: structured['error_kind'],
    error_code: structured['error_code'],
    upstream: structured['upstream'],
    retryable: structured['retryable'],
    _meta: structured['_meta'],
  }).toEqual({
    error_kind: expected.error_kind,
    error_code: expected.error_code,
    upstream: expected.upstream,
    retryable: expected.retryable,
    _meta: expected._meta,
  });
  expect(structured['tool']).toBe(recorded.call.tool);
}

describe('every recorded GitHub case, through the server process over stdio to the v2 SDK client', () => {
  let client: ClientV2;

  beforeAll(async () => {
    const inherited = process.env['NODE_OPTIONS'] ?? '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, ...serverArgs(replay.url)],
      cwd: PACKAGE,
      env: serverEnv({ NODE_OPTIONS: `${inherited} --import=${GUARD}`.trim(), LOOPBACK_GUARD_LOG: GUARD_LOG }),
      stderr: 'pipe',
    });
    client = new ClientV2({ name: 'github-cases-v2', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
  });

  it.each(CASES)('%s', async (_id, recorded) => {
    const result = await play(
      recorded,
      async () =>
        (await client.callTool({ name: recorded.call.tool, arguments: recorded.call.arguments })) as CallToolResult,
    );
    expectRecorded(recorded, result);
  });

  it('opened no connection outside 127.0.0.1 while answering them', () => {
    const entries = existsSync(GUARD_LOG)
      ? readFileSync(GUARD_LOG, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as { event: string })
      : [];
    // the server process was guarded, and the guard refused nothing
    expect(entries.some((entry) => entry.event === 'guarded')).toBe(true);
    expect(entries.filter((entry) => entry.event === 'refused')).toEqual([]);
  });
});

describe('every recorded GitHub case, through the server process over Streamable HTTP to the v1 SDK client', () => {
  let server: { child: ChildProcess; endpoint: URL };
  let client: ClientV1;

  beforeAll(async () => {
    server = await startHttpServer(replay.url);
    client = new ClientV1({ name: 'github-cases-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.endpoint));
  });

  afterAll(async () => {
    await client.close();
    server.child.kill();
  });

  it.each(CASES)('%s', async (_id, recorded) => {
    const result = await play(
      recorded,
      async () =>
        (await client.callTool({ name: recorded.call.tool, arguments: recorded.call.arguments })) as CallToolResult,
    );
    expectRecorded(recorded, result);
  });
});
