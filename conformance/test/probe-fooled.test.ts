import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProbeReport, ProbeRow } from '../src/index.js';
import { ensureBuilt, fixtureCommand, PROBE_SLACK, runCliProcess } from './helpers/cli-runner.js';
import type { CliRun, FixtureMode } from './helpers/cli-runner.js';

// Each server here is broken (or configured) in one way a probe could overlook.

let folder: string;

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'conformance-fooled-'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface Probed {
  readonly run: CliRun;
  readonly report: ProbeReport;
  readonly row: (probe: string, tool: string) => ProbeRow | undefined;
}

async function probe(
  name: string,
  mode: FixtureMode,
  flags: readonly string[] = [],
  options: readonly string[] = [],
): Promise<Probed> {
  const jsonPath = join(folder, `${name}.json`);
  const run = await runCliProcess([
    'probe',
    '--stdio',
    fixtureCommand(mode, ...flags),
    ...PROBE_SLACK,
    '--json',
    jsonPath,
    ...options,
  ]);
  const report = JSON.parse(await readFile(jsonPath, 'utf8')) as ProbeReport;
  return {
    run,
    report,
    row: (probeName, tool) => report.rows.find((entry) => entry.probe === probeName && entry.tool === tool),
  };
}

describe('the text copy of an envelope', () => {
  it('fails every row whose content[0].text is prose instead of the envelope', async () => {
    const { run, row } = await probe('prose', 'conformant', ['--text=prose']);
    expect(run.code).toBe(1);
    expect(row('missing-required', 'orders_search')).toMatchObject({
      result: 'FAIL',
      got: 'mcp_input_validation/SCHEMA_REQUIRED',
      note: 'dropped required "marketplaceIds"; content[0].text is not the envelope as JSON: "Error: Missing required field marketplaceIds."',
    });
    expect(row('unknown-extra', 'orders_search')?.result).toBe('FAIL');
  });

  it('fails every row whose content[0].text is another envelope', async () => {
    const { run, row } = await probe('other-envelope', 'conformant', ['--text=other-envelope']);
    expect(run.code).toBe(1);
    expect(row('wrong-type', 'orders_search')).toMatchObject({
      result: 'FAIL',
      note: '"createdAfter" (string) set to 12345; content[0].text holds another value (internal_error/INTERNAL_ERROR) than the envelope mcp_input_validation/SCHEMA_TYPE_MISMATCH',
    });
  });
});

describe('get_envelope_contract', () => {
  it('fails the contract-tool row when the server does not list the tool', async () => {
    const { row } = await probe('no-contract-tool', 'mixed', [], ['--max-tools', '0']);
    expect(row('contract-tool', 'get_envelope_contract')).toMatchObject({
      result: 'FAIL',
      got: 'not listed',
      note: 'get_envelope_contract is not in tools/list',
    });
  });

  it('fails the contract-tool row when the tool disagrees with the advertised capability', async () => {
    const { run, row, report } = await probe('contract-differs', 'conformant', ['--contract=differs']);
    expect(run.code).toBe(1);
    expect(report.conformant).toBe(false);
    expect(row('contract-tool', 'get_envelope_contract')).toMatchObject({
      result: 'FAIL',
      got: 'differs',
      note: 'error_kinds: get_envelope_contract says ["mcp_input_validation"], the capability ["mcp_input_validation","tool_not_found","sp_api_http"]; settings: MCP_SCHEMA_KEY_NORMALIZATION_ENABLED true, MCP_STRICT_UNKNOWN_FIELDS true',
    });
  });
});

describe('the settings of get_envelope_contract', () => {
  it('fails the contract-tool row when the tool reports none of the switches', async () => {
    const { run, row } = await probe('contract-no-settings', 'conformant', ['--contract=no-settings']);
    expect(run.code).toBe(1);
    expect(row('contract-tool', 'get_envelope_contract')).toMatchObject({
      result: 'FAIL',
      got: 'settings incomplete',
      note: 'settings do not report MCP_SCHEMA_KEY_NORMALIZATION_ENABLED, MCP_SCHEMA_KEY_NORMALIZATION_META, MCP_STRICT_UNKNOWN_FIELDS as a boolean; no settings reported',
    });
  });
});

describe('rows judged by the switches get_envelope_contract reports', () => {
  it('strict unknown fields off: an unknown key that passes through passes', async () => {
    const { run, row } = await probe('strict-off', 'silent', ['--strict-off']);
    expect(run.code).toBe(0);
    expect(row('unknown-extra', 'orders_silent')).toMatchObject({
      result: 'PASS',
      expected: 'passed through (strict unknown fields off)',
      got: 'success',
      note: 'added "zz_conformance_unknown_field"; passed through: "zz_conformance_unknown_field" accepted (strict unknown fields off)',
    });
  });

  it('strict unknown fields reported off but the key rejected: the row fails', async () => {
    const { run, row } = await probe('strict-misreported', 'silent', ['--strict-off', '--misreport']);
    expect(run.code).toBe(1);
    expect(row('unknown-extra', 'orders_silent')).toMatchObject({
      result: 'FAIL',
      got: 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES',
      note: 'added "zz_conformance_unknown_field"; "zz_conformance_unknown_field" rejected although strict unknown fields is off (MCP_STRICT_UNKNOWN_FIELDS false)',
    });
  });

  it('normalization off: a SCHEMA_* envelope naming the wrong-case key passes', async () => {
    const { run, row } = await probe('normalization-off', 'conformant', ['--normalization-off']);
    expect(run.code).toBe(0);
    expect(row('wrong-case', 'orders_search')).toMatchObject({
      result: 'PASS',
      expected: 'SCHEMA_* naming "MarketplaceIds" or a case_mismatch hint',
      got: 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES',
      note: '"marketplaceIds" sent as "MarketplaceIds"; rejected: "MarketplaceIds" named in a SCHEMA_ADDITIONAL_PROPERTIES detail (normalization off)',
    });
  });

  it('normalization reported off but the wrong-case key accepted: the row fails', async () => {
    const { run, row } = await probe('normalization-misreported', 'conformant', ['--normalization-off', '--misreport']);
    expect(run.code).toBe(1);
    expect(row('wrong-case', 'orders_search')).toMatchObject({
      result: 'FAIL',
      got: 'success',
      note: '"marketplaceIds" sent as "MarketplaceIds"; "MarketplaceIds" accepted although normalization is off (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED false); expected SCHEMA_* naming "MarketplaceIds" or a case_mismatch hint',
    });
  });
});

describe('a wrong-case key the schema admits as an undeclared key, normalization off', () => {
  it('passes when the server passes it through unrenamed and says so', async () => {
    const { run, row } = await probe('open-normalization-off', 'open', ['--normalization-off']);
    expect(run.code).toBe(0);
    expect(row('wrong-case', 'orders_open')).toMatchObject({
      result: 'PASS',
      expected: 'SCHEMA_* naming "PageSize" or a case_mismatch hint, or passed through unrenamed',
      got: 'success',
      note: '"pageSize" sent as "PageSize"; passed through: "PageSize" accepted as an undeclared key the schema admits (normalization off)',
    });
  });

  it('fails when the server renames it although it reports normalization off', async () => {
    const { run, row } = await probe('open-normalization-misreported', 'open', ['--normalization-off', '--misreport']);
    expect(run.code).toBe(1);
    expect(row('wrong-case', 'orders_open')).toMatchObject({
      result: 'FAIL',
      got: 'success',
      note: '"pageSize" sent as "PageSize"; "PageSize" renamed although normalization is off (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED false)',
    });
  });
});

describe('rows judged by normalization reported on', () => {
  it('a wrong-case key rejected as an additional property fails the row', async () => {
    const { run, row } = await probe('no-rename', 'conformant', ['--no-rename']);
    expect(run.code).toBe(1);
    expect(row('wrong-case', 'orders_search')).toMatchObject({
      result: 'FAIL',
      expected: 'normalized',
      got: 'mcp_input_validation/SCHEMA_ADDITIONAL_PROPERTIES',
      note: '"marketplaceIds" sent as "MarketplaceIds"; "MarketplaceIds" rejected as an additional property although normalization is on (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED true)',
    });
  });
});

describe('a wrong-case key on an optional property', () => {
  it('is inconclusive (a skip with the reason) when nothing shows the rename, since a server that drops the key looks the same', async () => {
    const { row } = await probe('optional', 'optional');
    expect(row('wrong-case', 'orders_count')).toMatchObject({
      result: 'SKIP',
      got: 'success',
      arguments: { PageSize: 1 },
      note: '"pageSize" sent as "PageSize"; inconclusive: "PageSize" accepted, but "pageSize" is optional and no renamed event was reported, so a server that dropped the key would look the same',
    });
  });
});

describe('tools/list paging', () => {
  it('follows nextCursor "" to the next page', async () => {
    const { run, report } = await probe('empty-cursor', 'empty-cursor');
    expect(run.code).toBe(0);
    expect(report.tools).toEqual({ listed: 2, pages: 2, names: ['orders_search', 'get_envelope_contract'], probed: 2 });
    expect(report.rows.find((entry) => entry.probe === 'contract-tool')?.result).toBe('PASS');
  });

  it('ends the list at nextCursor null', async () => {
    const { run, report } = await probe('null-cursor', 'null-cursor');
    expect(run.code).toBe(0);
    expect(report.tools).toEqual({ listed: 2, pages: 1, names: ['orders_search', 'get_envelope_contract'], probed: 2 });
  });
});

describe('--timeout-ms', () => {
  it('bounds the initialize handshake too', async () => {
    const run = await runCliProcess([
      'probe',
      '--stdio',
      fixtureCommand('conformant', '--slow-init=5000'),
      '--timeout-ms',
      '1000',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: cannot reach the server: no answer to initialize within 1000 ms (--timeout-ms)\n');
    expect(run.stdout).toBe('');
  });

  it('says so in --help', async () => {
    const run = await runCliProcess(['probe', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      '--timeout-ms <ms> timeout in milliseconds of each request, the initialize handshake (server start included) among them (default: 10000)',
    );
  });
});

describe('the contract versions', () => {
  const versionsRow = (report: ProbeReport) => report.rows.find((entry) => entry.probe === 'contract-versions');

  it('passes a server that speaks version 2 only: a client that states nothing gets its contract_version, 2', async () => {
    const { run, report } = await probe('v2-only', 'conformant', ['--speaks=v2-only'], ['--max-tools', '0']);
    expect(run.code, run.stderr).toBe(0);
    expect(report.capability).toMatchObject({ contract_versions: [2], issues: [] });
    expect(versionsRow(report)).toMatchObject({
      result: 'PASS',
      expected: '[1, 2] -> v2, nothing -> v2',
      got: '[1, 2] -> v2, nothing -> v2',
    });
  });

  it('passes a server of the previous release (version 1 only): both clients get version 1', async () => {
    const { report } = await probe('v1-only', 'conformant', [], ['--max-tools', '0']);
    expect(versionsRow(report)).toMatchObject({ result: 'PASS', got: '[1, 2] -> v1, nothing -> v1' });
  });

  it('fails a server that lists version 2 but answers version 1 to a client that states [1, 2]', async () => {
    const { run, report } = await probe('ignores', 'conformant', ['--speaks=ignores-request'], ['--max-tools', '0']);
    expect(run.code).toBe(1);
    expect(report.capability.issues).toEqual([]);
    expect(versionsRow(report)).toMatchObject({
      result: 'FAIL',
      got: '[1, 2] -> v1, nothing -> v1',
      note: 'a client stating [1, 2] got v1, expected v2 (the highest both read)',
    });
  });
});
