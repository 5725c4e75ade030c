/**
 * What the conformance fixtures are made of: per server, one scenario per error class it
 * advertises, per `SCHEMA_*` keyword code and the fallback (through the keyword tool that both
 * servers load from `models/keywords`), per normalization event kind, and successes with
 * rate-limit `_meta` and warnings. Upstream answers come from the recorded cases.
 *
 * @packageDocumentation
 */
import { SCHEMA_FALLBACK_CODE, SCHEMA_KEYWORD_CODES } from '@mcp-envelope/contract';
import type { ReplayRoute } from '@mcp-envelope/testing';

import type { UpstreamCase } from './cases.js';
import { SERVER_IDS } from './reference-servers.js';
import type { ServerId, VariantName } from './reference-servers.js';

/** The tool both servers load from `models/keywords/conformance-keywords.json`. */
export const KEYWORD_TOOL = 'conformanceKeywords_checkKeywords';

/** The tool name the unknown-tool scenario calls (one letter off `get_envelope_contract`). */
export const MISSPELLED_TOOL = 'get_envelope_contrct';

/** One call of a fixture scenario on one server. */
export interface FixtureCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The recorded case whose upstream answers are replayed, when the call reaches upstream. */
  readonly upstreamCase?: string;
  /** Upstream answers given directly (instead of a case). */
  readonly upstream?: readonly ReplayRoute[];
}

/** One fixture scenario: a file `fixtures/<server>/<id>.json` on every server it applies to. */
export interface FixtureScenario {
  readonly id: string;
  readonly about: string;
  readonly variant: VariantName;
  /** Whether the fixture holds an envelope (error) or a response (success). */
  readonly holds: 'envelope' | 'response';
  /** The cross-server condition this scenario is compared under, when it is one. */
  readonly parity?: string;
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

function bothServers(call: FixtureCall): Record<ServerId, FixtureCall> {
  return Object.fromEntries(SERVER_IDS.map((server) => [server, call])) as Record<ServerId, FixtureCall>;
}

function keywordScenarios(): FixtureScenario[] {
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
    calls: bothServers({ tool: KEYWORD_TOOL, arguments: { body: KEYWORD_BODIES[keyword] ?? {} } }),
  }));
}

const SP_ORDERS = 'ordersV0_getOrders';
const SP_MARKETPLACE = 'ATVPDKIKX0DER';
const SP_ORDERS_SUCCESS: ReplayRoute = {
  method: 'GET',
  path: '/orders/v0/orders',
  response: {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-amzn-RateLimit-Limit': '0.0167',
      'x-amzn-RequestId': '6a1f0c4e-93b2-4d7e-a5c1-2b8e7f90d314',
    },
    body: { payload: { Orders: [{ AmazonOrderId: '114-2847193-5521067', OrderStatus: 'Unshipped' }] } },
  },
};
const ADS_PROFILES_SUCCESS: ReplayRoute = {
  method: 'GET',
  path: '/v2/profiles',
  response: {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-amzn-RequestId': 'b71e20d4-5f36-4c8a-9e02-7d4a1c6f8e53',
    },
    body: [
      {
        profileId: Number('3300440055006600'),
        countryCode: 'US',
        currencyCode: 'USD',
        accountInfo: { id: 'A3GATESELLER', type: 'seller', name: 'Gate Shop' },
      },
    ],
  },
};

function normalizationScenarios(): FixtureScenario[] {
  const spOrders = (args: Record<string, unknown>): FixtureCall => ({
    tool: SP_ORDERS,
    arguments: args,
    upstream: [SP_ORDERS_SUCCESS],
  });
  const adsProfiles = (args: Record<string, unknown>): FixtureCall => ({
    tool: 'list_profiles',
    arguments: args,
    upstream: [ADS_PROFILES_SUCCESS],
  });
  return [
    {
      id: 'normalized-renamed',
      about:
        'A key that differs from the schema only in case is renamed before validation (success with _meta.normalized).',
      variant: 'main',
      holds: 'response',
      calls: {
        sp: spOrders({ marketplaceIds: [SP_MARKETPLACE] }),
        ads: adsProfiles({ ProfileTypeFilter: ['seller'] }),
      },
    },
    {
      id: 'normalized-dropped-alias',
      about: 'The canonical key and a differently cased alias are both sent: the alias is dropped.',
      variant: 'main',
      holds: 'response',
      calls: {
        sp: spOrders({ MarketplaceIds: [SP_MARKETPLACE], marketplaceIds: [SP_MARKETPLACE] }),
        ads: adsProfiles({ profileTypeFilter: ['seller'], ProfileTypeFilter: ['seller'] }),
      },
    },
    {
      id: 'normalized-coerced',
      about: 'A single value sent for a list field is wrapped into a one-item list.',
      variant: 'main',
      holds: 'response',
      calls: { sp: spOrders({ MarketplaceIds: SP_MARKETPLACE }), ads: adsProfiles({ profileTypeFilter: 'seller' }) },
    },
    {
      id: 'normalized-unknown-field-rejected',
      about:
        'A key the schema does not know is rejected under MCP_STRICT_UNKNOWN_FIELDS=true (the event rides on the envelope).',
      variant: 'main',
      holds: 'envelope',
      parity: 'unknown field (strict)',
      calls: {
        sp: spOrders({ MarketplaceIds: [SP_MARKETPLACE], bogusFilter: 'x' }),
        ads: adsProfiles({ bogusFilter: 'x' }),
      },
    },
    {
      id: 'normalized-unknown-field-passed-through',
      about: 'With MCP_STRICT_UNKNOWN_FIELDS=false an unknown key passes through and the call succeeds.',
      variant: 'lenient',
      holds: 'response',
      calls: {
        sp: spOrders({ MarketplaceIds: [SP_MARKETPLACE], bogusFilter: 'x' }),
        ads: adsProfiles({ bogusFilter: 'x' }),
      },
    },
  ];
}

function fromCases(sp: string, ads: string): Record<ServerId, FixtureCall> {
  return { sp: { tool: '', arguments: {}, upstreamCase: sp }, ads: { tool: '', arguments: {}, upstreamCase: ads } };
}

function errorClassScenarios(): FixtureScenario[] {
  return [...serverAndAuthScenarios(), ...upstreamFailureScenarios(), ...successAndWarningScenarios()];
}

/** Unknown tool, a throwing handler, rate limiting and the authentication failures. */
function serverAndAuthScenarios(): FixtureScenario[] {
  return [
    {
      id: 'tool-not-found',
      about: 'A tool name that is not registered (one letter off get_envelope_contract).',
      variant: 'main',
      holds: 'envelope',
      parity: 'unknown tool',
      calls: bothServers({ tool: MISSPELLED_TOOL, arguments: {} }),
    },
    {
      id: 'internal-error',
      about: 'A tool handler throws an unclassified error (the official suite fixture tool test_error_handling).',
      variant: 'main',
      holds: 'envelope',
      parity: 'internal error',
      calls: bothServers({ tool: 'test_error_handling', arguments: {} }),
    },
    {
      id: 'rate-limited-429',
      about: 'Upstream HTTP 429 with Retry-After in seconds.',
      variant: 'main',
      holds: 'envelope',
      parity: 'upstream 429',
      calls: fromCases('sp-429-retry-after-seconds', 'ads-429-retry-after-seconds'),
    },
    {
      id: 'auth-error-401',
      about: 'Upstream HTTP 401.',
      variant: 'main',
      holds: 'envelope',
      parity: 'upstream 401',
      calls: fromCases('sp-401-unauthorized-text-body', 'ads-401-token-expired'),
    },
    {
      id: 'auth-error-403',
      about: 'Upstream HTTP 403.',
      variant: 'main',
      holds: 'envelope',
      parity: 'upstream 403',
      calls: fromCases('sp-403-expired-token', 'ads-403-not-authorized-resource'),
    },
    {
      id: 'auth-error-missing-credentials',
      about: 'No LWA credentials are configured: nothing is sent upstream.',
      variant: 'no-credentials',
      holds: 'envelope',
      parity: 'missing credentials',
      calls: {
        sp: { tool: 'sellers_getMarketplaceParticipations', arguments: {} },
        ads: { tool: 'list_profiles', arguments: {} },
      },
    },
  ];
}

/** Upstream HTTP errors, an unreachable upstream and a body that cannot be sent. */
function upstreamFailureScenarios(): FixtureScenario[] {
  return [
    {
      id: 'api-http-400',
      about: 'Upstream HTTP 400 with the API error body.',
      variant: 'main',
      holds: 'envelope',
      calls: fromCases('sp-400-payload-errors-several', 'ads-400-field-value-invalid-v1'),
    },
    {
      id: 'api-http-404',
      about: 'Upstream HTTP 404.',
      variant: 'main',
      holds: 'envelope',
      calls: fromCases('sp-404-catalog-not-found', 'ads-404-not-found-full-path'),
    },
    {
      id: 'api-http-503',
      about: 'Upstream HTTP 503 with an HTML page.',
      variant: 'main',
      holds: 'envelope',
      parity: 'upstream 503',
      calls: fromCases('sp-503-html-temporarily-unavailable', 'ads-503-html-unavailable'),
    },
    {
      id: 'api-client-network',
      about: 'The upstream closes the connection without an HTTP answer.',
      variant: 'main',
      holds: 'envelope',
      parity: 'upstream unreachable',
      calls: {
        sp: {
          tool: 'sellers_getMarketplaceParticipations',
          arguments: {},
          upstream: [
            {
              method: 'GET',
              path: '/sellers/v1/marketplaceParticipations',
              response: { status: 200, dropConnection: true },
            },
          ],
        },
        ads: {
          tool: 'list_profiles',
          arguments: {},
          upstream: [{ method: 'GET', path: '/v2/profiles', response: { status: 200, dropConnection: true } }],
        },
      },
    },
    {
      id: 'api-client-body-coercion',
      about: 'A JSON body sent as text that does not parse; nothing is sent upstream.',
      variant: 'main',
      holds: 'envelope',
      calls: {
        sp: {
          tool: 'reports20210630_createReport',
          arguments: { body: '{"reportType": "GET_MERCHANT_LISTINGS_ALL_DATA",' },
        },
      },
    },
  ];
}

/** Successes that carry warnings, and the warnings carried by an Ads error. */
function successAndWarningScenarios(): FixtureScenario[] {
  return [
    {
      id: 'success-rate-limit-warnings',
      about: 'A success whose upstream answer carried rate-limit headers and Warning headers.',
      variant: 'main',
      holds: 'response',
      calls: fromCases('sp-200-several-warnings', 'ads-200-ratelimit-headers-lowercase-and-warning'),
    },
    {
      id: 'success-partial-results',
      about: 'A 207 batch answer with failed items: a success with a partial_results warning.',
      variant: 'main',
      holds: 'response',
      calls: { ads: { tool: '', arguments: {}, upstreamCase: 'ads-207-v3-partial-item-errors' } },
    },
    {
      id: 'profile-scope-warning',
      about: 'An HTTP 400 that is a profile problem carries a profile_scope_warning.',
      variant: 'main',
      holds: 'envelope',
      calls: { ads: { tool: '', arguments: {}, upstreamCase: 'ads-400-advertiser-id-cannot-be-decrypted' } },
    },
    {
      id: 'mcp-input-validation-schema-profile-not-found',
      about: 'set_active_profile with a profile id the account does not have (a domain validator code).',
      variant: 'main',
      holds: 'envelope',
      calls: {
        ads: { tool: 'set_active_profile', arguments: { profileId: 1234567 }, upstream: [ADS_PROFILES_SUCCESS] },
      },
    },
  ];
}

/** Every fixture scenario, in the order they run. */
export const FIXTURE_SCENARIOS: readonly FixtureScenario[] = [
  ...keywordScenarios(),
  ...normalizationScenarios(),
  ...errorClassScenarios(),
];

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
