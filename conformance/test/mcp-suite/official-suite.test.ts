/**
 * The official MCP conformance suite, run for real (its own CLI under the Node 22 binary) against
 * the SP reference server over Streamable HTTP. The verdict follows the expected-failures file:
 * a listed failure passes, an unlisted failure fails, a listed scenario that passes fails (stale).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { reportToSuites } from '../../src/junit.js';
import { runOfficialSuite, runOfficialSuites } from '../../src/mcp-suite/official-suite.js';
import { renderSuiteLine, renderSuiteReport } from '../../src/mcp-suite/render.js';
import { run, suiteEntry, suiteNodeBinary } from '../../src/mcp-suite/suite-process.js';
import { SUITE_LINES } from '../../src/mcp-suite/suite-lines.js';

const folder = mkdtempSync(join(tmpdir(), 'suite-test-'));

function expectedFailures(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

describe('runOfficialSuite', () => {
  it('finds both suite lines and a Node >= 22 binary', () => {
    expect(suiteEntry()).toMatch(/@modelcontextprotocol\/conformance\/dist\/index\.js$/);
    expect(suiteEntry('next')).toMatch(/conformance@0\.2\.0-alpha\.12.*\/dist\/index\.js$/);
    expect(suiteNodeBinary()).not.toBe('');
  });

  it.each([
    ['pinned', SUITE_LINES.pinned.version],
    ['next', SUITE_LINES.next.version],
  ] as const)('the %s line installed is version %s', async (line, version) => {
    const exit = await run(suiteNodeBinary(), [suiteEntry(line), '--version'], process.env, 30_000);
    expect(exit.output.trim()).toBe(version);
  });

  it('the next line runs or says why it skips every server scenario the 2026-07-28 requirement set names', async () => {
    const exit = await run(
      suiteNodeBinary(),
      [suiteEntry('next'), 'list', '--server', '--requirements', '2026-07-28'],
      { ...process.env, NO_COLOR: '1' },
      30_000,
    );
    const serverPart = exit.output.slice(0, exit.output.indexOf('Client scenarios'));
    const scored = [...serverPart.matchAll(/^ {2}- ([a-z0-9-]+)$/gm)].map((match) => match[1]);
    const unscored = [...exit.output.matchAll(/^ {4}- ([a-z0-9-]+) \[server\]$/gm)].map((match) => match[1]);
    expect(scored).toContain('server-stateless');
    expect(unscored).toContain('tasks-lifecycle');
    const line = SUITE_LINES.next;
    expect(
      [...scored, ...unscored].filter(
        (name) => name !== undefined && !line.scenarios.includes(name) && !Object.hasOwn(line.notApplicable, name),
      ),
    ).toEqual([]);
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
    expect(renderSuiteLine(report)).toContain('mcp-suite pinned: 3 passed, 0 failed');
  }, 120_000);

  it('both lines run a shared scenario, each at its own revision and with its own file', async () => {
    const report = await runOfficialSuites({
      expectedFailuresFiles: {
        pinned: expectedFailures('p.yml', 'server: []\n'),
        next: expectedFailures('n.yml', 'server: []\n'),
      },
      servers: ['sp'],
      scenarios: ['tools-call-error', 'ping', 'caching'],
    });
    expect(
      report.lines.map((line) => [
        line.line,
        line.suite_version,
        line.spec_version,
        line.rows.map((row) => [row.scenario, row.outcome, row.result]),
      ]),
    ).toEqual([
      [
        'pinned',
        '0.1.16',
        null,
        [
          ['tools-call-error', 'passed', 'PASS'],
          ['ping', 'passed', 'PASS'],
        ],
      ],
      [
        'next',
        '0.2.0-alpha.12',
        '2026-07-28',
        [
          ['tools-call-error', 'passed', 'PASS'],
          ['caching', 'passed', 'PASS'],
        ],
      ],
    ]);
    expect(report.ok).toBe(true);
    const text = renderSuiteReport(report);
    expect(text).toContain('expected failures (n.yml):');
    expect(text).toContain('mcp-suite: 4 passed, 0 failed');
    expect(reportToSuites(report).map((suite) => [suite.name, suite.cases.map((entry) => entry.name)])).toEqual([
      ['official MCP conformance suite 0.1.16 (pinned)', ['sp tools-call-error', 'sp ping']],
      ['official MCP conformance suite 0.2.0-alpha.12 (next at 2026-07-28)', ['sp tools-call-error', 'sp caching']],
    ]);
  }, 120_000);

  it('an unlisted failure, a stale entry, a missing reason and an entry for a scenario not run all fail', async () => {
    const report = await runOfficialSuite({
      expectedFailuresFile: expectedFailures(
        'bad.yml',
        'server:\n  - ping\n  - prompts-get-simple # not applicable, and failing\n',
      ),
      servers: ['sp'],
      // the fixture server has no prompt test_simple_prompt and no resource test://static-text
      scenarios: ['ping', 'prompts-get-simple', 'resources-read-text'],
    });
    expect(report.rows.map((row) => [row.scenario, row.outcome, row.listed, row.result])).toEqual([
      ['ping', 'passed', true, 'FAIL'],
      // a listed failure passes its row
      ['prompts-get-simple', 'failed', true, 'PASS'],
      ['resources-read-text', 'failed', false, 'FAIL'],
    ]);
    expect(report.rows[0]?.note).toContain('stale entry');
    expect(report.rows[1]?.note).toContain('expected: not applicable, and failing');
    expect(report.rows[2]?.note).toContain('new failure; FAILURE ');
    expect(report.file_issues).toEqual([
      'ping: no reason comment',
      'prompts-get-simple: not a scenario this run executes (not applicable); remove the entry',
    ]);
    expect(report.ok).toBe(false);
  }, 120_000);
});
