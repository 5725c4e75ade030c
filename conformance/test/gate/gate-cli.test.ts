/**
 * The gate end to end, through the built CLI: both real reference servers over stdio, the real
 * replay server, the real SDK client. It passes as shipped, and it fails when an adapter is
 * broken on purpose or a recorded case expects something else.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { beforeAll, describe, expect, it } from 'vitest';

import type { GateReport } from '../../src/gate/gate-report.js';
import { ensureBuilt, GATE_SLACK, packageRoot, runCliProcess, shellQuote } from '../helpers/cli-runner.js';
import { parseXml } from '../helpers/xml.js';

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

function readReport(path: string): GateReport {
  return JSON.parse(readFileSync(path, 'utf8')) as GateReport;
}

function failing(report: GateReport): string[] {
  return report.rows.filter((row) => row.result === 'FAIL').map((row) => `${row.section} ${row.server} ${row.check}`);
}

describe('pnpm conformance (mcp-envelope-conformance gate)', () => {
  it('passes on both reference servers and writes the JSON and JUnit reports', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-ok-'));
    const run = await runCliProcess(
      ['gate', ...GATE_SLACK, '--json', join(folder, 'gate.json'), '--junit', join(folder, 'gate.xml')],
      packageRoot,
      300_000,
    );
    expect(run.code, run.stdout.slice(-3000) + run.stderr).toBe(0);
    const report = readReport(join(folder, 'gate.json'));
    expect(report.conformant).toBe(true);
    expect(failing(report)).toEqual([]);
    expect(report.servers.map((server) => `${server.id} ${server.name ?? ''}`)).toEqual([
      'sp mcp-envelope-sp',
      'ads mcp-envelope-ads',
      'github mcp-envelope-github',
    ]);
    // every case and fixture once for a client that reads v2 and once for one that states nothing (v1)
    expect(report.sections.upstream).toEqual({ passed: 158, failed: 0, skipped: 0 });
    expect(report.sections.fixtures).toEqual({ passed: 163, failed: 0, skipped: 0 });
    expect(report.sections.capability).toEqual({ passed: 14, failed: 0, skipped: 0 });
    expect(report.servers.map((server) => [server.id, server.contract_versions, server.default_version])).toEqual([
      ['sp', [1, 2], 1],
      ['ads', [1, 2], 1],
      ['github', [2], 2],
    ]);
    expect(report.sections.parity.failed).toBe(0);
    expect(report.sections.probe.passed).toBeGreaterThan(50);
    const got = (check: string): string | undefined => report.rows.find((entry) => entry.check === check)?.got;
    expect([got('sp-429-retry-after-seconds'), got('sp-429-retry-after-seconds (v1 reader)')]).toEqual([
      'rate_limited/RATE_LIMITED upstream=sp-api retryable=true _meta{retry_after_seconds}',
      'rate_limited/RATE_LIMITED retryable=true legacy=sp_api_http _meta{retry_after_seconds}',
    ]);
    const identities = Object.fromEntries(
      report.rows
        .filter((entry) => entry.check.startsWith('sp-identity-'))
        .map((entry) => [entry.check, `${entry.result} ${entry.got}`]),
    );
    expect(identities).toMatchObject({
      'sp-identity-cache-down': 'PASS success _meta{warnings}',
      'sp-identity-list': 'PASS success no _meta',
      'sp-identity-service-401': 'PASS auth_error/UPSTREAM_HTTP_401 upstream=openbridge retryable=false no _meta',
      'sp-identity-service-401 (v1 reader)': 'PASS auth_error/OPENBRIDGE_HTTP_401 retryable=false no _meta',
      'sp-identity-service-429':
        'PASS rate_limited/RATE_LIMITED upstream=openbridge retryable=true _meta{retry_after_seconds}',
      'sp-identity-service-503':
        'PASS upstream_http/UPSTREAM_HTTP_503 upstream=openbridge retryable=true legacy=sp_api_http no _meta',
      'sp-identity-service-503 (v1 reader)': 'PASS sp_api_http/OPENBRIDGE_HTTP_503 retryable=true no _meta',
      'sp-identity-switch': 'PASS success no _meta',
      'sp-identity-unknown-id': 'PASS mcp_input_validation/SCHEMA_IDENTITY_NOT_FOUND retryable=false no _meta',
    });
    expect(Object.keys(identities)).toHaveLength(14);
    const parity = report.rows.filter((entry) => entry.section === 'parity').map((entry) => entry.check);
    expect(parity).toEqual(
      expect.arrayContaining([
        'input validation: SCHEMA_REQUIRED',
        'unknown tool',
        'upstream 429',
        'upstream 401',
        'internal error',
      ]),
    );
    expect(run.stdout).toContain('verdict: CONFORMANT (sp, ads, github)');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^conformance: \d+ passed, 0 failed, \d+ skipped$/);
    const xml = readFileSync(join(folder, 'gate.xml'), 'utf8');
    const upstreamSuite = parseXml(xml).children.find((suite) => suite.attributes['name'] === 'gate upstream');
    expect(upstreamSuite?.attributes).toMatchObject({ tests: '158', failures: '0', errors: '0', skipped: '0' });
    expect(
      upstreamSuite?.children.find((testcase) => testcase.attributes['name'] === 'sp sp-429-retry-after-seconds')
        ?.attributes,
    ).toMatchObject({
      classname: 'mcp-envelope-conformance.gate.upstream.sp',
    });
    expect(JSON.stringify(report)).not.toContain('conformancegatesecret');
    expect(JSON.stringify(report)).not.toContain('conformance-gate-identity-service');
  }, 300_000);

  it('fails when the Ads adapter is broken on purpose (429 classified as upstream_http)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-broken-'));
    const adsPackage = dirname(createRequire(import.meta.url).resolve('@mcp-envelope/ads-adapter/package.json'));
    const wrapper = join(folder, 'broken-ads.mjs');
    writeFileSync(
      wrapper,
      [
        // the adapter is frozen when its module loads: this wrapper, which breaks it on purpose,
        // turns freezing off before it loads anything
        'Object.freeze = (value) => value;',
        `const { adsAdapter } = await import(${JSON.stringify(pathToFileURL(join(adsPackage, 'dist', 'index.js')).href)});`,
        'const classify = adsAdapter.classify;',
        "adsAdapter.classify = (failure, context) => { const verdict = classify(failure, context); return verdict.error_kind === 'rate_limited' ? { ...verdict, error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_429', retryable: false } : verdict; };",
        `await import(${JSON.stringify(pathToFileURL(join(adsPackage, 'dist', 'cli.js')).href)});`,
        '',
      ].join('\n'),
    );
    const run = await runCliProcess(
      [
        'gate',
        ...GATE_SLACK,
        '--no-probe',
        '--json',
        join(folder, 'gate.json'),
        '--server-command',
        `ads=${shellQuote(process.execPath)} ${shellQuote(wrapper)}`,
      ],
      packageRoot,
      300_000,
    );
    expect(run.code).toBe(1);
    const report = readReport(join(folder, 'gate.json'));
    expect(report.conformant).toBe(false);
    const failures = failing(report);
    // each reader sees it: v2 as upstream_http, v1 as the projection ads_api_http
    expect(failures).toEqual([
      'upstream ads ads-403-throttled-flag',
      'upstream ads ads-403-throttled-flag (v1 reader)',
      'upstream ads ads-429-retry-after-http-date',
      'upstream ads ads-429-retry-after-http-date (v1 reader)',
      'upstream ads ads-429-retry-after-seconds',
      'upstream ads ads-429-retry-after-seconds (v1 reader)',
      'upstream ads ads-429-throttled-header-misleading-error-type',
      'upstream ads ads-429-throttled-header-misleading-error-type (v1 reader)',
      'upstream ads ads-429-x-ratelimit-numeric',
      'upstream ads ads-429-x-ratelimit-numeric (v1 reader)',
      'fixtures ads ads/rate-limited-429.json',
      'fixtures ads v1/ads/rate-limited-429.json',
      'parity sp|ads|github upstream 429',
      'limiter ads learning from a 429, then pre-flight refusal',
    ]);
    expect(report.rows.find((entry) => entry.check === 'ads-429-retry-after-seconds')?.note).toContain(
      'error_kind upstream_http, expected rate_limited',
    );
    expect(report.rows.find((entry) => entry.check === 'ads-429-retry-after-seconds (v1 reader)')?.note).toContain(
      'error_kind ads_api_http, expected rate_limited',
    );
    expect(run.stdout).toContain('verdict: NONCONFORMANT');
  }, 300_000);

  it('refuses a command for a server the gate does not run, and one without an id, before starting any', async () => {
    const stray = await runCliProcess(['gate', '--server-command', 'weather=node weather.js'], packageRoot, 60_000);
    expect([stray.code, stray.stderr]).toEqual([
      2,
      'error: the gate could not run: a command is given for "weather", which is not a gated server (sp, ads, github)\n',
    ]);
    const bare = await runCliProcess(['gate', '--server-command', 'node gh.js'], packageRoot, 60_000);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('expected <server id>=<command line>');
  });

  it('fails when a recorded case expects another kind than the server emits', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-case-'));
    const cases = join(folder, 'cases');
    // --cases is one folder for every gated server
    cpSync(join(packageRoot, 'cases'), cases, { recursive: true });
    const githubPackage = dirname(createRequire(import.meta.url).resolve('@mcp-envelope/github-adapter/package.json'));
    cpSync(join(githubPackage, 'conformance', 'cases'), cases, { recursive: true });
    const file = join(cases, 'sp-503-empty-body.json');
    const edited = JSON.parse(readFileSync(file, 'utf8')) as { expected: Record<string, unknown> };
    edited.expected = { ...edited.expected, error_kind: 'internal_error', retryable: false };
    writeFileSync(file, JSON.stringify(edited));
    const run = await runCliProcess(
      ['gate', ...GATE_SLACK, '--no-probe', '--json', join(folder, 'gate.json'), '--cases', cases],
      packageRoot,
      300_000,
    );
    expect(run.code).toBe(1);
    const report = readReport(join(folder, 'gate.json'));
    expect(failing(report)).toEqual(['upstream sp sp-503-empty-body']);
    expect(report.rows.find((entry) => entry.check === 'sp-503-empty-body')?.note).toBe(
      'error_kind upstream_http, expected internal_error; retryable true, expected false',
    );
  }, 300_000);

  it('exits 2 when the cases folder cannot be read', async () => {
    const run = await runCliProcess(['gate', '--cases', join(tmpdir(), 'no-such-cases-folder')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: the gate could not run:');
  });
});
