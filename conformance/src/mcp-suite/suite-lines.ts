/**
 * The two lines of the official MCP conformance suite that `mcp-suite` runs: the pinned release
 * (its 2025-11-25 server scenarios) and the newest 0.2.0 alpha (its 2026-07-28 scenarios, at the
 * 2026-07-28 wire). Both are installed in `mcp-suite-runtime`, the alpha under an npm alias, and
 * each line has its own expected-failures file.
 *
 * @packageDocumentation
 */

/** Which suite line: `pinned` (0.1.x) or `next` (the 0.2.0 alphas). */
export type SuiteLineId = 'pinned' | 'next';

/** The line ids in run order. */
export const SUITE_LINE_IDS: readonly SuiteLineId[] = Object.freeze(['pinned', 'next']);

/** What one line runs. */
export interface SuiteLine {
  readonly id: SuiteLineId;
  /** The name the suite is installed under in `mcp-suite-runtime`. */
  readonly packageName: string;
  /** The version pinned in `mcp-suite-runtime/package.json`. */
  readonly version: string;
  /** The protocol revision the scenarios run at (`--spec-version`), or `null` for the suite's default. */
  readonly specVersion: string | null;
  /** The default expected-failures file, relative to the conformance package. */
  readonly expectedFailuresFile: string;
  /** The server scenarios that apply to a tools-only MCP server, in run order. */
  readonly scenarios: readonly string[];
  /** Server scenarios of the line that are not run, and why. */
  readonly notApplicable: Readonly<Record<string, string>>;
}

/** The tools scenarios both lines run. */
const TOOLS_SCENARIOS = [
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
] as const;

/** The pinned line's server scenarios that apply to a tools-only MCP server, in run order. */
export const APPLICABLE_SCENARIOS = [
  'server-initialize',
  'ping',
  ...TOOLS_SCENARIOS,
  'tools-call-with-logging',
  'logging-set-level',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

const NO_RESOURCES = 'no resources: the fixture mode lists none (so that the caching scenario reads an empty listing)';
const NO_PROMPTS = "no prompts but the multi round-trip scenario's test_input_required_result_prompt";
const NOTHING_TO_COMPLETE =
  'the reference servers offer no prompt arguments or resource templates, so there is nothing to complete';
const TOOLS_ONLY_RESOURCES = `the reference servers serve tools; ${NO_RESOURCES}`;
const TOOLS_ONLY_PROMPTS = `the reference servers serve tools; ${NO_PROMPTS}`;

/** The pinned line's server scenarios that are not run, and why. */
export const NOT_APPLICABLE_SCENARIOS: Readonly<Record<string, string>> = {
  'completion-complete': NOTHING_TO_COMPLETE,
  'resources-list': TOOLS_ONLY_RESOURCES,
  'resources-read-text': NO_RESOURCES,
  'resources-read-binary': NO_RESOURCES,
  'resources-templates-read': NO_RESOURCES,
  'resources-subscribe': NO_RESOURCES,
  'resources-unsubscribe': NO_RESOURCES,
  'prompts-list': TOOLS_ONLY_PROMPTS,
  'prompts-get-simple': NO_PROMPTS,
  'prompts-get-with-args': NO_PROMPTS,
  'prompts-get-embedded-resource': NO_PROMPTS,
  'prompts-get-with-image': NO_PROMPTS,
};

/** The next line's 2026-07-28 server scenarios that apply to a tools-only MCP server, in run order. */
export const NEXT_APPLICABLE_SCENARIOS = [
  'server-stateless',
  ...TOOLS_SCENARIOS,
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'caching',
  'http-header-validation',
  'http-custom-header-server-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
] as const;

const NO_TASKS = 'the tasks extension, which the reference servers do not offer (the suite does not score it)';

/** The next line's 2026-07-28 server scenarios that are not run, and why. */
export const NEXT_NOT_APPLICABLE_SCENARIOS: Readonly<Record<string, string>> = {
  'completion-complete': NOTHING_TO_COMPLETE,
  'resources-list': TOOLS_ONLY_RESOURCES,
  'resources-read-text': NO_RESOURCES,
  'resources-read-binary': NO_RESOURCES,
  'resources-templates-read': NO_RESOURCES,
  'sep-2164-resource-not-found': NO_RESOURCES,
  'prompts-list': TOOLS_ONLY_PROMPTS,
  'prompts-get-simple': NO_PROMPTS,
  'prompts-get-with-args': NO_PROMPTS,
  'prompts-get-embedded-resource': NO_PROMPTS,
  'prompts-get-with-image': NO_PROMPTS,
  'tasks-lifecycle': NO_TASKS,
  'tasks-capability-negotiation': NO_TASKS,
  'tasks-wire-fields': NO_TASKS,
  'tasks-request-state-removal': NO_TASKS,
  'tasks-mrtr-input': NO_TASKS,
  'tasks-request-headers': NO_TASKS,
  'tasks-dispatch-and-envelope': NO_TASKS,
  'tasks-status-notifications': NO_TASKS,
  'tasks-required-task-error': NO_TASKS,
  'tasks-mrtr-composition': NO_TASKS,
};

/** Both lines. */
export const SUITE_LINES: Readonly<Record<SuiteLineId, SuiteLine>> = {
  pinned: {
    id: 'pinned',
    packageName: '@modelcontextprotocol/conformance',
    version: '0.1.16',
    specVersion: null,
    expectedFailuresFile: 'mcp-expected-failures.yml',
    scenarios: APPLICABLE_SCENARIOS,
    notApplicable: NOT_APPLICABLE_SCENARIOS,
  },
  next: {
    id: 'next',
    packageName: '@modelcontextprotocol/conformance-next',
    version: '0.2.0-alpha.12',
    specVersion: '2026-07-28',
    expectedFailuresFile: 'mcp-expected-failures-2026-07-28.yml',
    scenarios: NEXT_APPLICABLE_SCENARIOS,
    notApplicable: NEXT_NOT_APPLICABLE_SCENARIOS,
  },
};
