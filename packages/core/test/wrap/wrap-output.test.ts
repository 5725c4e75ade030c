/**
 * What a wrapped tool's success must be: its declared output. A tool that declares an
 * `outputSchema` and answers text that is not its structured output (an HTML page passed on, no
 * `structuredContent`), or `structuredContent` the schema refuses, ends as an `internal_error`
 * envelope, the reason in the log line only; a tool that declares no output schema answers text,
 * and any text is its output. The SDK v1 and v2 `McpServer` wrapped and served over Streamable
 * HTTP on 127.0.0.1, read by the real SDK v2 client.
 */
import { validateEnvelope } from '@mcp-envelope/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { wrapMcpServer } from '../../src/index.js';
import type { WrappableMcpServer } from '../../src/index.js';
import { captureLog } from '../fixtures/log-capture.js';
import { catalogAdapter } from './fixtures/catalog-mcp-servers.js';

const PAGE = '<html><body>Service busy</body></html>';
const BOOK = { title: z.string() };
const pageOnly = (): Promise<{ content: { type: 'text'; text: string }[] }> =>
  Promise.resolve({ content: [{ type: 'text', text: PAGE }] });
const wrongShape = (): Promise<{
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
}> => Promise.resolve({ content: [{ type: 'text', text: PAGE }], structuredContent: { title: 5 } });

function serverV1(): McpServerV1 {
  const server = new McpServerV1({ name: 'output-v1', version: '1.0.0' });
  server.registerTool('book_page', { inputSchema: {}, outputSchema: BOOK }, pageOnly);
  server.registerTool('book_wrong_shape', { inputSchema: {}, outputSchema: BOOK }, wrongShape);
  server.registerTool('page_text', { inputSchema: {} }, pageOnly);
  return server;
}

function serverV2(): McpServerV2 {
  const server = new McpServerV2({ name: 'output-v2', version: '2.0.0' });
  server.registerTool('book_page', { inputSchema: z.object({}), outputSchema: z.object(BOOK) }, pageOnly);
  server.registerTool('book_wrong_shape', { inputSchema: z.object({}), outputSchema: z.object(BOOK) }, wrongShape);
  server.registerTool('page_text', { inputSchema: z.object({}) }, pageOnly);
  return server;
}

describe.each([
  ['SDK v1 McpServer', serverV1],
  ['SDK v2 McpServer', serverV2],
] as const)('a wrapped %s', (_name, make: () => WrappableMcpServer) => {
  it('answers an internal_error envelope for a result its outputSchema does not admit, and passes text of a tool without one', async () => {
    const log = captureLog();
    const wrapped = await wrapMcpServer(make(), { adapter: catalogAdapter, options: { logger: log.logger } });
    const handle = await wrapped.serveStreamableHttp({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'wrap-output-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      for (const tool of ['book_page', 'book_wrong_shape']) {
        const result = await client.callTool({ name: tool, arguments: {} });
        expect(result.isError).toBe(true);
        const envelope = result.structuredContent as Record<string, unknown>;
        expect(validateEnvelope(envelope).valid).toBe(true);
        expect([envelope['error_kind'], envelope['error_code'], envelope['tool']]).toEqual([
          'internal_error',
          'INTERNAL_ERROR',
          tool,
        ]);
        // the page is in the log line under the envelope's correlation id, never in the answer
        expect(JSON.stringify(result)).not.toContain('Service busy');
      }
      const reasons = log.lines.map((line) => String((line['error'] as { message?: unknown } | undefined)?.message));
      expect(reasons.filter((reason) => reason.includes('has an output schema but'))).toHaveLength(1);
      expect(
        reasons.filter((reason) => reason.includes('Invalid structured content for tool book_wrong_shape')),
      ).toHaveLength(1);
      const text = await client.callTool({ name: 'page_text', arguments: {} });
      expect(text.isError).not.toBe(true);
      expect(text.content).toEqual([{ type: 'text', text: PAGE }]);
    } finally {
      await client.close();
      await handle.close();
      await wrapped.close();
    }
  });
});
