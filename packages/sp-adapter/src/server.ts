/**
 * The reference SP-API MCP server: one tool per SP-API operation (from the built-in catalog or
 * from official model files), plus `set_region`, the identity tools and core's `get_envelope_contract`, on core's
 * envelope runtime with the SP adapter. Upstream calls get an LWA access token (refresh-token
 * flow, cached until shortly before expiry) and go to the region endpoint, the sandbox endpoint,
 * or an `--upstream` URL.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';

import {
  createAmazonRedactor,
  LwaError,
  LwaTokenClient,
  LwaTokenClients,
  lwaSettingsFromEnv,
} from '@mcp-envelope/amazon';
import { createEnvelopeServer, EnvelopeError, readToolHistory, UpstreamHttpError } from '@mcp-envelope/core';
import { compileTool, createPipelineCaches, SessionStates } from '@mcp-envelope/core/adapter';
import { buildOperationRequest, coerceJsonBody, toolAnnotationsForMethod } from '@mcp-envelope/core/openapi';
import { officialSuiteServerExtension, officialSuiteTools } from '@mcp-envelope/testing';
import type {
  EnvelopeServer,
  EnvelopeServerOptions,
  EnvelopeTool,
  JsonSchemaObject,
  ToolHandlerContext,
} from '@mcp-envelope/core';
import { isRecord } from '@mcp-envelope/contract';
import type { CompiledTool } from '@mcp-envelope/core/adapter';

import { createSpAdapter } from './adapter.js';
import { SP_REDACTION_PATTERNS } from './redaction.js';
import { identitySourceFromEnv } from './identities.js';
import type { SpIdentitySource } from './identities.js';
import { listIdentitiesTool, setActiveIdentityTool } from './identity-tools.js';
import type { SpSessionState } from './identity-tools.js';
import { SP_CURATED_ENUMS, SP_HINT_TABLES, SP_MARKETPLACE_ID_PROPERTIES } from './hint-tables.js';
import type { SpModel, SpModelOperation } from './models.js';
import { DEFAULT_SP_REGION, parseSpRegion, SP_MARKETPLACE_IDS, SP_REGION_CODES, spEndpoint } from './regions.js';
import type { SpRegion } from './regions.js';
import { SP_ADAPTER_VERSION } from './version.js';

export { SP_ADAPTER_VERSION } from './version.js';

/** The server name sent at initialization. */
export const SP_SERVER_NAME = 'mcp-envelope-sp';

/** Default upstream timeout, in milliseconds. */
export const DEFAULT_SP_TIMEOUT_MS = 30_000;

/** The name of the region tool. */
export const SET_REGION_TOOL_NAME = 'set_region';

/** Where access tokens come from (core's `LwaTokenClient`, or a stand-in in tests). */
export interface AccessTokenSource {
  /**
   * @param signal - when it aborts (a cancelled call, a closing server), this caller stops waiting.
   * @returns a valid access token.
   * @throws LwaError when none can be had.
   */
  accessToken(signal?: AbortSignal): Promise<string>;
  /** Forgets the cached token (after SP-API refused it). */
  invalidate(): void;
}

/** Options of {@link createSpServer}. */
export interface SpServerOptions {
  /**
   * The models whose operations become tools (see `loadSpModels`, `loadBuiltInCatalog`). Their
   * input schemas are kept, not copied (core's `inputSchemaOwnership: 'transfer'`): do not change
   * them after creating the server.
   */
  readonly models: readonly SpModel[];
  /** Environment (`LWA_*`, `SP_API_REGION`, `SP_API_SANDBOX`, `SP_API_TIMEOUT_MS`, `MCP_*`); defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Sends every call to this base URL instead of the region endpoint (tests, proxies). */
  readonly upstream?: string | undefined;
  /** Starting region; defaults to `SP_API_REGION`, else `na`. */
  readonly region?: SpRegion | undefined;
  /** Use the sandbox endpoints; defaults to `SP_API_SANDBOX`. */
  readonly sandbox?: boolean | undefined;
  /** Upstream timeout in milliseconds; defaults to `SP_API_TIMEOUT_MS`, else `DEFAULT_SP_TIMEOUT_MS`. */
  readonly timeoutMs?: number | undefined;
  /** Access tokens; defaults to core's `LwaTokenClient` over the `LWA_*` variables. */
  readonly tokens?: AccessTokenSource;
  /** Passed to core's `createEnvelopeServer` (switches, logger, version, ...). */
  readonly envelope?: EnvelopeServerOptions;
  /**
   * The selling-partner identities; defaults to `SP_IDENTITIES_FILE` or `SP_IDENTITY_SERVICE_URL`
   * (see `identitySourceFromEnv`), else none: every call uses the `LWA_*` credentials.
   */
  readonly identities?: SpIdentitySource | undefined;
  /** Also serve the official MCP conformance suite's fixture tools (`--conformance-fixtures`; `officialSuiteTools` of `@mcp-envelope/testing`). */
  readonly conformanceFixtures?: boolean | undefined;
}

/**
 * The upstream settings of a running server: the defaults of sessions that chose nothing
 * (`set_region` changes only its own session's region and sandbox choice).
 */
export interface SpServerState {
  region: SpRegion;
  sandbox: boolean;
  readonly upstream: string | undefined;
  readonly timeoutMs: number;
}

/** What {@link createSpServer} returns. */
export interface SpServer {
  /** Core's server (connect, serveStdio, serveStreamableHttp, close). */
  readonly envelope: EnvelopeServer;
  readonly state: SpServerState;
  /** The operation tools, by name. */
  readonly operations: ReadonlyMap<string, SpModelOperation>;
  /** The base URL of upstream calls of a session that chose no region (the start-up settings). */
  baseUrl(): string;
}

/** Why the server settings cannot be used. */
export class SpSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpSettingsError';
  }
}

/**
 * Reads `SP_API_REGION`, `SP_API_SANDBOX` and `SP_API_TIMEOUT_MS`.
 *
 * @param env - the environment.
 * @returns the values that are set.
 * @throws SpSettingsError naming the variable when a value cannot be read.
 */
export function spSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): {
  region?: SpRegion;
  sandbox?: boolean;
  timeoutMs?: number;
} {
  const result: { region?: SpRegion; sandbox?: boolean; timeoutMs?: number } = {};
  const region = env['SP_API_REGION'];
  if (region !== undefined && region.trim() !== '') {
    const parsed = parseSpRegion(region);
    if (parsed === undefined)
      throw new SpSettingsError(
        `SP_API_REGION must be one of ${SP_REGION_CODES.join(', ')} (or a name of one), got "${region.slice(0, 40)}"`,
      );
    result.region = parsed;
  }
  const sandbox = env['SP_API_SANDBOX']?.trim().toLowerCase();
  if (sandbox !== undefined && sandbox !== '') {
    if (!['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(sandbox))
      throw new SpSettingsError('SP_API_SANDBOX must be true or false');
    result.sandbox = ['true', '1', 'yes', 'on'].includes(sandbox);
  }
  const timeout = env['SP_API_TIMEOUT_MS']?.trim();
  if (timeout !== undefined && timeout !== '') {
    const milliseconds = Number(timeout);
    if (!Number.isInteger(milliseconds) || milliseconds < 1)
      throw new SpSettingsError('SP_API_TIMEOUT_MS must be a positive integer (milliseconds)');
    result.timeoutMs = milliseconds;
  }
  return result;
}

type JsonRecord = Record<string, unknown>;

/** A property schema with `enum` set on it, or on its items for a list, unless it already has one. */
function withEnum(schema: unknown, values: readonly string[]): unknown {
  if (!isRecord(schema)) return schema;
  const type = schema['type'];
  if (type === 'array' && isRecord(schema['items'])) {
    const items = schema['items'];
    if (items['enum'] !== undefined || (items['type'] !== undefined && items['type'] !== 'string')) return schema;
    return { ...schema, items: { ...items, enum: [...values] } };
  }
  if (type === 'string' && schema['enum'] === undefined) return { ...schema, enum: [...values] };
  return schema;
}

/**
 * The input schema published for an operation: the converted schema with the curated enums and
 * the marketplace ids applied to top-level properties of those names, and a JSON body that may
 * also come as JSON text (parsed, then checked, before sending).
 */
function publishedSchema(operation: SpModelOperation): JsonSchemaObject {
  const properties = isRecord(operation.inputSchema['properties']) ? { ...operation.inputSchema['properties'] } : {};
  for (const [name, values] of Object.entries(SP_CURATED_ENUMS)) {
    if (Object.hasOwn(properties, name)) properties[name] = withEnum(properties[name], values);
  }
  for (const name of SP_MARKETPLACE_ID_PROPERTIES) {
    if (Object.hasOwn(properties, name)) properties[name] = withEnum(properties[name], SP_MARKETPLACE_IDS);
  }
  const body = operation.body;
  if (body !== undefined && /json/i.test(body.mediaType) && isRecord(properties[body.property])) {
    const schema = properties[body.property] as JsonRecord;
    if (schema['type'] === 'object' || schema['type'] === 'array') {
      const description = typeof schema['description'] === 'string' ? `${schema['description']} ` : '';
      properties[body.property] = {
        ...schema,
        type: [schema['type'], 'string'],
        description: `${description}(May also be sent as JSON text.)`,
      };
    }
  }
  return { ...operation.inputSchema, properties };
}

function toolDescription(operation: SpModelOperation): string {
  const text = [operation.summary, operation.description].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  const unique = text.length === 2 && text[1]?.startsWith(text[0] ?? '') === true ? [text[1]] : text;
  return `${unique.join(' ')}${unique.length > 0 ? ' ' : ''}(SP-API ${operation.method} ${operation.path}${operation.deprecated ? '; deprecated' : ''})`.slice(
    0,
    1200,
  );
}

/** The server's start-up settings: options first, then the environment, then the defaults. */
function initialState(options: SpServerOptions, env: Readonly<Record<string, string | undefined>>): SpServerState {
  const fromEnv = spSettingsFromEnv(env);
  return {
    region: options.region ?? fromEnv.region ?? DEFAULT_SP_REGION,
    sandbox: options.sandbox ?? fromEnv.sandbox ?? false,
    upstream: options.upstream,
    timeoutMs: options.timeoutMs ?? fromEnv.timeoutMs ?? DEFAULT_SP_TIMEOUT_MS,
  };
}

/** The arguments with a JSON body sent as a string parsed (and checked against the body's schema). */
function withParsedBody(
  operation: SpModelOperation,
  args: Record<string, unknown>,
  checkParsedBody: (operation: SpModelOperation, value: unknown) => void,
): Record<string, unknown> {
  const body = operation.body;
  if (body === undefined || typeof args[body.property] !== 'string') return args;
  const parsed = coerceJsonBody(args[body.property], body.property);
  if (parsed === args[body.property]) return args;
  checkParsedBody(operation, parsed);
  return { ...args, [body.property]: parsed };
}

/**
 * A checker for a JSON body sent as a string and parsed by the server: the parsed value is
 * validated against the body property's schema like any argument (compiled on first use per
 * operation), and a violation throws the `SCHEMA_*` envelope.
 */
function createBodyChecker(): (operation: SpModelOperation, value: unknown) => void {
  const bodyChecks = new Map<string, CompiledTool>();
  const caches = createPipelineCaches();
  return (operation, value) => {
    const body = operation.body;
    if (body === undefined) return;
    let check = bodyChecks.get(operation.toolName);
    if (check === undefined) {
      const schema = isRecord(operation.inputSchema['properties'])
        ? operation.inputSchema['properties'][body.property]
        : undefined;
      const definitions = operation.inputSchema['$defs'];
      check = compileTool(
        `${operation.toolName}#${body.property}`,
        {
          type: 'object',
          properties: { [body.property]: schema ?? {} },
          ...(definitions === undefined ? {} : { $defs: definitions }),
        },
        {
          normalizationEnabled: false,
          strictUnknownFields: false,
          hints: SP_HINT_TABLES,
          caches,
        },
      );
      bodyChecks.set(operation.toolName, check);
    }
    const result = check.check({ [body.property]: value });
    if (result.ok) return;
    throw new EnvelopeError({
      error_kind: 'mcp_input_validation',
      error_code: result.error_code,
      summary: result.summary,
      details: result.details,
      hints: result.hints,
      retryable: false,
    });
  };
}

interface IdentityCredentialParts {
  readonly identities: SpIdentitySource | undefined;
  readonly tokens: AccessTokenSource;
  /** One token client per identity (its refresh token over the `LWA_*` application credentials). */
  readonly identityTokens: LwaTokenClients<number>;
  readonly defaultRegion: () => SpRegion;
}

/** The per-call credential lookups of the SP server: which token source and region a session's call uses. */
function identityCredentials({ identities, tokens, identityTokens, defaultRegion }: IdentityCredentialParts): {
  callCredentials: (
    session: Readonly<SpSessionState>,
    context: ToolHandlerContext,
  ) => Promise<{ tokens: AccessTokenSource; region: SpRegion }>;
  identityAccessToken: (id: number | undefined, source: AccessTokenSource, signal: AbortSignal) => Promise<string>;
} {
  /**
   * The token source and region of this session's active identity (the `LWA_*` credentials and
   * the server's region when none is active). An LwaError escapes to core, which hands it to the
   * adapter as an `lwa` failure; an identity service failure names `upstream: "openbridge"`.
   */
  async function callCredentials(
    session: Readonly<SpSessionState>,
    context: ToolHandlerContext,
  ): Promise<{ tokens: AccessTokenSource; region: SpRegion }> {
    if (session.identityId === undefined || identities === undefined)
      return { tokens, region: session.region ?? defaultRegion() };
    const identity = await identities.credentials(session.identityId, context);
    if (identity === undefined) throw unknownActiveIdentity(session.identityId);
    const tokenClient = identityTokens.client(identity.id, { refreshToken: identity.refreshToken });
    return { tokens: tokenClient, region: session.region ?? identity.region };
  }

  /**
   * The access token of a call. When LWA refuses an identity's refresh token, its cached
   * credentials are dropped, so a token rotated at the source is picked up by the next call. The
   * call's signal (a cancellation, or the server closing) stops its wait for the token.
   */
  async function identityAccessToken(
    id: number | undefined,
    source: AccessTokenSource,
    signal: AbortSignal,
  ): Promise<string> {
    try {
      return await source.accessToken(signal);
    } catch (error) {
      if (
        id !== undefined &&
        identities !== undefined &&
        LwaError.isInstance(error) &&
        error.reason === 'token_rejected'
      ) {
        identities.forget?.(id);
        identityTokens.forget(id);
      }
      throw error;
    }
  }
  return { callCredentials, identityAccessToken };
}

/** The `set_region` tool: the choice belongs to the calling session and wins over its identity's region. */
function setRegionTool(
  sessions: SessionStates<SpSessionState>,
  state: SpServerState,
  baseUrl: (region: SpRegion, sandbox: boolean) => string,
): EnvelopeTool {
  return {
    name: SET_REGION_TOOL_NAME,
    title: 'Choose the SP-API region',
    description:
      'Sets the SP-API region later calls go to: na (North America and Brazil), eu (Europe, Middle East, India, Africa) or fe (Japan, Australia, Singapore). Sellers are registered in one region; calls for their marketplaces must go to its endpoint. Optionally switches to the sandbox endpoints.',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', enum: [...SP_REGION_CODES], description: 'na, eu or fe.' },
        sandbox: { type: 'boolean', description: 'Use the sandbox endpoints (static test data).' },
      },
      required: ['region'],
    },
    // a constant schema, compiled by the tests of this tool
    inputSchemaCheck: 'first-call',
    handler: (args: Record<string, unknown>, context: ToolHandlerContext) => {
      const region = args['region'] as SpRegion;
      // the choice is this session's alone (over Streamable HTTP, other clients keep theirs); it
      // also wins over its identity's region
      const session = sessions.of(context);
      session.region = region;
      if (typeof args['sandbox'] === 'boolean') session.sandbox = args['sandbox'];
      const sandbox = session.sandbox ?? state.sandbox;
      return { region, sandbox, endpoint: baseUrl(region, sandbox), upstream_override: state.upstream !== undefined };
    },
  };
}

/** What an operation tool's handler needs from its server. */
interface OperationToolParts extends ReturnType<typeof identityCredentials> {
  readonly sessions: SessionStates<SpSessionState>;
  readonly state: SpServerState;
  readonly baseUrl: (region: SpRegion, sandbox: boolean) => string;
  readonly checkParsedBody: (operation: SpModelOperation, value: unknown) => void;
  /** The rate-limit identity of calls without an active identity: the LWA_* seller's fingerprint. */
  readonly defaultSeller: string | undefined;
}

/**
 * A short one-way fingerprint of the LWA_* credentials: servers of different sellers sharing one
 * rate-limit store must not share buckets, and the key must not hold the refresh token itself.
 */
function sellerFingerprint(clientId: string | undefined, refreshToken: string | undefined): string | undefined {
  if (refreshToken === undefined || refreshToken === '') return undefined;
  const digest = createHash('sha256')
    .update(`${clientId ?? ''}\0${refreshToken}`)
    .digest('hex');
  return `seller:${digest.slice(0, 16)}`;
}

/**
 * One operation's tool: its annotations follow the HTTP method; a call builds the request, gets
 * the session's identity token and drops that token when the upstream answers 401 or 403.
 */
function operationTool(operation: SpModelOperation, parts: OperationToolParts): EnvelopeTool {
  const { sessions, state, baseUrl, callCredentials, identityAccessToken, checkParsedBody } = parts;
  return {
    name: operation.toolName,
    description: toolDescription(operation),
    inputSchema: publishedSchema(operation),
    // core's converter makes every schema meta-valid by construction (its property tests
    // compile any converted input), so start-up skips the meta-schema check; a broken
    // hand-made operation schema answers its calls with internal_error instead
    inputSchemaCheck: 'first-call',
    // built fresh above from converted, plain-JSON models that nothing changes later (see
    // SpServerOptions.models): core keeps it without its deep copy
    inputSchemaOwnership: 'transfer',
    ...(operation.rateLimit === undefined ? {} : { rateLimit: operation.rateLimit }),
    // SP-API budgets are per selling partner: the session's active identity, else the LWA_* seller
    rateLimitIdentity: (_args, context) => {
      const id = sessions.of(context).identityId;
      return id === undefined ? parts.defaultSeller : `identity:${String(id)}`;
    },
    annotations: toolAnnotationsForMethod(operation.method, operation.operationId),
    handler: async (args: Record<string, unknown>, context: ToolHandlerContext) => {
      const prepared = withParsedBody(operation, args, checkParsedBody);
      // a copy, read before any await: a set_active_identity or set_region meanwhile must not
      // change this call's identity, region or endpoint
      const chosen: Readonly<SpSessionState> = { ...sessions.of(context) };
      const credentials = await callCredentials(chosen, context);
      const request = buildOperationRequest(
        operation,
        prepared,
        baseUrl(credentials.region, chosen.sandbox ?? state.sandbox),
      );
      const token = await identityAccessToken(chosen.identityId, credentials.tokens, context.signal);
      try {
        const response = await context.fetch(request.url, {
          method: request.method,
          headers: {
            ...request.headers,
            accept: 'application/json',
            'user-agent': `${SP_SERVER_NAME}/${SP_ADAPTER_VERSION} (Language=JavaScript; Platform=Node.js)`,
            'x-amz-access-token': token,
          },
          ...(request.body === undefined ? {} : { body: request.body }),
          timeoutMs: state.timeoutMs,
        });
        // an SP `errors` list without data ends the call as the failure it reports
        return await context.readBody(response);
      } catch (error) {
        if (UpstreamHttpError.isInstance(error) && (error.status === 401 || error.status === 403))
          credentials.tokens.invalidate();
        throw error;
      }
    },
  };
}

/**
 * Creates the reference SP-API server on core's runtime. Tools: one per operation of `models`
 * (named `<model>_<operationId>`), `set_region`, `list_identities` and `set_active_identity` when
 * identities are configured, and core's `get_envelope_contract`. Each MCP session keeps its own
 * active identity and region choice; an operation call uses that identity's LWA client and region.
 *
 * A call builds the request (`buildOperationRequest`: path, query lists comma-separated, headers, JSON
 * body), gets an access token (failures become `auth_error` / `AUTHENTICATION_ERROR` envelopes,
 * naming missing `LWA_*` variables), and sends it with core's `upstreamFetch`; failures are
 * classified by the SP adapter. A 401/403 drops the cached access token.
 *
 * Operation schemas are converted by core, which makes them valid JSON Schema by construction,
 * so they are checked when a tool is first called, not at start-up (see core's
 * `EnvelopeTool.inputSchemaCheck`): a schema that still fails (a hand-made `SpModel`) answers
 * that tool's calls with an `internal_error` envelope and a log line; the other tools work.
 *
 * @param options - see {@link SpServerOptions}.
 * @returns the server, its state and its operation tools.
 * @throws SpSettingsError when `SP_API_REGION`, `SP_API_SANDBOX` or `SP_API_TIMEOUT_MS` is unreadable.
 * @throws LwaSettingsError when `LWA_TOKEN_URL` is set but is not an absolute http(s) URL, or
 *   carries user info, a query string, a fragment or a blank (the message does not quote the value).
 * @throws SpIdentityError when `SP_IDENTITIES_FILE` or `SP_IDENTITY_SERVICE_URL` cannot be used
 *   (the message names the file, the entry and the field, or the unset token variable).
 * @throws TypeError from core when an operation schema is not a plain JSON object typed `"object"`,
 *   or a conformance fixture tool's schema is invalid.
 */
export function createSpServer(options: SpServerOptions): SpServer {
  const env = options.env ?? process.env;
  const state = initialState(options, env);
  const baseUrl = (region: SpRegion = state.region, sandbox: boolean = state.sandbox): string =>
    state.upstream ?? spEndpoint(region, sandbox);
  // this server's redactor: its LWA clients and identity sources register their secrets with it
  const redactor = createAmazonRedactor(SP_REDACTION_PATTERNS);
  const lwaSettings = lwaSettingsFromEnv(env);
  const tokens: AccessTokenSource = options.tokens ?? new LwaTokenClient(lwaSettings, redactor);
  const identities = options.identities ?? identitySourceFromEnv(env, state.timeoutMs, redactor);
  const identityTokens = new LwaTokenClients<number>(lwaSettings, redactor);
  const sessions = new SessionStates<SpSessionState>(() => ({ identityId: identities?.initialId, region: undefined }));
  const adapter = createSpAdapter({ region: () => state.region, identityServiceUrl: identities?.url });
  const envelopeOptions = spEnvelopeOptions(
    env,
    options.envelope,
    identities?.initialId === undefined ? tokens : undefined,
    sessions,
  );

  const operations = new Map<string, SpModelOperation>();
  for (const model of options.models)
    for (const operation of model.operations) operations.set(operation.toolName, operation);

  const operationParts: OperationToolParts = {
    sessions,
    state,
    baseUrl,
    checkParsedBody: createBodyChecker(),
    defaultSeller: sellerFingerprint(lwaSettings.clientId, lwaSettings.refreshToken),
    ...identityCredentials({ identities, tokens, identityTokens, defaultRegion: () => state.region }),
  };
  const setRegion = setRegionTool(sessions, state, baseUrl);

  const identityTools =
    identities === undefined
      ? []
      : [listIdentitiesTool(identities, sessions), setActiveIdentityTool(identities, sessions)];
  const tools: EnvelopeTool[] = [
    ...[...operations.values()].map((operation) => operationTool(operation, operationParts)),
    setRegion,
    ...identityTools,
    ...(options.conformanceFixtures === true ? officialSuiteTools() : []),
  ];
  const envelope = createEnvelopeServer({
    info: { name: SP_SERVER_NAME, version: SP_ADAPTER_VERSION, title: 'SP-API (reference envelope server)' },
    adapter,
    tools,
    redactor,
    options: {
      instructions:
        'Amazon Selling Partner API tools. Every failure is a JSON error envelope (error_kind, error_code, retryable, hints); call get_envelope_contract for the kinds. Use set_region before calling marketplaces of another region.',
      ...envelopeOptions,
      ...(options.conformanceFixtures === true ? { extendSdkServer: officialSuiteServerExtension } : {}),
    },
  });
  return { envelope, state, operations, baseUrl: () => baseUrl() };
}

/**
 * The core options of an SP server: the caller's, with the warm-up's token request (`tokens`, the
 * `LWA_*` seller's, when a new session calls with it rather than an identity) and the sessions'
 * state dropped when their session ends.
 */
function spEnvelopeOptions(
  env: Readonly<Record<string, string | undefined>>,
  given: EnvelopeServerOptions | undefined,
  tokens: AccessTokenSource | undefined,
  sessions: SessionStates<SpSessionState>,
): EnvelopeServerOptions {
  return {
    env,
    // fetched while the client reads the tool list, not during its first call
    ...(tokens === undefined ? {} : { warmUp: (signal: AbortSignal) => tokens.accessToken(signal) }),
    // a call with a property renamed since an earlier release is told the new name
    toolHistory: readToolHistory(new URL('../tools.lock.json', import.meta.url)),
    ...given,
    onSessionClosed: (sessionId) => {
      sessions.forget(sessionId);
      given?.onSessionClosed?.(sessionId);
    },
  };
}

function unknownActiveIdentity(id: number): EnvelopeError {
  return new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: 'INPUT_VALIDATION_FAILED',
    summary: `The active identity ${id} is not known to the identity source.`,
    details: [
      {
        path: '',
        field: 'identity_id',
        issue: `identity ${id} was set unverified and the source has no such identity`,
        received_type: 'integer',
      },
    ],
    hints: ['Call list_identities, then set_active_identity with one of its ids.'],
  });
}
