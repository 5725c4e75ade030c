/**
 * The gate's report: one table of rows for both reference servers, grouped in sections, with a
 * text rendering and per-section totals.
 *
 * @packageDocumentation
 */
import { renderTable } from '../render.js';
import type { TableColumn } from '../render.js';
import type { RowResult } from '../report-types.js';

/** The gate's sections, in report order. */
export const GATE_SECTIONS = Object.freeze([
  'capability',
  'probe',
  'upstream',
  'fixtures',
  'parity',
  'code-mode',
  'limiter',
] as const);

/** One of {@link GATE_SECTIONS}. */
export type GateSection = (typeof GATE_SECTIONS)[number];

/** One row of the gate report. */
export interface GateRow {
  readonly section: GateSection;
  /** `sp`, `ads`, or `sp|ads` for a parity row. */
  readonly server: string;
  /** What was checked: a case id, a fixture file, a probe and tool, a parity condition. */
  readonly check: string;
  readonly expected: string;
  readonly got: string;
  readonly result: RowResult;
  /** Why it failed or was skipped; what differs. */
  readonly note: string;
  /** Wall-clock time of the row's call(s), in milliseconds. */
  readonly duration_ms: number;
}

/** Totals. */
export interface GateTotals {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** A reference server as the gate ran it. */
export interface GateServerInfo {
  readonly id: string;
  /** `serverInfo` name and version from `initialize`, when the server answered. */
  readonly name: string | null;
  readonly version: string | null;
  /** The command that started it (without environment values). */
  readonly command: string;
  /** The envelope versions it answers in (its capability's `contract_versions`), `null` when none could be read. */
  readonly contract_versions: readonly number[] | null;
  /** The version a client that states none gets (`contract_version`), `null` when none could be read. */
  readonly default_version: number | null;
}

/** The `--json` report of `gate`. */
export interface GateReport {
  readonly command: 'gate';
  readonly servers: readonly GateServerInfo[];
  readonly rows: readonly GateRow[];
  readonly sections: Readonly<Record<GateSection, GateTotals>>;
  readonly summary: GateTotals;
  /** No FAIL row. */
  readonly conformant: boolean;
  /** ISO-8601 start time. */
  readonly started_at: string;
  /** Wall-clock time of the whole gate, in milliseconds. */
  readonly duration_ms: number;
}

/**
 * Counts rows by result.
 *
 * @param rows - any rows.
 * @returns the totals.
 */
export function totalsOf(rows: readonly { readonly result: RowResult }[]): GateTotals {
  return {
    passed: rows.filter((row) => row.result === 'PASS').length,
    failed: rows.filter((row) => row.result === 'FAIL').length,
    skipped: rows.filter((row) => row.result === 'SKIP').length,
  };
}

/** The columns of the gate tables. */
export const GATE_COLUMNS: readonly TableColumn<GateRow>[] = [
  { title: 'server', value: (row) => row.server },
  { title: 'check', value: (row) => row.check, maxWidth: 64 },
  { title: 'expected', value: (row) => row.expected, maxWidth: 60 },
  { title: 'got', value: (row) => row.got, maxWidth: 60 },
  { title: 'result', value: (row) => row.result },
  { title: 'note', value: (row) => row.note, maxWidth: 160 },
];

const SECTION_TITLES: Readonly<Record<GateSection, string>> = {
  capability: 'capability: advertised capability, contract versions, advertised kinds = emitted kinds per version',
  probe: 'probe battery (the probe command) over stdio',
  upstream:
    'upstream battery: every recorded case through the real server and the replay server, as a v2 reader and as a v1 reader',
  fixtures:
    'fixtures: regenerated from the running servers (v2 and v1 readers) and compared with conformance/fixtures and fixtures/v1',
  parity: 'cross-server parity: the same condition gives the same v2 kind, code and envelope shape on SP and Ads',
  'code-mode': 'Code Mode battery: each server with CODE_MODE=true, search, inner calls, limits, responsiveness',
  limiter: 'Limiter battery: each server with MCP_RATE_LIMIT=on, learned plans, pre-flight refusals, reported settings',
};

/** Which versions a server speaks, in words: `speaks v1 and v2 (v1 to a client that states none)`. */
function versionsText(server: GateServerInfo): string {
  if (server.contract_versions === null || server.contract_versions.length === 0) return 'contract versions unknown';
  const versions = server.contract_versions.map((version) => `v${version}`);
  const spoken =
    versions.length === 1 ? versions.join('') : `${versions.slice(0, -1).join(', ')} and ${versions.at(-1) ?? ''}`;
  return `speaks ${spoken} (v${String(server.default_version ?? '?')} to a client that states none)`;
}

function totalsLine(totals: GateTotals): string {
  return `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
}

/**
 * Renders the gate report: the servers, one table per section (failing rows first is not done:
 * rows keep their run order), per-section totals, the verdict, and a closing line
 * `conformance: N passed, N failed, N skipped`.
 *
 * @param report - from `runGate`.
 * @returns the text, ending with a newline.
 */
export function renderGateReport(report: GateReport): string {
  const lines = ['mcp-envelope-conformance gate: both reference servers against the upstream replay server', ''];
  for (const server of report.servers)
    lines.push(
      `${server.id.padEnd(4)} ${server.name ?? '?'} ${server.version ?? '?'}, ${versionsText(server)}  (${server.command})`,
    );
  lines.push(`duration: ${(report.duration_ms / 1000).toFixed(1)} s`, '');
  for (const section of Object.keys(report.sections) as GateSection[]) {
    const rows = report.rows.filter((row) => row.section === section);
    lines.push(
      `== ${SECTION_TITLES[section]}`,
      '',
      rows.length === 0 ? '(no rows)' : renderTable(GATE_COLUMNS, rows),
      '',
      `${section}: ${totalsLine(report.sections[section])}`,
      '',
    );
  }
  lines.push('== summary', '');
  for (const section of Object.keys(report.sections) as GateSection[])
    lines.push(`  ${section.padEnd(11)} ${totalsLine(report.sections[section])}`);
  lines.push(
    '',
    report.conformant
      ? `verdict: CONFORMANT (${report.servers.map((server) => server.id).join(', ')})`
      : `verdict: NONCONFORMANT (${report.summary.failed} failing row${report.summary.failed === 1 ? '' : 's'})`,
  );
  lines.push(`conformance: ${totalsLine(report.summary)}`, '');
  return lines.join('\n');
}
