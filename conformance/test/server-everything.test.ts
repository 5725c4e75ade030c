import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProbeReport } from '../src/index.js';
import { serverEverythingCommandLine } from '../src/server-everything.js';
import { ensureBuilt, PROBE_SLACK, runCliProcess } from './helpers/cli-runner.js';

let folder: string;

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'conformance-everything-'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('probe against @modelcontextprotocol/server-everything (knows nothing of envelopes)', () => {
  it('reports it as nonconformant and exits 1', async () => {
    const jsonPath = join(folder, 'everything.json');
    const run = await runCliProcess([
      'probe',
      '--stdio',
      serverEverythingCommandLine(),
      // its long-running operation takes 10 s when a probe drops or renames its duration: slack
      // (see PROBE_SLACK) that lets those calls finish instead of timing out
      ...PROBE_SLACK,
      '--json',
      jsonPath,
    ]);
    expect(run.code).toBe(1);
    const report = JSON.parse(await readFile(jsonPath, 'utf8')) as ProbeReport;
    expect(report.server).toEqual({ name: 'mcp-servers/everything', version: '2.0.0' });
    expect(report.conformant).toBe(false);
    expect(report.capability.advertised).toBe(false);
    expect(report.rows[0]).toMatchObject({ probe: 'capability', result: 'FAIL', got: 'not advertised' });
    expect(report.rows[2]).toMatchObject({
      probe: 'contract-tool',
      result: 'FAIL',
      got: 'not listed',
      note: 'get_envelope_contract is not in tools/list',
    });
    const unknown = report.rows.find((row) => row.probe === 'unknown-tool');
    expect(unknown).toMatchObject({ result: 'FAIL', got: 'no envelope' });
    expect(unknown?.note).toBe(`no envelope (is_error): "MCP error -32602: Tool ${unknown?.tool ?? ''} not found"`);
    const echoMissing = report.rows.find((row) => row.probe === 'missing-required' && row.tool === 'echo');
    expect(echoMissing).toMatchObject({ result: 'FAIL', got: 'no envelope', arguments: {} });
    expect(echoMissing?.note).toMatch(
      /^dropped required "message"; no envelope \(is_error\): "MCP error -32602: Input validation error: .{1,80}…"$/,
    );
    expect(report.rows.some((row) => row.result === 'FAIL' && row.got === 'no envelope')).toBe(true);
    expect(report.rows.filter((row) => row.tool === 'simulate-research-query').map((row) => row.note)).toEqual(
      Array.from({ length: 5 }, () => 'tool requires task-based execution (not probed)'),
    );
    expect(run.stdout).toContain('capability: not advertised\n');
    expect(run.stdout).toMatch(/\nprobe: \d+ passed, \d+ failed, \d+ skipped\n$/);
  }, 120_000);

  it('exits 0 with --allow-nonconformant after printing the report', async () => {
    const run = await runCliProcess([
      'probe',
      '--stdio',
      serverEverythingCommandLine(),
      ...PROBE_SLACK,
      '--max-tools',
      '1',
      '--allow-nonconformant',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('verdict: NONCONFORMANT (');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('probe: 1 passed, 7 failed, 2 skipped');
  }, 120_000);
});
