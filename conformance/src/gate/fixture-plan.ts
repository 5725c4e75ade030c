/**
 * What the conformance fixtures are made of: one scenario per error class, per `SCHEMA_*` keyword
 * code and the fallback (through the keyword tool that servers load from `models/keywords`), per
 * normalization event kind, and successes with rate-limit `_meta` and warnings. The scenarios are
 * defined here; which servers take part, and with which call, each server's descriptor says:
 * `fixtures.common` names the shared groups it joins (the same call on every server) and
 * `fixtures.calls` gives its own call for the other scenarios (often a recorded case).
 *
 * @packageDocumentation
 */
import { SCHEMA_FALLBACK_CODE, SCHEMA_KEYWORD_CODES } from '@mcp-envelope/contract';
import type { ReplayRoute } from '@mcp-envelope/testing';

import type { UpstreamCase } from './cases.js';
import type { GateServer } from './descriptor.js';
import type { ServerId, VariantName } from './reference-servers.js';

/** The tool servers load from `models/keywords/conformance-keywords.json` (fixture group `keywords`). */
export const KEYWORD_TOOL = 'conformanceKeywords_checkKeywords';

/** The tool name the unknown-tool scenario calls (one letter off `get_envelope_contract`). */
export const MISSPELLED_TOOL = 'get_envelope_contrct';

/**
 * The shared fixture groups a descriptor's `fixtures.common` may name: `keywords` (the server
 * loads `{gate}/models/keywords` into its models), `tool-not-found` (any server), `internal-error`
 * (the server loads the official suite's fixture tools, `test_error_handling` among them).
 */
export const COMMON_FIXTURE_GROUPS = Object.freeze(['keywords', 'tool-not-found', 'internal-error'] as const);

/** One call of a fixture scenario on one server. */
export interface FixtureCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The recorded case whose upstream answers are replayed, when the call reaches upstream. */
  readonly upstreamCase?: string;
  /** Upstream answers given directly (instead of a case). */
  readonly upstream?: readonly ReplayRoute[];
}

/** A scenario as the gate defines it, before the servers' descriptors give their calls. */
export interface ScenarioDefinition {
  readonly id: string;
  readonly about: string;
  readonly variant: VariantName;
  /** Whether the fixture holds an envelope (error) or a response (success). */
  readonly holds: 'envelope' | 'response';
  /** The cross-server condition this scenario is compared under, when it is one. */
  readonly parity?: string;
  /** The shared group this scenario belongs to and the call it makes on every server of the group. */
  readonly common?: { readonly group: (typeof COMMON_FIXTURE_GROUPS)[number]; readonly call: FixtureCall };
}

/** One fixture scenario: a file `fixtures/<server>/<id>.json` on every server it applies to. */
export interface FixtureScenario extends ScenarioDefinition {
  /** The call on each server it applies to. */
  readonly calls: Partial<Record<ServerId, FixtureCall>>;
}

/** A body for the keyword tool that fails exactly one keyword. */
const KEYWORD_BODIES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  type: { label: 5 },
  required: {},
  maxItems: { label: 'crate', tags: ['a', 'b', 'c', 'd'] },
  minItems: { label: 'crate', tags: [] },
  maxLength: { label: 'a-much-too-long-label' },
  minLength: { label: 'ab' },
  maximum: { label: 'crate', quantity: 105 },
  minimum: { label: 'crate', quantity: 0 },
  enum: { label: 'crate', channel: 'fax' },
  pattern: { label: 'Crate' },
  format: { label: 'crate', contact: 'not-an-address' },
  additionalProperties: { label: 'crate', colour: 'red' },
  oneOf: { label: 'crate', target: 'abc' },
  anyOf: { label: 'crate', window: true },
  allOf: { label: 'crate', limits: { low: 1 } },
  uniqueItems: { label: 'crate', tags: ['a', 'a'] },
  const: { label: 'crate', version: 3 },
  multipleOf: { label: 'crate', quantity: 7 },
  dependentRequired: { label: 'crate', startDate: '2026-05-01' },
};

function slug(code: string): string {
  return code.toLowerCase().replace(/_/g, '-');
}

function keywordScenarios(): ScenarioDefinition[] {
  const entries: [string, string][] = [
    ...Object.entries(SCHEMA_KEYWORD_CODES),
    ['dependentRequired', SCHEMA_FALLBACK_CODE],
  ];
  return entries.map(([keyword, code]) => ({
    id: `mcp-input-validation-${slug(code)}`,
    about: `The keyword tool's body fails ${keyword}${code === SCHEMA_FALLBACK_CODE ? ' (a keyword without its own code: the fallback)' : ''}.`,
    variant: 'main',
    holds: 'envelope',
    parity: `input validation: ${code}`,
    common: { group: 'keywords', call: { tool: KEYWORD_TOOL, arguments: { body: KEYWORD_BODIES[keyword] ?? {} } } },
  }));
}

/** The normalization events: each server calls a tool of its own that succeeds upstream. */
const NORMALIZATION_SCENARIOS: readonly ScenarioDefinition[] = [
  {
    id: 'normalized-renamed',
    about:
      'A key that differs from the schema only in case is renamed before validation (success with _meta.normalized).',
    variant: 'main',
    holds: 'response',
  },
  {
    id: 'normalized-dropped-alias',
    about: 'The canonical key and a differently cased alias are both sent: the alias is dropped.',
    variant: 'main',
    holds: 'response',
  },
  {
    id: 'normalized-coerced',
    about: 'A single value sent for a list field is wrapped into a one-item list.',
    variant: 'main',
    holds: 'response',
  },
  {
    id: 'normalized-unknown-field-rejected',
    about:
      'A key the schema does not know is rejected under MCP_STRICT_UNKNOWN_FIELDS=true (the event rides on the envelope).',
    variant: 'main',
    holds: 'envelope',
    parity: 'unknown field (strict)',
  },
  {
    id: 'normalized-unknown-field-passed-through',
    about: 'With MCP_STRICT_UNKNOWN_FIELDS=false an unknown key passes through and the call succeeds.',
    variant: 'lenient',
    holds: 'response',
  },
];

/** Unknown tool, a throwing handler, rate limiting and the authentication failures. */
const SERVER_AND_AUTH_SCENARIOS: readonly ScenarioDefinition[] = [
  {
    id: 'tool-not-found',
    about: 'A tool name that is not registered (one letter off get_envelope_contract).',
    variant: 'main',
    holds: 'envelope',
    parity: 'unknown tool',
    common: { group: 'tool-not-found', call: { tool: MISSPELLED_TOOL, arguments: {} } },
  },
  {
    id: 'internal-error',
    about: 'A tool handler throws an unclassified error (the official suite fixture tool test_error_handling).',
    variant: 'main',
    holds: 'envelope',
    parity: 'internal error',
    common: { group: 'internal-error', call: { tool: 'test_error_handling', arguments: {} } },
  },
  {
    id: 'rate-limited-429',
    about: 'Upstream HTTP 429 with Retry-After in seconds.',
    variant: 'main',
    holds: 'envelope',
    parity: 'upstream 429',
  },
  { id: 'auth-error-401', about: 'Upstream HTTP 401.', variant: 'main', holds: 'envelope', parity: 'upstream 401' },
  { id: 'auth-error-403', about: 'Upstream HTTP 403.', variant: 'main', holds: 'envelope', parity: 'upstream 403' },
  {
    id: 'auth-error-missing-credentials',
    about:
      'The server starts without credentials (the variables its descriptor names emptied): nothing is sent upstream.',
    variant: 'no-credentials',
    holds: 'envelope',
    parity: 'missing credentials',
  },
];

/** Upstream HTTP errors, an unreachable upstream and a body that cannot be sent. */
const UPSTREAM_FAILURE_SCENARIOS: readonly ScenarioDefinition[] = [
  { id: 'api-http-400', about: 'Upstream HTTP 400 with the API error body.', variant: 'main', holds: 'envelope' },
  { id: 'api-http-404', about: 'Upstream HTTP 404.', variant: 'main', holds: 'envelope' },
  {
    id: 'api-http-503',
    about: 'Upstream HTTP 503 with an HTML page.',
    variant: 'main',
    holds: 'envelope',
    parity: 'upstream 503',
  },
  {
    id: 'api-client-network',
    about: 'The upstream closes the connection without an HTTP answer.',
    variant: 'main',
    holds: 'envelope',
    parity: 'upstream unreachable',
  },
  {
    id: 'api-client-body-coercion',
    about: 'A JSON body sent as text that does not parse; nothing is sent upstream.',
    variant: 'main',
    holds: 'envelope',
  },
];

/** Successes that carry warnings, and the warnings carried by an error. */
const SUCCESS_AND_WARNING_SCENARIOS: readonly ScenarioDefinition[] = [
  {
    id: 'success-rate-limit-warnings',
    about: 'A success whose upstream answer carried rate-limit headers and Warning headers.',
    variant: 'main',
    holds: 'response',
  },
  {
    id: 'success-partial-results',
    about: 'A 207 batch answer with failed items: a success with a partial_results warning.',
    variant: 'main',
    holds: 'response',
  },
  {
    id: 'profile-scope-warning',
    about: 'An HTTP 400 that is a profile problem carries a profile_scope_warning.',
    variant: 'main',
    holds: 'envelope',
  },
  {
    id: 'mcp-input-validation-schema-profile-not-found',
    about: 'set_active_profile with a profile id the account does not have (a domain validator code).',
    variant: 'main',
    holds: 'envelope',
  },
];

/** Every scenario the gate defines, in the order they run. */
export const SCENARIO_DEFINITIONS: readonly ScenarioDefinition[] = [
  ...keywordScenarios(),
  ...NORMALIZATION_SCENARIOS,
  ...SERVER_AND_AUTH_SCENARIOS,
  ...UPSTREAM_FAILURE_SCENARIOS,
  ...SUCCESS_AND_WARNING_SCENARIOS,
];

function describedCall(server: GateServer, scenario: string): FixtureCall | undefined {
  const call = server.fixtures.calls[scenario];
  if (call === undefined) return undefined;
  return {
    tool: call.tool ?? '',
    arguments: call.arguments ?? {},
    ...(call.case === undefined ? {} : { upstreamCase: call.case }),
    ...(call.upstream === undefined ? {} : { upstream: call.upstream }),
  };
}

/**
 * The fixture plan for a list of servers: every scenario with the call of each server that takes
 * part in it (a shared group it joins, or its own call); scenarios no server takes part in are left out.
 *
 * @param servers - the gated servers.
 * @returns the scenarios in definition order.
 * @throws Error when a descriptor names a group or a scenario the gate does not define.
 */
export function fixturePlan(servers: readonly GateServer[]): FixtureScenario[] {
  const known = new Set(SCENARIO_DEFINITIONS.map((scenario) => scenario.id));
  for (const server of servers) {
    const group = server.fixtures.common.find((name) => !(COMMON_FIXTURE_GROUPS as readonly string[]).includes(name));
    if (group !== undefined) throw new Error(`${server.id}: fixtures.common names the unknown group "${group}"`);
    const scenario = Object.keys(server.fixtures.calls).find((id) => !known.has(id));
    if (scenario !== undefined)
      throw new Error(`${server.id}: fixtures.calls names the unknown scenario "${scenario}"`);
  }
  return SCENARIO_DEFINITIONS.map((definition) => {
    const calls: Record<ServerId, FixtureCall> = {};
    for (const server of servers) {
      const call =
        definition.common !== undefined && server.fixtures.common.includes(definition.common.group)
          ? definition.common.call
          : describedCall(server, definition.id);
      if (call !== undefined) calls[server.id] = call;
    }
    return { ...definition, calls };
  }).filter((scenario) => Object.keys(scenario.calls).length > 0);
}

/**
 * A scenario's call on one server with the case it names resolved (tool, arguments and routes
 * taken from the case).
 *
 * @param call - the planned call.
 * @param cases - the recorded cases, by id.
 * @returns the call to make and the routes to serve.
 * @throws Error when the named case does not exist.
 */
export function resolveFixtureCall(
  call: FixtureCall,
  cases: ReadonlyMap<string, UpstreamCase>,
): { tool: string; arguments: Readonly<Record<string, unknown>>; upstream: readonly ReplayRoute[] } {
  if (call.upstreamCase === undefined)
    return { tool: call.tool, arguments: call.arguments, upstream: call.upstream ?? [] };
  const recorded = cases.get(call.upstreamCase);
  if (recorded === undefined) throw new Error(`fixture scenario names case ${call.upstreamCase}, which does not exist`);
  return { tool: recorded.call.tool, arguments: recorded.call.arguments, upstream: recorded.upstream };
}
