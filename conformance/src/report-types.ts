/**
 * The machine report shapes the CLI writes with `--json` (and renders as text and JUnit).
 *
 * @packageDocumentation
 */
import type { GateReport } from './gate/gate-report.js';
import type { SuiteReport } from './mcp-suite/official-suite.js';
import { FAULT_PROBE_NAMES } from './probe-faults/rounds.js';

/** A row's outcome. */
export const ROW_RESULTS = Object.freeze(['PASS', 'FAIL', 'SKIP'] as const);

/** One of {@link ROW_RESULTS}. */
export type RowResult = (typeof ROW_RESULTS)[number];

/**
 * The probes, in the order the battery runs them. `capability`, `tools-list` and `contract-tool`
 * (`get_envelope_contract`) check the session; `unknown-tool` and `contract-versions` (which
 * version a client that states `[1, 2]` and one that states nothing get) run once; the tool probes
 * run per tool; the `upstream-*` rounds of `--upstream-faults` (`FAULT_PROBE_NAMES`) run last, on one tool.
 */
export const PROBE_NAMES = Object.freeze([
  'capability',
  'tools-list',
  'contract-tool',
  'unknown-tool',
  'contract-versions',
  'missing-required',
  'wrong-type',
  'unknown-extra',
  'enum-mismatch',
  'wrong-case',
  ...FAULT_PROBE_NAMES,
] as const);

/** One of {@link PROBE_NAMES}. */
export type ProbeName = (typeof PROBE_NAMES)[number];

/** The probes that run once per tool, in order. */
export const TOOL_PROBE_NAMES = Object.freeze([
  'missing-required',
  'wrong-type',
  'unknown-extra',
  'enum-mismatch',
  'wrong-case',
] as const);

/** One of {@link TOOL_PROBE_NAMES}. */
export type ToolProbeName = (typeof TOOL_PROBE_NAMES)[number];

/** One row of the probe report. */
export interface ProbeRow {
  readonly probe: ProbeName;
  /** The tool probed; `-` for session-level rows. */
  readonly tool: string;
  /** What a conforming server answers, e.g. `mcp_input_validation/SCHEMA_REQUIRED`. */
  readonly expected: string;
  /** What arrived: `kind/code`, `no envelope`, `success`, `timeout`, or a short status. */
  readonly got: string;
  readonly result: RowResult;
  /** Why the row failed or was skipped, or which of two passing outcomes happened. */
  readonly note: string;
  /** The arguments sent, when a call was made. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** Wall-clock time of the row's call(s), in milliseconds. */
  readonly duration_ms: number;
}

/** Totals of a probe report. */
export interface ProbeSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Where and how the server advertised the envelope capability. */
export interface CapabilityStatus {
  readonly advertised: boolean;
  /** `capabilities.experimental.openbridge_envelope`, `capabilities.openbridge_envelope`, or `null`. */
  readonly location: string | null;
  /** The advertised object, as sent. */
  readonly value: unknown;
  readonly contract_version: unknown;
  /** The string entries of `error_kinds` (the kinds of `contract_version`), or `null` when it is absent or not a list. */
  readonly error_kinds: readonly string[] | null;
  /** The known versions of `contract_versions` (`[1]` for a capability of a release before version 2), or `null`. */
  readonly contract_versions: readonly number[] | null;
  /** The string kinds advertised per version, keyed `"1"`, `"2"`, or `null` when none can be read. */
  readonly error_kinds_by_version: Readonly<Record<string, readonly string[]>> | null;
  /** What is wrong with it; empty when it is advertised and valid. */
  readonly issues: readonly string[];
}

/** What `tools/list` gave. */
export interface ToolsListStatus {
  /** Number of tools listed over all pages. */
  readonly listed: number;
  readonly pages: number;
  /** Number of tools the battery ran against (at most `--max-tools`). */
  readonly probed: number;
  readonly names: readonly string[];
  /** Why listing stopped early (cursor loop, page cap, error); absent when it completed. */
  readonly issue?: string;
}

/** The `--json` report of `probe`. */
export interface ProbeReport {
  readonly command: 'probe';
  readonly target: { readonly transport: 'stdio' | 'http'; readonly display: string };
  readonly server: { readonly name: string; readonly version: string } | null;
  readonly capability: CapabilityStatus;
  readonly tools: ToolsListStatus;
  readonly rows: readonly ProbeRow[];
  readonly summary: ProbeSummary;
  /** No FAIL row and the capability advertised with contract_version 1 and a valid kinds subset. */
  readonly conformant: boolean;
  /** ISO-8601 start time. */
  readonly started_at: string;
  /** Wall-clock time of the whole probe (connect to close), in milliseconds. */
  readonly duration_ms: number;
}

/** One reason a file failed validation. */
export interface FileViolation {
  /** JSON pointer into the file (RFC 6901, leading slash; `''` for the file's root value). */
  readonly path: string;
  readonly reason: string;
}

/** What a validated file was taken to be. */
export type FileShape = 'envelope' | 'envelope fixture' | 'response fixture' | 'unknown';

/** A version of the envelope contract (`_envelope_version`). */
export type EnvelopeVersion = 1 | 2;

/** One file (or an argument that yielded no file) in the validate report. */
export interface FileResult {
  readonly path: string;
  readonly result: 'PASS' | 'FAIL';
  readonly shape: FileShape;
  readonly violations: readonly FileViolation[];
  /** The contract version of the envelope the file holds (absent: no envelope, or no version 1 or 2 stated). */
  readonly version?: EnvelopeVersion;
}

/** The `--json` report of `validate`. */
export interface ValidateReport {
  readonly command: 'validate';
  readonly files: readonly FileResult[];
  readonly summary: { readonly passed: number; readonly failed: number };
}

/** Any report the CLI writes. */
export type ConformanceReport = ProbeReport | ValidateReport | GateReport | SuiteReport;
