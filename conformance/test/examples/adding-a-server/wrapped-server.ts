// A server already written on the MCP SDK's McpServer, unchanged but for its last two lines,
// which serve it with envelopes. Run: node --import tsx wrapped-server.ts <API URL>
import { wrapMcpServer } from '@mcp-envelope/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import { libraryAdapter } from './adapter.js';

const api = process.argv[2] ?? 'http://127.0.0.1:8080';
const mcpServer = new McpServer({ name: 'library-server', version: '1.0.0' });

mcpServer.registerTool(
  'get_book',
  {
    description: 'One book by its ISBN.',
    inputSchema: {
      isbn: z
        .string()
        .regex(/^[0-9]{9}[0-9X]$|^97[89][0-9]{10}$/)
        .meta({ examples: ['9780141439518'] }),
    },
  },
  async ({ isbn }) => {
    // a deadline: without one, an API that never answers holds the call as long
    const response = await fetch(`${api}/books/${isbn}`, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`The library API answered ${response.status}`);
    return { content: [{ type: 'text', text: await response.text() }] };
  },
);

// was: await mcpServer.connect(new StdioServerTransport());
const server = await wrapMcpServer(mcpServer, { adapter: libraryAdapter });
await server.serveStdio();
