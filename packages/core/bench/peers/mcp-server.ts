/**
 * Peer: the SDK v2 high-level `McpServer` with the tools' schema in zod, over stdio. The
 * SDK validates the arguments against the zod schema and answers a failure with an error result.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

import { benchValue, fetchOrdersResult } from './tool.js';
import { zodToolShape } from './zod-shape.js';

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'peer-mcp-server', version: '0.0.0' });
  const inputSchema = z.object(zodToolShape());
  server.registerTool('bench', { inputSchema }, (args) => {
    const value = benchValue(args);
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  server.registerTool('fetch_orders', { inputSchema }, (args) => fetchOrdersResult(args));
  return server;
}

serveStdio(() => mcpServer());
