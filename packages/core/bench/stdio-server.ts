/**
 * The child process of the stdio end-to-end benchmark: `node --import tsx bench/stdio-server.ts
 * envelope|bare`, serving one tool over stdin/stdout whose handler fetches `UPSTREAM_URL` (a
 * loopback HTTP server the parent runs) and returns its JSON body. `envelope` serves it through
 * createEnvelopeServer, `bare` through a bare SDK v2 low-level Server, so the two differ only in
 * what core adds around the handler.
 */
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

import { benchServer } from './bench-server.js';
import { twentyPropertyTool } from './generate-tools.js';

const upstream = process.env['UPSTREAM_URL'];
if (upstream === undefined) throw new Error('UPSTREAM_URL must name the loopback upstream');
const upstreamUrl: string = upstream;
const { schema } = twentyPropertyTool();

async function fetchUpstream(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${upstreamUrl}/orders?name=${encodeURIComponent(String(args['name0']))}`);
  return (await response.json()) as Record<string, unknown>;
}

function bareServer(): Server {
  const server = new Server({ name: 'bare-stdio', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'fetch_orders', inputSchema: schema as { type: 'object' } }],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    if (request.params.name !== 'fetch_orders')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown tool');
    const value = await fetchUpstream(request.params.arguments ?? {});
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  return server;
}

const kind = process.argv[2];
if (kind === 'bare') {
  serveStdio(() => bareServer());
} else if (kind === 'envelope') {
  await benchServer('envelope-stdio', [
    { name: 'fetch_orders', inputSchema: schema, handler: fetchUpstream },
  ]).serveStdio();
} else {
  throw new Error('usage: stdio-server.ts envelope|bare');
}
