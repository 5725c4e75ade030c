import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProbeReport } from '../src/index.js';
import { ensureBuilt, fixtureCommand, fixtureServer, PROBE_SLACK, runCliProcess } from './helpers/cli-runner.js';
import type { FixtureMode } from './helpers/cli-runner.js';
import { parseXml } from './helpers/xml.js';

let folder: string;

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'conformance-probe-'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function readReport(path: string): Promise<ProbeReport> {
  return JSON.parse(await readFile(path, 'utf8')) as ProbeReport;
}

function rowTuples(report: ProbeReport): [string, string, string, string][] {
  return report.rows.map((row) => [row.probe, row.tool, row.result, row.got]);
}

const UNKNOWN_TOOL = /^zz_conformance_no_such_tool_[0-9a-f]{8}$/;

/** A fixture server serving Streamable HTTP on 127.0.0.1: `url` is its MCP endpoint. */
interface HttpFixture {
  readonly url: string;
  readonly stop: () => void;
}

/** Starts the fixture server in `mode` with `--http`, resolving once it says which port it listens on. */
async function startHttpFixture(mode: FixtureMode): Promise<HttpFixture> {
  const server: ChildProcess = spawn(process.execPath, [fixtureServer, mode, '--http'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let output = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening (\d+)/.exec(output);
        if (match !== null) resolve(match[1] ?? '');
      });
      server.once('exit', () => {
        reject(new Error('fixture HTTP server exited'));
      });
    });
    return { url: `http://127.0.0.1:${port}/mcp`, stop: () => server.kill() };
  } catch (error) {
    server.kill();
    throw error;
  }
}

describe('probe against a server with every kind of envelope problem', () => {
  let run: Awaited<ReturnType<typeof runCliProcess>>;
  let report: ProbeReport;
  let mixed: HttpFixture | undefined;
  const jsonPath = (): string => join(folder, 'mixed.json');
  const junitPath = (): string => join(folder, 'mixed.xml');

  beforeAll(async () => {
    // The 2.5 s deadline is under test (exports_create never answers) and bounds every request,
    // the initialize handshake among them. Over --stdio that handshake includes starting a Node
    // process, which a loaded two-core machine took longer than 2.5 s to do; a server this test
    // started and heard listening leaves the deadline to the calls alone.
    mixed = await startHttpFixture('mixed');
    run = await runCliProcess([
      'probe',
      '--url',
      mixed.url,
      '--timeout-ms',
      '2500',
      '--json',
      jsonPath(),
      '--junit',
      junitPath(),
      '--progress',
    ]);
    report = await readReport(jsonPath());
  }, 120_000);

  afterAll(() => {
    mixed?.stop();
  });

  it('exits 1: not conformant', () => {
    expect(run.code).toBe(1);
    expect(report.conformant).toBe(false);
  });

  it('records server info, capability and tools', () => {
    expect(report.server).toEqual({ name: 'envelope-fixture-mixed', version: '1.2.3' });
    expect(report.capability).toMatchObject({
      advertised: true,
      location: 'capabilities.experimental.openbridge_envelope',
      contract_version: 1,
      error_kinds: ['mcp_input_validation', 'sp_api_http'],
      issues: [],
    });
    expect(report.tools).toMatchObject({ listed: 7, pages: 1, probed: 7 });
  });

  it('gives exactly these rows', () => {
    const tuples = rowTuples(report);
    expect(tuples[3]?.[1]).toMatch(UNKNOWN_TOOL);
    expect(
      tuples.map(([probe, tool, result, got]) => [probe, UNKNOWN_TOOL.test(tool) ? '<unknown>' : tool, result, got]),
    ).toEqual([
      ['capability', '-', 'PASS', 'capabilities.experimental.openbridge_envelope v1 (2 kinds)'],
      ['tools-list', '-', 'PASS', '7 tools in 1 page'],
      ['contract-tool', 'get_envelope_contract', 'FAIL', 'not listed'],
      ['unknown-tool', '<unknown>', 'FAIL', 'tool_not_found/TOOL_NOT_FOUND'],
      ['contract-versions', '<unknown>', 'PASS', '[1, 2] -> v1, nothing -> v1'],
      ['missing-required', 'orders_search', 'PASS', 'mcp_input_validation/SCHEMA_REQUIRED'],
      ['wrong-type', 'orders_search', 'PASS', 'mcp_input_validation/SCHEMA_TYPE_MISMATCH'],
      ['unknown-extra', 'orders_search', 'PASS', 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES'],
      ['enum-mismatch', 'orders_search', 'PASS', 'mcp_input_validation/SCHEMA_ENUM_MISMATCH'],
      ['wrong-case', 'orders_search', 'PASS', 'success'],
      ['missing-required', 'reports_get', 'FAIL', 'no envelope'],
      ['wrong-type', 'reports_get', 'FAIL', 'no envelope'],
      ['unknown-extra', 'reports_get', 'SKIP', '-'],
      ['enum-mismatch', 'reports_get', 'SKIP', '-'],
      ['wrong-case', 'reports_get', 'FAIL', 'no envelope'],
      ['missing-required', 'inventory_summaries', 'FAIL', 'success'],
      ['wrong-type', 'inventory_summaries', 'FAIL', 'success'],
      ['unknown-extra', 'inventory_summaries', 'FAIL', 'success'],
      ['enum-mismatch', 'inventory_summaries', 'FAIL', 'success'],
      ['wrong-case', 'inventory_summaries', 'PASS', 'success'],
      ['missing-required', 'listings_put', 'FAIL', 'mcp_input_validation/SCHEMA_REQUIRED (invalid)'],
      ['wrong-type', 'listings_put', 'FAIL', 'mcp_input_validation/SCHEMA_REQUIRED (invalid)'],
      ['unknown-extra', 'listings_put', 'FAIL', 'mcp_input_validation/SCHEMA_REQUIRED (invalid)'],
      ['enum-mismatch', 'listings_put', 'SKIP', '-'],
      ['wrong-case', 'listings_put', 'FAIL', 'mcp_input_validation/SCHEMA_REQUIRED (invalid)'],
      ['missing-required', 'campaigns_list', 'FAIL', 'ads_api_http/ADS_API_HTTP_400'],
      ['wrong-type', 'campaigns_list', 'FAIL', 'ads_api_http/ADS_API_HTTP_400'],
      ['unknown-extra', 'campaigns_list', 'FAIL', 'ads_api_http/ADS_API_HTTP_400'],
      ['enum-mismatch', 'campaigns_list', 'FAIL', 'ads_api_http/ADS_API_HTTP_400'],
      ['wrong-case', 'campaigns_list', 'FAIL', 'ads_api_http/ADS_API_HTTP_400'],
      ['missing-required', 'catalog_get', 'PASS', 'mcp_input_validation/SCHEMA_REQUIRED'],
      ['wrong-type', 'catalog_get', 'PASS', 'mcp_input_validation/SCHEMA_TYPE_MISMATCH'],
      ['unknown-extra', 'catalog_get', 'PASS', 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES'],
      ['enum-mismatch', 'catalog_get', 'SKIP', '-'],
      ['wrong-case', 'catalog_get', 'PASS', 'success'],
      ['missing-required', 'exports_create', 'FAIL', 'timeout'],
      ['wrong-type', 'exports_create', 'FAIL', 'timeout'],
      ['unknown-extra', 'exports_create', 'FAIL', 'timeout'],
      ['enum-mismatch', 'exports_create', 'SKIP', '-'],
      ['wrong-case', 'exports_create', 'FAIL', 'timeout'],
    ]);
    expect(report.summary).toEqual({ passed: 13, failed: 22, skipped: 5 });
  });

  it('explains each failure in the note', () => {
    const note = (probe: string, tool: string): string =>
      report.rows.find((row) => row.probe === probe && row.tool === tool)?.note ?? '';
    expect(report.rows[2]?.note).toBe('get_envelope_contract is not in tools/list');
    expect(report.rows[3]?.note).toBe(
      'error_kind tool_not_found is not in the advertised error_kinds of version 1; envelope arrived in a JSON-RPC error',
    );
    expect(note('missing-required', 'reports_get')).toBe(
      'dropped required "reportId"; no envelope (is_error): "Error: report not available"',
    );
    expect(note('missing-required', 'inventory_summaries')).toBe(
      'dropped required "granularityType"; call succeeded; expected SCHEMA_REQUIRED',
    );
    expect(note('missing-required', 'listings_put')).toBe(
      'dropped required "sku"; invalid envelope: (root): missing required property "retryable"',
    );
    expect(note('wrong-type', 'campaigns_list')).toBe(
      '"stateFilter" (string) set to 12345; error_kind ads_api_http is not in the advertised error_kinds of version 1; expected mcp_input_validation/SCHEMA_TYPE_MISMATCH',
    );
    expect(note('wrong-case', 'campaigns_list')).toBe(
      '"profileId" sent as "ProfileId"; same outcome as with the correct key (ads_api_http/ADS_API_HTTP_400); error_kind ads_api_http is not in the advertised error_kinds of version 1',
    );
    expect(note('wrong-case', 'orders_search')).toBe(
      '"marketplaceIds" sent as "MarketplaceIds"; normalized: "MarketplaceIds" accepted, renamed event in _meta.normalized',
    );
    expect(note('missing-required', 'catalog_get')).toBe(
      'dropped required "asin"; envelope arrived in a JSON-RPC error',
    );
    expect(note('wrong-case', 'exports_create')).toBe('"format" sent as "Format"; timed out after 2500 ms');
    expect(note('unknown-extra', 'reports_get')).toBe('schema sets additionalProperties: true');
  });

  it('sends a valid baseline changed in one place', () => {
    const args = (probe: string): unknown =>
      report.rows.find((row) => row.probe === probe && row.tool === 'orders_search')?.arguments;
    expect(args('missing-required')).toEqual({ createdAfter: '2026-01-15T10:30:00Z' });
    expect(args('wrong-type')).toEqual({ marketplaceIds: ['ATVPDKIKX0DER'], createdAfter: 12345 });
    expect(args('enum-mismatch')).toEqual({
      marketplaceIds: ['ATVPDKIKX0DER'],
      createdAfter: '2026-01-15T10:30:00Z',
      orderStatus: 'zz_conformance_not_in_enum',
    });
    expect(args('wrong-case')).toEqual({ MarketplaceIds: ['ATVPDKIKX0DER'], createdAfter: '2026-01-15T10:30:00Z' });
  });

  it('prints the header, the table and the closing line', () => {
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 6)).toEqual([
      'mcp-envelope-conformance probe',
      `target:     streamable-http: ${mixed?.url ?? ''}`,
      'server:     envelope-fixture-mixed 1.2.3',
      'capability: advertised at capabilities.experimental.openbridge_envelope: contract_version 1, error_kinds [mcp_input_validation, sp_api_http] (valid)',
      'tools:      7 listed in 1 page, 7 probed',
      expect.stringMatching(/^duration: {3}\d+ ms$/) as string,
    ]);
    expect(lines[7]?.split(/\s{2,}/)).toEqual(['probe', 'tool', 'expected', 'got', 'result', 'note']);
    expect(lines.at(-2)).toBe('verdict: NONCONFORMANT (22 failing rows)');
    expect(lines.at(-1)).toBe('probe: 13 passed, 22 failed, 5 skipped');
    expect(
      lines.find((line) => line.startsWith('missing-required ') && line.includes(' reports_get '))?.split(/\s{2,}/),
    ).toEqual([
      'missing-required',
      'reports_get',
      'mcp_input_validation/SCHEMA_REQUIRED',
      'no envelope',
      'FAIL',
      'dropped required "reportId"; no envelope (is_error): "Error: report not available"',
    ]);
  });

  it('shows progress on stderr with --progress', () => {
    const progress = run.stderr.split('\n').filter((line) => line.startsWith('['));
    expect(progress).toHaveLength(32);
    expect(progress[0]).toMatch(/^\[1\/32\] zz_conformance_no_such_tool_[0-9a-f]{8}: unknown-tool$/);
    expect(progress[2]).toBe('[3/32] orders_search: missing-required');
    expect(progress.at(-1)).toBe('[32/32] exports_create: wrong-case');
  });

  it('writes well-formed JUnit XML with one testcase per row and the right counts', async () => {
    const root = parseXml(await readFile(junitPath(), 'utf8'));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '40', failures: '22', skipped: '5', errors: '0' });
    expect(root.children).toHaveLength(1);
    const suite = root.children[0]!;
    expect(suite.attributes).toMatchObject({
      name: 'probe envelope-fixture-mixed',
      tests: '40',
      failures: '22',
      skipped: '5',
    });
    expect(suite.children).toHaveLength(40);
    expect(suite.children.filter((testcase) => testcase.children[0]?.name === 'failure')).toHaveLength(22);
    expect(suite.children.filter((testcase) => testcase.children[0]?.name === 'skipped')).toHaveLength(5);
    const reportsRow = suite.children.find(
      (testcase) => testcase.attributes['name'] === 'missing-required reports_get',
    );
    expect(reportsRow?.children[0]?.attributes['message']).toBe(
      'dropped required "reportId"; no envelope (is_error): "Error: report not available"',
    );
    expect(reportsRow?.children[0]?.text).toBe(
      'expected: mcp_input_validation/SCHEMA_REQUIRED\ngot: no envelope\nnote: dropped required "reportId"; no envelope (is_error): "Error: report not available"',
    );
  });

  it('exits 0 on the same server with --allow-nonconformant, after printing the report', async () => {
    const allowed = await runCliProcess([
      'probe',
      '--url',
      mixed?.url ?? '',
      '--max-tools',
      '1',
      '--allow-nonconformant',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout.trimEnd().split('\n').at(-1)).toBe('probe: 8 passed, 2 failed, 0 skipped');
  }, 120_000);
});

describe('probe against a fully conformant server', () => {
  it('exits 0 with every row passing', async () => {
    const jsonPath = join(folder, 'conformant.json');
    const run = await runCliProcess([
      'probe',
      '--stdio',
      fixtureCommand('conformant'),
      ...PROBE_SLACK,
      '--json',
      jsonPath,
    ]);
    expect(run.code).toBe(0);
    const report = await readReport(jsonPath);
    expect(report.conformant).toBe(true);
    expect(rowTuples(report).map(([probe, , result, got]) => [probe, result, got])).toEqual([
      ['capability', 'PASS', 'capabilities.experimental.openbridge_envelope v1 (3 kinds)'],
      ['tools-list', 'PASS', '2 tools in 1 page'],
      ['contract-tool', 'PASS', 'the same object'],
      ['unknown-tool', 'PASS', 'tool_not_found/TOOL_NOT_FOUND'],
      ['contract-versions', 'PASS', '[1, 2] -> v1, nothing -> v1'],
      ['missing-required', 'PASS', 'mcp_input_validation/SCHEMA_REQUIRED'],
      ['wrong-type', 'PASS', 'mcp_input_validation/SCHEMA_TYPE_MISMATCH'],
      ['unknown-extra', 'PASS', 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES'],
      ['enum-mismatch', 'PASS', 'mcp_input_validation/SCHEMA_ENUM_MISMATCH'],
      ['wrong-case', 'PASS', 'success'],
      ['missing-required', 'SKIP', '-'],
      ['wrong-type', 'SKIP', '-'],
      ['unknown-extra', 'PASS', 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES'],
      ['enum-mismatch', 'SKIP', '-'],
      ['wrong-case', 'SKIP', '-'],
    ]);
    expect(report.rows[2]?.note).toBe(
      'settings: MCP_SCHEMA_KEY_NORMALIZATION_ENABLED true, MCP_STRICT_UNKNOWN_FIELDS true',
    );
    expect(run.stdout).toContain('\nverdict: CONFORMANT\nprobe: 11 passed, 0 failed, 4 skipped\n');
    expect(run.stderr).toBe('');
  });

  it('is reached over Streamable HTTP with --url, without printing header values', async () => {
    const server = await startHttpFixture('conformant');
    try {
      const jsonPath = join(folder, 'http.json');
      const run = await runCliProcess([
        'probe',
        '--url',
        `${server.url}?key=hidden`,
        '--header',
        'Authorization: Bearer sekret-value',
        '--json',
        jsonPath,
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`target:     streamable-http: ${server.url}\n`);
      expect(run.stdout).toContain('probe: 11 passed, 0 failed, 4 skipped');
      const text = await readFile(jsonPath, 'utf8');
      expect(text).not.toContain('sekret-value');
      expect(text).not.toContain('hidden');
    } finally {
      server.stop();
    }
  });
});

describe('probe edge cases', () => {
  it('stops at a repeated cursor and reports it', async () => {
    const jsonPath = join(folder, 'loop.json');
    const run = await runCliProcess([
      'probe',
      '--stdio',
      fixtureCommand('cursor-loop'),
      ...PROBE_SLACK,
      '--json',
      jsonPath,
    ]);
    expect(run.code).toBe(1);
    const report = await readReport(jsonPath);
    expect(report.tools).toEqual({
      listed: 3,
      pages: 2,
      names: ['orders_search', 'get_envelope_contract', 'profiles_list'],
      issue: 'cursor loop: nextCursor "page-2" repeated after page 2',
      probed: 3,
    });
    expect(report.rows[1]).toMatchObject({
      probe: 'tools-list',
      result: 'FAIL',
      got: '3 tools in 2 pages',
      note: 'cursor loop: nextCursor "page-2" repeated after page 2',
    });
  });

  it('exits 2 with a clear message when the server cannot be started', async () => {
    const run = await runCliProcess(['probe', '--stdio', 'zz-no-such-program-for-conformance --flag']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: cannot reach the server: spawn zz-no-such-program-for-conformance ENOENT\n');
    expect(run.stdout).toBe('');
  });

  it('exits 2 when the server process dies before the handshake, quoting its stderr', async () => {
    const run = await runCliProcess([
      'probe',
      '--stdio',
      `${JSON.stringify(process.execPath)} -e "console.error('boot failed: missing SP_REFRESH_TOKEN'); process.exit(3)"`,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: cannot reach the server: MCP error -32000: Connection closed\n  server stderr (last lines):\n  boot failed: missing SP_REFRESH_TOKEN\n',
    );
  });

  it('exits 2 when the URL cannot be reached', async () => {
    const run = await runCliProcess(['probe', '--url', 'http://127.0.0.1:9/mcp']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: cannot reach the server: /);
  });

  it.each([
    [[], 'error: give exactly one of --stdio "<command line>" and --url <url>\n'],
    [
      ['--stdio', 'node x.js', '--url', 'http://127.0.0.1:9/mcp'],
      'error: give exactly one of --stdio "<command line>" and --url <url>\n',
    ],
    [['--stdio', 'node "x.js'], 'error: --stdio: unterminated double quote at position 5\n'],
    [['--stdio', 'node x.js', '--header', 'X-Api: 1'], 'error: --header applies to --url only\n'],
  ])('exits 2 for usage error %j', async (args, message) => {
    const run = await runCliProcess(['probe', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(message);
  });

  it('exits 2 for a malformed --timeout-ms', async () => {
    const run = await runCliProcess(['probe', '--stdio', 'node x.js', '--timeout-ms', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `error: option '--timeout-ms <ms>' argument '0' is invalid. expected an integer >= 1, got "0"`,
    );
  });
});
