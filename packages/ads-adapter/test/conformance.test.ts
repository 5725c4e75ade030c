import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import { TEST_MODELS_DIR } from './support/harness.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
// The conformance CLI of this repository (built by the root build before the tests run).
const CONFORMANCE_CLI = fileURLToPath(new URL('../../../conformance/dist/cli.js', import.meta.url));
const reportDirectory = mkdtempSync(join(tmpdir(), 'ads-conformance-'));

afterAll(() => {
  rmSync(reportDirectory, { recursive: true, force: true });
});

interface ProbeReport {
  readonly conformant: boolean;
  readonly summary: { readonly passed: number; readonly failed: number; readonly skipped: number };
  readonly capability: { readonly advertised: boolean; readonly issues: readonly unknown[]; readonly error_kinds: readonly string[] };
  readonly tools: { readonly listed: number; readonly probed: number };
  readonly server: { readonly name: string };
}

describe('mcp-envelope-conformance probe', () => {
  it('reports the reference Ads server (with --models tools) fully conformant', async () => {
    expect(existsSync(CLI) && existsSync(CONFORMANCE_CLI), 'build the workspace before running this test').toBe(true);
    const reportFile = join(reportDirectory, 'probe.json');
    const command = `"${process.execPath}" "${CLI}" --models "${TEST_MODELS_DIR}"`;
    const { stdout } = await run(process.execPath, [CONFORMANCE_CLI, 'probe', '--stdio', command, '--json', reportFile], {
      env: { PATH: process.env['PATH'] ?? '' },
      timeout: 120_000,
    });
    expect(stdout).toContain('verdict: CONFORMANT');
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ProbeReport;
    expect(report.conformant).toBe(true);
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(30);
    expect(report.server.name).toBe('mcp-envelope-ads');
    expect(report.capability.advertised).toBe(true);
    expect(report.capability.issues).toEqual([]);
    expect(report.capability.error_kinds).toEqual(['mcp_input_validation', 'tool_not_found', 'ads_api_http', 'ads_api_client', 'auth_error', 'rate_limited', 'internal_error']);
    expect([report.tools.listed, report.tools.probed]).toEqual([11, 11]);
  });
});
