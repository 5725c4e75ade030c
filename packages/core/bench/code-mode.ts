/**
 * Code Mode against direct calls, in one run: `execute_code` with a script making one inner
 * `callTool` against one `tools/call` of the same tool, and a script making ten inner calls
 * against ten `tools/call`s in a row. Both over Streamable HTTP on 127.0.0.1 from an SDK v2
 * client; the tool reads a loopback upstream (a real HTTP server in this process), as the
 * reference servers' tools do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import type { EnvelopeTool } from '../dist/index.js';
import { benchServer } from './bench-server.js';
import { median } from './stats.js';

/** The medians of one run, in milliseconds. */
export interface CodeModeFigures {
  readonly direct1: number;
  readonly inner1: number;
  readonly direct10: number;
  readonly inner10: number;
}

const BODY = JSON.stringify({
  payload: { Orders: Array.from({ length: 5 }, (_, index) => ({ AmazonOrderId: `902-30${index}5412-2381637` })) },
});

async function loopbackUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/orders`,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

function ordersTool(url: string): EnvelopeTool {
  return {
    name: 'list_orders',
    inputSchema: {
      type: 'object',
      properties: { marketplaceIds: { type: 'array', items: { type: 'string' } } },
      required: ['marketplaceIds'],
    },
    handler: async (_args, context) => (await context.fetch(url)).json(),
  };
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

function script(calls: number): string {
  return `const ids = [];
for (let i = 0; i < ${calls}; i += 1) {
  const reply = await callTool('list_orders', { marketplaceIds: ['A1PA6795UKMFR9'] });
  ids.push(reply.payload.Orders[0].AmazonOrderId);
}
return ids;`;
}

/**
 * Measures the four figures, interleaved round by round so that drift hits them alike.
 *
 * @param rounds - measured rounds (after a few warm-up rounds).
 * @returns the medians.
 */
export async function measureCodeMode(rounds: number): Promise<CodeModeFigures> {
  const upstream = await loopbackUpstream();
  const server = benchServer('code-mode-bench', [ordersTool(upstream.url)], { codeMode: true });
  const handle = await server.serveStreamableHttp({ port: 0 });
  const client = new Client({ name: 'code-mode-bench', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(handle.url));
  const direct = () => client.callTool({ name: 'list_orders', arguments: { marketplaceIds: ['A1PA6795UKMFR9'] } });
  const inner = async (calls: number): Promise<void> => {
    const result = await client.callTool({ name: 'execute_code', arguments: { code: script(calls) } });
    if (result.isError === true) throw new Error(`execute_code failed: ${JSON.stringify(result.structuredContent)}`);
  };
  const samples = {
    direct1: [] as number[],
    inner1: [] as number[],
    direct10: [] as number[],
    inner10: [] as number[],
  };
  for (let round = -5; round < rounds; round += 1) {
    const figures = {
      direct1: await timed(direct),
      inner1: await timed(() => inner(1)),
      direct10: await timed(async () => {
        for (let call = 0; call < 10; call += 1) await direct();
      }),
      inner10: await timed(() => inner(10)),
    };
    if (round < 0) continue;
    for (const key of Object.keys(samples) as (keyof typeof samples)[]) samples[key].push(figures[key]);
  }
  await client.close();
  await handle.close();
  server.close().catch(() => undefined);
  await upstream.close();
  return {
    direct1: median(samples.direct1),
    inner1: median(samples.inner1),
    direct10: median(samples.direct10),
    inner10: median(samples.inner10),
  };
}
