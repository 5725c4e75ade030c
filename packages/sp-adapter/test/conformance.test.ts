import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { UpstreamReplay } from '@mcp-envelope/core/testing';

import { lwaEnv, startSpUpstream } from './helpers/sp-client.js';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
/** The conformance CLI of this repository (built by `pnpm build` before the tests run). */
const CONFORMANCE_CLI = fileURLToPath(new URL('../../../conformance/dist/cli.js', import.meta.url));

interface ProbeReport {
  readonly conformant: boolean;
  readonly summary: { readonly passed: number; readonly failed: number; readonly skipped: number };
  readonly server: { readonly name: string };
}

let upstream: UpstreamReplay;
let directory: string;

beforeAll(async () => {
  upstream = await startSpUpstream();
  directory = mkdtempSync(join(tmpdir(), 'sp-probe-'));
});

afterAll(async () => {
  await upstream.close();
  rmSync(directory, { recursive: true, force: true });
});

async function probe(name: string, serverArguments: string, env: Record<string, string>): Promise<ProbeReport> {
  expect(existsSync(CONFORMANCE_CLI), `${CONFORMANCE_CLI} is missing: run pnpm build first`).toBe(true);
  const report = join(directory, `${name}.json`);
  await run(process.execPath, [CONFORMANCE_CLI, 'probe', '--stdio', `${process.execPath} --import tsx src/cli.ts ${serverArguments}`, '--max-tools', '40', '--json', report], {
    cwd: PACKAGE,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    timeout: 240_000,
  });
  return JSON.parse(readFileSync(report, 'utf8')) as ProbeReport;
}

describe('the conformance CLI probe', () => {
  it('reports the reference server conformant without credentials (auth_error path)', async () => {
    const report = await probe('no-credentials', `--upstream ${upstream.url}`, {});
    expect(report.server.name).toBe('mcp-envelope-sp');
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(40);
    expect(report.conformant).toBe(true);
  });

  it('reports it conformant while SP-API throttles every call (rate_limited path)', async () => {
    upstream.respond({ status: 429, headers: { 'content-type': 'application/json', 'retry-after': '1' }, body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }] } });
    const report = await probe('throttled', `--upstream ${upstream.url}`, lwaEnv(upstream));
    expect(report.summary.failed).toBe(0);
    expect(report.conformant).toBe(true);
    expect(upstream.requests.length).toBeGreaterThan(0);
  });
});
