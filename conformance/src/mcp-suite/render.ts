/**
 * Text rendering of the official suite's report.
 *
 * @packageDocumentation
 */
import { basename } from 'node:path';

import { renderTable } from '../render.js';
import type { TableColumn } from '../render.js';
import type { SuiteLineReport, SuiteReport, SuiteRow } from './official-suite.js';

const COLUMNS: readonly TableColumn<SuiteRow>[] = [
  { title: 'server', value: (row) => row.server },
  { title: 'scenario', value: (row) => row.scenario },
  { title: 'suite', value: (row) => row.outcome },
  { title: 'listed', value: (row) => (row.listed ? 'expected failure' : '-') },
  { title: 'result', value: (row) => row.result },
  { title: 'note', value: (row) => row.note, maxWidth: 180 },
];

/**
 * Renders one suite line: the suite version, protocol revision and Node binary, the table, the
 * expected-failures entries with their reasons, the scenarios not run and why, and a closing line
 * `mcp-suite <line>: N passed, N failed`.
 *
 * @param report - from `runOfficialSuite`.
 * @returns the text, ending with a newline.
 */
export function renderSuiteLine(report: SuiteLineReport): string {
  const revision = report.spec_version === null ? '' : ` at protocol revision ${report.spec_version}`;
  const lines = [
    `official MCP conformance suite ${report.suite_version} (${report.line} line${revision}, node ${report.node_version}) against the reference servers over Streamable HTTP`,
    `duration: ${(report.duration_ms / 1000).toFixed(1)} s`,
    '',
    renderTable(COLUMNS, report.rows),
    '',
    `expected failures (${basename(report.expected_failures_file)}):`,
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
    `mcp-suite ${report.line}: ${report.summary.passed} passed, ${report.summary.failed} failed`,
    '',
  );
  return lines.join('\n');
}

/**
 * Renders the report of every line run, one after the other, and a closing line
 * `mcp-suite: N passed, N failed` over all lines.
 *
 * @param report - from `runOfficialSuites`.
 * @returns the text, ending with a newline.
 */
export function renderSuiteReport(report: SuiteReport): string {
  return [
    ...report.lines.map(renderSuiteLine),
    `duration of all lines: ${(report.duration_ms / 1000).toFixed(1)} s`,
    `mcp-suite: ${report.summary.passed} passed, ${report.summary.failed} failed`,
    '',
  ].join('\n');
}
