/**
 * Text rendering of the official suite's report.
 *
 * @packageDocumentation
 */
import { renderTable } from '../render.js';
import type { TableColumn } from '../render.js';
import type { SuiteReport, SuiteRow } from './official-suite.js';

const COLUMNS: readonly TableColumn<SuiteRow>[] = [
  { title: 'server', value: (row) => row.server },
  { title: 'scenario', value: (row) => row.scenario },
  { title: 'suite', value: (row) => row.outcome },
  { title: 'listed', value: (row) => (row.listed ? 'expected failure' : '-') },
  { title: 'result', value: (row) => row.result },
  { title: 'note', value: (row) => row.note, maxWidth: 180 },
];

/**
 * Renders the suite report: the Node binary and suite version, the table, the expected-failures
 * entries with their reasons, the scenarios not run and why, and a closing line
 * `mcp-suite: N passed, N failed`.
 *
 * @param report - from `runOfficialSuite`.
 * @returns the text, ending with a newline.
 */
export function renderSuiteReport(report: SuiteReport): string {
  const lines = [
    `official MCP conformance suite ${report.suite_version} (node ${report.node_version}) against both reference servers over Streamable HTTP`,
    `duration: ${(report.duration_ms / 1000).toFixed(1)} s`,
    '',
    renderTable(COLUMNS, report.rows),
    '',
    'expected failures (mcp-expected-failures.yml):',
    ...(report.expected_failures.length === 0
      ? ['  (none)']
      : report.expected_failures.map((entry) => `  ${entry.scenario}: ${entry.reason || '(no reason given)'}`)),
    '',
    'not run (not applicable to a tools-only server):',
    ...Object.entries(report.not_applicable).map(([scenario, reason]) => `  ${scenario}: ${reason}`),
    '',
  ];
  if (report.file_issues.length > 0)
    lines.push('expected-failures file issues:', ...report.file_issues.map((issue) => `  ${issue}`), '');
  lines.push(
    report.ok ? 'verdict: every applicable scenario passes or is an expected failure' : 'verdict: FAILED',
    `mcp-suite: ${report.summary.passed} passed, ${report.summary.failed} failed`,
    '',
  );
  return lines.join('\n');
}
