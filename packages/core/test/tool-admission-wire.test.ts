import { fileURLToPath } from 'node:url';

import { Client as ClientV2, InMemoryTransport as InMemoryTransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';

import { GOOD_HEADER_TOOL, REFUSED_HEADER_TOOL, REFUSED_TOOL_DEFAULT } from './fixtures/admission-tools.js';
import { connectInMemory } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/admission-stdio-server.ts', import.meta.url));

function createServer(): { server: ReturnType<typeof createEnvelopeServer>; log: ReturnType<typeof captureLog> } {
  const log = captureLog();
  const server = createEnvelopeServer({
    info: { name: 'admission-test', version: '0.0.1' },
    adapter: testAdapter,
    tools: [REFUSED_HEADER_TOOL, GOOD_HEADER_TOOL],
    options: { env: {}, logger: log.logger },
  });
  return { server, log };
}

function refusalLines(log: ReturnType<typeof captureLog>): Record<string, unknown>[] {
  return log.lines.filter((line) => line['rule'] !== undefined);
}

describe('tool admission at registration, seen by real SDK clients', () => {
  it('SDK v1 client: lists the good tool with its annotation, not the refused one; one log line names the tool and the rule', async () => {
    const { server, log } = createServer();
    const connected = await connectInMemory(server);
    const { client } = connected;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['route_report', 'get_envelope_contract']);
      expect(tools[0]?.inputSchema.properties).toEqual({ region: { type: 'string', 'x-mcp-header': 'Region' } });
      const called = await client.callTool({ name: 'hidden_header', arguments: {} });
      expect(called.isError).toBe(true);
      expect((called.structuredContent as { error_code: string }).error_code).toBe('TOOL_NOT_FOUND');
      expect(
        (await client.callTool({ name: 'route_report', arguments: { region: 'eu-west' } })).structuredContent,
      ).toEqual({ region: 'eu-west' });
    } finally {
      await connected.close();
    }
    expect(refusalLines(log)).toHaveLength(1);
    expect(refusalLines(log)[0]).toMatchObject({
      level: 40,
      tool: 'hidden_header',
      rule: 'header_location',
      header: 'Mcp-Param-Target',
      schema: 'inputSchema',
      pointer: '/$defs/Target',
    });
    expect(log.raw.join('\n')).not.toContain(REFUSED_TOOL_DEFAULT);
  });

  it('SDK v2 client: the same listing', async () => {
    const { server, log } = createServer();
    const [clientTransport, serverTransport] = InMemoryTransportV2.createLinkedPair();
    await server.connect(serverTransport);
    const client = new ClientV2({ name: 'v2-admission', version: '0.0.1' });
    await client.connect(clientTransport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['route_report', 'get_envelope_contract']);
    } finally {
      await client.close();
      await server.close();
    }
    expect(refusalLines(log).map((line) => [line['tool'], line['rule']])).toEqual([
      ['hidden_header', 'header_location'],
    ]);
  });

  it('stdio child process, SDK v1 client: the same listing, and the refusal is one JSON line on the real stderr', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'admission-stdio-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['route_report', 'get_envelope_contract']);
    } finally {
      await client.close();
    }
    const lines = stderr.split('\n').filter((line) => line.includes('"rule"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      name: 'mcp-envelope',
      level: 40,
      tool: 'hidden_header',
      rule: 'header_location',
      header: 'Mcp-Param-Target',
      pointer: '/$defs/Target',
    });
    expect(stderr).not.toContain(REFUSED_TOOL_DEFAULT);
  });
});
