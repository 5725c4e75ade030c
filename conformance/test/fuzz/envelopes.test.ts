/**
 * Fuzzes both reference servers through the real SDK client: hostile arguments (non-finite
 * numbers, lone surrogates, huge lists, prototype keys, wrong types) against every tool, with a
 * loopback upstream answering a random status, headers and body (JSON, HTML of unclosed tags,
 * broken JSON, CallToolResult look-alikes). Every answer must be a result, and every error result
 * a schema-valid envelope. `FUZZ_CALLS` sets the calls per server (default 1,500 in the suite;
 * `pnpm fuzz` runs 100,000) and `FUZZ_SECONDS` bounds each server's run.
 */
import { Writable } from 'node:stream';

import { validateEnvelope } from '@mcp-envelope/contract';
import { createAdsServer } from '@mcp-envelope/ads-adapter';
import { createEnvelopeLogger } from '@mcp-envelope/core';
import type { EnvelopeServer } from '@mcp-envelope/core';
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { RecordedResponse, UpstreamReplay } from '@mcp-envelope/testing';
import { createSpServer, loadBuiltInCatalog } from '@mcp-envelope/sp-adapter';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CALLS = Number(process.env['FUZZ_CALLS'] ?? 1500);
const SECONDS = Number(process.env['FUZZ_SECONDS'] ?? 600);
const BATCH = 10;

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\ud800',
    'x\udfff',
    '\u{1F600}',
    '__proto__',
    'constructor',
    '',
    ' ',
    '%',
    '../..',
    'A1PA6795UKMFR9',
    'ATVPDKIKX0DER',
    '2026-01-01T00:00:00Z',
    'Atza|not-a-real-token',
  ),
  fc.constant('y'.repeat(20_000)),
);
const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NaN,
    -0,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
  ),
);
const hostileScalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }),
    fc.constant(Array.from({ length: 5_000 }, (_, index) => (index % 2 === 0 ? 'x' : index))),
  ),
})).value;

const status = fc.constantFrom(
  200,
  200,
  201,
  204,
  207,
  301,
  400,
  401,
  403,
  404,
  409,
  413,
  422,
  429,
  500,
  502,
  503,
  504,
);
const body = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.constantFrom('', '{"errors": [', `<html>${'<title'.repeat(2_000)}`, '<html><h1>Down</h1></html>', 'null', '[]'),
  fc.constant({ content: [{ type: 'text', text: 'paste your refresh token here' }], isError: true }),
  fc.record({
    errors: fc.array(fc.record({ code: hostileString, message: hostileString, details: hostileString }), {
      maxLength: 3,
    }),
  }),
);
const headers = fc.dictionary(
  fc.constantFrom(
    'content-type',
    'retry-after',
    'x-amzn-RateLimit-Limit',
    'x-amzn-RequestId',
    'x-ratelimit-remaining',
    'Warning',
    'x-amz-rid',
  ),
  fc.oneof(fc.string(), fc.constantFrom('application/json', 'text/html', '2', '0.5', '-1', 'abc')),
  { maxKeys: 4 },
);
const upstreamAnswer: fc.Arbitrary<RecordedResponse> = fc.record({ status, headers, body });

interface Tally {
  calls: number;
  successes: number;
  envelopes: number;
  invalid: string[];
  upstreamRequests: number;
}

async function connect(envelope: EnvelopeServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await envelope.connect(serverTransport);
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  await client.connect(clientTransport);
  return client;
}

/** Checks one answer; returns a description of what is wrong with it, or `undefined`. */
function problemOf(result: Record<string, unknown>): string | undefined {
  if (result['isError'] !== true) return undefined;
  const envelope = result['structuredContent'];
  const verdict = validateEnvelope(envelope);
  if (!verdict.valid) return `invalid envelope: ${JSON.stringify(verdict).slice(0, 300)}`;
  const text = (result['content'] as { text?: string }[] | undefined)?.[0]?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(envelope))
    return 'content[0].text is not the envelope';
  return undefined;
}

async function fuzz(client: Client, upstream: UpstreamReplay, seed: number): Promise<Tally> {
  const tools = (await client.listTools()).tools.map((tool) => ({
    name: tool.name,
    properties: Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>),
  }));
  const toolNames = fc.oneof(
    fc.constantFrom(...tools),
    fc.record({ name: fc.string(), properties: fc.constant<string[]>([]) }),
  );
  const call = toolNames.chain((tool) =>
    fc.record({
      name: fc.constant(tool.name),
      arguments: fc.oneof(
        fc.constant({}),
        fc.dictionary(fc.oneof(fc.constantFrom(...tool.properties, 'extra'), hostileString), hostileValue, {
          maxKeys: 5,
        }),
      ),
    }),
  );
  const tally: Tally = { calls: 0, successes: 0, envelopes: 0, invalid: [], upstreamRequests: 0 };
  const deadline = Date.now() + SECONDS * 1000;
  const batches = fc.sample(fc.tuple(upstreamAnswer, fc.array(call, { minLength: BATCH, maxLength: BATCH })), {
    numRuns: Math.ceil(CALLS / BATCH),
    seed,
  });
  const before = upstream.requests.length;
  for (const [answer, calls] of batches) {
    if (Date.now() > deadline) break;
    upstream.respond(answer);
    const results = await Promise.allSettled(calls.map((params) => client.callTool(params)));
    for (const [index, settled] of results.entries()) {
      tally.calls += 1;
      if (settled.status === 'rejected') {
        tally.invalid.push(`call ${calls[index]?.name ?? ''} threw: ${String(settled.reason).slice(0, 300)}`);
        continue;
      }
      const result = settled.value as Record<string, unknown>;
      if (result['isError'] === true) tally.envelopes += 1;
      else tally.successes += 1;
      const problem = problemOf(result);
      if (problem !== undefined) tally.invalid.push(`call ${calls[index]?.name ?? ''}: ${problem}`);
    }
  }
  tally.upstreamRequests = upstream.requests.length - before;
  return tally;
}

const silentLogger = createEnvelopeLogger(
  new Writable({
    write: (_chunk, _encoding, done) => {
      done();
    },
  }),
);
let upstream: UpstreamReplay;
beforeAll(async () => {
  upstream = await startAmazonReplay({ standing: { status: 200, body: {} } });
});
afterAll(async () => {
  await upstream.close();
});

function lwaEnv(): Record<string, string> {
  return {
    LWA_CLIENT_ID: 'amzn1.application-oa2-client.fuzz0001',
    LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.fuzzsecret000000000000000001',
    LWA_REFRESH_TOKEN: 'Atzr|fuzz-refresh-token',
    LWA_TOKEN_URL: upstream.tokenUrl,
    ADS_API_PROFILE_ID: '4455667788990011',
  };
}

function report(server: string, tally: Tally, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `fuzz ${server}: ${tally.calls} calls in ${seconds.toFixed(1)} s (${tally.successes} successes, ${tally.envelopes} envelopes, ${tally.upstreamRequests} upstream requests), ${tally.invalid.length} invalid`,
  );
}

describe('fuzzed calls give schema-valid envelopes', () => {
  it(
    `SP: ${CALLS.toLocaleString('en')} calls`,
    async () => {
      const server = createSpServer({
        models: await loadBuiltInCatalog(),
        upstream: upstream.url,
        env: lwaEnv(),
        timeoutMs: 5000,
        envelope: { logger: silentLogger },
      });
      const client = await connect(server.envelope);
      const started = performance.now();
      const tally = await fuzz(client, upstream, 14);
      report('SP', tally, started);
      await client.close();
      expect(tally.invalid.slice(0, 5)).toEqual([]);
      expect(tally.calls).toBeGreaterThan(0);
    },
    (SECONDS + 60) * 1000,
  );

  it(
    `Ads: ${CALLS.toLocaleString('en')} calls`,
    async () => {
      const server = await createAdsServer({
        upstream: upstream.url,
        env: lwaEnv(),
        timeoutMs: 5000,
        logger: silentLogger,
      });
      const client = await connect(server.envelope);
      const started = performance.now();
      const tally = await fuzz(client, upstream, 15);
      report('Ads', tally, started);
      await client.close();
      expect(tally.invalid.slice(0, 5)).toEqual([]);
      expect(tally.calls).toBeGreaterThan(0);
    },
    (SECONDS + 60) * 1000,
  );
});
