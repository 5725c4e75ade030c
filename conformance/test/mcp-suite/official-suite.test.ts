/**
 * The official MCP conformance suite, run for real (its own CLI under the Node 22 binary) against
 * the SP reference server over Streamable HTTP. The verdict follows the expected-failures file:
 * a listed failure passes, an unlisted failure fails, a listed scenario that passes fails (stale).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runOfficialSuite, suiteEntry, suiteNodeBinary } from '../../src/mcp-suite/official-suite.js';
import { renderSuiteReport } from '../../src/mcp-suite/render.js';

const folder = mkdtempSync(join(tmpdir(), 'suite-test-'));

function expectedFailures(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

describe('runOfficialSuite', () => {
  it('finds the suite and a Node >= 22 binary', () => {
    expect(suiteEntry()).toMatch(/@modelcontextprotocol\/conformance\/dist\/index\.js$/);
    expect(suiteNodeBinary()).not.toBe('');
  });

  it('passing scenarios and an empty list make an ok run', async () => {
    const report = await runOfficialSuite({
      expectedFailuresFile: expectedFailures('ok.yml', 'server: []\n'),
      servers: ['sp'],
      scenarios: ['tools-call-error', 'json-schema-2020-12', 'server-sse-polling'],
    });
    expect(report.rows.map((row) => [row.scenario, row.outcome, row.listed, row.result])).toEqual([
      ['tools-call-error', 'passed', false, 'PASS'],
      ['json-schema-2020-12', 'passed', false, 'PASS'],
      ['server-sse-polling', 'passed', false, 'PASS'],
    ]);
    expect(report.ok).toBe(true);
    expect(report.node_version).toMatch(/^v2[2-9]\./);
    expect(renderSuiteReport(report)).toContain('mcp-suite: 3 passed, 0 failed');
  }, 120_000);

  it('an unlisted failure, a stale entry, a missing reason and an entry for a scenario not run all fail', async () => {
    const report = await runOfficialSuite({
      expectedFailuresFile: expectedFailures('bad.yml', 'server:\n  - ping\n  - prompts-list # not applicable\n'),
      servers: ['sp'],
      // a tools-only server fails the resources scenario, which is not listed
      scenarios: ['ping', 'resources-list'],
    });
    expect(report.rows.map((row) => [row.scenario, row.outcome, row.listed, row.result])).toEqual([
      ['ping', 'passed', true, 'FAIL'],
      ['resources-list', 'failed', false, 'FAIL'],
    ]);
    expect(report.rows[0]?.note).toContain('stale entry');
    expect(report.rows[1]?.note).toContain('new failure; FAILURE ');
    expect(report.file_issues).toEqual([
      'ping: no reason comment',
      'prompts-list: not a scenario this run executes (not applicable); remove the entry',
    ]);
    expect(report.ok).toBe(false);
  }, 120_000);
});
