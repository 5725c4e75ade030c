// The root README's code blocks are real: each TypeScript block is, byte for byte, a file of
// test/examples, and this test runs those files. The example server runs over stdio as its own
// process against a weather API played on 127.0.0.1; the example agent runs as its own process,
// starts the server with the real MCP SDK client, and prints what it decided.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { callWithEnvelope, validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const AGENT = fileURLToPath(new URL('./examples/agent.ts', import.meta.url));
const SERVER = fileURLToPath(new URL('./examples/server.ts', import.meta.url));

/** The fenced code blocks of a Markdown text, in order, with their language. */
function codeBlocks(markdown: string): { language: string; code: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1] ?? '',
    code: match[2] ?? '',
  }));
}

describe('the README code blocks', () => {
  const blocks = codeBlocks(readFileSync(README, 'utf8'));

  it('are the agent example, the server example and the two commands, nothing else', () => {
    expect(blocks.map((block) => block.language)).toEqual(['ts', 'ts', 'sh']);
  });

  it('show test/examples/agent.ts and test/examples/server.ts exactly', () => {
    expect(blocks[0]?.code).toBe(readFileSync(AGENT, 'utf8'));
    expect(blocks[1]?.code).toBe(readFileSync(SERVER, 'utf8'));
  });

  it('run the two scripts of the root package.json', () => {
    const scripts = (
      JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const commands = (blocks[2]?.code ?? '').split('\n').filter((line) => line !== '');
    expect(commands.map((line) => line.replace(/\s+#.*$/, ''))).toEqual(['npm start', 'npm test']);
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test']));
  });
});

/** The weather API: Lisbon has a forecast, no other city exists; when `busy`, every request gets 429 with `Retry-After: 7`. */
function startWeatherApi(): Promise<{ server: Server; url: string; setBusy(busy: boolean): void }> {
  const state = { busy: false };
  const server = createServer((request, response) => {
    if (state.busy) {
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        .end('{"message":"slow down"}');
      return;
    }
    const found = request.url === '/forecast/Lisbon';
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(found ? { city: 'Lisbon', high_c: 21, sky: 'sunny' } : { message: 'no such city' }));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        setBusy: (busy) => (state.busy = busy),
      });
    });
  });
}

/** The example server's command line, run from TypeScript source. */
function serverCommand(api: string): string[] {
  return [process.execPath, '--import', 'tsx', SERVER, api];
}

/** Runs the example agent, which starts the example server itself; resolves with what it printed. */
function runAgent(api: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', AGENT, ...serverCommand(api)],
      { cwd: PACKAGE_ROOT, timeout: 60_000, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr });
      },
    );
  });
}

describe('the examples against a weather API on 127.0.0.1', () => {
  let api: Awaited<ReturnType<typeof startWeatherApi>>;

  beforeAll(async () => {
    api = await startWeatherApi();
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      api.server.close(() => {
        resolve();
      });
    });
  });

  it('the server answers a success with the data and an unknown city with a v2 envelope naming its upstream', async () => {
    api.setBusy(false);
    const [command = '', ...args] = serverCommand(api.url);
    const client = new Client({ name: 'readme-test', version: '0.0.1' });
    await client.connect(new StdioClientTransport({ command, args, cwd: PACKAGE_ROOT, stderr: 'ignore' }));
    try {
      expect(await callWithEnvelope(client, 'get_forecast', { city: 'Lisbon' })).toEqual([
        { city: 'Lisbon', high_c: 21, sky: 'sunny' },
        null,
      ]);
      const [value, envelope] = await callWithEnvelope(client, 'get_forecast', { city: 'Atlantis' });
      expect(value).toBeNull();
      expect(validateEnvelope(envelope)).toMatchObject({ valid: true, version: 2 });
      expect(envelope).toMatchObject({
        error_kind: 'upstream_http',
        error_code: 'UPSTREAM_HTTP_404',
        upstream: 'weather-api',
        retryable: false,
        tool: 'get_forecast',
        summary: 'The weather API answered HTTP 404.',
        hints: ['Check the spelling of the city.'],
        _envelope_version: 2,
      });
    } finally {
      await client.close();
    }
  });

  it('the agent prints the forecast, the upstream 404 and the validation failure', async () => {
    api.setBusy(false);
    const run = await runAgent(api.url);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      "Lisbon { city: 'Lisbon', high_c: 21, sky: 'sunny' }",
      'Atlantis: upstream_http UPSTREAM_HTTP_404 Check the spelling of the city.',
      ': mcp_input_validation SCHEMA_MIN_LENGTH Make city at least 1 characters long.',
      '',
    ]);
  });

  it('the agent waits as long as the busy API asked', async () => {
    api.setBusy(true);
    const run = await runAgent(api.url);
    expect(run.code).toBe(0);
    const [lisbon, atlantis, ...rest] = run.stdout.split('\n');
    expect(lisbon).toBe('Lisbon: retry in 7 s');
    // The server's limiter learned the 7 s wait from that 429 and refuses Atlantis itself, with what
    // is left of it: 7 s rounded up unless more than a second passed between the two calls (slack
    // for a loaded machine: anything from 1 to 7 s).
    expect(atlantis).toMatch(/^Atlantis: retry in [1-7] s$/);
    // the empty city never reaches the API: its envelope is the same whether the API is busy or not
    expect(rest).toEqual([': mcp_input_validation SCHEMA_MIN_LENGTH Make city at least 1 characters long.', '']);
  });
});
