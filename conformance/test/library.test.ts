import { describe, expect, it } from 'vitest';

import {
  createProgressReporter,
  formatProgress,
  probeServer,
  renderProbeReport,
  ServerUnreachableError,
} from '../src/index.js';
import type { ProbeProgress } from '../src/index.js';
import { fixtureCommand } from './helpers/cli-runner.js';

describe('probeServer as a library', () => {
  it('probes in-process and reports progress for every call', async () => {
    const steps: ProbeProgress[] = [];
    const report = await probeServer({
      target: { transport: 'stdio', commandLine: fixtureCommand('conformant') },
      onProgress: (step) => steps.push(step),
    });
    expect(report.conformant).toBe(true);
    expect(report.summary).toEqual({ passed: 11, failed: 0, skipped: 4 });
    expect(
      steps.map(
        (step) =>
          `${step.index}/${step.total} ${step.tool === 'orders_search' || step.tool === 'get_envelope_contract' ? step.tool : '<unknown>'} ${step.probe}`,
      ),
    ).toEqual([
      '1/8 <unknown> unknown-tool',
      '2/8 <unknown> contract-versions',
      '3/8 orders_search missing-required',
      '4/8 orders_search wrong-type',
      '5/8 orders_search unknown-extra',
      '6/8 orders_search enum-mismatch',
      '7/8 orders_search wrong-case',
      '8/8 get_envelope_contract unknown-extra',
    ]);
    expect(renderProbeReport(report).endsWith('verdict: CONFORMANT\nprobe: 11 passed, 0 failed, 4 skipped\n')).toBe(
      true,
    );
  });

  it('honours maxTools 0 (capability, listing and unknown tool only)', async () => {
    const report = await probeServer({
      target: { transport: 'stdio', commandLine: fixtureCommand('mixed') },
      maxTools: 0,
    });
    expect(report.tools).toMatchObject({ listed: 7, probed: 0 });
    expect(report.rows.map((row) => row.probe)).toEqual([
      'capability',
      'tools-list',
      'contract-tool',
      'unknown-tool',
      'contract-versions',
    ]);
  });

  it('notes a baseline constraint it could not satisfy on every row that ran', async () => {
    const report = await probeServer({ target: { transport: 'stdio', commandLine: fixtureCommand('pattern') } });
    expect(
      report.rows.filter((row) => row.tool === 'fees_estimate').map((row) => [row.probe, row.result, row.note]),
    ).toEqual([
      [
        'missing-required',
        'PASS',
        'dropped required "sellerSku"; baseline caveat: sellerSku: no value found for pattern /^SKU-[0-9]{6}$/; sent "conformance"',
      ],
      [
        'wrong-type',
        'PASS',
        '"sellerSku" (string) set to 12345; baseline caveat: sellerSku: no value found for pattern /^SKU-[0-9]{6}$/; sent "conformance"',
      ],
      [
        'unknown-extra',
        'PASS',
        'added "zz_conformance_unknown_field"; baseline caveat: sellerSku: no value found for pattern /^SKU-[0-9]{6}$/; sent "conformance"',
      ],
      ['enum-mismatch', 'SKIP', 'schema has no property with a string enum'],
      [
        'wrong-case',
        'PASS',
        '"sellerSku" sent as "SellerSku"; normalized: "SellerSku" accepted, renamed event in _meta.normalized; baseline caveat: sellerSku: no value found for pattern /^SKU-[0-9]{6}$/; sent "conformance"',
      ],
    ]);
  });

  it('throws ServerUnreachableError when the program does not exist', async () => {
    await expect(
      probeServer({ target: { transport: 'stdio', commandLine: 'zz-missing-program' } }),
    ).rejects.toBeInstanceOf(ServerUnreachableError);
  });
});

describe('progress reporter', () => {
  it('redraws in place on a terminal and writes lines elsewhere', () => {
    const step: ProbeProgress = { index: 12, total: 40, tool: 'orders_search', probe: 'wrong-type' };
    expect(formatProgress(step)).toBe('[12/40] orders_search: wrong-type');
    const terminal: string[] = [];
    const onTerminal = createProgressReporter({ write: (text) => terminal.push(text), isTTY: true });
    onTerminal.report(step);
    onTerminal.finish();
    expect(terminal).toEqual(['\r\u001b[2K[12/40] orders_search: wrong-type', '\r\u001b[2K']);
    const piped: string[] = [];
    const onPipe = createProgressReporter({ write: (text) => piped.push(text), isTTY: false });
    onPipe.report(step);
    onPipe.finish();
    expect(piped).toEqual(['[12/40] orders_search: wrong-type\n']);
  });
});
