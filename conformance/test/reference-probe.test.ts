// The probe CLI against each reference server as a user runs it: the server's built CLI over
// stdio. These live here, not in the adapters, because conformance depends on the adapters and
// not the other way round.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAULT_PROBE_NAMES } from '../src/index.js';
import type { ProbeReport } from '../src/index.js';
import { cliPath, ensureBuilt, packageRoot, PROBE_SLACK, run, shellQuote } from './helpers/cli-runner.js';

const require = createRequire(import.meta.url);
const spPackage = dirname(require.resolve('@mcp-envelope/sp-adapter/package.json'));
const adsPackage = dirname(require.resolve('@mcp-envelope/ads-adapter/package.json'));
/** The Ads adapter's own model fixtures (two small API models). */
const adsModels = join(adsPackage, 'test', 'fixtures', 'models');

/**
 * How long the SP server waits for the fault upstream: the timeout round lasts that long, and every
 * other round's loopback answer must arrive within it, which at 1 s a loaded two-core machine
 * was seen to miss.
 */
const SP_UPSTREAM_TIMEOUT_MS = 3000;

let directory: string;

beforeAll(async () => {
  await ensureBuilt();
  directory = mkdtempSync(join(tmpdir(), 'reference-probe-'));
}, 180_000);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/**
 * Probes a server started by `command` (this process's environment plus `env`) and returns the
 * JSON report and the printed text.
 */
async function probe(
  name: string,
  command: string,
  flags: readonly string[],
  env: Record<string, string> = {},
): Promise<{ report: ProbeReport; stdout: string }> {
  const reportFile = join(directory, `${name}.json`);
  const result = await run(
    process.execPath,
    [cliPath, 'probe', '--stdio', command, ...PROBE_SLACK, ...flags, '--json', reportFile],
    packageRoot,
    240_000,
    env,
  );
  expect(result.code, result.stderr).toBe(0);
  return { report: JSON.parse(readFileSync(reportFile, 'utf8')) as ProbeReport, stdout: result.stdout };
}

describe('the probe against the SP reference server', () => {
  let upstream: UpstreamReplay;
  const spCommand = (): string =>
    `${shellQuote(process.execPath)} ${shellQuote(join(spPackage, 'dist', 'cli.js'))} --upstream ${upstream.url}`;

  beforeAll(async () => {
    upstream = await startUpstreamReplay({ standing: { status: 200, body: {} } });
  });

  afterAll(async () => {
    await upstream.close();
  });

  it('reports it conformant without credentials (auth_error path)', async () => {
    const { report } = await probe('sp-no-credentials', spCommand(), ['--max-tools', '40']);
    expect(report.server?.name).toBe('mcp-envelope-sp');
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(40);
    expect(report.conformant).toBe(true);
  });

  it('reports it conformant while SP-API throttles every call (rate_limited path)', async () => {
    upstream.respond({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
      body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] },
    });
    const credentials = {
      LWA_CLIENT_ID: 'amzn1.application-oa2-client.testclient0001',
      LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.00aa11bb22cc33dd44ee55ff66',
      LWA_REFRESH_TOKEN: 'Atzr|fake-refresh-token',
      LWA_TOKEN_URL: upstream.tokenUrl,
    };
    const { report } = await probe('sp-throttled', spCommand(), ['--max-tools', '40'], credentials);
    expect(report.summary.failed).toBe(0);
    expect(report.conformant).toBe(true);
    expect(upstream.requests.length).toBeGreaterThan(0);
  });
});

describe('the upstream fault battery against the SP reference server', () => {
  it('passes every round: success, HTTP errors, bodies, timeout, 429 and rate-limit 403s', async () => {
    const command = [
      'LWA_CLIENT_ID=amzn1.application-oa2-client.testclient0001',
      'LWA_CLIENT_SECRET=amzn1.oa2-cs.v1.00aa11bb22cc33dd44ee55ff66',
      shellQuote('LWA_REFRESH_TOKEN=Atzr|fake-refresh-token'),
      'LWA_TOKEN_URL={token_url}',
      `SP_API_TIMEOUT_MS=${SP_UPSTREAM_TIMEOUT_MS}`,
      shellQuote(process.execPath),
      shellQuote(join(spPackage, 'dist', 'cli.js')),
      '--upstream {upstream}',
    ].join(' ');
    const reportFile = join(directory, 'sp-faults.json');
    const result = await run(
      process.execPath,
      [
        cliPath,
        'probe',
        '--stdio',
        command,
        '--max-tools',
        '0',
        '--upstream-faults',
        '--upstream-timeout-ms',
        String(SP_UPSTREAM_TIMEOUT_MS),
        '--timeout-ms',
        '30000',
        '--json',
        reportFile,
      ],
      packageRoot,
      240_000,
    );
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ProbeReport;
    const rows = report.rows.filter((entry) => entry.probe.startsWith('upstream-'));
    expect(rows.map((entry) => entry.probe)).toEqual([...FAULT_PROBE_NAMES]);
    expect(new Set(rows.map((entry) => entry.tool))).toEqual(new Set(['catalogItems20220401_searchCatalogItems']));
    expect(
      rows.filter((entry) => entry.result !== 'PASS'),
      result.stdout,
    ).toEqual([]);
    expect(rows.find((entry) => entry.probe === 'upstream-429')?.got).toBe(
      'rate_limited/RATE_LIMITED, retryable, retry after 7 s',
    );
    expect(rows.find((entry) => entry.probe === 'upstream-timeout')?.got).toBe(
      'upstream_client/TOOL_EXECUTION_FAILED, retryable',
    );
    expect(rows.find((entry) => entry.probe === 'upstream-403-retry-after')?.got).toBe(
      'rate_limited/RATE_LIMITED, retryable, retry after 7 s',
    );
  }, 240_000);
});

describe('the probe against the Ads reference server', () => {
  it('reports it (with --models tools) fully conformant', async () => {
    const command = `${shellQuote(process.execPath)} ${shellQuote(join(adsPackage, 'dist', 'cli.js'))} --models ${shellQuote(adsModels)}`;
    const { report, stdout } = await probe('ads', command, []);
    expect(stdout).toContain('verdict: CONFORMANT');
    expect(report.conformant).toBe(true);
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(30);
    expect(report.server?.name).toBe('mcp-envelope-ads');
    expect(report.capability.advertised).toBe(true);
    expect(report.capability.issues).toEqual([]);
    expect(report.capability.error_kinds).toEqual([
      'mcp_input_validation',
      'tool_not_found',
      'ads_api_http',
      'ads_api_client',
      'auth_error',
      'rate_limited',
      'internal_error',
    ]);
    expect(report.capability.contract_versions).toEqual([1, 2]);
    expect(report.capability.error_kinds_by_version?.['2']).toEqual([
      'mcp_input_validation',
      'tool_not_found',
      'upstream_http',
      'upstream_client',
      'auth_error',
      'rate_limited',
      'internal_error',
    ]);
    // v2 to a client that states [1, 2], v1 to one that states nothing (every reader of v1)
    expect(report.rows.find((entry) => entry.probe === 'contract-versions')).toMatchObject({
      result: 'PASS',
      got: '[1, 2] -> v2, nothing -> v1',
    });
    expect([report.tools.listed, report.tools.probed]).toEqual([11, 11]);
  });
});
