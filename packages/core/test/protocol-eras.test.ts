/**
 * Both protocol eras through real SDK v2 clients: 2025-11-25 (`initialize`) and 2026-07-28
 * (`server/discover`, stateless), over stdio (a child process) and Streamable HTTP on 127.0.0.1.
 */
import { fileURLToPath } from 'node:url';

import { ENVELOPE_EXTENSION_ID, validateEnvelope } from '@mcp-envelope/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { StreamableHttpHandle } from '../src/index.js';
import { createTestServer, REPORT_NOT_FOUND } from './fixtures/test-server.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));

type Era = 'legacy' | 'modern';
type Transport = 'stdio' | 'http';

let handle: StreamableHttpHandle;

beforeAll(async () => {
  handle = await createTestServer().serveStreamableHttp();
});

afterAll(async () => {
  await handle.close();
});

async function connect(era: Era, over: Transport): Promise<Client> {
  const client = new Client(
    { name: `eras-${era}-${over}`, version: '0.0.1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport =
    over === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', STDIO_SERVER],
          cwd: PACKAGE_ROOT,
          env: { PATH: process.env['PATH'] ?? '' },
          stderr: 'ignore',
        })
      : new StreamableHTTPClientTransport(handle.url);
  await client.connect(transport);
  return client;
}

const CASES: readonly (readonly [Era, Transport])[] = [
  ['legacy', 'stdio'],
  ['modern', 'stdio'],
  ['legacy', 'http'],
  ['modern', 'http'],
];

describe.each(CASES)('SDK v2 client, %s era, over %s', (era, over) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(era, over);
  });

  afterAll(async () => {
    await client.close();
  });

  it('negotiates the era and reads the envelope capability where that era puts it', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    const capabilities = client.getServerCapabilities();
    const experimental = capabilities?.experimental?.['openbridge_envelope'];
    expect(experimental).toMatchObject({
      contract_version: 1,
      error_kinds: expect.arrayContaining(['mcp_input_validation', 'tool_not_found', 'internal_error']) as unknown,
    });
    expect(capabilities?.extensions?.[ENVELOPE_EXTENSION_ID]).toEqual(experimental);
    expect(capabilities?.logging).toEqual({});
  });

  it('lists tools with widened output schemas and calls them with envelopes intact', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'report_summary')?.outputSchema?.['anyOf']).toHaveLength(2);
    const failed = await client.callTool({ name: 'report_summary', arguments: { fail: true } });
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(REPORT_NOT_FOUND) }],
      structuredContent: REPORT_NOT_FOUND,
    });
    for (const [name, code] of [
      ['list_orders', 'SCHEMA_REQUIRED'],
      ['nope', 'TOOL_NOT_FOUND'],
      ['explode', 'INTERNAL_ERROR'],
    ] as const) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error_code: string }).error_code).toBe(code);
      expect(validateEnvelope(result.structuredContent)).toEqual({ valid: true, version: 1 }); // no version stated: this server's default, v1
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
    }
    expect((await client.callTool({ name: 'report_summary', arguments: {} })).structuredContent).toEqual({
      total: 42,
      _meta: { rate_limit: { remaining: 9 } },
    });
  });

  it('sends an array, string or null result as structuredContent only under 2026-07-28', async () => {
    const cases = [
      ['get_tags', {}, ['red', 'green'], '["red","green"]'],
      ['echo_text', { text: 'hi' }, 'hi', 'hi'],
      ['get_nothing', {}, null, 'null'],
    ] as const;
    for (const [name, args, value, text] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.content).toEqual([{ type: 'text', text }]);
      if (era === 'modern') expect(result.structuredContent).toEqual(value);
      else expect(result.structuredContent).toBeUndefined();
    }
  });
});
