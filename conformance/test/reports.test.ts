import { describe, expect, it } from 'vitest';

import { renderValidateReport, toJUnit } from '../src/index.js';
import { xmlSafeText } from '../src/junit.js';
import { renderTable } from '../src/render.js';
import type { ProbeReport, ProbeRow, ValidateReport } from '../src/index.js';
import { parseXml } from './helpers/xml.js';

function probeRow(overrides: Partial<ProbeRow>): ProbeRow {
  return {
    probe: 'missing-required',
    tool: 'orders_search',
    expected: 'mcp_input_validation/SCHEMA_REQUIRED',
    got: 'no envelope',
    result: 'FAIL',
    note: '',
    duration_ms: 12,
    ...overrides,
  };
}

const probeReport: ProbeReport = {
  command: 'probe',
  target: { transport: 'stdio', display: 'stdio: node server.js' },
  server: { name: 'sp <& "ads">', version: '0.0.1' },
  capability: {
    advertised: false,
    location: null,
    value: null,
    contract_version: null,
    error_kinds: null,
    contract_versions: null,
    error_kinds_by_version: null,
    issues: ['no capability advertised'],
  },
  tools: { listed: 1, pages: 1, probed: 1, names: ['orders_search'] },
  rows: [
    probeRow({ probe: 'capability', tool: '-', got: 'not advertised', note: 'no capability advertised' }),
    probeRow({ result: 'PASS', got: 'mcp_input_validation/SCHEMA_REQUIRED', note: 'dropped required "a"' }),
    probeRow({ note: 'no envelope (is_error): "<html>&nbsp;\u0007 \'x\'"' }),
    probeRow({
      probe: 'enum-mismatch',
      result: 'SKIP',
      got: '-',
      expected: '-',
      note: 'schema has no property with a string enum',
    }),
  ],
  summary: { passed: 1, failed: 2, skipped: 1 },
  conformant: false,
  started_at: '2026-03-02T09:00:00.000Z',
  duration_ms: 1500,
};

const validateReport: ValidateReport = {
  command: 'validate',
  files: [
    { path: 'a.json', result: 'PASS', shape: 'envelope', violations: [] },
    {
      path: 'b & c.json',
      result: 'FAIL',
      shape: 'envelope fixture',
      violations: [{ path: '/envelope/tool', reason: 'must be string' }],
    },
  ],
  summary: { passed: 1, failed: 1 },
};

describe('xmlSafeText', () => {
  it('makes characters XML 1.0 cannot carry and a CDATA end visible, leaving markup to the builder', () => {
    expect(xmlSafeText(`<a href="x">Tom & 'Jerry'</a>\u0000\u0007\t\n\uFFFE\uD800 ]]> ]]>`)).toBe(
      `<a href="x">Tom & 'Jerry'</a>\\u0000\\u0007\t\n\\ufffe\\ud800 ]]\\u003e ]]\\u003e`,
    );
  });
});

describe('toJUnit', () => {
  it('writes one testsuite per report with the right counts, all text escaped', () => {
    const xml = toJUnit([probeReport, validateReport]);
    const root = parseXml(xml);
    expect(root.attributes).toEqual({
      name: 'mcp-envelope-conformance',
      tests: '6',
      failures: '3',
      errors: '0',
      skipped: '1',
    });
    expect(root.children.map((suite) => suite.attributes)).toEqual([
      { name: 'probe sp <& "ads">', tests: '4', failures: '2', errors: '0', skipped: '1', time: '1.5' },
      { name: 'validate', tests: '2', failures: '1', errors: '0', skipped: '0', time: '0' },
    ]);
    const [probeSuite, validateSuite] = root.children;
    expect(
      probeSuite?.children.map((testcase) => [testcase.attributes['name'], testcase.children[0]?.name ?? 'passed']),
    ).toEqual([
      ['capability -', 'failure'],
      ['missing-required orders_search', 'passed'],
      ['missing-required orders_search', 'failure'],
      ['enum-mismatch orders_search', 'skipped'],
    ]);
    expect(probeSuite?.children[2]?.children[0]?.attributes['message']).toBe(
      'no envelope (is_error): "<html>&nbsp;\\u0007 \'x\'"',
    );
    expect(probeSuite?.children[2]?.children[0]?.attributes['type']).toBe('nonconformant');
    expect(probeSuite?.children[2]?.children[0]?.text).toBe(
      'expected: mcp_input_validation/SCHEMA_REQUIRED\ngot: no envelope\nnote: no envelope (is_error): "<html>&nbsp;\\u0007 \'x\'"',
    );
    expect(probeSuite?.children[3]?.children.map((child) => [child.name, child.text])).toEqual([
      ['skipped', ''],
      ['system-out', 'schema has no property with a string enum'],
    ]);
    expect(probeSuite?.children[1]?.attributes).toEqual({
      name: 'missing-required orders_search',
      classname: 'mcp-envelope-conformance.probe.missing-required',
      time: '0.012',
    });
    expect(validateSuite?.children[1]?.attributes['name']).toBe('b & c.json');
    expect(validateSuite?.children[1]?.children[0]?.text).toBe('/envelope/tool: must be string');
  });

  it('keeps a failure body that closes CDATA more than once well-formed', () => {
    const report: ValidateReport = {
      ...validateReport,
      files: [{ path: 'x.json', result: 'FAIL', shape: 'envelope', violations: [{ path: '/a', reason: ']]> & ]]>' }] }],
    };
    const failure = parseXml(toJUnit(report)).children[0]?.children[0]?.children[0];
    expect(failure?.attributes['message']).toBe('/a: ]]\\u003e & ]]\\u003e');
    expect(failure?.text).toBe('/a: ]]\\u003e & ]]\\u003e');
  });

  it('accepts a single report', () => {
    expect(parseXml(toJUnit(validateReport)).children).toHaveLength(1);
  });
});

describe('renderTable', () => {
  it('draws the title line and the rule for a table without rows, with no colour codes', () => {
    const columns = [
      { title: 'server', value: (row: string) => row },
      { title: 'result', value: (row: string) => row },
    ];
    expect(renderTable(columns, [])).toBe('server  result\n------  ------');
    expect(renderTable(columns, ['PASS'])).toBe('server  result\n------  ------\nPASS    PASS');
  });

  it('aligns by display width, so a wide character takes two columns', () => {
    const columns = [
      { title: 'a', value: (row: readonly string[]) => row[0] ?? '' },
      { title: 'b', value: (row: readonly string[]) => row[1] ?? '' },
    ];
    expect(
      renderTable(columns, [
        ['日本', 'x'],
        ['ab', 'y'],
      ]),
    ).toBe('a     b\n----  -\n日本  x\nab    y');
  });

  it('aligns columns, cuts long cells and leaves the last column unpadded', () => {
    const table = renderTable(
      [
        { title: 'probe', value: (row: { a: string; b: string }) => row.a },
        { title: 'note', value: (row: { a: string; b: string }) => row.b, maxWidth: 10 },
      ],
      [
        { a: 'x', b: 'short' },
        { a: 'longer-name', b: 'a note\nthat is far too long' },
      ],
    );
    expect(table).toBe(
      ['probe        note', '-----------  ----------', 'x            short', 'longer-name  a note th…'].join('\n'),
    );
  });
});

describe('renderValidateReport', () => {
  it('prints PASS/FAIL lines, violations and the summary', () => {
    expect(renderValidateReport(validateReport)).toBe(
      'PASS a.json (envelope)\nFAIL b & c.json (envelope fixture)\n  /envelope/tool: must be string\nvalidate: 1 passed, 1 failed\n',
    );
  });
});
