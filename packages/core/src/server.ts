/**
 * `createEnvelopeServer`: an MCP tool server on the SDK v2 low-level `Server` whose `tools/call`
 * path answers every failure with a schema-valid v1 envelope, in both protocol eras (2025-11-25
 * and 2026-07-28). It composes the tool registry (tool-registry.ts), the call pipeline
 * (call-pipeline.ts), result shaping (result-shaping.ts) and the transports (stdio-host.ts,
 * http-host.ts).
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import {
  activeMigrations,
  envelopeCapability,
  ENVELOPE_CAPABILITY_KEY,
  ENVELOPE_EXTENSION_ID,
  MIGRATIONS,
} from '@mcp-envelope/contract';
import type {
  ContractVersion,
  EnvelopeCapabilityValue,
  EnvelopeMeta,
  ErrorKind,
  MigrationEntry,
} from '@mcp-envelope/contract';
// The low-level `Server`: core needs it because `McpServer` cannot take raw JSON Schemas and
// rewrites every failure into fixed prose.
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, Server as LowLevelServer } from '@modelcontextprotocol/server';
import type {
  CallToolResult,
  Implementation,
  InputRequiredResult,
  JSONValue,
  LoggingLevel,
  ServerCapabilities,
  ServerContext,
  Transport,
} from '@modelcontextprotocol/server';

import type { EnvelopeAdapter } from './adapter.js';
import { createPipelineCaches, indexToolHistory } from './arguments/index.js';
import type { PipelineCaches, ToolHistoryEntry } from './arguments/index.js';
import { invalidParams } from './call-exit.js';
import { completeOnly, createCallPipeline } from './call-pipeline.js';
import type { ConcurrencyStepInput } from './call-pipeline.js';
import { createConcurrencyGuard, resolveConcurrencySettings } from './concurrency.js';
import type { ConcurrencyOptions, ConcurrencySettings } from './concurrency.js';
import { callTelemetry } from './classify.js';
import { answerVersion, jsonRpcErrorFor, resultFor, statedResult } from './contract-version.js';
import type { VersionSettings } from './contract-version.js';
import { planCodeMode, resolveCodeModeSettings } from './code-mode/index.js';
import type { CodeModeOptions, CodeModePlan, CodeModeSettings } from './code-mode/index.js';
import { FIND_TOOL_HINT } from './code-mode/meta-tools.js';
import { createSandboxRunner } from './code-mode/runner.js';
import { composeMeta, PACKAGE_VERSION } from './envelope-builder.js';
import { serveStreamableHttp as serveHttp } from './http-host.js';
import type { StreamableHttpHandle, StreamableHttpOptions } from './http-host.js';
import { createInFlightCalls } from './in-flight.js';
import type { InFlightCalls } from './in-flight.js';
import { createEnvelopeLogger } from './logger.js';
import type { EnvelopeLogger } from './logger.js';
import { resolveLimits, resolveSettings, resolveToolFailureMeta } from './options.js';
import type {
  EnvelopeLimitOptions,
  EnvelopeLimits,
  EnvelopeSettings,
  EnvelopeSwitchOptions,
  ToolFailureMetaOptions,
} from './options.js';
import { DEFAULT_PAGE_SIZE } from './pagination.js';
import { createRateLimiter } from './rate-limit/limiter.js';
import type { RateLimiter, RateLimitReport } from './rate-limit/limiter.js';
import { openRateLimitStore, resolveRateLimitSettings, storeDescription } from './rate-limit/settings.js';
import type { RateLimitOptions, RateLimitSettings } from './rate-limit/settings.js';
import type { RateLimitStepInput } from './rate-limit/step.js';
import { createRedactor } from './redact.js';
import type { Redactor } from './redact.js';
import { createResultShaper } from './result-shaping.js';
import { DEFAULT_MAX_STDIO_MESSAGE_BYTES, serveStdio as serveStdioTransport } from './stdio-host.js';
import type { EnvelopeStdioHandle, StdioOptions } from './stdio-host.js';
import { createToolRequestState } from './request-state.js';
import type { ToolRequestState } from './request-state.js';
import { toolFailureExtension, withToolFailureMeta } from './tool-failure-meta.js';
import { createToolRegistry, replaceableRegistry } from './tool-registry.js';
import type { ToolRegistry } from './tool-registry.js';
import type { AnswerTool, CallRecord, EnvelopeTool, ProtocolEra, SdkServer, ServerEnvironment } from './types.js';
import { createServerWarmUp } from './warm-up.js';
import type { WarmUp } from './warm-up.js';

// the shapes a server author writes against live in types.ts; they are named here, with the server
export type { EnvelopeTool, ProtocolEra, SdkServer, ToolHandlerContext } from './types.js';

/** The kinds core itself can emit, whatever the adapter. */
export const CORE_ERROR_KINDS = [
  'mcp_input_validation',
  'tool_not_found',
  'internal_error',
] as const satisfies readonly ErrorKind[];

/** The name of the tool every envelope server registers. */
export const ENVELOPE_CONTRACT_TOOL_NAME = 'get_envelope_contract';

/** Server options. Switches and limits set here override the environment. */
export interface EnvelopeServerOptions
  extends
    EnvelopeSwitchOptions,
    EnvelopeLimitOptions,
    CodeModeOptions,
    RateLimitOptions,
    ConcurrencyOptions,
    ToolFailureMetaOptions {
  /** Where the switches are read from; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * How an unknown tool name is answered: `'result'` (default) an `isError` result with a
   * `tool_not_found` envelope; `'jsonrpc'` a JSON-RPC -32602 error whose `message` is the envelope
   * JSON and whose `data` is the envelope.
   */
  readonly unknownToolAs?: 'result' | 'jsonrpc';
  /**
   * Whether each `tools/call` is an OpenTelemetry span with counters, and each upstream exchange
   * a child span (CONTRACT.md "OpenTelemetry"); default `true`. They go through
   * `@opentelemetry/api` to whatever SDK the process registered, and cost a few no-op calls when
   * none is; `false` leaves them out entirely.
   */
  readonly telemetry?: boolean;
  /** Tools per `tools/list` page (default 100). */
  readonly pageSize?: number;
  /** Where log lines go; defaults to pino on stderr. */
  readonly logger?: EnvelopeLogger;
  /** MCP `instructions` sent at initialization. */
  readonly instructions?: string;
  /** Kinds tool handlers emit themselves through `EnvelopeError` (e.g. `sandbox_runtime`). */
  readonly additionalErrorKinds?: readonly ErrorKind[];
  /** The release version used for the migrations table; defaults to this package's version. */
  readonly version?: string;
  /** The migrations table; defaults to the contract's `MIGRATIONS` (tests pass their own). */
  readonly migrations?: readonly MigrationEntry[];
  /** The clock (tests). */
  readonly now?: () => Date;
  /**
   * The HMAC key (at least 32 bytes) that signs tools' `requestState` (see `inputRequiredResult`);
   * default a random key per server, so the rounds of one call must reach the same process: give
   * replicas behind one endpoint the same key.
   */
  readonly requestStateKey?: Uint8Array | string;
  /**
   * Called with every SDK server this server builds, before it connects (both eras; `era` says
   * which), to declare more capabilities and serve more methods than tools (prompts, resources).
   */
  readonly extendSdkServer?: (server: SdkServer, era: ProtocolEra) => void;
  /**
   * What the server does once, in the idle time after the first `tools/list` (a client that lists
   * the tools is about to call one), before it compiles the listed tools' validators: work the first
   * call would otherwise wait for, such as fetching an access token. `signal` is aborted when the
   * server closes: a request made here must end then, or it keeps the process alive. A thrown error
   * or a rejection is ignored: the call that needs the work does it again and reports its failure.
   */
  readonly warmUp?: (signal: AbortSignal) => unknown;
  /**
   * Told the id of each Streamable HTTP session of this server that ends (its client deleted it,
   * it expired, or the host closed): what the tools kept for that session can go (see
   * `SessionStates.forget`).
   */
  readonly onSessionClosed?: (sessionId: string) => void;
  /**
   * The tools' renamed and removed properties, oldest first: the `history` of the server's
   * tool-contract lockfile (`readToolHistory('tools.lock.json')`). A call that sends an old
   * top-level name gets a `mcp_input_validation` envelope (`SCHEMA_ADDITIONAL_PROPERTIES`) whose
   * detail says "renamed since <version>: old -> new" with `did_you_mean` the new name, strict
   * mode or not. CONTRACT.md "Tool contracts and the lockfile".
   */
  readonly toolHistory?: readonly ToolHistoryEntry[];
  /**
   * Whether the server declares `capabilities.tools.listChanged` and sends
   * `notifications/tools/list_changed` to every connected client after
   * {@link EnvelopeServer.replaceTools} (default `false`: a server whose tools never change says
   * nothing). `wrapMcpServer` turns it on. CONTRACT.md "Tool list changes".
   */
  readonly toolListChanged?: boolean;
}

/** The input of {@link createEnvelopeServer}. */
export interface CreateEnvelopeServerInput {
  /** Server name, version (and optional title) sent at initialization. */
  readonly info: Implementation;
  readonly adapter: EnvelopeAdapter;
  readonly tools: readonly EnvelopeTool[];
  readonly options?: EnvelopeServerOptions;
  /**
   * This server's redactor, when the adapter built it (so that its credential clients register
   * their secrets with it); defaults to a new one from the adapter's `redactions`.
   */
  readonly redactor?: Redactor;
}

/** What {@link createEnvelopeServer} returns. */
export interface EnvelopeServer {
  /** The SDK server used by {@link EnvelopeServer.connect} and {@link EnvelopeServer.serveStdio}. */
  readonly server: SdkServer;
  /** The resolved env switches. */
  readonly settings: EnvelopeSettings;
  /** The resolved size limits (`MCP_MAX_UPSTREAM_BODY_BYTES`, `MCP_MAX_RESULT_BYTES`). */
  readonly limits: EnvelopeLimits;
  /** The resolved Code Mode switch and sandbox limits (`CODE_MODE`, `CODE_MODE_*`). */
  readonly codeMode: CodeModeSettings;
  /** The resolved bounds on calls in flight (`MCP_MAX_CONCURRENT_CALLS`, `MCP_MAX_CONCURRENT_CALLS_PER_TOOL`). */
  readonly concurrency: ConcurrencySettings;
  /** The `experimental.openbridge_envelope` value this server advertises (also under `extensions`, see `ENVELOPE_EXTENSION_ID`). */
  readonly capability: EnvelopeCapabilityValue;
  /** Connects {@link EnvelopeServer.server} (which serves protocol revisions up to 2025-11-25) to a transport. */
  connect(transport: Transport): Promise<void>;
  /**
   * A new SDK server sharing this server's compiled tools, for one more transport (an SDK server
   * serves one transport at a time; Streamable HTTP uses one per session or per request).
   *
   * @param era - the protocol era it serves (default `legacy`, up to 2025-11-25; `modern` for 2026-07-28).
   */
  createSdkServer(era?: ProtocolEra): SdkServer;
  /**
   * Serves over stdin/stdout, both protocol eras (a 2025-11-25 `initialize` or a 2026-07-28
   * `server/discover`). A line longer than `options.maxMessageBytes` is answered with a
   * JSON-RPC error and a log line (see `serveStdio` in stdio-host.ts). A command-line server
   * should stop once `closed` settles: the client closed stdin to ask it to, and nobody reads the
   * answers of calls still running (the reference servers close and exit).
   *
   * @returns the SDK's handle and `closed`.
   */
  serveStdio(options?: StdioOptions): Promise<EnvelopeStdioHandle>;
  /** Serves Streamable HTTP on node:http: one session per 2025-era client, stateless 2026-07-28 requests. */
  serveStreamableHttp(options?: StreamableHttpOptions): Promise<StreamableHttpHandle>;
  /**
   * Replaces the server's tools while it runs (`get_envelope_contract` and Code Mode's meta tools
   * stay): later `tools/list` pages and calls see `tools`, a call in flight finishes on the tool it
   * started with, and a cursor of the old list is refused. With `options.toolListChanged` on, every
   * connected client (stdio, each Streamable HTTP session) is then sent
   * `notifications/tools/list_changed`. The advertised envelope capability (error and
   * normalization kinds) stays the one of creation: clients read it once, at initialization.
   * CONTRACT.md "Tool list changes".
   *
   * @param tools - the new tools, checked as `createEnvelopeServer` checks its `tools`.
   * @throws TypeError as `createEnvelopeServer` does on a tool list it cannot serve; the current
   *   tools then stay.
   */
  replaceTools(tools: readonly EnvelopeTool[]): void;
  /**
   * Releases the server: closes {@link EnvelopeServer.server}'s transport, stops the warm-up and
   * aborts the signal its `warmUp` work was given, stops the idle Code Mode sandbox workers and
   * closes the limiter's store. A Streamable HTTP host is closed with its own handle.
   */
  close(): Promise<void>;
}

/** A server's settings, resolved once from the options and the environment. */
interface ResolvedServer {
  readonly options: EnvelopeServerOptions;
  readonly logger: EnvelopeLogger;
  readonly settings: EnvelopeSettings;
  readonly limits: EnvelopeLimits;
  readonly codeMode: CodeModeSettings;
  readonly rateLimit: RateLimitSettings;
  readonly concurrency: ConcurrencySettings;
  readonly pageSize: number;
  /** Whether the ToolFailure mirror is on (`MCP_TOOL_FAILURE_META`). */
  readonly toolFailureMeta: boolean;
}

function resolveServer(input: CreateEnvelopeServerInput): ResolvedServer {
  const options = input.options ?? {};
  const logger = options.logger ?? createEnvelopeLogger();
  const settings = resolveSettings(options.env ?? process.env, options, logger);
  const limits = resolveLimits(options.env ?? process.env, options, logger);
  const codeMode = resolveCodeModeSettings(options.env ?? process.env, options, logger);
  const rateLimit = resolveRateLimitSettings(options.env ?? process.env, options);
  const concurrency = resolveConcurrencySettings(options.env ?? process.env, options);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new TypeError(`pageSize must be a positive integer, got ${String(pageSize)}`);
  const toolFailureMeta = resolveToolFailureMeta(options.env ?? process.env, options, logger);
  return { options, logger, settings, limits, codeMode, rateLimit, concurrency, pageSize, toolFailureMeta };
}

/** What `get_envelope_contract` reports of a limiter that is off. */
function rateLimitOffReport(settings: RateLimitSettings): RateLimitReport {
  const store = settings.MCP_RATE_LIMIT_STORE;
  return {
    MCP_RATE_LIMIT: false,
    MCP_RATE_LIMIT_MAX_WAIT_MS: settings.MCP_RATE_LIMIT_MAX_WAIT_MS,
    MCP_RATE_LIMIT_STORE: store === 'memory' ? store : storeDescription(store),
    MCP_RATE_LIMIT_STORE_TIMEOUT_MS: settings.MCP_RATE_LIMIT_STORE_TIMEOUT_MS,
    rate_limit_store_fallback: false,
  };
}

/**
 * The server's limiter, or `undefined` when `MCP_RATE_LIMIT` is off. A store given in the options
 * is the caller's to close; one opened from `MCP_RATE_LIMIT_STORE` is the limiter's.
 */
function createServerLimiter(resolved: ResolvedServer): RateLimiter | undefined {
  const settings = resolved.rateLimit;
  if (!settings.MCP_RATE_LIMIT) return undefined;
  const given = resolved.options.rateLimitStore;
  const store =
    given ??
    openRateLimitStore(settings.MCP_RATE_LIMIT_STORE, {
      logger: resolved.logger,
      timeoutMs: settings.MCP_RATE_LIMIT_STORE_TIMEOUT_MS,
    });
  // a store of this process answers at once: no deadline, and no timer per call
  const local = given === undefined && settings.MCP_RATE_LIMIT_STORE === 'memory';
  return createRateLimiter({
    settings,
    store,
    ownsStore: given === undefined,
    logger: resolved.logger,
    storeTimeoutMs: local ? undefined : settings.MCP_RATE_LIMIT_STORE_TIMEOUT_MS,
  });
}

/** The pipeline's limiter step: refusals are rate_limited envelopes, so only a server that advertises the kind refuses. */
function limiterStep(
  limiter: RateLimiter | undefined,
  capability: EnvelopeCapabilityValue,
  serverId: string,
  logger: EnvelopeLogger,
  unlimited: ReadonlySet<string>,
): RateLimitStepInput | undefined {
  return limiter !== undefined && capability.error_kinds.includes('rate_limited')
    ? { limiter, serverId, logger, unlimited }
    : undefined;
}

/**
 * The pipeline's concurrency guard, one per server (all its sessions and transports share it):
 * a refusal is a `rate_limited` envelope, so, like the limiter, only a server that advertises the
 * kind refuses.
 */
function concurrencyStep(
  settings: ConcurrencySettings,
  capability: EnvelopeCapabilityValue,
  unlimited: ReadonlySet<string>,
): ConcurrencyStepInput | undefined {
  return capability.error_kinds.includes('rate_limited')
    ? { guard: createConcurrencyGuard(settings), unlimited }
    : undefined;
}

/** `get_envelope_contract`: the capability and the resolved switches, read when called. */
function contractTool(contract: () => unknown): EnvelopeTool {
  return {
    name: ENVELOPE_CONTRACT_TOOL_NAME,
    title: 'Error envelope contract',
    description:
      'Returns the error envelope contract this server follows: contract_version, the error_kind values it can emit, the normalization event kinds, and the resolved MCP_* switches and size limits.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    // a constant schema, compiled by the tests of this very tool
    inputSchemaCheck: 'first-call',
    handler: contract,
  };
}

/**
 * The registry of `input.tools` plus `get_envelope_contract`, the capability it leads to, and how
 * the registry's tools are replaced later, the server's own tools kept (for `replaceTools`).
 */
function registerTools(
  input: CreateEnvelopeServerInput,
  resolved: ResolvedServer,
  caches: PipelineCaches,
  codeMode: CodeModePlan,
  limiter: RateLimiter | undefined,
): {
  registry: ToolRegistry;
  capability: EnvelopeCapabilityValue;
  replace: (tools: readonly EnvelopeTool[]) => void;
} {
  const { adapter } = input;
  const { settings, limits, options } = resolved;
  const state: { capability: EnvelopeCapabilityValue | undefined } = { capability: undefined };
  // the Code Mode settings are reported only where Code Mode is on; the mirror's switch always,
  // since a client that finds no mirror on a failure cannot tell "off" from "not supported"
  const switches = { ...settings, ...limits, ...resolved.concurrency, MCP_TOOL_FAILURE_META: resolved.toolFailureMeta };
  const reported = resolved.codeMode.CODE_MODE ? { ...switches, ...resolved.codeMode } : switches;
  const listOnly = codeMode.listOnly([ENVELOPE_CONTRACT_TOOL_NAME]);
  // the limiter's part is read when called: it says whether the store is being fallen back from
  const contract = contractTool(() => ({
    ...state.capability,
    settings: { ...reported, ...(limiter?.report() ?? rateLimitOffReport(resolved.rateLimit)) },
  }));
  const build = (tools: readonly EnvelopeTool[]): ToolRegistry =>
    createToolRegistry({
      tools: [...tools, contract, ...codeMode.tools],
      pipeline: {
        normalizationEnabled: settings.MCP_SCHEMA_KEY_NORMALIZATION_ENABLED,
        strictUnknownFields: settings.MCP_STRICT_UNKNOWN_FIELDS,
        ...(adapter.hints === undefined ? {} : { hints: adapter.hints }),
        caches,
      },
      pageSize: resolved.pageSize,
      logger: resolved.logger,
      ...(listOnly === undefined ? {} : { listOnly }),
    });
  const tools = replaceableRegistry(build(input.tools));
  const { registry } = tools;
  // Only kinds some call can record are advertised: `_meta.normalized` must be on, and each kind
  // must be one that one of the tools' schemas, under these switches, can lead to.
  const normalizedKinds = settings.MCP_SCHEMA_KEY_NORMALIZATION_META ? registry.normalizedKinds() : [];
  // a limiter that can refuse a call (some tool has a plan) emits rate_limited whatever the adapter
  const limiterKinds: ErrorKind[] =
    limiter !== undefined && input.tools.some((tool) => tool.rateLimit !== undefined) ? ['rate_limited'] : [];
  const capability = envelopeCapability({
    errorKinds: [
      ...CORE_ERROR_KINDS,
      ...adapter.errorKinds,
      ...codeMode.errorKinds,
      ...limiterKinds,
      ...(options.additionalErrorKinds ?? []),
    ],
    normalizedKinds,
    upstreams: adapter.upstreams,
  })[ENVELOPE_CAPABILITY_KEY];
  state.capability = capability;
  // built before the swap, so a tool list that cannot be served throws and changes nothing
  return {
    registry,
    capability,
    replace: (next) => {
      tools.replace(build(next));
    },
  };
}

/** The capabilities every SDK server of an envelope server declares, for both eras' clients. */
function serverCapabilities(
  capability: EnvelopeCapabilityValue,
  toolFailureMeta: boolean,
  toolListChanged: boolean,
): ServerCapabilities {
  // the SDK's capability type wants plain mutable JSON; the capability is frozen, readonly data
  const value = JSON.parse(JSON.stringify(capability)) as Record<string, JSONValue>;
  return {
    tools: toolListChanged ? { listChanged: true } : {},
    logging: {},
    experimental: { [ENVELOPE_CAPABILITY_KEY]: value },
    extensions: { [ENVELOPE_EXTENSION_ID]: value, ...toolFailureExtension(toolFailureMeta) },
  };
}

/** The MCP log levels, least severe first. */
const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** A file path in a log text (`/srv/app/x.js:10:5`, `file:///...`, `C:\\app\\x.js`), not a URL's path; a new one per use, since it is global. */
function filePaths(): RegExp {
  return /file:\/\/[^\s'"()<>]+|(?<![\w:/.])(?:\/|[A-Za-z]:\\)[^\s'"()<>]*[/\\][^\s'"()<>]*/g;
}

/**
 * A log line's details as a client may read them: no `stack` at any depth and no file path,
 * which tell the server's layout and code to whoever set a log level.
 */
function clientSafe(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(filePaths(), '<path>');
  if (Array.isArray(value)) return value.map(clientSafe);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'stack')
      .map(([key, entry]) => [key, clientSafe(entry)]),
  );
}

/** The log forwarding of one envelope server (see {@link clientLogging}). */
interface ClientLogging {
  readonly logger: EnvelopeLogger;
  /** The SDK servers alive, each with the level its client set (`undefined`: none). */
  readonly live: Map<SdkServer, LoggingLevel | undefined>;
  /** Runs `work` (a call of `server`'s client) so that the lines it logs go to that client only. */
  runFor<T>(server: SdkServer, work: () => T): T;
}

/**
 * The SDK servers alive for one envelope server, each with the level its client set through
 * `logging/setLevel`, and a logger that also sends each line at or above that level, logged
 * during one of a client's calls, to that client alone as `notifications/message`: redacted,
 * without stack traces or file paths. A client that set no level gets no log notifications
 * (stdio clients read the server's stderr instead), and no client gets lines about another's calls.
 */
function clientLogging(logger: EnvelopeLogger, redactor: Redactor): ClientLogging {
  const live = new Map<SdkServer, LoggingLevel | undefined>();
  const callers = new AsyncLocalStorage<SdkServer>();
  const forward = (level: 'error' | 'warning', details: Record<string, unknown>, message: string): void => {
    const server = callers.getStore();
    const threshold = server === undefined ? undefined : live.get(server);
    if (server === undefined || threshold === undefined) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) return;
    const data = clientSafe({ message: redactor.string(message), ...redactor.value<Record<string, unknown>>(details) });
    void server.sendLoggingMessage({ level, logger: 'mcp-envelope', data }).catch(() => undefined);
  };
  return {
    live,
    runFor: (server, work) => callers.run(server, work),
    logger: {
      error: (details, message) => {
        logger.error(details, message);
        forward('error', details, message);
      },
      warn: (details, message) => {
        logger.warn(details, message);
        forward('warning', details, message);
      },
      // not forwarded: clients get the lines that need someone, as before
      ...(logger.info === undefined ? {} : { info: (details, message) => logger.info?.(details, message) }),
    },
  };
}

/**
 * The contract version a `tools/call` is answered in: the request's own `_meta` key, else the
 * client's capabilities (a 2026-07-28 request declares them in its `_meta`; a 2025-11-25 client
 * declared them at `initialize`).
 */
function clientVersion(
  server: SdkServer,
  params: unknown,
  context: ServerContext,
  spoken: readonly ContractVersion[],
): ContractVersion {
  // the SDK types the lifted `_meta` envelope as an empty object; its keys are the `_meta` keys
  const lifted: Record<string, unknown> = context.mcpReq.envelope ?? {};
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the per-request view above covers 2026-07-28; initialize-scoped capabilities are read here only for 2025-era connections
  const capabilities = lifted[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
  const requestMeta = typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
  return answerVersion(requestMeta, capabilities, spoken);
}

/**
 * Runs a `tools/call` answer and projects it, or the JSON-RPC envelope error it throws, into
 * `version`; `finish` then adds what is read from the projected result (the ToolFailure mirror).
 */
async function inVersion(
  answer: () => Promise<CallToolResult | InputRequiredResult>,
  version: ContractVersion,
  settings: VersionSettings,
  finish: (result: CallToolResult | InputRequiredResult) => CallToolResult | InputRequiredResult,
): Promise<CallToolResult | InputRequiredResult> {
  try {
    return finish(statedResult(resultFor(await answer(), version, settings), version));
  } catch (error) {
    const projected = ProtocolError.isInstance(error) ? jsonRpcErrorFor(error.data, version, settings) : undefined;
    if (projected === undefined || !ProtocolError.isInstance(error)) throw error;
    throw new ProtocolError(error.code, projected.message, projected.data);
  }
}

/** Builds SDK servers that answer `tools/list` from `registry`, `tools/call` through `callTool`, and `logging/setLevel`. */
function sdkServerFactory(
  info: Implementation,
  capabilities: ServerCapabilities,
  instructions: string | undefined,
  registry: ToolRegistry,
  callTool: AnswerTool,
  logging: Pick<ClientLogging, 'live' | 'runFor'>,
  warmUp: WarmUp,
  extras: {
    readonly requestState: ToolRequestState;
    readonly versions: VersionSettings;
    readonly extend?: EnvelopeServerOptions['extendSdkServer'];
    /** The last step of every answer, on the result in the client's version (see {@link finishAnswer}). */
    readonly finish: (result: CallToolResult | InputRequiredResult) => CallToolResult | InputRequiredResult;
  },
) {
  return (era: ProtocolEra = 'legacy'): SdkServer => {
    const server = new LowLevelServer(info, {
      capabilities,
      ...(instructions === undefined ? {} : { instructions }),
      requestState: { verify: extras.requestState.verify },
      // replacements in one tick are one change to a client: it lists once, not once per replacement
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    });
    server.setRequestHandler('tools/list', (request) => {
      const page = registry.list(request.params?.cursor, era);
      if (page === undefined)
        throw invalidParams('Invalid cursor: it was not issued by this server for its current tool list');
      // A client that lists the tools is about to call one: compile what that call needs meanwhile.
      warmUp.start();
      return page;
    });
    // `params` is read as the transport parsed it: callTool checks `name` and `arguments` itself.
    server.setRequestHandler('tools/call', (request, context: ServerContext) => {
      // a client in the middle of its calls: compiling on idle waits until it pauses, counted
      // from the answer too (a call that compiled its validator took long itself)
      warmUp.postpone();
      const version = clientVersion(server, request.params, context, extras.versions.spoken);
      const answer = logging.runFor(server, () =>
        inVersion(() => callTool(request.params, context, era, version), version, extras.versions, extras.finish),
      );
      return answer.finally(warmUp.postpone);
    });
    // Replaces the SDK's own handler, whose level only filters the SDK's `log` helper: this one
    // filters the server's log lines (see clientLogging).
    server.setRequestHandler('logging/setLevel', (request) => {
      logging.live.set(server, request.params.level);
      return {};
    });
    extras.extend?.(server, era);
    logging.live.set(server, undefined);
    server.onclose = () => {
      logging.live.delete(server);
    };
    return server;
  };
}

/** The `_meta` of a successful call: its telemetry, redacted, or `undefined` when it has none. */
function successMetaOf(includeNormalized: boolean, redactor: Redactor): (call: CallRecord) => EnvelopeMeta | undefined {
  return (call) => {
    if (
      call.rateLimit === undefined &&
      call.retryAfterSeconds === undefined &&
      call.warnings === undefined &&
      !(includeNormalized && call.normalized.length > 0)
    )
      return undefined;
    const meta = composeMeta(callTelemetry(call, includeNormalized));
    // Upstream header values reach the caller here too: redact them like an envelope's.
    return meta === undefined ? undefined : redactor.value(meta);
  };
}

/** What every envelope of this server is built with: its id, migrations, redactor, advertised kinds, log, adapter and clock. */
function serverEnvironmentOf(
  input: CreateEnvelopeServerInput,
  resolved: ResolvedServer,
  redactor: Redactor,
  capability: EnvelopeCapabilityValue,
  logger: EnvelopeLogger,
): ServerEnvironment {
  const { adapter } = input;
  const { options } = resolved;
  return {
    serverId: adapter.id,
    openMigrations: activeMigrations(options.version ?? PACKAGE_VERSION, options.migrations ?? MIGRATIONS),
    redactor,
    advertisedKinds: new Set(capability.error_kinds_by_version['2']),
    upstreams: adapter.upstreams,
    logger,
    adapter,
    includeNormalized: resolved.settings.MCP_SCHEMA_KEY_NORMALIZATION_META,
    toolFailureMeta: resolved.toolFailureMeta,
    now: options.now ?? ((): Date => new Date()),
    telemetry: options.telemetry !== false,
  };
}

/** What {@link serverCallPipeline} needs beyond the server's input and settings. */
interface CallPipelineParts {
  readonly registry: ToolRegistry;
  readonly capability: EnvelopeCapabilityValue;
  readonly limiter: RateLimiter | undefined;
  readonly redactor: Redactor;
  readonly logger: EnvelopeLogger;
  readonly calls: InFlightCalls;
  readonly requestState: ToolRequestState;
  /** The server's own tools that never go upstream themselves: the limiter leaves them alone. */
  readonly unlimited: ReadonlySet<string>;
}

/** The `tools/call` answer of one server, and the environment of its envelopes, which Code Mode shares. */
function serverCallPipeline(
  input: CreateEnvelopeServerInput,
  resolved: ResolvedServer,
  { registry, capability, limiter, redactor, logger, calls, requestState, unlimited }: CallPipelineParts,
): { callTool: AnswerTool; server: ServerEnvironment } {
  const { options, limits } = resolved;
  const server = serverEnvironmentOf(input, resolved, redactor, capability, logger);
  const successMeta = successMetaOf(server.includeNormalized, redactor);
  const shaper = createResultShaper({ redactor, limits, successMeta });
  const callTool = createCallPipeline({
    registry,
    shaper,
    calls,
    server,
    maxUpstreamBodyBytes: limits.MCP_MAX_UPSTREAM_BODY_BYTES,
    unknownToolAs: options.unknownToolAs ?? 'result',
    requestState,
    // with Code Mode on, tools/list hides the tools that search_tools finds
    ...(resolved.codeMode.CODE_MODE ? { findToolHint: FIND_TOOL_HINT } : {}),
    rateLimit: limiterStep(limiter, capability, input.adapter.id, logger, unlimited),
    concurrency: concurrencyStep(resolved.concurrency, capability, unlimited),
    ...(options.toolHistory === undefined ? {} : { staleProperties: indexToolHistory(options.toolHistory) }),
  });
  return { callTool, server };
}

/**
 * The last step of a `tools/call` answer, on the result in the version the client reads: the
 * ToolFailure mirror when it is on (read there, so its `code` is the one the client's envelope
 * has), else nothing.
 */
function finishAnswer(
  toolFailureMeta: boolean,
  now: () => Date,
): (result: CallToolResult | InputRequiredResult) => CallToolResult | InputRequiredResult {
  return toolFailureMeta ? (result) => withToolFailureMeta(result, now().getTime()) : (result) => result;
}

/** What answering each client in its contract version needs of this server. */
function versionSettings(
  capability: EnvelopeCapabilityValue,
  adapter: EnvelopeAdapter,
  options: EnvelopeServerOptions,
): VersionSettings {
  return {
    spoken: capability.contract_versions,
    serverId: adapter.id,
    primaryUpstream: adapter.upstreams[0],
    openMigrations: activeMigrations(options.version ?? PACKAGE_VERSION, options.migrations ?? MIGRATIONS),
  };
}

/**
 * Creates an envelope server: compiles every tool's input schema once, widens output schemas,
 * registers `get_envelope_contract`, and builds SDK servers with `tools/list` (paged) and
 * `tools/call` handlers, the `logging` capability, and the envelope capability under both
 * `experimental.openbridge_envelope` and `extensions["io.github.mcp-envelope/envelope"]`; with
 * `toolFailureMeta` on, also `extensions["io.modelcontextprotocol/toolFailure"]` and the mirror on
 * every failed result (CONTRACT.md "ToolFailure mirror").
 *
 * @param input - see {@link CreateEnvelopeServerInput}.
 * @returns see {@link EnvelopeServer}.
 * @throws TypeError on a duplicate tool name (including `get_envelope_contract`), a tool without a
 *   name or handler, an invalid `inputSchema` (from `compileTool`), an `outputSchema` that is not a
 *   JSON Schema object, an adapter kind outside the taxonomy, or a page size that is not a
 *   positive integer; RangeError when `options.version` or a version in `options.migrations` is
 *   not a `MAJOR.MINOR.PATCH` version.
 */
export function createEnvelopeServer(input: CreateEnvelopeServerInput): EnvelopeServer {
  const { info, adapter } = input;
  const resolved = resolveServer(input);
  const { options, settings, limits } = resolved;
  const caches = createPipelineCaches();
  const sandbox = createSandboxRunner({ maxSessionRuns: resolved.codeMode.CODE_MODE_MAX_SESSION_RUNS });
  const codeMode = planCodeMode(resolved.codeMode, sandbox.run);
  const limiter = createServerLimiter(resolved);
  const { registry, capability, replace } = registerTools(input, resolved, caches, codeMode, limiter);
  const redactor = input.redactor ?? createRedactor(adapter.redactions);
  const logging = clientLogging(resolved.logger, redactor);
  const { logger } = logging;
  const calls = createInFlightCalls();
  const requestState = createToolRequestState(options.requestStateKey);
  const { callTool, server: environment } = serverCallPipeline(input, resolved, {
    registry,
    capability,
    limiter,
    redactor,
    logger,
    calls,
    requestState,
    unlimited: new Set([ENVELOPE_CONTRACT_TOOL_NAME, ...codeMode.tools.map((tool) => tool.name)]),
  });
  const versions = versionSettings(capability, adapter, options);
  codeMode.bind({
    listing: (name) => registry.get(name)?.listed,
    names: () => registry.names,
    callTool: completeOnly(callTool, environment),
    inVersion: (result, version) => resultFor(result, version, versions),
  });
  const warmUp = createServerWarmUp(caches, registry, calls, options.warmUp);
  const createSdkServer = sdkServerFactory(
    info,
    serverCapabilities(capability, resolved.toolFailureMeta, options.toolListChanged === true),
    options.instructions,
    registry,
    callTool,
    logging,
    warmUp,
    {
      requestState,
      versions,
      ...(options.extendSdkServer === undefined ? {} : { extend: options.extendSdkServer }),
      finish: finishAnswer(resolved.toolFailureMeta, environment.now),
    },
  );
  const server = createSdkServer();
  return {
    server,
    settings,
    limits,
    codeMode: resolved.codeMode,
    concurrency: resolved.concurrency,
    capability,
    connect: (transport) => server.connect(transport),
    createSdkServer,
    serveStdio: (stdioOptions) => {
      warnWhenResultsOutgrowStdio(limits, logger);
      return serveStdioTransport(createSdkServer, logger, stdioOptions);
    },
    serveStreamableHttp: (httpOptions: StreamableHttpOptions = {}): Promise<StreamableHttpHandle> =>
      serveHttp(
        {
          createSdkServer,
          calls,
          logger,
          toolInputSchema: (name) => registry.get(name)?.listed.inputSchema,
          sessionClosed: options.onSessionClosed,
        },
        httpOptions,
      ),
    replaceTools: toolReplacer(replace, options.toolListChanged === true ? logging.live : undefined),
    close: async () => {
      warmUp.cancel();
      sandbox.close();
      await Promise.all([limiter?.close(), server.close()]);
    },
  };
}

/**
 * `replaceTools` of one server: replaces the tools (a tool list it cannot serve throws and changes
 * nothing), then tells every SDK server alive, when the server declared `tools.listChanged`. A server whose transport is gone or that serves stateless
 * 2026-07-28 requests cannot be told: its send fails and is let go, as its client re-lists anyway.
 */
function toolReplacer(
  replace: (tools: readonly EnvelopeTool[]) => void,
  notify: ReadonlyMap<SdkServer, unknown> | undefined,
): (next: readonly EnvelopeTool[]) => void {
  return (next) => {
    replace(next);
    for (const server of notify?.keys() ?? []) void server.sendToolListChanged().catch(() => undefined);
  };
}

/**
 * A log line at start when `MCP_MAX_RESULT_BYTES` lets a result reach the 10 MiB line the MCP SDK's
 * stdio client reads: such a result passes the limit, and the client then drops the connection
 * without a word.
 */
function warnWhenResultsOutgrowStdio(limits: EnvelopeLimits, logger: EnvelopeLogger): void {
  // the JSON-RPC frame around a result takes a few hundred bytes more
  const ceiling = DEFAULT_MAX_STDIO_MESSAGE_BYTES - 4096;
  if (limits.MCP_MAX_RESULT_BYTES <= ceiling) return;
  logger.warn(
    { MCP_MAX_RESULT_BYTES: limits.MCP_MAX_RESULT_BYTES, stdio_client_limit_bytes: DEFAULT_MAX_STDIO_MESSAGE_BYTES },
    `MCP_MAX_RESULT_BYTES is above ${ceiling} bytes: over stdio, a result that large makes the MCP SDK client drop the connection; keep it below`,
  );
}
