import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSilentTokenEndpoint } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { CLI, PACKAGE } from './helpers/cli.js';
import { lwaEnv, startSpUpstream } from './helpers/sp-client.js';

let upstream: UpstreamReplay;
/** The servers' default model cache goes here, never into the home folder. */
let scratch: string;
beforeAll(async () => {
  upstream = await startSpUpstream();
  scratch = mkdtempSync(join(tmpdir(), 'sp-cli-test-'));
});
afterAll(async () => {
  await upstream.close();
  rmSync(scratch, { recursive: true, force: true });
});

function baseEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', XDG_CACHE_HOME: join(scratch, 'xdg-cache'), ...lwaEnv(upstream) };
}

async function listedToolNames(args: readonly string[]): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, ...args],
    cwd: PACKAGE,
    env: baseEnv(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cli-cache-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('mcp-envelope-sp over stdio', () => {
  it('serves the catalog and answers an upstream 429 with a rate_limited envelope', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, '--upstream', upstream.url],
      cwd: PACKAGE,
      env: baseEnv(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(17);
      upstream.respond({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '4', 'x-amzn-RequestId': 'cli-req-1' },
        body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] },
      });
      const result = (await client.callTool({
        name: 'sellers_getMarketplaceParticipations',
        arguments: {},
      })) as CallToolResult;
      const envelope = result.structuredContent as Record<string, unknown>;
      expect(result.isError).toBe(true);
      expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
      expect([envelope['error_kind'], envelope['error_code'], envelope['retryable'], envelope['_meta']]).toEqual([
        'rate_limited',
        'RATE_LIMITED',
        true,
        { retry_after_seconds: 4 },
      ]);
    } finally {
      await client.close();
    }
  });

  it('answers a 6 MB body with an envelope, not a 12 MB line the SDK stdio client refuses', async () => {
    // the body limit raised past the body: the result limit (default 9 MiB) is what keeps the line short
    const env = { ...baseEnv(), MCP_MAX_UPSTREAM_BODY_BYTES: String(8 * 1024 * 1024) };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, '--upstream', upstream.url],
      cwd: PACKAGE,
      env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-big-body-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      upstream.respond({ status: 200, body: { payload: 'x'.repeat(6_000_000) } });
      const result = (await client.callTool({
        name: 'sellers_getMarketplaceParticipations',
        arguments: {},
      })) as CallToolResult;
      const envelope = result.structuredContent as Record<string, unknown>;
      expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 1 });
      expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
        'sp_api_client',
        'TOOL_EXECUTION_FAILED',
        false,
      ]);
      expect((envelope['details'] as Record<string, unknown>[])[0]).toMatchObject({
        limit_bytes: 9 * 1024 * 1024,
        setting: 'MCP_MAX_RESULT_BYTES',
      });
      // the connection survived: the next call is answered
      upstream.respond({ status: 200, body: { payload: [] } });
      expect(
        ((await client.callTool({ name: 'sellers_getMarketplaceParticipations', arguments: {} })) as CallToolResult)
          .structuredContent,
      ).toEqual({ payload: [] });
    } finally {
      await client.close();
    }
  });

  it('caches converted --models in the default cache folder, or in --model-cache-dir, and not with --no-model-cache', async () => {
    const models = join(scratch, 'models');
    mkdirSync(models);
    copyFileSync(
      join(PACKAGE, 'test/fixtures/models/gadgets_2025-01-15.json'),
      join(models, 'gadgets_2025-01-15.json'),
    );
    const expected = [
      'gadgets20250115_saveGadget',
      'gadgets20250115_saveGadget_post',
      'get_envelope_contract',
      'set_region',
    ];
    expect(await listedToolNames(['--models', models])).toEqual(expected);
    expect(readdirSync(join(scratch, 'xdg-cache', 'mcp-envelope-sp'))).toHaveLength(1);
    // the second start reads the cache and lists the same tools
    expect(await listedToolNames(['--models', models])).toEqual(expected);
    const chosen = join(scratch, 'chosen-cache');
    expect(await listedToolNames(['--models', models, '--model-cache-dir', chosen])).toEqual(expected);
    expect(readdirSync(chosen)).toHaveLength(1);
    const unused = join(scratch, 'unused-cache');
    expect(await listedToolNames(['--models', models, '--no-model-cache', '--model-cache-dir', unused])).toEqual(
      expected,
    );
    expect(existsSync(unused)).toBe(false);
  });

  it('exits with a message naming a bad flag value', async () => {
    const child = spawn(process.execPath, [...CLI, '--http', 'eighty'], { cwd: PACKAGE, env: baseEnv() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain("option '--http <port>' argument 'eighty' is invalid");
    const empty = spawn(process.execPath, [...CLI, '--models', 'test/fixtures/models', '--model-cache-dir', ''], {
      cwd: PACKAGE,
      env: baseEnv(),
    });
    let emptyStderr = '';
    empty.stderr.on('data', (chunk: Buffer) => (emptyStderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => empty.on('exit', resolve))).not.toBe(0);
    expect(emptyStderr).toContain("option '--model-cache-dir <dir>' argument '' is invalid. must be a folder path");
  });

  it('stops at start on an identities file that names an unset token variable, without printing any token', async () => {
    const file = join(scratch, 'identities.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          id: 1,
          name: 'Acme US',
          region: 'na',
          marketplace_ids: ['ATVPDKIKX0DER'],
          refresh_token_env: 'SELLER1_REFRESH_TOKEN',
        },
        {
          id: 2,
          name: 'Acme DE',
          region: 'eu',
          marketplace_ids: ['A1PA6795UKMFR9'],
          refresh_token_env: 'SELLER2_REFRESH_TOKEN',
        },
      ]),
    );
    const child = spawn(process.execPath, CLI, {
      cwd: PACKAGE,
      env: { ...baseEnv(), SP_IDENTITIES_FILE: file, SELLER1_REFRESH_TOKEN: 'Atzr|cli-seller-one-token-0001' },
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    expect(output).toBe(
      `mcp-envelope-sp: SP_IDENTITIES_FILE ${file}: identities[1]: environment variable SELLER2_REFRESH_TOKEN (the refresh token of identity 2) is not set\n`,
    );
  });
});

describe('mcp-envelope-sp checks LWA_TOKEN_URL at start', () => {
  it.each([
    ['/auth/o2/token', 'is not an absolute URL'],
    ['file:///etc/passwd', 'must be an http(s) URL'],
    ['https://app:amzn1.oa2-cs.v1.start-secret@api.amazon.com/auth/o2/token', 'must not carry a user name or password'],
  ])('exits 1 with one line naming the variable, not the value, for %j', async (value, problem) => {
    const child = spawn(process.execPath, CLI, { cwd: PACKAGE, env: { ...baseEnv(), LWA_TOKEN_URL: value } });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    expect(output).toBe(
      `mcp-envelope-sp: LWA_TOKEN_URL ${problem}: set it to the token endpoint itself, e.g. https://api.amazon.com/auth/o2/token (its value is not shown, as it may hold a secret)\n`,
    );
  });
});

describe('mcp-envelope-sp checks --upstream at start', () => {
  it.each([
    ['https://proxy-user:s3cret-pass@sp-proxy.example.com', 'must not carry a user name or password'],
    [
      'http://sp-proxy.example.com',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
    ['sellingpartnerapi-na.amazon.com?token=s3cret-pass', 'is not an absolute URL'],
  ])('exits 1 with one line naming the option, not the value, for %j', async (value, problem) => {
    const child = spawn(process.execPath, [...CLI, '--upstream', value], { cwd: PACKAGE, env: baseEnv() });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    // the usage text follows, as after any option error
    expect(output.split('\n')[0]).toBe(
      `error: --upstream ${problem} (its value is not shown, as it may hold a secret)`,
    );
    expect(output).not.toContain('s3cret');
  });
});

describe('mcp-envelope-sp stops when the client closes stdin', () => {
  it('exits 0 at once, even while the token request it made after tools/list is still unanswered', async () => {
    const silent = await startSilentTokenEndpoint();
    const child = spawn(process.execPath, CLI, {
      cwd: PACKAGE,
      env: { ...baseEnv(), LWA_TOKEN_URL: silent.tokenUrl },
    });
    try {
      const lines = (messages: readonly object[]): string => messages.map((m) => `${JSON.stringify(m)}\n`).join('');
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stdin.write(
        lines([
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } },
          },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        ]),
      );
      const listed = new Promise<void>((resolve) => {
        const check = (): void => {
          if (stdout.includes('"id":2')) resolve();
        };
        child.stdout.on('data', check);
        check();
      });
      await Promise.all([listed, silent.whenConnections(1)]);
      expect(silent.connections()).toBe(1);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const closedAt = performance.now();
      child.stdin.end();
      expect(await exited).toBe(0);
      // a real clock across processes: exiting takes well under a second, and what this rules out is
      // waiting for the token request's own 10 s timeout, so 5 s leaves slack for a loaded machine
      expect(performance.now() - closedAt).toBeLessThan(5000);
    } finally {
      child.kill();
      silent.close();
    }
  });
});

describe('an application embedding the server', () => {
  it.each([
    ['list', 'the token request made after tools/list'],
    ['call', 'the token request a call started'],
    ['identity', "the token request a call started for an identity's own credentials"],
  ])('exits at once after closing it (%s), even while %s is unanswered', async (mode) => {
    const silent = await startSilentTokenEndpoint();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/embed-and-close.ts', silent.tokenUrl, mode],
      {
        cwd: PACKAGE,
        env: baseEnv(),
      },
    );
    try {
      let closedAt = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('closed')) closedAt = performance.now();
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      // the token request reached the endpoint (Node's fetch may open a spare connection after an abort)
      expect(silent.connections()).toBeGreaterThanOrEqual(1);
      expect(closedAt).toBeGreaterThan(0);
      // a real clock across processes: exiting takes well under a second, and what this rules out is
      // waiting for the token request's own 10 s timeout, so 5 s leaves slack for a loaded machine
      expect(performance.now() - closedAt).toBeLessThan(5000);
    } finally {
      child.kill();
      silent.close();
    }
  });
});

describe('mcp-envelope-sp over Streamable HTTP', () => {
  let child: ChildProcess;
  let endpoint: URL;

  beforeAll(async () => {
    child = spawn(
      process.execPath,
      [...CLI, '--http', '0', '--upstream', upstream.url, '--models', 'test/fixtures/models'],
      { cwd: PACKAGE, env: baseEnv() },
    );
    endpoint = await new Promise<URL>((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1] !== undefined) resolve(new URL(match[1]));
      });
      child.on('exit', () => {
        reject(new Error(`server exited: ${stderr}`));
      });
    });
  });

  afterAll(() => {
    child.kill('SIGTERM');
  });

  it('loads --models and answers a 403 with an auth_error envelope', async () => {
    const client = new Client({ name: 'cli-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'gadgets20250115_saveGadget',
        'gadgets20250115_saveGadget_post',
        'get_envelope_contract',
        'set_region',
        'widgetsV0_createWidget',
        'widgetsV0_getWidget',
        'widgetsV0_listWidgets',
      ]);
      upstream.respond({
        status: 403,
        headers: { 'content-type': 'application/json', 'x-amz-rid': 'rid-403' },
        body: { errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.', details: '' }] },
      });
      const result = (await client.callTool({
        name: 'widgetsV0_getWidget',
        arguments: { widgetId: 'w-9' },
      })) as CallToolResult;
      const envelope = result.structuredContent as Record<string, unknown>;
      expect([envelope['error_kind'], envelope['error_code'], envelope['retryable']]).toEqual([
        'auth_error',
        'SP_API_HTTP_403',
        false,
      ]);
      expect((envelope['details'] as Record<string, unknown>[])[0]?.['request_id']).toBe('rid-403');
    } finally {
      await client.close();
    }
  });
});
