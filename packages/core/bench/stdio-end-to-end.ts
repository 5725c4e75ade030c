/**
 * End to end over stdio: a `tools/call` from an SDK v2 client to a child process whose handler
 * fetches a loopback upstream (a real HTTP server on 127.0.0.1 in this process), through core
 * against the same handler on a bare SDK v2 server (bench/stdio-server.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median } from './stats.js';

const SERVER_SCRIPT = fileURLToPath(new URL('./stdio-server.ts', import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the upstream answers: a small page of orders, as an SP-API listing would. */
const UPSTREAM_BODY = JSON.stringify({
  payload: {
    Orders: Array.from({ length: 5 }, (_, index) => ({
      AmazonOrderId: `902-30${index}5412-2381637`,
      OrderStatus: 'Shipped',
      PurchaseDate: '2026-04-01T10:00:00Z',
      OrderTotal: { CurrencyCode: 'EUR', Amount: `${19 + index}.99` },
    })),
    NextToken: 'token-2',
  },
});

async function loopbackUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(UPSTREAM_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

async function spawnServer(kind: 'envelope' | 'bare', upstreamUrl: string): Promise<Client> {
  const client = new Client({ name: `bench-stdio-${kind}`, version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', SERVER_SCRIPT, kind],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', UPSTREAM_URL: upstreamUrl },
      stderr: 'inherit',
    }),
  );
  return client;
}

/** What {@link stdioEndToEnd} measured: medians in milliseconds and the median of per-round ratios. */
export interface StdioMeasurement {
  readonly envelope: number;
  readonly bare: number;
  readonly ratio: number;
  readonly rounds: number;
  readonly callsPerRound: number;
}

/**
 * Calls both servers alternately, one call at a time, in `rounds` rounds of `callsPerRound` calls
 * each (the first of each pair alternating by round). A round's ratio is the median wall-clock
 * time of core's calls over the median of the bare server's: a burst of load from other processes
 * falls on both sides of the same round, and the median over rounds drops the rounds it skewed.
 */
export async function stdioEndToEnd(
  args: Record<string, unknown>,
  rounds: number,
  callsPerRound: number,
): Promise<StdioMeasurement> {
  const upstream = await loopbackUpstream();
  const clients = {
    envelope: await spawnServer('envelope', upstream.url),
    bare: await spawnServer('bare', upstream.url),
  };
  const timed = async (client: Client): Promise<number> => {
    const started = performance.now();
    const result = await client.callTool({ name: 'fetch_orders', arguments: args });
    if (result.isError === true) throw new Error(`the stdio call failed: ${JSON.stringify(result.content)}`);
    return performance.now() - started;
  };
  try {
    for (let warm = 0; warm < 200; warm += 1) {
      await timed(clients.envelope);
      await timed(clients.bare);
    }
    const times = { envelope: [] as number[], bare: [] as number[], ratios: [] as number[] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? (['envelope', 'bare'] as const) : (['bare', 'envelope'] as const);
      const roundTimes = { envelope: [] as number[], bare: [] as number[] };
      for (let call = 0; call < callsPerRound; call += 1)
        for (const kind of order) roundTimes[kind].push(await timed(clients[kind]));
      times.envelope.push(median(roundTimes.envelope));
      times.bare.push(median(roundTimes.bare));
      times.ratios.push(median(roundTimes.envelope) / median(roundTimes.bare));
    }
    return {
      envelope: median(times.envelope),
      bare: median(times.bare),
      ratio: median(times.ratios),
      rounds,
      callsPerRound,
    };
  } finally {
    await Promise.all([clients.envelope.close(), clients.bare.close()]);
    await upstream.close();
  }
}
