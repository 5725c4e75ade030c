/**
 * JUnit XML output, for CI systems that show test reports.
 *
 * @packageDocumentation
 */
import { GATE_SECTIONS } from './gate/gate-report.js';
import type { GateReport } from './gate/gate-report.js';
import type { SuiteReport } from './mcp-suite/official-suite.js';
import type { ConformanceReport, ProbeReport, ValidateReport } from './report-types.js';

/** One JUnit test case. */
export interface JUnitCase {
  readonly name: string;
  readonly classname: string;
  readonly result: 'PASS' | 'FAIL' | 'SKIP';
  /** Failure or skip message (attribute). */
  readonly message: string;
  /** Failure body text. */
  readonly detail: string;
  /** Seconds. */
  readonly time: number;
}

/** One JUnit test suite. */
export interface JUnitSuite {
  readonly name: string;
  readonly cases: readonly JUnitCase[];
  /** Seconds. */
  readonly time: number;
}

/**
 * Escapes text for XML 1.0 character data and attribute values: `&`, `<`, `>`, `"`, `'` become
 * entities; characters XML 1.0 cannot carry (C0 controls other than tab, newline and carriage
 * return, lone surrogates, U+FFFE and U+FFFF) become the visible text `\uXXXX`.
 *
 * @param text - any string.
 * @returns the escaped string.
 */
export function escapeXml(text: string): string {
  let escaped = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (character === '&') escaped += '&amp;';
    else if (character === '<') escaped += '&lt;';
    else if (character === '>') escaped += '&gt;';
    else if (character === '"') escaped += '&quot;';
    else if (character === "'") escaped += '&apos;';
    else if (
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      (code >= 0xd800 && code <= 0xdfff) ||
      code === 0xfffe ||
      code === 0xffff
    ) {
      escaped += `\\u${code.toString(16).padStart(4, '0')}`;
    } else escaped += character;
  }
  return escaped;
}

function seconds(milliseconds: number): number {
  return Math.round(milliseconds) / 1000;
}

function probeSuite(report: ProbeReport): JUnitSuite {
  const server = report.server === null ? 'unknown-server' : report.server.name;
  return {
    name: `probe ${server}`,
    time: seconds(report.duration_ms),
    cases: report.rows.map((entry) => ({
      name: `${entry.probe} ${entry.tool}`,
      classname: `mcp-envelope-conformance.probe.${entry.probe}`,
      result: entry.result,
      message: entry.note,
      detail: `expected: ${entry.expected}\ngot: ${entry.got}\nnote: ${entry.note}`,
      time: seconds(entry.duration_ms),
    })),
  };
}

function validateSuite(report: ValidateReport): JUnitSuite {
  return {
    name: 'validate',
    time: 0,
    cases: report.files.map((file) => {
      const reasons = file.violations.map(
        (violation) => `${violation.path === '' ? '(root)' : violation.path}: ${violation.reason}`,
      );
      return {
        name: file.path,
        classname: 'mcp-envelope-conformance.validate',
        result: file.result,
        message: reasons[0] ?? '',
        detail: reasons.join('\n'),
        time: 0,
      };
    }),
  };
}

function gateSuites(report: GateReport): JUnitSuite[] {
  return GATE_SECTIONS.map((section) => {
    const rows = report.rows.filter((entry) => entry.section === section);
    return {
      name: `gate ${section}`,
      time: seconds(rows.reduce((total, entry) => total + entry.duration_ms, 0)),
      cases: rows.map((entry) => ({
        name: `${entry.server} ${entry.check}`,
        classname: `mcp-envelope-conformance.gate.${section}.${entry.server.replace('|', '-')}`,
        result: entry.result,
        message: entry.note,
        detail: `expected: ${entry.expected}\ngot: ${entry.got}\nnote: ${entry.note}`,
        time: seconds(entry.duration_ms),
      })),
    };
  });
}

function officialSuite(report: SuiteReport): JUnitSuite {
  return {
    name: `official MCP conformance suite ${report.suite_version}`,
    time: seconds(report.duration_ms),
    cases: [
      ...report.rows.map((entry) => ({
        name: `${entry.server} ${entry.scenario}`,
        classname: `mcp-envelope-conformance.mcp-suite.${entry.server}`,
        result: entry.result,
        message: entry.note,
        detail: `suite: ${entry.outcome}\nlisted: ${String(entry.listed)}\nnote: ${entry.note}`,
        time: seconds(entry.duration_ms),
      })),
      ...report.file_issues.map((issue) => ({
        name: `expected-failures file: ${issue}`,
        classname: 'mcp-envelope-conformance.mcp-suite.file',
        result: 'FAIL' as const,
        message: issue,
        detail: issue,
        time: 0,
      })),
    ],
  };
}

/**
 * Turns a report into its JUnit suites: a probe report gives one case per row (named
 * `<probe> <tool>`), a validate report one case per file, a gate report one suite per section
 * (one case per row), the official suite's report one case per server and scenario.
 *
 * @param report - any report.
 * @returns the suites.
 */
export function reportToSuites(report: ConformanceReport): JUnitSuite[] {
  switch (report.command) {
    case 'probe':
      return [probeSuite(report)];
    case 'validate':
      return [validateSuite(report)];
    case 'gate':
      return gateSuites(report);
    case 'mcp-suite':
      return [officialSuite(report)];
  }
}

/**
 * The first JUnit suite of a report (probe and validate reports have exactly one).
 *
 * @param report - any report.
 * @returns the suite.
 */
export function reportToSuite(report: ConformanceReport): JUnitSuite {
  return reportToSuites(report)[0] ?? { name: report.command, cases: [], time: 0 };
}

function renderCase(entry: JUnitCase): string {
  const open = `    <testcase name="${escapeXml(entry.name)}" classname="${escapeXml(entry.classname)}" time="${entry.time}"`;
  if (entry.result === 'PASS') return `${open}/>`;
  if (entry.result === 'SKIP')
    return `${open}>\n      <skipped message="${escapeXml(entry.message)}"/>\n    </testcase>`;
  return `${open}>\n      <failure message="${escapeXml(entry.message)}" type="nonconformant">${escapeXml(entry.detail)}</failure>\n    </testcase>`;
}

function renderSuite(suite: JUnitSuite): string {
  const failures = suite.cases.filter((entry) => entry.result === 'FAIL').length;
  const skipped = suite.cases.filter((entry) => entry.result === 'SKIP').length;
  const open = `  <testsuite name="${escapeXml(suite.name)}" tests="${suite.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${suite.time}">`;
  return [open, ...suite.cases.map(renderCase), '  </testsuite>'].join('\n');
}

/**
 * Renders reports as one JUnit XML document: `<testsuites>` with one `<testsuite>` per report
 * (per command run), one `<testcase>` per probe row or file, `<failure>` for FAIL and
 * `<skipped>` for SKIP, with `tests`, `failures`, `errors` and `skipped` counts on each suite and
 * on the root. All text is escaped with `escapeXml`.
 *
 * @param reports - one or more reports.
 * @returns the XML document, with an XML declaration and a trailing newline.
 */
export function toJUnit(reports: ConformanceReport | readonly ConformanceReport[]): string {
  const list: readonly ConformanceReport[] = Array.isArray(reports) ? reports : [reports as ConformanceReport];
  const suites = list.flatMap(reportToSuites);
  const cases = suites.flatMap((suite) => suite.cases);
  const failures = cases.filter((entry) => entry.result === 'FAIL').length;
  const skipped = cases.filter((entry) => entry.result === 'SKIP').length;
  const time = suites.reduce((total, suite) => total + suite.time, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-envelope-conformance" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${Math.round(time * 1000) / 1000}">`,
    ...suites.map(renderSuite),
    '</testsuites>',
    '',
  ].join('\n');
}
