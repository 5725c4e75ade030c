/**
 * `@mcp-envelope/conformance`: the `mcp-envelope-conformance` CLI as a library. Validate envelope
 * files (`validatePaths`), probe a live MCP server (`probeServer`), and render the reports as text
 * (`renderProbeReport`, `renderValidateReport`, `renderTable`) or JUnit XML (`toJUnit`).
 *
 * @packageDocumentation
 */
export { runCli, processIo, EXIT_CODES } from './cli-program.js';
export type { CliIo } from './cli-program.js';
export { probeServer, DEFAULT_MAX_TOOLS, DEFAULT_TIMEOUT_MS, MAX_TOOL_PAGES } from './probe.js';
export type { ProbeOptions, ProbeProgress } from './probe.js';
export { openSession, ServerUnreachableError, CLIENT_INFO } from './connect.js';
export type { ProbeTarget, Session } from './connect.js';
export { validatePaths, checkDocument } from './validate-files.js';
export { renderTable, renderProbeReport, renderValidateReport, probeSummaryLine, validateSummaryLine, PROBE_COLUMNS } from './render.js';
export type { TableColumn } from './render.js';
export { toJUnit, reportToSuite, escapeXml } from './junit.js';
export type { JUnitCase, JUnitSuite } from './junit.js';
export { splitCommandLine, parseStdioCommand, displayStdioCommand, CommandLineError } from './command-line.js';
export type { StdioCommand } from './command-line.js';
export { synthesizeBaseline, synthesizeValue, synthesizeProperty } from './baseline.js';
export type { SynthesisResult } from './baseline.js';
export { planToolProbes, caseChangedName, UNKNOWN_FIELD_KEY, NOT_IN_ENUM_VALUE } from './probe-plan.js';
export type { PlannedProbe, ToolPlan, ToolDescription, ExpectedFailure } from './probe-plan.js';
export { judgeExpectedFailure, judgeWrongCase, truncate, kindCode, QUOTE_LIMIT } from './probe-evaluate.js';
export type { Judgement, WrongCaseInput } from './probe-evaluate.js';
export { callToolOutcome, classifyToolResult, classifyCallError, findEnvelopeCandidate, withDeadline, DeadlineError, describeValue } from './call-outcome.js';
export type { CallOutcome, OutcomeChannel } from './call-outcome.js';
export { checkCapability, kindAdvertisementIssue } from './capability-check.js';
export { createProgressReporter, formatProgress } from './progress.js';
export type { ProgressReporter, ProgressSink } from './progress.js';
export * from './json-schema.js';
export * from './report-types.js';
