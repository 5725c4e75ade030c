/**
 * Benchmarks of the Ads adapter: classifier throughput over the recorded fixtures, and the
 * reference server's start-up time with `--models` (load, convert, compile every tool).
 *
 * Usage: `pnpm bench [MODELS_DIR]` (default: the test models folder).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { classifyAdsHttpFailure } from '../src/classify.js';
import { createAdsServer } from '../src/server/create-server.js';
import { loadModelOperations } from '../src/server/models.js';

interface Fixture {
  readonly request: { readonly method: string; readonly path: string };
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: unknown };
}

const fixtureDirectory = fileURLToPath(new URL('../test/fixtures/upstream/', import.meta.url));
const fixtures = readdirSync(fixtureDirectory)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(`${fixtureDirectory}${name}`, 'utf8')) as Fixture)
  .filter((fixture) => fixture.response.status >= 400);

const now = new Date();
const rounds = 2000;
let started = performance.now();
for (let round = 0; round < rounds; round += 1) {
  for (const fixture of fixtures) {
    classifyAdsHttpFailure(
      {
        type: 'upstream_http',
        status: fixture.response.status,
        headers: fixture.response.headers,
        body: fixture.response.body,
        request: { method: fixture.request.method, url: `https://advertising-api.amazon.com${fixture.request.path}` },
      },
      now,
    );
  }
}
const classifyMs = performance.now() - started;
const perCall = (classifyMs * 1000) / (rounds * fixtures.length);

const modelsDir = process.argv[2] ?? fileURLToPath(new URL('../test/fixtures/models/', import.meta.url));
started = performance.now();
const loaded = await loadModelOperations(modelsDir);
const loadMs = performance.now() - started;
started = performance.now();
const server = await createAdsServer({ env: {}, modelsDir, logger: { warn: () => undefined, error: () => undefined } });
const startupMs = performance.now() - started;

process.stdout.write(
  `${JSON.stringify(
    {
      classify: {
        calls: rounds * fixtures.length,
        total_ms: Math.round(classifyMs),
        microseconds_per_call: Number(perCall.toFixed(1)),
      },
      models: {
        dir: modelsDir,
        operations: loaded.operations.length,
        skipped: loaded.skipped.length,
        load_and_convert_ms: Math.round(loadMs),
      },
      startup: { tools: server.toolNames.length, create_server_ms: Math.round(startupMs) },
    },
    null,
    2,
  )}\n`,
);
await server.envelope.close();
