// `probe --upstream-faults` as a user runs it: the built CLI starts a small core server over stdio
// against its own loopback fault upstream (test/fixtures/fault-target-server.ts), once conforming
// and once broken in each way a probe must not overlook.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAULT_PROBE_NAMES } from '../src/index.js';
import type { ProbeReport, ProbeRow } from '../src/index.js';
import { ensureBuilt, runCliProcess, shellQuote } from './helpers/cli-runner.js';
import type { CliRun } from './helpers/cli-runner.js';

const SERVER_FILE = fileURLToPath(new URL('./fixtures/fault-target-server.ts', import.meta.url));
/**
 * How long the server waits for its upstream: the timeout round lasts that long, and every other
 * round's loopback answer must arrive within it, which at 1 s a loaded two-core machine was seen
 * to miss.
 */
const SERVER_TIMEOUT_MS = 3000;
/** Long enough for a server started with tsx on a busy machine. */
const PROBE_TIMEOUT_MS = '30000';
const RUN_TIMEOUT_MS = 180_000;

let folder: string;

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'probe-faults-'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface Probed {
  readonly run: CliRun;
  readonly report: ProbeReport;
  readonly junit: string;
  readonly row: (probe: string) => ProbeRow | undefined;
}

/** The server's command line, `{upstream}` as its first argument unless `upstream` says otherwise. */
function serverCommand(flags: readonly string[], upstream: readonly string[] = ['{upstream}']): string {
  return [
    shellQuote(process.execPath),
    '--import',
    'tsx',
    shellQuote(SERVER_FILE),
    ...upstream,
    `--timeout-ms=${SERVER_TIMEOUT_MS}`,
    ...flags,
  ].join(' ');
}

async function probe(name: string, command: string, options: readonly string[] = []): Promise<Probed> {
  const jsonPath = join(folder, `${name}.json`);
  const junitPath = join(folder, `${name}.xml`);
  const run = await runCliProcess(
    [
      'probe',
      '--stdio',
      command,
      '--upstream-faults',
      '--upstream-timeout-ms',
      String(SERVER_TIMEOUT_MS),
      '--timeout-ms',
      PROBE_TIMEOUT_MS,
      '--json',
      jsonPath,
      '--junit',
      junitPath,
      ...options,
    ],
    undefined,
    RUN_TIMEOUT_MS,
  );
  const report = JSON.parse(await readFile(jsonPath, 'utf8')) as ProbeReport;
  return {
    run,
    report,
    junit: await readFile(junitPath, 'utf8'),
    row: (probeName) => report.rows.find((entry) => entry.probe === probeName),
  };
}

function faultRows(report: ProbeReport): ProbeRow[] {
  const names: readonly string[] = FAULT_PROBE_NAMES;
  return report.rows.filter((entry) => names.includes(entry.probe));
}

describe('a server that answers each upstream fault right', () => {
  it('passes every round, with what came back in each row', { timeout: RUN_TIMEOUT_MS }, async () => {
    const { run, report, row } = await probe('conformant', serverCommand([]));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('verdict: CONFORMANT');
    expect(faultRows(report).map((entry) => [entry.probe, entry.tool, entry.result])).toEqual(
      FAULT_PROBE_NAMES.map((name) => [name, 'get_item', 'PASS']),
    );
    expect(row('upstream-success')).toMatchObject({
      expected: 'success',
      got: 'success',
      arguments: { id: 'conformance' },
      note: 'upstream answered HTTP 200 with a JSON object; the first listed tool whose call reached the fault upstream',
    });
    expect(row('upstream-404')).toMatchObject({
      expected: 'upstream_http/UPSTREAM_HTTP_404, not retryable',
      got: 'upstream_http/UPSTREAM_HTTP_404, not retryable',
    });
    expect(row('upstream-html-500')?.got).toBe('upstream_http/UPSTREAM_HTTP_500, retryable');
    expect(row('upstream-403')?.got).toBe('auth_error/UPSTREAM_HTTP_403, not retryable');
    expect(row('upstream-broken-json')).toMatchObject({ expected: 'success, or upstream_client', got: 'success' });
    expect(row('upstream-timeout')?.got).toBe('upstream_client/TOOL_EXECUTION_FAILED, retryable');
    expect(row('upstream-429')).toMatchObject({
      expected: 'rate_limited/RATE_LIMITED, retryable, retry after 7 s',
      got: 'rate_limited/RATE_LIMITED, retryable, retry after 7 s',
      note: 'upstream answered HTTP 429 with Retry-After: 7; on a server process of its own',
    });
    expect(row('upstream-403-retry-after')?.got).toBe('rate_limited/RATE_LIMITED, retryable, retry after 7 s');
    expect(row('upstream-403-remaining-zero')?.expected).toBe(
      'rate_limited/RATE_LIMITED, retryable, retry after 4 to 8 s',
    );
  });
});

describe('a server whose tool is not annotated as idempotent', () => {
  it(
    'passes the 500, cut-body and timeout rounds only with the effect-unknown form, not retryable',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const { run, report, row } = await probe('not-annotated', serverCommand(['--not-annotated']));
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(faultRows(report).filter((entry) => entry.result !== 'PASS')).toEqual([]);
      expect(
        ['upstream-html-500', 'upstream-cut-body', 'upstream-timeout', 'upstream-5xx'].map((name) => [
          row(name)?.expected,
          row(name)?.got,
        ]),
      ).toEqual([
        [
          'upstream_http/UPSTREAM_HTTP_500, not retryable, effect unknown',
          'upstream_http/UPSTREAM_HTTP_500, not retryable, effect unknown',
        ],
        [
          'upstream_client/TOOL_EXECUTION_FAILED, not retryable, effect unknown',
          'upstream_client/TOOL_EXECUTION_FAILED, not retryable, effect unknown',
        ],
        [
          'upstream_client/TOOL_EXECUTION_FAILED, not retryable, effect unknown',
          'upstream_client/TOOL_EXECUTION_FAILED, not retryable, effect unknown',
        ],
        ['upstream_http/UPSTREAM_HTTP_503, retryable', 'upstream_http/UPSTREAM_HTTP_503, retryable'],
      ]);
    },
  );
});

describe('a broken server', () => {
  it('fails the battery when every valid call answers TOOL_EXECUTION_FAILED', { timeout: RUN_TIMEOUT_MS }, async () => {
    // the URL reaches the server in a variable this time, as --upstream-env sets it
    const command = serverCommand(['--every-call-fails'], []);
    const { run, report, row, junit } = await probe('every-call-fails', command, ['--upstream-env', 'FAULT_UPSTREAM']);
    expect(run.code).toBe(1);
    expect(report.conformant).toBe(false);
    expect(row('upstream-success')).toMatchObject({
      result: 'FAIL',
      got: 'upstream_client/TOOL_EXECUTION_FAILED, not retryable',
      note: 'upstream answered HTTP 200 with a JSON object; the first listed tool whose call reached the fault upstream; expected success; got "The tool failed."',
    });
    expect(row('upstream-cut-body')).toMatchObject({
      result: 'FAIL',
      note: expect.stringContaining('expected retryable: true'),
    });
    expect(junit).toContain(
      '<testcase name="upstream-success get_item" classname="mcp-envelope-conformance.probe.upstream-success"',
    );
  });

  it(
    'fails the battery when no call reaches the upstream, and skips the rounds it cannot run',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const { run, report, row } = await probe('offline', serverCommand(['--offline']));
      expect(run.code).toBe(1);
      expect(row('upstream-success')).toMatchObject({
        tool: '-',
        result: 'FAIL',
        got: 'no upstream request',
        note: 'no call reached the fault upstream; tried get_item (upstream_client/TOOL_EXECUTION_FAILED)',
      });
      expect(
        faultRows(report)
          .slice(1)
          .map((entry) => [entry.result, entry.note]),
      ).toEqual(FAULT_PROBE_NAMES.slice(1).map(() => ['SKIP', 'no tool call reached the fault upstream']));
    },
  );

  it('fails the 404 row alone when a 404 is called retryable', { timeout: RUN_TIMEOUT_MS }, async () => {
    const { run, report, row } = await probe('retry-404', serverCommand(['--retry-404']), [
      '--fault-tool',
      'get_item',
      '--fault-arguments',
      '{"id":"item-42"}',
    ]);
    expect(run.code).toBe(1);
    expect(row('upstream-404')).toMatchObject({
      result: 'FAIL',
      got: 'upstream_http/UPSTREAM_HTTP_404, retryable',
      note: 'upstream answered HTTP 404 with a JSON message; expected retryable: false',
      arguments: { id: 'item-42' },
    });
    expect(
      faultRows(report)
        .filter((entry) => entry.result !== 'PASS')
        .map((entry) => entry.probe),
    ).toEqual(['upstream-404']);
    // a named tool is not picked, so the success row says nothing of a choice
    expect(row('upstream-success')?.note).toBe('upstream answered HTTP 200 with a JSON object');
  });
});

describe('usage errors', () => {
  it('refuses a command line without {upstream} and options that need --upstream-faults', async () => {
    const command = serverCommand([], []);
    const missing = await runCliProcess(['probe', '--stdio', command, '--upstream-faults']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'error: --stdio: --upstream-faults needs {upstream} in the command line (e.g. --upstream {upstream}) or --upstream-env <NAME>',
    );
    const stray = await runCliProcess(['probe', '--stdio', command, '--fault-tool', 'get_item']);
    expect([stray.code, stray.stderr]).toEqual([
      2,
      'error: --fault-tool, --fault-arguments and --upstream-env apply to --upstream-faults only\n',
    ]);
    const remote = await runCliProcess(['probe', '--url', 'http://127.0.0.1:9/mcp', '--upstream-faults']);
    expect([remote.code, remote.stderr]).toEqual([
      2,
      'error: --upstream-faults needs a server the probe starts (--stdio)\n',
    ]);
    const notJson = await runCliProcess([
      'probe',
      '--stdio',
      command,
      '--upstream-faults',
      '--fault-tool',
      'get_item',
      '--fault-arguments',
      '[1]',
    ]);
    expect([notJson.code, notJson.stderr]).toEqual([2, 'error: --fault-arguments must be a JSON object\n']);
  });
});
