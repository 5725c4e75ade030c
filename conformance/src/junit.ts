/**
 * JUnit XML output, for CI systems that show test reports.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';

import type { Builder, TestSuite } from 'junit-report-builder';

import { GATE_SECTIONS } from './gate/gate-report.js';
import type { GateReport } from './gate/gate-report.js';
import type { SuiteLineReport } from './mcp-suite/official-suite.js';
import type { ConformanceReport, ProbeReport, ValidateReport } from './report-types.js';

// The package is CommonJS whose `module.exports` is the builder itself, while its types describe
// an ES default export, so an ESM default import type-checks as the wrong shape.
const rootBuilder = createRequire(import.meta.url)('junit-report-builder') as Builder;

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
 * Replaces what XML 1.0 cannot carry with visible text, before the builder escapes the markup
 * characters: C0 controls other than tab, newline and carriage return, lone surrogates, U+FFFE and
 * U+FFFF become `\uXXXX` (the builder would drop them silently), and `]]>` becomes `]]\u003e`
 * (the builder splits only the first one out of a CDATA section, so a second would end it early).
 *
 * @param text - any string.
 * @returns the text with those characters replaced.
 */
export function xmlSafeText(text: string): string {
  let safe = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    const forbidden =
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      (code >= 0xd800 && code <= 0xdfff) ||
      code === 0xfffe ||
      code === 0xffff;
    safe += forbidden ? `\\u${code.toString(16).padStart(4, '0')}` : character;
  }
  return safe.replaceAll(']]>', ']]\\u003e');
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

function officialSuiteLine(report: SuiteLineReport): JUnitSuite {
  const revision = report.spec_version === null ? '' : ` at ${report.spec_version}`;
  const classname = `mcp-envelope-conformance.mcp-suite.${report.line}`;
  return {
    name: `official MCP conformance suite ${report.suite_version} (${report.line}${revision})`,
    time: seconds(report.duration_ms),
    cases: [
      ...report.rows.map((entry) => ({
        name: `${entry.server} ${entry.scenario}`,
        classname: `${classname}.${entry.server}`,
        result: entry.result,
        message: entry.note,
        detail: `suite: ${entry.outcome}\nlisted: ${String(entry.listed)}\nnote: ${entry.note}`,
        time: seconds(entry.duration_ms),
      })),
      ...report.file_issues.map((issue) => ({
        name: `expected-failures file: ${issue}`,
        classname: `${classname}.file`,
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
 * (one case per row), the official suite's report one suite per line (one case per server and scenario).
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
      return report.lines.map(officialSuiteLine);
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

function addCase(suite: TestSuite, entry: JUnitCase): void {
  const testCase = suite
    .testCase()
    .name(xmlSafeText(entry.name))
    .className(xmlSafeText(entry.classname))
    .time(entry.time);
  // the builder's <skipped/> has no message, so the reason goes to the case's output
  if (entry.result === 'SKIP') testCase.skipped().standardOutput(xmlSafeText(entry.message));
  if (entry.result === 'FAIL')
    testCase.failure(xmlSafeText(entry.message), 'nonconformant').stacktrace(xmlSafeText(entry.detail));
}

/**
 * Renders reports as one JUnit XML document with `junit-report-builder`: `<testsuites>` with one
 * `<testsuite>` per report (per gate section for a gate report), one `<testcase>` per probe row,
 * file or scenario; a FAIL case carries `<failure message type="nonconformant">` with the detail
 * as its body, a SKIP case `<skipped/>` with the reason in `<system-out>`. Each suite and the
 * root carry `tests`, `failures`, `errors` and `skipped` counts; each suite and case its `time`
 * in seconds.
 *
 * @param reports - one or more reports.
 * @returns the XML document, with an XML declaration and a trailing newline.
 */
export function toJUnit(reports: ConformanceReport | readonly ConformanceReport[]): string {
  const list: readonly ConformanceReport[] = Array.isArray(reports) ? reports : [reports as ConformanceReport];
  const builder = rootBuilder.newBuilder().name('mcp-envelope-conformance');
  for (const suite of list.flatMap(reportToSuites)) {
    const testSuite = builder.testSuite().name(xmlSafeText(suite.name)).time(suite.time);
    for (const entry of suite.cases) addCase(testSuite, entry);
  }
  return `${builder.build()}\n`;
}
