/**
 * Plain-text rendering of the reports for a terminal or a CI log.
 *
 * @packageDocumentation
 */
import Table from 'cli-table3';

import { truncate } from './probe-evaluate.js';
import type { FileResult, ProbeReport, ProbeRow, ValidateReport } from './report-types.js';

/** One column of {@link renderTable}. */
export interface TableColumn<T> {
  readonly title: string;
  readonly value: (row: T) => string;
  /** Cells longer than this are cut with `…` (default: no limit). */
  readonly maxWidth?: number;
}

const NO_BORDER: Readonly<Record<Table.CharName, string>> = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '-',
  'mid-mid': '  ',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/**
 * Renders rows as a left-aligned text table with `cli-table3`: a title line, a rule of dashes, one
 * line per row, columns separated by two spaces; the last column is not padded. Whitespace runs in
 * cells collapse to one space. No colours, so the text reads the same in a terminal, a pipe and a
 * CI log.
 *
 * @param columns - the columns, in order.
 * @param rows - the rows.
 * @returns the table, lines joined with `\n`, no trailing newline.
 */
export function renderTable<T>(columns: readonly TableColumn<T>[], rows: readonly T[]): string {
  // compact draws the `mid` rule only under the title line, which needs a row below it, so a
  // table without rows draws the same rule as its bottom edge
  const chars = rows.length === 0 ? { ...NO_BORDER, bottom: '-', 'bottom-mid': '  ' } : NO_BORDER;
  const table = new Table({
    head: columns.map((column) => column.title),
    chars,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
  });
  for (const entry of rows)
    table.push(columns.map((column) => truncate(column.value(entry), column.maxWidth ?? Number.MAX_SAFE_INTEGER)));
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** The columns of the probe table. */
export const PROBE_COLUMNS: readonly TableColumn<ProbeRow>[] = [
  { title: 'probe', value: (entry) => entry.probe },
  { title: 'tool', value: (entry) => entry.tool, maxWidth: 40 },
  { title: 'expected', value: (entry) => entry.expected, maxWidth: 70 },
  { title: 'got', value: (entry) => entry.got, maxWidth: 60 },
  { title: 'result', value: (entry) => entry.result },
  { title: 'note', value: (entry) => entry.note, maxWidth: 200 },
];

function capabilityLine(report: ProbeReport): string {
  const status = report.capability;
  if (!status.advertised) return 'not advertised';
  const kinds = status.error_kinds === null ? 'not a list' : `[${status.error_kinds.join(', ')}]`;
  const verdict = status.issues.length === 0 ? 'valid' : `INVALID: ${status.issues.join('; ')}`;
  return `advertised at ${status.location ?? '?'}: contract_version ${JSON.stringify(status.contract_version) ?? '?'}, error_kinds ${kinds} (${verdict})`;
}

function toolsLine(report: ProbeReport): string {
  const { listed, pages, probed, issue } = report.tools;
  const base = `${listed} listed in ${pages} page${pages === 1 ? '' : 's'}, ${probed} probed`;
  return issue === undefined ? base : `${base} (${issue})`;
}

/**
 * The closing line of a probe report: `probe: N passed, N failed, N skipped`.
 *
 * @param report - the report.
 * @returns the line.
 */
export function probeSummaryLine(report: ProbeReport): string {
  return `probe: ${report.summary.passed} passed, ${report.summary.failed} failed, ${report.summary.skipped} skipped`;
}

function verdictLine(report: ProbeReport): string {
  if (report.conformant) return 'verdict: CONFORMANT';
  const reasons: string[] = [];
  if (report.summary.failed > 0)
    reasons.push(`${report.summary.failed} failing row${report.summary.failed === 1 ? '' : 's'}`);
  if (!report.capability.advertised) reasons.push('capability not advertised');
  else if (report.capability.issues.length > 0) reasons.push('capability invalid');
  return `verdict: NONCONFORMANT (${reasons.join('; ')})`;
}

/**
 * Renders a probe report: a header (target, server name and version, capability status, tool
 * counts, duration), the table of rows, a verdict line and the closing summary line.
 *
 * @param report - from `probeServer`.
 * @returns the text, ending with `probe: N passed, N failed, N skipped` and a newline.
 */
export function renderProbeReport(report: ProbeReport): string {
  const server = report.server === null ? 'unknown' : `${report.server.name} ${report.server.version}`;
  return [
    'mcp-envelope-conformance probe',
    `target:     ${report.target.display}`,
    `server:     ${server}`,
    `capability: ${capabilityLine(report)}`,
    `tools:      ${toolsLine(report)}`,
    `duration:   ${report.duration_ms} ms`,
    '',
    renderTable(PROBE_COLUMNS, report.rows),
    '',
    verdictLine(report),
    probeSummaryLine(report),
    '',
  ].join('\n');
}

/** `envelope`, `envelope, valid v2 envelope`, `envelope fixture, v1 envelope` (a failing one)... */
function fileKind(file: FileResult): string {
  if (file.version === undefined) return file.shape;
  return `${file.shape}, ${file.result === 'PASS' ? 'valid ' : ''}v${file.version} envelope`;
}

function renderFile(file: FileResult): string[] {
  const lines = [`${file.result} ${file.path} (${fileKind(file)})`];
  for (const violation of file.violations)
    lines.push(`  ${violation.path === '' ? '(root)' : violation.path}: ${violation.reason}`);
  return lines;
}

/**
 * The closing line of a validate report: `validate: N passed, N failed`.
 *
 * @param report - the report.
 * @returns the line.
 */
export function validateSummaryLine(report: ValidateReport): string {
  return `validate: ${report.summary.passed} passed, ${report.summary.failed} failed`;
}

/**
 * Renders a validate report: per file `PASS <path> (<shape>)` or `FAIL <path> (<shape>)`, the shape
 * followed for an envelope by its version (`PASS e.json (envelope, valid v2 envelope)`), then
 * for a failure one indented line per violation, `  <JSON pointer>: <reason>` (`(root)` for the
 * file's root value), then the closing summary line.
 *
 * @param report - from `validatePaths`.
 * @returns the text, ending with `validate: N passed, N failed` and a newline.
 */
export function renderValidateReport(report: ValidateReport): string {
  return [...report.files.flatMap(renderFile), validateSummaryLine(report), ''].join('\n');
}
