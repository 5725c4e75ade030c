import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { envelopeOf, TEST_MODELS_DIR, testEnv } from './support/harness.js';
import { startAmazonReplay, startSilentTokenEndpoint } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

// The bin as users run it: the built dist/cli.js (turbo builds before testing).
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

let replay: UpstreamReplay;

beforeAll(async () => {
  expect(existsSync(CLI), 'run the package build before its tests').toBe(true);
  replay = await startAmazonReplay();
});

afterAll(async () => {
  await replay.close();
});

function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const base = { PATH: process.env['PATH'] ?? '', ...testEnv(replay), ...extra };
  return Object.fromEntries(Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

describe('mcp-envelope-ads stops when the client closes stdin', () => {
  it('exits at once, even while the token request it made after tools/list is still unanswered', async () => {
    const silent = await startSilentTokenEndpoint();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--upstream', replay.url],
      env: childEnv({ LWA_TOKEN_URL: silent.tokenUrl }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-stop-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.listTools();
      await silent.whenConnections(1);
      expect(silent.connections()).toBe(1);
      const closing = performance.now();
      // the SDK client closes stdin and waits 2 s (a setTimeout) for the exit before it sends SIGTERM:
      // with that timer faked it never fires, so close() returns only if stdin alone ended the server
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        await client.close();
      } finally {
        vi.useRealTimers();
      }
      // a real clock across processes: exiting takes well under a second, and what this rules out is
      // waiting for the token request's own 10 s timeout, so 5 s leaves slack for a loaded machine
      expect(performance.now() - closing).toBeLessThan(5000);
    } finally {
      silent.close();
    }
  });
});

describe('mcp-envelope-ads over stdio', () => {
  it('serves the catalog and classifies an upstream 429 end to end', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--upstream', replay.url, '--models', TEST_MODELS_DIR],
      env: childEnv(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('mcp-envelope-ads');
      const { tools } = await client.listTools();
      expect(tools.length).toBe(11);
      replay.enqueue({
        status: 429,
        headers: { 'Retry-After': '4', 'x-amz-rid': 'CLI429RID' },
        body: { message: 'Too Many Requests' },
      });
      const envelope = envelopeOf(
        (await client.callTool({ name: 'list_sb_campaigns', arguments: {} })) as CallToolResult,
      );
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

  it('refuses an unreadable ADS_API_REGION at start-up with exit code 2', async () => {
    const child = spawn(process.execPath, [CLI], {
      env: childEnv({ ADS_API_REGION: 'moon' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('mcp-envelope-ads: ADS_API_REGION must be one of na, eu, fe\n');
    expect(stderr).not.toContain('moon');
  });
});

describe('mcp-envelope-ads checks LWA_TOKEN_URL at start', () => {
  it.each([
    ['api.amazon.co.uk/auth/o2/token', 'is not an absolute URL'],
    ['ws://127.0.0.1:9/token', 'must be an http(s) URL'],
    ['https://app:amzn1.oa2-cs.v1.start-secret@api.amazon.com/auth/o2/token', 'must not carry a user name or password'],
  ])('exits 2 with one line naming the variable, not the value, for %j', async (value, problem) => {
    const child = spawn(process.execPath, [CLI], { env: childEnv({ LWA_TOKEN_URL: value }) });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(2);
    expect(output).toBe(
      `mcp-envelope-ads: LWA_TOKEN_URL ${problem}: set it to the token endpoint itself, e.g. https://api.amazon.com/auth/o2/token (its value is not shown, as it may hold a secret)\n`,
    );
  });
});

describe('mcp-envelope-ads checks --upstream at start', () => {
  // core's upstreamFromCommandLine, as the SP and GitHub servers check it: a blank value is an
  // error, not a silent fall back to the production region host
  it.each([
    ['  ', 'is not an absolute URL'],
    ['https://proxy-user:s3cret-pass@ads-proxy.example.com', 'must not carry a user name or password'],
    [
      'http://ads-proxy.example.com',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
    ['ftp://ads-proxy.example.com', 'must be an http(s) URL'],
    ['advertising-api.amazon.com?token=s3cret-pass', 'is not an absolute URL'],
  ])('exits 1 with one line naming the option, not the value, for %j', async (value, problem) => {
    const child = spawn(process.execPath, [CLI, '--upstream', value], { env: childEnv() });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdin.end();
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    expect(output.split('\n')[0]).toBe(
      `error: --upstream ${problem} (its value is not shown, as it may hold a secret)`,
    );
    expect(output).not.toContain('s3cret');
  });
});

describe('mcp-envelope-ads --http', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGTERM');
  });

  it('serves Streamable HTTP on 127.0.0.1 and answers envelopes there', async () => {
    // blanks and a trailing slash around --upstream are dropped: the replay sees /v2/profiles
    child = spawn(process.execPath, [CLI, '--http', '0', '--upstream', ` ${replay.url}/ `], {
      env: childEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child?.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child?.on('exit', () => {
        reject(new Error(`server exited: ${stderr}`));
      });
    });
    const client = new Client({ name: 'cli-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      replay.enqueue({ status: 200, body: [{ profileId: 42, countryCode: 'DE' }] });
      const result = (await client.callTool({ name: 'list_profiles', arguments: {} })) as CallToolResult;
      expect(result.structuredContent).toEqual({ profiles: [{ profileId: 42, countryCode: 'DE' }] });
      expect(replay.requests.at(-1)?.path).toBe('/v2/profiles');
      const envelope = envelopeOf(
        (await client.callTool({ name: 'set_region', arguments: { region: 'europe' } })) as CallToolResult,
      );
      expect(envelope['hints']).toContain('Did you mean eu? Got europe.');
    } finally {
      await client.close();
    }
  });
});
