/**
 * `@mcp-envelope/conformance`: the `mcp-envelope-conformance` CLI as a library. Validate envelope
 * files (`validatePaths`), probe a live MCP server (`probeServer`), run the gate on both reference
 * servers (`runGate`) and the official MCP suite (`runOfficialSuite`), and render the reports as
 * text (`renderProbeReport`, `renderValidateReport`, `renderGateReport`, `renderSuiteReport`) or
 * JUnit XML (`toJUnit`).
 *
 * @packageDocumentation
 */
export { EXIT_CODES, processIo, runCli } from './cli-program.js';
export type { CliIo } from './cli-program.js';

// Probing a live server, and validating envelope files.
export { probeServer } from './probe.js';
export type { ProbeOptions, ProbeProgress } from './probe.js';
export { ServerUnreachableError } from './connect.js';
export type { ProbeTarget } from './connect.js';
export { createProgressReporter, formatProgress } from './progress.js';
export type { ProgressReporter, ProgressSink } from './progress.js';
export { validatePaths } from './validate-files.js';
// The upstream fault battery of `probe --upstream-faults`.
export {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  FAULT_PROBE_NAMES,
  TOKEN_URL_PLACEHOLDER,
  UPSTREAM_PLACEHOLDER,
} from './probe-faults/index.js';
export type { FaultProbeName, UpstreamFaultOptions } from './probe-faults/index.js';
// The vocabularies of the report types below.
export { PROBE_NAMES, ROW_RESULTS, TOOL_PROBE_NAMES } from './report-types.js';
export type {
  CapabilityStatus,
  ConformanceReport,
  EnvelopeVersion,
  FileResult,
  FileShape,
  FileViolation,
  ProbeName,
  ProbeReport,
  ProbeRow,
  ProbeSummary,
  RowResult,
  ToolProbeName,
  ToolsListStatus,
  ValidateReport,
} from './report-types.js';

// Reports as text and JUnit XML.
export { renderProbeReport, renderValidateReport } from './render.js';
export { toJUnit } from './junit.js';

// The gate: the servers of the server list, each described by its package, against the upstream replay server.
export { runGate } from './gate/gate.js';
export type { GateOptions } from './gate/gate.js';
export { GATE_SECTIONS, renderGateReport } from './gate/gate-report.js';
export type { GateReport, GateRow, GateSection, GateServerInfo, GateTotals } from './gate/gate-report.js';
export { GATE_SERVER_PACKAGES } from './gate/servers.js';
export { DESCRIPTOR_PATH, loadGateServers, parseDescriptor } from './gate/descriptor.js';
export type {
  DescribedFixtureCall,
  GateServer,
  LimiterLesson,
  ServerDescriptor,
  VariantAdditions,
} from './gate/descriptor.js';
export type { ServerId } from './gate/reference-servers.js';

// The official MCP conformance suite.
export { runOfficialSuite, runOfficialSuites } from './mcp-suite/official-suite.js';
export type {
  SuiteLineReport,
  SuiteOptions,
  SuiteReport,
  SuiteRow,
  SuitesOptions,
} from './mcp-suite/official-suite.js';
export { SUITE_LINE_IDS } from './mcp-suite/suite-lines.js';
export type { SuiteLineId } from './mcp-suite/suite-lines.js';
export type { ExpectedFailure as SuiteExpectedFailure } from './mcp-suite/expected-failures.js';
export { renderSuiteLine, renderSuiteReport } from './mcp-suite/render.js';

// The upstream replay server (from @mcp-envelope/testing), for tests of other servers.
export { startUpstreamReplay } from '@mcp-envelope/testing';
export type {
  RecordedResponse,
  ReplayRequest,
  ReplayRoute,
  UpstreamReplay,
  UpstreamReplayOptions,
} from '@mcp-envelope/testing';
