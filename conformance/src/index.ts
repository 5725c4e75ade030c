/**
 * `@mcp-envelope/conformance`: the `mcp-envelope-conformance` CLI as a library. Validate envelope
 * files (`validatePaths`), probe a live MCP server (`probeServer`), run the gate on both reference
 * servers (`runGate`) and the official MCP suite (`runOfficialSuite`), regenerate the fixtures
 * (`generateFixtures`), and render the reports as text (`renderProbeReport`,
 * `renderValidateReport`, `renderGateReport`, `renderSuiteReport`) or JUnit XML (`toJUnit`).
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
export { toJUnit, reportToSuite, reportToSuites, escapeXml } from './junit.js';
export type { JUnitCase, JUnitSuite } from './junit.js';
export { splitCommandLine, parseStdioCommand, displayStdioCommand, CommandLineError } from './command-line.js';
export type { StdioCommand } from './command-line.js';
export { synthesizeBaseline, synthesizeValue, synthesizeProperty } from './baseline.js';
export type { SynthesisResult } from './baseline.js';
export { planToolProbes, caseChangedName, UNKNOWN_FIELD_KEY, NOT_IN_ENUM_VALUE } from './probe-plan.js';
export type { PlannedProbe, ToolPlan, ToolDescription, ExpectedFailure, UnknownKeyPolicy } from './probe-plan.js';
export { judgeExpectedFailure, judgePassThrough, judgeWrongCase, mayPassThrough, wrongCaseUnnormalizedExpectation, truncate, kindCode, QUOTE_LIMIT } from './probe-evaluate.js';
export type { Judgement, PassThroughInput, WrongCaseInput } from './probe-evaluate.js';
export { callToolOutcome, classifyToolResult, classifyCallError, findEnvelopeCandidate, textCopyIssue, withDeadline, DeadlineError, describeValue } from './call-outcome.js';
export type { CallOutcome, OutcomeChannel } from './call-outcome.js';
export { checkCapability, contractToolDisagreements, CONTRACT_TOOL_KEYS, kindAdvertisementIssue, settingsOfContract, unreportedSwitches } from './capability-check.js';
export type { ServerSettings } from './capability-check.js';
export { createProgressReporter, formatProgress } from './progress.js';
export type { ProgressReporter, ProgressSink } from './progress.js';
export * from './json-schema.js';
export * from './report-types.js';
// The gate: both reference servers against the upstream replay server.
export { runGate, judgeCase, parityCode, parityKind, envelopeShape } from './gate/gate.js';
export type { GateOptions } from './gate/gate.js';
export { renderGateReport, totalsOf, GATE_SECTIONS, GATE_COLUMNS } from './gate/gate-report.js';
export type { GateReport, GateRow, GateSection, GateServerInfo, GateTotals } from './gate/gate-report.js';
export { readCase, readCases, defaultCasesFolder } from './gate/cases.js';
export type { ExpectedEnvelope, ExpectedSuccess, UpstreamCase } from './gate/cases.js';
export { startGateEnvironment, GATE_TIMEOUT_MS } from './gate/environment.js';
export type { GateEnvironment, GateEnvironmentOptions, RawOutcome } from './gate/environment.js';
export { FIXTURE_SCENARIOS, KEYWORD_TOOL, MISSPELLED_TOOL, resolveFixtureCall } from './gate/fixture-plan.js';
export type { FixtureCall, FixtureScenario } from './gate/fixture-plan.js';
export { compareFixtures, fixtureText, FIXED_CORRELATION_ID, generateFixtures, normalizeRunValues, payloadOf, REPLAY_HOST_PLACEHOLDER, writeFixtures } from './gate/fixtures.js';
export type { FixtureComparison, GeneratedFixture } from './gate/fixtures.js';
export {
  defaultServerCommand,
  GATE_ADS_PROFILE_ID,
  GATE_LWA_CLIENT_ID,
  PACKAGE_ROOT,
  prepareModelFolders,
  quoteWord,
  REFERENCE_SERVERS,
  serverBinPath,
  serverCommandLine,
  SERVER_IDS,
  VARIANT_NAMES,
  variantEnv,
} from './gate/reference-servers.js';
export type { ReferenceServer, ServerId, ServerSetup, VariantName } from './gate/reference-servers.js';
// The official MCP conformance suite.
export { APPLICABLE_SCENARIOS, NOT_APPLICABLE_SCENARIOS, OFFICIAL_SUITE_VERSION, runOfficialSuite, suiteEntry, suiteNodeBinary } from './mcp-suite/official-suite.js';
export type { SuiteOptions, SuiteReport, SuiteRow } from './mcp-suite/official-suite.js';
export { parseExpectedFailures, readExpectedFailures } from './mcp-suite/expected-failures.js';
export type { ExpectedFailure as SuiteExpectedFailure } from './mcp-suite/expected-failures.js';
export { renderSuiteReport } from './mcp-suite/render.js';
// The upstream replay server (from @mcp-envelope/core/testing; with the LWA token route from
// @mcp-envelope/amazon/testing), for tests of other servers.
export { REPLAY_ACCESS_TOKEN, startAmazonReplay } from '@mcp-envelope/amazon/testing';
export { startUpstreamReplay } from '@mcp-envelope/core/testing';
export type { RecordedResponse, ReplayRequest, ReplayRoute, UpstreamReplay, UpstreamReplayOptions } from '@mcp-envelope/core/testing';
