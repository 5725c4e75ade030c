/**
 * Core beside what users pick instead, over stdio: the same two tools (bench/peers/tool.ts) on
 * core, the SDK v2 low-level `Server` with Ajv, the SDK v2 `McpServer` with zod and FastMCP 4.20,
 * each a child process driven by the same SDK v2 client. Warm calls are interleaved one call at a
 * time across the servers, so a burst of load from other processes falls on all of them alike;
 * cold starts spawn one fresh process per server in turn.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { twentyPropertyTool } from './generate-tools.js';
import { THROTTLED_NAME } from './peers/tool.js';
import { median } from './stats.js';

/** The peers, by the file under bench/peers/ that serves them. */
export const PEERS = { lowLevel: 'low-level.ts', mcpServer: 'mcp-server.ts', fastmcp: 'fastmcp.ts' } as const;
/** One of {@link PEERS}. */
export type Peer = keyof typeof PEERS;
/** Core, core with the limiter, and the peers. */
export type PeerServer = Peer | 'core' | 'coreLimiter';

/**
 * The calls measured warm: which tool, which arguments, and whether core with the limiter takes
 * part (an upstream 429 makes the limiter hold that tool back, as it should, so it sits out the
 * calls that get one).
 */
export const PEER_CALLS = {
  valid: { tool: 'bench', name0: undefined, invalid: false, limiter: true },
  upstream: { tool: 'fetch_orders', name0: undefined, invalid: false, limiter: true },
  invalid: { tool: 'bench', name0: undefined, invalid: true, limiter: false },
  throttled: { tool: 'fetch_orders', name0: THROTTLED_NAME, invalid: false, limiter: false },
} as const;
/** One of {@link PEER_CALLS}. */
export type PeerCall = keyof typeof PEER_CALLS;

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * Where the servers are transpiled to JavaScript: each child runs as a user's compiled server
 * does, without a TypeScript loader, which would tax every module a server loads (and core loads
 * more than its peers). One level below the package, so `../../dist` still names core's build.
 */
const COMPILED = new URL('../.bench-peers/', import.meta.url);

/** Transpiles bench/peers/*.ts and what they import from bench/ into {@link COMPILED}. */
async function compilePeers(): Promise<void> {
  const { default: ts } = await import('typescript');
  const sources = [
    'generate-tools.ts',
    ...readdirSync(new URL('./peers/', import.meta.url)).map((file) => `peers/${file}`),
  ];
  mkdirSync(new URL('./peers/', COMPILED), { recursive: true });
  for (const source of sources) {
    const { outputText } = ts.transpileModule(readFileSync(new URL(`./${source}`, import.meta.url), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
    });
    writeFileSync(new URL(source.replace(/\.ts$/, '.js'), COMPILED), outputText);
  }
}
const ORDERS = JSON.stringify({
  payload: {
    Orders: Array.from({ length: 5 }, (_, index) => ({
      AmazonOrderId: `902-30${index}5412-2381637`,
      OrderStatus: 'Shipped',
      OrderTotal: { CurrencyCode: 'EUR', Amount: `${19 + index}.99` },
    })),
    NextToken: 'token-2',
  },
});
const QUOTA = JSON.stringify({
  errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }],
});

/** A loopback HTTP upstream: a page of orders, or 429 with a quota error for {@link THROTTLED_NAME}. */
async function loopbackUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    const throttled = (request.url ?? '').endsWith(`name=${THROTTLED_NAME}`);
    response
      .writeHead(throttled ? 429 : 200, {
        'content-type': 'application/json',
        ...(throttled ? { 'retry-after': '1' } : {}),
      })
      .end(throttled ? QUOTA : ORDERS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Starts `server` as a child process and connects the SDK v2 client to it over stdio. */
async function connectTo(server: PeerServer, upstreamUrl: string): Promise<Client> {
  const file = (server === 'core' || server === 'coreLimiter' ? 'core.ts' : PEERS[server]).replace(/\.ts$/, '.js');
  const client = new Client({ name: `bench-peer-${server}`, version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL(`./peers/${file}`, COMPILED)), ...(server === 'coreLimiter' ? ['limiter'] : [])],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', UPSTREAM_URL: upstreamUrl },
      // core's default logger writes to stderr, as it does for a user; nobody reads it here
      stderr: 'ignore',
    }),
  );
  return client;
}

/** The arguments of `call`. */
function argumentsOf(call: PeerCall): Record<string, unknown> {
  const { validArgs, invalidArgs } = twentyPropertyTool();
  const spec = PEER_CALLS[call];
  const args = spec.invalid ? invalidArgs : validArgs;
  return spec.name0 === undefined ? args : { ...args, name0: spec.name0 };
}

/**
 * Makes `call` once and returns its wall-clock time in ms. An invalid argument or an upstream
 * failure must come back as an error (a result with `isError`, or a JSON-RPC error, as FastMCP
 * answers an invalid argument), a valid call as a success.
 */
async function timedCall(client: Client, call: PeerCall): Promise<number> {
  const { tool } = PEER_CALLS[call];
  const args = argumentsOf(call);
  const started = performance.now();
  const answer = await client.callTool({ name: tool, arguments: args }).then(
    (result) => ({ failed: result.isError === true, result }),
    (error: unknown) => ({ failed: true, result: String(error) }),
  );
  const elapsed = performance.now() - started;
  if (answer.failed !== (call === 'invalid' || call === 'throttled'))
    throw new Error(
      `${client.getServerVersion()?.name ?? '?'}: the ${call} call had the wrong outcome: ${JSON.stringify(answer.result).slice(0, 600)}`,
    );
  return elapsed;
}

/** What {@link measureWarmCalls} measured, per call and per server (nothing for a server that sat out). */
export interface WarmRounds {
  /** The median call time of each round, in ms. */
  readonly times: Record<PeerCall, Record<PeerServer, number[]>>;
  /** The size of the answer, as JSON text, in bytes. */
  readonly bytes: Record<PeerCall, Partial<Record<PeerServer, number>>>;
}

async function answerBytes(client: Client, call: PeerCall): Promise<number> {
  const answer = await client
    .callTool({ name: PEER_CALLS[call].tool, arguments: argumentsOf(call) })
    .catch((error: unknown) => String(error));
  return Buffer.byteLength(JSON.stringify(answer));
}

/**
 * Warm calls: `rounds` rounds; in each, for each call, `callsPerRound` times one call to each
 * server (the order turning by one server every time), after a warm-up of 100 calls each.
 */
export async function measureWarmCalls(rounds: number, callsPerRound: number): Promise<WarmRounds> {
  await compilePeers();
  const upstream = await loopbackUpstream();
  const servers: PeerServer[] = ['core', 'coreLimiter', ...(Object.keys(PEERS) as Peer[])];
  const clients = new Map<PeerServer, Client>();
  for (const server of servers) clients.set(server, await connectTo(server, upstream.url));
  const calls = Object.keys(PEER_CALLS) as PeerCall[];
  const times = Object.fromEntries(
    calls.map((call) => [call, Object.fromEntries(servers.map((server) => [server, [] as number[]]))]),
  ) as WarmRounds['times'];
  const bytes = Object.fromEntries(calls.map((call) => [call, {}])) as WarmRounds['bytes'];
  try {
    const taking = (call: PeerCall): PeerServer[] =>
      PEER_CALLS[call].limiter ? servers : servers.filter((server) => server !== 'coreLimiter');
    for (const call of calls)
      for (let warm = 0; warm < 100; warm += 1)
        for (const server of taking(call)) await timedCall(clients.get(server) as Client, call);
    for (let round = 0; round < rounds; round += 1)
      for (const call of calls) {
        const part = taking(call);
        const roundTimes = new Map(part.map((server) => [server, [] as number[]]));
        for (let index = 0; index < callsPerRound; index += 1)
          for (let turn = 0; turn < part.length; turn += 1) {
            const server = part[(turn + index + round) % part.length] as PeerServer;
            roundTimes.get(server)?.push(await timedCall(clients.get(server) as Client, call));
          }
        for (const server of part) times[call][server].push(median(roundTimes.get(server) ?? []));
      }
    for (const call of calls)
      for (const server of taking(call)) bytes[call][server] = await answerBytes(clients.get(server) as Client, call);
    return { times, bytes };
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await upstream.close();
  }
}

/** One fresh process: from spawn to the first call's answer, and the second call alone, in ms. */
export interface ColdStart {
  readonly firstAnswer: number;
  readonly firstCall: number;
  readonly secondCall: number;
}

/**
 * Cold starts: `runs` times, each server in turn (the order turning by one per run) is spawned,
 * initialized, listed, and called twice with the valid call at once, as a host starting a server
 * for a session does.
 */
export async function measureColdStarts(runs: number): Promise<Record<'core' | Peer, ColdStart[]>> {
  await compilePeers();
  const upstream = await loopbackUpstream();
  const servers = ['core', ...(Object.keys(PEERS) as Peer[])] as const;
  const starts = Object.fromEntries(servers.map((server) => [server, [] as ColdStart[]])) as Record<
    'core' | Peer,
    ColdStart[]
  >;
  try {
    for (let run = 0; run < runs; run += 1)
      for (let turn = 0; turn < servers.length; turn += 1) {
        const server = servers[(turn + run) % servers.length] as 'core' | Peer;
        const started = performance.now();
        const client = await connectTo(server, upstream.url);
        await client.listTools();
        const firstCall = await timedCall(client, 'valid');
        const firstAnswer = performance.now() - started;
        const secondCall = await timedCall(client, 'valid');
        await client.close();
        starts[server].push({ firstAnswer, firstCall, secondCall });
      }
    return starts;
  } finally {
    await upstream.close();
  }
}

/** The peers' names as printed. */
const PEER_LABELS: Record<Peer, string> = {
  lowLevel: 'SDK v2 low-level Server + Ajv',
  mcpServer: 'SDK v2 McpServer + zod',
  fastmcp: 'FastMCP 4.20',
};

/** One row of the peer table: core's figure, each peer's, and the ratio to the fastest peer. */
export interface PeerRow {
  readonly name: string;
  /** Medians in ms. */
  readonly core: number;
  readonly peers: Readonly<Record<Peer, number>>;
  /** The peer with the lowest median, and the median over rounds of core / that peer. */
  readonly fastest: Peer;
  readonly ratio: number;
  /** Every peer's ratio, as printed. */
  readonly figure: string;
}

/**
 * A row from per-round times: `core` and each peer's, round by round (or fresh process by fresh
 * process); the ratio is the median of the per-round ratios to the peer whose median is lowest.
 */
export function peerRow(
  name: string,
  core: readonly number[],
  peers: Readonly<Record<Peer, readonly number[]>>,
): PeerRow {
  const medians = Object.fromEntries(
    (Object.keys(PEERS) as Peer[]).map((peer) => [peer, median(peers[peer])]),
  ) as Record<Peer, number>;
  const fastest = (Object.keys(PEERS) as Peer[]).reduce((best, peer) => (medians[peer] < medians[best] ? peer : best));
  const ratioTo = (peer: Peer): number => median(core.map((time, round) => time / (peers[peer][round] as number)));
  const figure = `core ${median(core).toFixed(2)} ms; ${(Object.keys(PEERS) as Peer[])
    .map((peer) => `${PEER_LABELS[peer]} ${medians[peer].toFixed(2)} ms (${ratioTo(peer).toFixed(2)}x)`)
    .join(', ')}`;
  return { name, core: median(core), peers: medians, fastest, ratio: ratioTo(fastest), figure };
}

/** The label of `peer` as printed. */
export function peerLabel(peer: Peer): string {
  return PEER_LABELS[peer];
}

/**
 * Why a row can stay above 1.10x the fastest peer, printed under it when it does: the work core
 * does that the peers do not, as `node --cpu-prof` profiles of these servers show it.
 */
export const PEER_WHY: Readonly<Record<PeerCall | 'coldStart' | 'secondCall', string>> = {
  valid:
    'per call core also normalizes argument keys and values before validating, runs the handler in a call context (logging, telemetry, cancellation, the contract version the client reads) and redacts secrets from the result; tens of microseconds against a call of about half a millisecond over stdio.',
  upstream:
    "core's context.fetch guards the exchange (one deadline, a body limit, same-origin redirects only) and records the upstream's rate-limit telemetry for the result; the peers call fetch bare.",
  invalid:
    "core answers an envelope (kind, code, path, expected and received type, a hint) in text and in structuredContent, several times the bytes of a peer's one-line message (see answer bytes), after checking it against the contract's schema.",
  throttled:
    "core classifies the 429 through the adapter, reads the upstream's rate-limit headers, tells the limiter, and answers a checked envelope (retryable, when to retry); the peers pass the status and body on as text.",
  coldStart:
    "importing core costs about twice the CPU of the SDK's stdio entry (Ajv 2020 with formats, the contract's schemas, pino and core's own modules), and registering a hand-written tool checks its schema against the draft 2020-12 meta-schema, whose first compile takes about 40 ms of CPU; McpServer checks nothing at registration and Ajv's draft-07 meta-schema is smaller.",
  secondCall:
    "the second call of a fresh process still runs code V8 has not optimized yet, and core runs more of it per call than a bare handler (see the valid call); a major garbage collection of start-up's garbage (Ajv's meta-schema compile) often lands in it.",
};
