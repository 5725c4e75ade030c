/**
 * `pnpm bench` (`tsx bench/run.ts [--runs N]`): cold start of the reference GitHub server beside
 * the reference SP server, in the same run, each as a fresh process (`node dist/cli.js`) behind
 * the v2 SDK client over stdio, against a replay upstream on 127.0.0.1:
 * - ready: spawn to the end of `initialize` (the description read and converted, the tools
 *   registered);
 * - tools/list: spawn to the last page of the tool list;
 * - first call: spawn to the answer of one tool call (`repos_get`; SP: a marketplace listing,
 *   with its token request).
 * Medians of N runs (default 5), in milliseconds, with the tool count. Runs one process at a time.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';

interface Subject {
  readonly name: string;
  readonly cli: string;
  readonly env: (replay: UpstreamReplay) => Record<string, string>;
  readonly call: { readonly name: string; readonly arguments: Record<string, unknown> };
}

interface Sample {
  readonly ready: number;
  readonly list: number;
  readonly call: number;
  readonly tools: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const SUBJECTS: readonly Subject[] = [
  {
    name: 'github',
    cli: join(HERE, '..', 'dist', 'cli.js'),
    env: () => ({ GITHUB_TOKEN: 'ghp_bench00000000000000000000000000000001' }),
    call: { name: 'repos_get', arguments: { owner: 'octo-org', repo: 'hello-world' } },
  },
  {
    name: 'sp (built-in catalog)',
    cli: join(dirname(require.resolve('@mcp-envelope/sp-adapter/package.json')), 'dist', 'cli.js'),
    env: (replay) => ({
      LWA_CLIENT_ID: 'amzn1.application-oa2-client.bench0001',
      LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.bench00000000000000000000000001',
      LWA_REFRESH_TOKEN: 'Atzr|bench-refresh-token',
      LWA_TOKEN_URL: replay.tokenUrl,
    }),
    call: { name: 'sellers_getMarketplaceParticipations', arguments: {} },
  },
];

async function measure(subject: Subject, replay: UpstreamReplay): Promise<Sample> {
  const start = performance.now();
  const client = new Client({ name: 'github-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [subject.cli, '--upstream', replay.url],
      env: { PATH: process.env['PATH'] ?? '', MCP_RATE_LIMIT: 'off', ...subject.env(replay) },
      stderr: 'ignore',
    }),
  );
  const ready = performance.now() - start;
  let tools = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const list = performance.now() - start;
  const result = await client.callTool(subject.call);
  const call = performance.now() - start;
  await client.close();
  if (result.isError === true)
    throw new Error(`${subject.name}: the call failed: ${JSON.stringify(result).slice(0, 300)}`);
  return { ready, list, call, tools };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const index = process.argv.indexOf('--runs');
  const runs = index === -1 ? 5 : Number(process.argv[index + 1]);
  const replay = await startUpstreamReplay({ standing: { status: 200, body: { id: 1, payload: [] } } });
  try {
    console.log(`cold start, medians of ${runs} fresh processes (ms)`);
    console.log('server                  tools   ready  tools/list  first call');
    for (const subject of SUBJECTS) {
      const samples: Sample[] = [];
      for (let run = 0; run < runs; run += 1) samples.push(await measure(subject, replay));
      const row = [
        subject.name.padEnd(22),
        String(samples[0]?.tools ?? 0).padStart(6),
        median(samples.map((sample) => sample.ready))
          .toFixed(0)
          .padStart(7),
        median(samples.map((sample) => sample.list))
          .toFixed(0)
          .padStart(11),
        median(samples.map((sample) => sample.call))
          .toFixed(0)
          .padStart(11),
      ];
      console.log(row.join(' '));
    }
  } finally {
    await replay.close();
  }
}

await main();
