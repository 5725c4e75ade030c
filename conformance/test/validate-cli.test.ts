import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureBuilt, runCliProcess } from './helpers/cli-runner.js';

/** The same failure as a v2 reader gets it during the v2 window. */
const validEnvelopeV2 = {
  error_kind: 'upstream_http',
  legacy_error_kind: 'sp_api_http',
  upstream: 'sp-api',
  tool: 'fba_inventory_summaries',
  summary: 'SP-API request failed with HTTP 400.',
  details: [{ path: 'granularityId', issue: 'Invalid granularityId.', received_type: 'string', http_status: 400 }],
  hints: ['Use the marketplace id as granularityId.'],
  examples: [],
  error_code: 'UPSTREAM_HTTP_400',
  retryable: false,
  _envelope_version: 2,
};

const validEnvelope = {
  error_kind: 'sp_api_http',
  tool: 'fba_inventory_summaries',
  summary: 'SP-API request failed with HTTP 400.',
  details: [{ path: 'granularityId', issue: 'Invalid granularityId.', received_type: 'string', http_status: 400 }],
  hints: ['Use the marketplace id as granularityId.'],
  examples: [],
  error_code: 'SP_API_HTTP_400',
  retryable: false,
  _envelope_version: 1,
};

let folder: string;

async function write(relativePath: string, content: unknown): Promise<string> {
  const path = join(folder, relativePath);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'conformance-validate-'));
  await mkdir(join(folder, 'tree', 'deeper'), { recursive: true });
  await mkdir(join(folder, 'empty'));
  await write('good.json', validEnvelope);
  await write('good-v2.json', validEnvelopeV2);
  await write('v3.json', { ...validEnvelopeV2, _envelope_version: 3 });
  await write('v2-fixture.json', { _fixture_meta: { server: 'sp' }, envelope: validEnvelopeV2 });
  await write('bad.json', { ...validEnvelope, retryable: undefined, error_kind: 'precondition_failed' });
  await write('array.json', [validEnvelope]);
  await write('invalid.json', '{ "error_kind": ');
  await write('unrelated.json', { name: 'not an envelope', version: 3 });
  await write('tree/a-envelope-fixture.json', {
    _fixture_meta: { server: 'ads' },
    envelope: { ...validEnvelope, error_kind: 'ads_api_http', error_code: 'ADS_API_HTTP_400' },
  });
  await write('tree/b-response-without-meta.json', { _fixture_meta: { server: 'sp' }, response: { orders: [] } });
  await write('tree/deeper/c-response-bad-meta.json', {
    _fixture_meta: { server: 'sp' },
    response: {
      orders: [],
      _meta: { rate_limit: { remaining: null }, normalized: [{ kind: 'renamed', from: 'MarketplaceIds' }] },
    },
  });
  await write('tree/deeper/d-response-good-meta.json', {
    _fixture_meta: { server: 'ads' },
    response: { campaigns: [], _meta: { rate_limit: { limit_per_second: 10, remaining: 9, reset_at: '1772443020' } } },
  });
  await write('tree/notes.txt', 'not json, not scanned');
  await symlink(join(folder, 'nowhere.json'), join(folder, 'tree', 'deeper', 'e-dangling.json'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('mcp-envelope-conformance validate', () => {
  it('passes a valid bare envelope with exit 0', async () => {
    const run = await runCliProcess(['validate', 'good.json'], folder);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('PASS good.json (envelope, valid v1 envelope)\nvalidate: 1 passed, 0 failed\n');
  });

  it('fails an invalid envelope with one line per violation and exit 1', async () => {
    const run = await runCliProcess(['validate', 'bad.json', 'good.json'], folder);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      [
        'FAIL bad.json (envelope, v1 envelope)',
        '  (root): missing required property "retryable"',
        '  /error_kind: must be one of ["mcp_input_validation","tool_not_found","sp_api_http","ads_api_http","sp_api_client","ads_api_client","auth_error","rate_limited","sandbox_runtime","internal_error"]',
        'PASS good.json (envelope, valid v1 envelope)',
        'validate: 1 passed, 1 failed',
        '',
      ].join('\n'),
    );
  });

  it('walks folders recursively, reads only *.json, and checks fixtures and response _meta', async () => {
    const run = await runCliProcess(['validate', 'tree'], folder);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 9)).toEqual([
      'PASS tree/a-envelope-fixture.json (envelope fixture, valid v1 envelope)',
      'FAIL tree/b-response-without-meta.json (response fixture)',
      '  /response: response fixture carries no _meta',
      'FAIL tree/deeper/c-response-bad-meta.json (response fixture)',
      '  /response/_meta/normalized/0: missing required property "to"',
      '  /response/_meta/rate_limit/remaining: must be number,string',
      'PASS tree/deeper/d-response-good-meta.json (response fixture)',
      'FAIL tree/deeper/e-dangling.json (unknown)',
      expect.stringMatching(/^ {2}\(root\): cannot read file: ENOENT: /) as string,
    ]);
    expect(lines.slice(9)).toEqual(['validate: 2 passed, 3 failed', '']);
  });

  it('reports unreadable shapes, invalid JSON, missing paths and empty folders as failures, never crashing', async () => {
    const run = await runCliProcess(
      ['validate', 'array.json', 'invalid.json', 'unrelated.json', 'missing.json', 'empty'],
      folder,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines).toEqual([
      'FAIL array.json (unknown)',
      '  (root): JSON value is array, not an envelope or fixture object',
      'FAIL invalid.json (unknown)',
      expect.stringMatching(/^ {2}\(root\): invalid JSON: .+/) as string,
      'FAIL unrelated.json (unknown)',
      '  (root): object is neither an envelope (no envelope field) nor a fixture (no _fixture_meta)',
      'FAIL missing.json (unknown)',
      '  (root): path does not exist',
      'FAIL empty (unknown)',
      '  (root): folder contains no .json files',
      'validate: 0 passed, 5 failed',
      '',
    ]);
  });

  it('writes a machine report with --json', async () => {
    const reportPath = join(folder, 'out', 'report.json');
    const run = await runCliProcess(['validate', 'good.json', 'bad.json', '--json', reportPath], folder);
    expect(run.code).toBe(1);
    const report = JSON.parse(await readFile(reportPath, 'utf8'));
    expect(report.command).toBe('validate');
    expect(report.summary).toEqual({ passed: 1, failed: 1 });
    expect(report.files[0]).toEqual({
      path: 'good.json',
      result: 'PASS',
      shape: 'envelope',
      violations: [],
      version: 1,
    });
    expect(report.files[1].violations[0]).toEqual({ path: '', reason: 'missing required property "retryable"' });
    expect(report.files[1].violations[1].path).toBe('/error_kind');
  });

  it('says which contract version each envelope is, in the text and in the --json report', async () => {
    const reportPath = join(folder, 'out', 'versions.json');
    const run = await runCliProcess(
      ['validate', 'good.json', 'good-v2.json', 'v2-fixture.json', 'v3.json', '--json', reportPath],
      folder,
    );
    expect(run.stdout.split('\n').slice(0, 4)).toEqual([
      'PASS good.json (envelope, valid v1 envelope)',
      'PASS good-v2.json (envelope, valid v2 envelope)',
      'PASS v2-fixture.json (envelope fixture, valid v2 envelope)',
      'FAIL v3.json (envelope)',
    ]);
    const report = JSON.parse(await readFile(reportPath, 'utf8')) as { files: { version?: number }[] };
    expect(report.files.map((file) => file.version)).toEqual([1, 2, 2, undefined]);
  });

  it('counts a file reached twice once', async () => {
    const run = await runCliProcess(['validate', 'good.json', './good.json'], folder);
    expect(run.stdout).toBe('PASS good.json (envelope, valid v1 envelope)\nvalidate: 1 passed, 0 failed\n');
  });

  it('exits 2 without paths (usage error)', async () => {
    const run = await runCliProcess(['validate'], folder);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: missing required argument 'paths'");
  });

  it('validates the package examples: one per error_kind plus success fixtures', async () => {
    const run = await runCliProcess(['validate', 'examples']);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('validate: 12 passed, 0 failed');
    expect(run.stdout.match(/^PASS .* \(response fixture\)$/gm)).toHaveLength(2);
  });
});
