// Adding a server to the gate is its package plus one line of the server list: a test-only
// package (test/fixtures/tiny-gated-server: a server built on core, its descriptor and its
// recorded cases, nothing else) is appended to a list beside the Ads server, and the whole gate
// runs it: its cases are replayed, its fixtures written and compared, its capability checked, the
// probe run, and the parity section compares it with Ads on the conditions they share. It speaks
// contract version 2 only, so it has no version 1 reader rows and no v1 fixtures.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gateCases } from '../../src/gate/cases.js';
import { loadGateServers } from '../../src/gate/descriptor.js';
import { startGateEnvironment } from '../../src/gate/environment.js';
import { generateFixtures, writeFixtures } from '../../src/gate/fixtures.js';
import { runGate } from '../../src/gate/gate.js';
import type { GateReport } from '../../src/gate/gate-report.js';
import { PACKAGE_ROOT } from '../../src/gate/reference-servers.js';
import { GATE_SLACK_MS } from '../helpers/cli-runner.js';

const TINY = fileURLToPath(new URL('../fixtures/tiny-gated-server', import.meta.url));
const SERVER_LIST = ['@mcp-envelope/ads-adapter', TINY];

let fixtures: string;
let report: GateReport;

beforeAll(async () => {
  fixtures = mkdtempSync(join(tmpdir(), 'gate-joins-'));
  // the new server's fixtures are written as `pnpm fixtures:update` would; the Ads ones are the checked-in files
  const tiny = loadGateServers([TINY]);
  const environment = await startGateEnvironment({ servers: tiny, timeoutMs: GATE_SLACK_MS });
  try {
    const cases = gateCases(tiny);
    writeFixtures(fixtures, await generateFixtures(environment, new Map(cases.map((entry) => [entry.id, entry]))));
  } finally {
    await environment.close();
  }
  for (const folder of ['ads', 'v1/ads'])
    cpSync(join(PACKAGE_ROOT, 'fixtures', folder), join(fixtures, folder), { recursive: true });
  report = await runGate({ serverPackages: SERVER_LIST, fixturesFolder: fixtures, timeoutMs: GATE_SLACK_MS });
}, 300_000);

afterAll(() => {
  rmSync(fixtures, { recursive: true, force: true });
});

describe('a fourth server joins by one line', () => {
  it('the gate passes with the new server in the list', () => {
    expect(report.rows.filter((row) => row.result === 'FAIL')).toEqual([]);
    expect(report.conformant).toBe(true);
    expect(report.servers.map((server) => [server.id, server.name, server.contract_versions])).toEqual([
      ['ads', 'mcp-envelope-ads', [1, 2]],
      ['tiny', 'tiny-gated-server', [2]],
    ]);
  });

  it("replays the new server's recorded cases for a reader of version 2 only", () => {
    const tinyUpstream = report.rows.filter((row) => row.section === 'upstream' && row.server === 'tiny');
    expect(tinyUpstream.map((row) => `${row.check} ${row.result} ${row.got}`)).toEqual([
      'tiny-200-item PASS success no _meta',
      'tiny-401 PASS auth_error/UPSTREAM_HTTP_401 upstream=tiny-api retryable=false no _meta',
      'tiny-404 PASS upstream_http/UPSTREAM_HTTP_404 upstream=tiny-api retryable=false no _meta',
      'tiny-429-retry-after PASS rate_limited/RATE_LIMITED upstream=tiny-api retryable=true _meta{retry_after_seconds}',
      'tiny-503 PASS upstream_http/UPSTREAM_HTTP_503 upstream=tiny-api retryable=true no _meta',
      'tiny-connection-dropped PASS upstream_client/TOOL_EXECUTION_FAILED upstream=tiny-api retryable=true no _meta',
      'tiny-invalid-arguments PASS mcp_input_validation/SCHEMA_REQUIRED retryable=false no _meta',
    ]);
  });

  it('writes and compares its fixtures, version 2 only', () => {
    const files = report.rows
      .filter((row) => row.section === 'fixtures' && row.server === 'tiny')
      .map((row) => `${row.check} ${row.result}`);
    expect(files).toEqual([
      'tiny/normalized-renamed.json PASS',
      'tiny/normalized-dropped-alias.json PASS',
      'tiny/normalized-unknown-field-rejected.json PASS',
      'tiny/tool-not-found.json PASS',
      'tiny/internal-error.json PASS',
      'tiny/rate-limited-429.json PASS',
      'tiny/auth-error-401.json PASS',
      'tiny/auth-error-missing-credentials.json PASS',
      'tiny/api-http-404.json PASS',
      'tiny/api-http-503.json PASS',
      'tiny/api-client-network.json PASS',
    ]);
    expect(existsSync(join(fixtures, 'v1', 'tiny'))).toBe(false);
  });

  it('compares the new server with Ads on every condition they share', () => {
    const parity = report.rows
      .filter((row) => row.section === 'parity' && row.server === 'ads|tiny')
      .map((row) => `${row.check} ${row.result}`);
    expect(parity).toEqual([
      'unknown field (strict) PASS',
      'unknown tool PASS',
      'internal error PASS',
      'upstream 429 PASS',
      'upstream 401 PASS',
      'missing credentials PASS',
      'upstream 503 PASS',
      'upstream unreachable PASS',
    ]);
  });

  it('runs the batteries it takes part in and leaves out the others', () => {
    const sections = (server: string): string[] => [
      ...new Set(report.rows.filter((row) => row.server === server).map((row) => row.section)),
    ];
    expect(sections('tiny')).toEqual(['capability', 'probe', 'upstream', 'fixtures']);
    expect(sections('ads')).toEqual(['capability', 'probe', 'upstream', 'fixtures', 'code-mode', 'limiter']);
  });
});

describe('a server package that is not installed', () => {
  it('stops the gate before anything starts, naming the package', async () => {
    await expect(runGate({ serverPackages: ['@mcp-envelope/no-such-adapter', TINY] })).rejects.toThrow(
      'the gate runs servers from packages that are not installed: @mcp-envelope/no-such-adapter',
    );
  });
});
