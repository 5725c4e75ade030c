/**
 * `createEnvelopeServer`: an MCP tool server on the SDK v1 low-level `Server` whose `tools/call`
 * path answers every failure with a schema-valid v1 envelope. Implements DESIGN 3 (the request
 * path) and DESIGN 4 (wire decisions).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

import {
  CONTRACT_VERSION,
  envelopeCapability,
  ENVELOPE_CAPABILITY_KEY,
  NORMALIZED_KINDS,
} from '@mcp-envelope/contract';
import type {
  EnvelopeCapabilityValue,
  EnvelopeMeta,
  ErrorEnvelope,
  ErrorKind,
  MigrationEntry,
  NormalizedEvent,
  NormalizedEventKind,
} from '@mcp-envelope/contract';
// The low-level `Server` (SDK v1 marks it deprecated in favour of `McpServer`): DESIGN 3 needs it
// because `McpServer` cannot take raw JSON Schemas and rewrites every failure into fixed prose.
import { Server as LowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type {
  CallToolResult,
  Implementation,
  ListToolsResult,
  ServerNotification,
  ServerRequest,
  Tool,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import type { EnvelopeAdapter, ResponseMeta } from './adapter.js';
import { closestMatch, compileTool, createPipelineCaches } from './arguments/index.js';
import type { ArgumentCheck, ArgumentPipelineOptions, CompiledTool, JsonSchemaObject } from './arguments/index.js';
import { callTelemetry, envelopeForThrown, finalizeHandlerEnvelope, internalError } from './classify.js';
import { EnvelopeError } from './errors.js';
import type { ClassifyEnvironment } from './classify.js';
import { implicitContextState, recordResponseMetaInto, runInCallContext } from './context.js';
import type { ImplicitContextState } from './context.js';
import type { CallContext } from './context.js';
import { composeMeta, finalizeEnvelope, internalErrorEnvelope, PACKAGE_VERSION } from './envelope-builder.js';
import type { FinalizeEnvironment } from './envelope-builder.js';
import { serveStreamableHttp as serveHttp } from './http-host.js';
import type { StreamableHttpHandle, StreamableHttpOptions } from './http-host.js';
import { createInFlightCalls, isPromiseLike, shutdownEnvelope } from './in-flight.js';
import { DEFAULT_MAX_STDIO_MESSAGE_BYTES, serveStdio as serveStdioTransport } from './stdio-host.js';
import type { StdioOptions } from './stdio-host.js';
import { createEnvelopeLogger } from './logger.js';
import type { EnvelopeLogger } from './logger.js';
import { admitTools } from './tool-admission.js';
import { resolveLimits, resolveSettings } from './options.js';
import type { EnvelopeLimitOptions, EnvelopeLimits, EnvelopeSettings, EnvelopeSwitchOptions } from './options.js';
import { createOutputChecker, widenOutputSchema } from './output-schema.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, toolSetFingerprint } from './pagination.js';
import { createRedactor } from './redact.js';
import type { Redactor } from './redact.js';
import { isToolResult } from './tool-result.js';
import { fetchInCallContext } from './upstream.js';
import type { upstreamFetch } from './upstream.js';
import { carriedEnvelope } from './classify.js';
import { UpstreamClientError } from './errors.js';

/**
 * The `_meta` keys only the server writes (the contract's telemetry): a plain data result's own
 * `_meta` loses them, so no upstream body can pose as the server's telemetry.
 */
const TELEMETRY_KEYS: readonly string[] = [
  'normalized',
  'rate_limit',
  'retry_after_seconds',
  'warnings',
  'correlation_id',
  'validator',
];

/** The SDK v1 low-level server class that carries our `tools/list` and `tools/call` handlers. */
export type SdkServer = LowLevelServer;

/** The kinds core itself can emit, whatever the adapter. */
export const CORE_ERROR_KINDS = [
  'mcp_input_validation',
  'tool_not_found',
  'internal_error',
] as const satisfies readonly ErrorKind[];

/** The name of the tool every envelope server registers (DESIGN 4.5). */
export const ENVELOPE_CONTRACT_TOOL_NAME = 'get_envelope_contract';

/** What a tool handler receives besides its (normalized, validated) arguments. */
export interface ToolHandlerContext {
  /** The tool being run. */
  readonly tool: string;
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
  /** The normalization events of this call's arguments (whether or not they are emitted). */
  readonly normalized: readonly NormalizedEvent[];
  /**
   * {@link upstreamFetch} bound to this call: records response telemetry in this call and throws
   * classifiable errors. Works with or without the implicit (AsyncLocalStorage) context.
   */
  readonly fetch: typeof upstreamFetch;
  /** Records telemetry from an HTTP client other than `fetch`, into this call. */
  readonly recordResponseMeta: (meta: ResponseMeta) => void;
  /** The SDK's request extras (request id, session id, notifications), for advanced use. */
  readonly request: RequestHandlerExtra<ServerRequest, ServerNotification>;
}

/**
 * One tool. `inputSchema` is a raw JSON Schema object (root `type: "object"`); `outputSchema`,
 * when given, also has root `type: "object"` and is published widened (DESIGN 4.4).
 *
 * The handler returns either a plain value (data) or a `CallToolResult` marked with `toolResult`:
 * - a plain object becomes `structuredContent` and, as JSON, `content[0].text`, with the call's
 *   `_meta` merged in, whatever its keys: an object shaped like a `CallToolResult` (an upstream
 *   body with `content`, `isError`, ...) is data like any other, so no upstream can forge a result;
 *   the telemetry keys of its own `_meta` (`rate_limit`, `warnings`, ...) are dropped first;
 * - a string becomes `content[0].text` as is; an array, number, boolean or `null` becomes its JSON
 *   text; `undefined` becomes an empty `content`. None of these gets `structuredContent` (the SDK
 *   v1 result schema only admits an object there) nor `_meta`;
 * - `toolResult({ content, structuredContent?, isError?, _meta? })` is sent as that result.
 *
 * Every result passes the server's redactor (known secrets and credential patterns) and its size
 * limit (`MCP_MAX_RESULT_BYTES`; past it, the adapter's `*_api_client` envelope). Anything the
 * handler throws becomes an envelope (see {@link envelopeForThrown}).
 */
export interface EnvelopeTool<Args extends Record<string, unknown> = Record<string, unknown>> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly annotations?: ToolAnnotations;
  readonly inputSchema: JsonSchemaObject;
  /**
   * When `inputSchema` is checked: `'registration'` (default) against the JSON Schema 2020-12
   * meta-schema in `createEnvelopeServer`, which throws on a broken schema; `'first-call'` only
   * when the first call compiles it, a broken schema then answering every call with an
   * `internal_error` envelope (and a log line) instead of failing the server. For schemas a
   * generator guarantees and tests prove valid (tools built from an API description, the
   * server's own tools): registration then neither compiles the meta-schema (about 100 ms) nor
   * walks each schema. Schemas written or passed in by hand should keep the default.
   */
  readonly inputSchemaCheck?: 'registration' | 'first-call';
  /**
   * `'copy'` (default): `createEnvelopeServer` keeps a deep copy of `inputSchema`, so later
   * changes to the object never reach the server. `'transfer'`: it keeps the object itself, which
   * the caller must then never change, and which must be plain JSON; for schemas generated fresh
   * for this server, whose copy would cost about a third of registration (see
   * `ArgumentPipelineOptions.schemaOwnership`).
   */
  readonly inputSchemaOwnership?: 'copy' | 'transfer';
  readonly outputSchema?: JsonSchemaObject;
  /** @returns the result; may be a promise. */
  handler(args: Args, context: ToolHandlerContext): unknown;
}

/** Server options. Switches and limits set here override the environment. */
export interface EnvelopeServerOptions extends EnvelopeSwitchOptions, EnvelopeLimitOptions {
  /** Where the switches are read from; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * How an unknown tool name is answered: `'result'` (default) an `isError` result with a
   * `tool_not_found` envelope; `'jsonrpc'` a JSON-RPC -32602 error whose `message` is the envelope
   * JSON and whose `data` is the envelope (DESIGN 4.3).
   */
  readonly unknownToolAs?: 'result' | 'jsonrpc';
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
   * Give handlers the implicit call context (default true), so that the free functions
   * `upstreamFetch`, `recordResponseMeta` and `currentCallContext` find the call from anywhere in
   * the handler's flow: AsyncLocalStorage for `async` handlers and handlers that return promises,
   * a synchronous slot for handlers that return plain values (see `runInCallContext`).
   * `context.fetch` and `context.recordResponseMeta` work either way. On Node 20 the storage
   * costs a few microseconds per asynchronous call (async hooks); a server whose handlers only
   * use the `context` methods may turn it off.
   */
  readonly implicitContext?: boolean;
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
  /** The `experimental.openbridge_envelope` value this server advertises. */
  readonly capability: EnvelopeCapabilityValue;
  /** Connects {@link EnvelopeServer.server} to a transport. */
  connect(transport: Transport): Promise<void>;
  /**
   * A new SDK server sharing this server's compiled tools, for one more transport (an SDK server
   * serves one transport at a time; Streamable HTTP uses one per session).
   */
  createSdkServer(): SdkServer;
  /**
   * Serves over stdin/stdout. A line longer than `options.maxMessageBytes` is answered with a
   * JSON-RPC error and a log line (see `serveStdio` in stdio-host.ts). @returns the transport.
   */
  serveStdio(options?: StdioOptions): Promise<StdioServerTransport>;
  /** Serves Streamable HTTP on node:http with one session per client. */
  serveStreamableHttp(options?: StreamableHttpOptions): Promise<StreamableHttpHandle>;
  /** Closes {@link EnvelopeServer.server}'s transport. */
  close(): Promise<void>;
}

interface ToolEntry {
  readonly tool: EnvelopeTool;
  readonly compiled: CompiledTool;
  /** Checks success results against the published output schema; present exactly when the tool has an `outputSchema`. */
  readonly outputChecker: ReturnType<typeof createOutputChecker> | undefined;
  readonly listed: Tool;
  /** How the handler runs in the implicit context (see `runInCallContext`). */
  readonly contextState: ImplicitContextState;
}

/**
 * The `tools/call` request as this server's dispatcher reads it: `params` is taken as sent and
 * checked by `callTool` itself. The SDK's `CallToolRequestSchema` rebuilds `arguments` key by key
 * (about 8 microseconds for 20 keys, into an object V8 keeps in dictionary mode), refuses a
 * non-object `arguments` with a JSON-RPC error before any envelope can be built, and drops an
 * argument key `__proto__`; here `arguments` reaches normalization exactly as the transport
 * parsed it (normalization copies it and never mutates it).
 */
const ToolCallRequestSchema = z.object({ method: z.literal('tools/call'), params: z.optional(z.unknown()) });

type ToolCallRequest = z.infer<typeof ToolCallRequestSchema>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an object of another class than `Object` (a `Date`, a `Map`, a class instance). */
function isClassInstance(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null;
}

function className(value: object): string {
  const name: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor
    ?.name;
  return typeof name === 'string' && name !== '' ? name : 'non-plain';
}

/** The wire form of an error (DESIGN 4.1): `isError`, envelope as JSON text and as `structuredContent`. */
export function errorResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
}

/**
 * A JSON-RPC -32602 error whose wire `message` is exactly `message` (`McpError` prefixes its own
 * message with `MCP error -32602: `, and the SDK sends `error.message` as is).
 */
function invalidParams(message: string, data?: unknown): McpError {
  const error = new McpError(ErrorCode.InvalidParams, message, data);
  error.message = message;
  return error;
}

function displayName(name: string): string {
  return name.length > 120 ? `${name.slice(0, 117)}...` : name;
}

function validateTools(tools: readonly EnvelopeTool[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!isPlainObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
      throw new TypeError('every tool needs a non-empty string name');
    }
    if (typeof tool.handler !== 'function') throw new TypeError(`tool "${tool.name}" has no handler function`);
    if (seen.has(tool.name)) throw new TypeError(`tool name "${tool.name}" is registered twice`);
    seen.add(tool.name);
  }
}

/**
 * Creates an envelope server: compiles every tool's input schema once, widens output schemas,
 * registers `get_envelope_contract`, and builds the SDK server with `tools/list` (paged) and
 * `tools/call` handlers.
 *
 * @param input - see {@link CreateEnvelopeServerInput}.
 * @returns see {@link EnvelopeServer}.
 * @throws TypeError on a duplicate tool name (including `get_envelope_contract`), a tool without a
 *   name or handler, an invalid `inputSchema` (from `compileTool`), an `outputSchema` whose root is
 *   not `type: "object"`, an adapter kind outside the taxonomy, or a page size that is not a
 *   positive integer.
 */
export function createEnvelopeServer(input: CreateEnvelopeServerInput): EnvelopeServer {
  const { info, adapter } = input;
  const options = input.options ?? {};
  const logger = options.logger ?? createEnvelopeLogger();
  const calls = createInFlightCalls();
  const settings = resolveSettings(options.env ?? process.env, options, logger);
  const limits = resolveLimits(options.env ?? process.env, options, logger);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new TypeError(`pageSize must be a positive integer, got ${String(pageSize)}`);
  const includeNormalized = settings.MCP_SCHEMA_KEY_NORMALIZATION_META;
  const now = options.now ?? ((): Date => new Date());
  const unknownToolAs = options.unknownToolAs ?? 'result';
  const implicitContext = options.implicitContext ?? true;

  const contractTool: EnvelopeTool = {
    name: ENVELOPE_CONTRACT_TOOL_NAME,
    title: 'Error envelope contract',
    description:
      'Returns the error envelope contract this server follows: contract_version, the error_kind values it can emit, the normalization event kinds, and the resolved MCP_* switches and size limits.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    // a constant schema, compiled by the tests of this very tool
    inputSchemaCheck: 'first-call',
    handler: () => ({ ...capability, settings: { ...settings, ...limits } }),
  };

  const allTools = [...input.tools, contractTool];
  validateTools(allTools);
  const pipelineOptions = {
    normalizationEnabled: settings.MCP_SCHEMA_KEY_NORMALIZATION_ENABLED,
    strictUnknownFields: settings.MCP_STRICT_UNKNOWN_FIELDS,
    ...(adapter.hints === undefined ? {} : { hints: adapter.hints }),
    caches: createPipelineCaches(),
  };
  // one options object per combination, shared by the tools that use it
  const optionVariants = new Map<string, ArgumentPipelineOptions>();
  const optionsFor = (tool: EnvelopeTool): ArgumentPipelineOptions => {
    const compile = tool.inputSchemaCheck === 'first-call' ? ('deferred' as const) : undefined;
    const schemaOwnership = tool.inputSchemaOwnership === 'transfer' ? ('transfer' as const) : undefined;
    const variant = `${compile ?? 'lazy'} ${schemaOwnership ?? 'copy'}`;
    let options = optionVariants.get(variant);
    if (options === undefined) {
      options = {
        ...pipelineOptions,
        ...(compile === undefined ? {} : { compile }),
        ...(schemaOwnership === undefined ? {} : { schemaOwnership }),
      };
      optionVariants.set(variant, options);
    }
    return options;
  };
  const entries = new Map<string, ToolEntry>();
  // a tool whose x-mcp-header annotations break a rule is left out with one log line
  for (const tool of admitTools(allTools, logger)) {
    const compiled = compileTool(tool.name, tool.inputSchema, optionsFor(tool));
    let outputSchema: Tool['outputSchema'];
    if (tool.outputSchema !== undefined) {
      try {
        outputSchema = widenOutputSchema(tool.outputSchema) as Tool['outputSchema'];
      } catch (error) {
        throw new TypeError(`tool "${tool.name}": ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    }
    const listed: Tool = {
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: compiled.publishedInputSchema as Tool['inputSchema'],
      ...(outputSchema === undefined ? {} : { outputSchema }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    };
    entries.set(tool.name, {
      tool,
      compiled,
      outputChecker:
        outputSchema === undefined
          ? undefined
          : createOutputChecker(
              outputSchema,
              (reason) => {
                logger.warn(
                  { tool: tool.name, reason },
                  'the outputSchema of this tool does not compile, so its results are not checked against it',
                );
              },
              pipelineOptions.caches.compiler,
            ),
      listed,
      contextState: implicitContextState(tool),
    });
  }
  // Only kinds some call can record are advertised: `_meta.normalized` must be on, and each kind
  // must be one that one of the tools' schemas, under these switches, can lead to.
  const emittedNormalizedKinds: NormalizedEventKind[] = includeNormalized
    ? NORMALIZED_KINDS.filter((kind) => [...entries.values()].some((entry) => entry.compiled.normalizedKinds.has(kind)))
    : [];
  const capabilityObject = envelopeCapability(
    [...CORE_ERROR_KINDS, ...adapter.errorKinds, ...(options.additionalErrorKinds ?? [])],
    emittedNormalizedKinds,
  );
  const capability = capabilityObject[ENVELOPE_CAPABILITY_KEY];

  const finalizeEnvironment: FinalizeEnvironment = {
    serverId: adapter.id,
    version: options.version ?? PACKAGE_VERSION,
    ...(options.migrations === undefined ? {} : { migrations: options.migrations }),
    redactor: input.redactor ?? createRedactor(adapter.redactions),
    advertisedKinds: new Set(capability.error_kinds),
    logger,
  };

  const toolNames = [...entries.keys()];
  const listedTools = [...entries.values()].map((entry) => entry.listed);
  const fingerprint = toolSetFingerprint(toolNames);

  function listTools(cursor: string | undefined): ListToolsResult {
    let offset = 0;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor, fingerprint, listedTools.length);
      if (decoded === undefined)
        throw invalidParams('Invalid cursor: it was not issued by this server for its current tool list');
      offset = decoded;
    }
    const end = offset + pageSize;
    const page = offset === 0 && end >= listedTools.length ? listedTools : listedTools.slice(offset, end);
    return end < listedTools.length ? { tools: page, nextCursor: encodeCursor(end, fingerprint) } : { tools: page };
  }

  function unknownTool(name: string): CallToolResult {
    const suggestion = closestMatch(name, toolNames);
    const hints = [
      ...(suggestion === undefined ? [] : [`Did you mean "${suggestion}"?`]),
      'Call tools/list to see the tools this server offers.',
    ];
    const envelope = finalizeEnvelope(
      {
        error_kind: 'tool_not_found',
        tool: name === '' ? 'unknown_tool' : name,
        summary: `No tool named "${displayName(name)}" is registered on this server.`,
        details: [],
        hints,
        examples: [],
        error_code: 'TOOL_NOT_FOUND',
        retryable: false,
        _envelope_version: CONTRACT_VERSION,
      },
      finalizeEnvironment,
    );
    if (unknownToolAs === 'jsonrpc') {
      throw invalidParams(JSON.stringify(envelope), envelope);
    }
    return errorResult(envelope);
  }

  function classifyEnvironment(call: CallContext): ClassifyEnvironment {
    return { ...finalizeEnvironment, adapter, call, includeNormalized, now };
  }

  function successMeta(call: CallContext): EnvelopeMeta | undefined {
    if (
      call.rateLimit === undefined &&
      call.retryAfterSeconds === undefined &&
      call.warnings === undefined &&
      !(includeNormalized && call.normalized.length > 0)
    ) {
      return undefined;
    }
    const meta = composeMeta(callTelemetry(call, includeNormalized));
    // Upstream header values reach the caller here too: redact them like an envelope's.
    return meta === undefined ? undefined : finalizeEnvironment.redactor.value(meta);
  }

  /**
   * `value` without the telemetry keys of its own `_meta`: in data (an upstream body), they are
   * not this server's telemetry, and a forged `warnings` or `retry_after_seconds` would read as
   * if it were. The call's own telemetry is merged in afterwards.
   */
  function withoutForgedTelemetry(value: Record<string, unknown>): Record<string, unknown> {
    const existing = value['_meta'];
    if (!isPlainObject(existing) || !TELEMETRY_KEYS.some((key) => Object.hasOwn(existing, key))) return value;
    const rest = Object.fromEntries(Object.entries(existing).filter(([key]) => !TELEMETRY_KEYS.includes(key)));
    const copy = { ...value };
    if (Object.keys(rest).length === 0) delete copy['_meta'];
    else copy['_meta'] = rest;
    return copy;
  }

  function withMeta(value: Record<string, unknown>, meta: EnvelopeMeta): Record<string, unknown> {
    const existing = value['_meta'];
    if (existing !== undefined && !isPlainObject(existing)) return value;
    return { ...value, _meta: existing === undefined ? meta : { ...meta, ...existing } };
  }

  /** The `internal_error` result for a handler result that cannot be sent: `problem` goes to the log only. */
  function badResult(problem: string, call: CallContext): CallToolResult {
    return errorResult(
      internalError(new TypeError(`tool "${call.tool}" ${problem}`), 'result', classifyEnvironment(call)),
    );
  }

  /** An `internal_error` result when `structured` breaks the tool's output schema, else `undefined`. */
  function outputMismatch(entry: ToolEntry, structured: unknown, call: CallContext): CallToolResult | undefined {
    const checker = entry.outputChecker;
    if (checker === undefined) return undefined;
    const outcome = checker.check(structured);
    if (outcome.ok) return undefined;
    return badResult(`returned structuredContent that does not match its outputSchema: ${outcome.reason}`, call);
  }

  const redactor = finalizeEnvironment.redactor;

  /** `value` and its JSON text, redacted: the text is tested first, so a clean value is walked no further. */
  function redactedJson(value: unknown, text: string): { value: unknown; text: string } {
    if (!redactor.mayRedact(text)) return { value, text };
    const redacted = redactor.value(value);
    return redacted === value ? { value, text } : { value: redacted, text: JSON.stringify(redacted) };
  }

  function successResult(value: unknown, entry: ToolEntry, call: CallContext): CallToolResult {
    if (isToolResult(value)) return rawResult(redactor.value({ ...value }), entry, call);
    // A Date, Map or class instance is no JSON object: as structuredContent it would make the SDK
    // refuse the whole result with a JSON-RPC error, and as text it would lose its data ({} for a Map).
    if (isClassInstance(value)) {
      return badResult(
        `returned a ${className(value as object)} object; return plain JSON data (an object literal, array, string, number, boolean or null)`,
        call,
      );
    }
    if (isPlainObject(value)) {
      const meta = successMeta(call);
      const data = withoutForgedTelemetry(value);
      const withCallMeta = meta === undefined ? data : withMeta(data, meta);
      const json = JSON.stringify(withCallMeta);
      // a toJSON method can turn the object into another value on the wire, where structuredContent must be an object
      if (json.charCodeAt(0) !== 0x7b)
        return badResult(
          'returned an object whose JSON form is not an object (a toJSON method?); return plain JSON data',
          call,
        );
      const { value: structured, text } = redactedJson(withCallMeta, json);
      const mismatch = outputMismatch(entry, structured, call);
      if (mismatch !== undefined) return mismatch;
      return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
    }
    if (entry.outputChecker !== undefined) {
      return badResult(
        `declares an outputSchema but returned ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
        call,
      );
    }
    if (value === undefined) return { content: [] };
    if (typeof value === 'string') return { content: [{ type: 'text', text: redactor.string(value) }] };
    const json = JSON.stringify(value) as string | undefined;
    if (typeof json !== 'string') {
      return badResult(`returned a value with no JSON form (${typeof value})`, call);
    }
    return { content: [{ type: 'text', text: redactedJson(value, json).text }] };
  }

  /**
   * `result` when its JSON is within `MCP_MAX_RESULT_BYTES`, else the adapter's envelope for a
   * result too large. The exact size is measured only when a cheap bound says it could pass the
   * limit: a character of a text block takes at most 6 bytes as an escaped JSON string, and
   * `structuredContent` that the text mirrors (`mirrored`, core's own results) at most 3 per
   * character of that text.
   */
  function boundedResult(result: CallToolResult, mirrored: boolean, call: CallContext): CallToolResult {
    let bound = 4096;
    for (const block of result.content) {
      if (block.type === 'text') bound += block.text.length * (mirrored ? 9 : 6);
      else if (block.type === 'image' || block.type === 'audio') bound += block.data.length + block.mimeType.length * 6;
      else bound += limits.MCP_MAX_RESULT_BYTES;
    }
    if (!mirrored && (result.structuredContent !== undefined || result._meta !== undefined))
      bound += limits.MCP_MAX_RESULT_BYTES;
    if (bound <= limits.MCP_MAX_RESULT_BYTES) return result;
    if (Buffer.byteLength(JSON.stringify(result)) <= limits.MCP_MAX_RESULT_BYTES) return result;
    const failure = new UpstreamClientError({
      type: 'response_too_large',
      subject: 'result',
      limitBytes: limits.MCP_MAX_RESULT_BYTES,
      setting: 'MCP_MAX_RESULT_BYTES',
    });
    return errorResult(envelopeForThrown(failure, classifyEnvironment(call)));
  }

  function rawResult(value: Record<string, unknown>, entry: ToolEntry, call: CallContext): CallToolResult {
    const parsed = CallToolResultSchema.safeParse(value);
    if (!parsed.success) return badResult(`returned an invalid CallToolResult: ${parsed.error.message}`, call);
    const result = value as CallToolResult;
    if (result.isError === true) {
      const environment = classifyEnvironment(call);
      const carried = carriedEnvelope({ data: result.structuredContent }) ?? envelopeInText(result);
      if (carried !== undefined) return errorResult(finalizeHandlerEnvelope(carried, environment));
      const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
      return errorResult(
        internalError(
          new Error(`tool returned isError without an envelope: ${text.slice(0, 2000)}`),
          'result',
          environment,
        ),
      );
    }
    const structured = result.structuredContent;
    const meta = successMeta(call);
    if (meta === undefined || !isPlainObject(structured)) return outputMismatch(entry, structured, call) ?? result;
    const mirror = JSON.stringify(structured);
    const injected = withMeta(structured, meta);
    const mismatch = outputMismatch(entry, injected, call);
    if (mismatch !== undefined) return mismatch;
    const injectedText = JSON.stringify(injected);
    return {
      ...result,
      structuredContent: injected,
      content: result.content.map((block) =>
        block.type === 'text' && block.text === mirror ? { ...block, text: injectedText } : block,
      ),
    };
  }

  async function callTool(
    request: ToolCallRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> {
    const params = request.params;
    // No tool name, no tool and nothing to put in an envelope's `tool`: a protocol error, as the
    // SDK's own dispatcher answers it.
    if (!isPlainObject(params) || typeof params['name'] !== 'string') {
      throw invalidParams('Invalid tools/call request: params.name must be a string');
    }
    const name = params['name'];
    const entry = entries.get(name);
    if (entry === undefined) return unknownTool(name);
    // `null` is how several clients write "no arguments"; any other non-object value fails
    // validation against the object schema and gets an envelope.
    const sent = params['arguments'];
    let check: ArgumentCheck;
    try {
      check = entry.compiled.check(sent ?? {});
    } catch (error) {
      // Only a schema that cannot be compiled gets here (one that passed the registration checks,
      // or one whose tool deferred them with inputSchemaCheck: 'first-call'): the server's
      // fault, reported as an internal error with the reason in the log.
      const failed: CallContext = {
        tool: name,
        adapter,
        normalized: [],
        signal: extra.signal,
        rateLimit: undefined,
        retryAfterSeconds: undefined,
        warnings: undefined,
      };
      return errorResult(internalError(error, 'input_schema', classifyEnvironment(failed)));
    }
    if (!check.ok) {
      // the fallback code names the failing keyword in `_meta.validator` too, as the contract says
      const validationMeta = composeMeta({
        normalized: includeNormalized ? check.events : undefined,
        validator: check.validator,
      });
      const meta = validationMeta === undefined ? {} : { _meta: validationMeta };
      return errorResult(
        finalizeEnvelope(
          {
            error_kind: 'mcp_input_validation',
            tool: name,
            summary: check.summary,
            details: check.details,
            hints: check.hints,
            examples: [],
            error_code: check.error_code,
            retryable: false,
            _envelope_version: CONTRACT_VERSION,
            ...meta,
          },
          finalizeEnvironment,
          check.omittedDetails,
        ),
      );
    }
    const call: CallContext = {
      tool: name,
      adapter,
      normalized: check.events,
      signal: extra.signal,
      maxUpstreamBodyBytes: limits.MCP_MAX_UPSTREAM_BODY_BYTES,
      rateLimit: undefined,
      retryAfterSeconds: undefined,
      warnings: undefined,
    };
    const context: ToolHandlerContext = {
      tool: name,
      signal: extra.signal,
      normalized: check.events,
      fetch: (url, init) => fetchInCallContext(call, url, init),
      recordResponseMeta: (meta) => {
        recordResponseMetaInto(call, meta);
      },
      request: extra,
    };
    let value: unknown;
    try {
      let returned: unknown;
      if (implicitContext) {
        const state = entry.contextState;
        const before = state.mode;
        returned = runInCallContext(call, state, () => entry.tool.handler(check.args, context));
        if (before === 'sync' && state.mode === 'async') {
          logger.warn(
            { tool: name },
            'a tool handler that had returned plain values returned a promise: its later calls run in the implicit call context, but in this call the free functions upstreamFetch, recordResponseMeta and currentCallContext do not find the call after its first await (declare the handler async, or use context.fetch and context.recordResponseMeta)',
          );
        }
      } else {
        returned = entry.tool.handler(check.args, context);
      }
      // tracked, so that a shutdown whose grace period ends first can still answer the call
      const outcome = isPromiseLike(returned)
        ? await calls.track(returned)
        : { forced: false as const, value: returned };
      if (outcome.forced) return errorResult(shutdownEnvelope(name, logger));
      value = outcome.value;
    } catch (error) {
      // A cancelled call gets no response (the SDK drops it); its abort is not a server failure.
      if (extra.signal.aborted && !EnvelopeError.isInstance(error))
        return errorResult(internalErrorEnvelope(name, randomUUID()));
      return errorResult(envelopeForThrown(error, classifyEnvironment(call)));
    }
    try {
      const result = successResult(value, entry, call);
      return result.isError === true ? result : boundedResult(result, !isToolResult(value), call);
    } catch (error) {
      return errorResult(internalError(error, 'result', classifyEnvironment(call)));
    }
  }

  function createSdkServer(): SdkServer {
    const server = new LowLevelServer(info, {
      capabilities: { tools: {}, experimental: { ...capabilityObject } },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    });
    server.setRequestHandler(ListToolsRequestSchema, (request) => listTools(request.params?.cursor));
    // Registered through Protocol, the SDK's base class, not through Server's override: for
    // tools/call that override parses every request twice more with the SDK's CallToolRequestSchema
    // and every result once more with CallToolResultSchema. callTool checks the request itself
    // (above), builds its results in the CallToolResult shape, checks a handler's raw
    // CallToolResult with CallToolResultSchema and every envelope against the contract. This
    // server does not advertise the tasks capability; the SDK refuses a task-augmented call
    // (-32603) before it reaches callTool.
    Protocol.prototype.setRequestHandler.call(server, ToolCallRequestSchema, callTool);
    return server;
  }

  const server = createSdkServer();

  const serveStreamableHttp = (httpOptions: StreamableHttpOptions = {}): Promise<StreamableHttpHandle> =>
    serveHttp({ createSdkServer, calls, logger }, httpOptions);

  return {
    server,
    settings,
    limits,
    capability,
    connect: (transport) => server.connect(transport),
    createSdkServer,
    serveStdio: (stdioOptions) => {
      warnWhenResultsOutgrowStdio(limits, logger);
      return serveStdioTransport(server, logger, stdioOptions);
    },
    serveStreamableHttp,
    close: () => server.close(),
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

/** @internal the text of a content block holding an envelope, for handler-built error results. */
function envelopeInText(result: CallToolResult): ErrorEnvelope | undefined {
  for (const block of result.content) {
    if (block.type !== 'text') continue;
    const trimmed = block.text.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const carried = carriedEnvelope({ data: JSON.parse(trimmed) as unknown });
      if (carried !== undefined) return carried;
    } catch {
      continue;
    }
  }
  return undefined;
}
