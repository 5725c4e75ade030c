/**
 * The shapes the `tools/call` path shares, in one module that imports only types, so that every
 * other module can depend on it and none has to import "up" into the server for a shape.
 *
 * Three kinds of context travel a call, each named for whose it is:
 * - `ServerContext` (the SDK's, handed in as `request`): the JSON-RPC request, its session and signal;
 * - {@link CallRecord}: core's mutable record of one call (telemetry its upstream answers left);
 * - {@link ToolHandlerContext}: what a tool handler is given of that call.
 * Beside them, {@link ServerEnvironment} is what every envelope of one server is built with; it is
 * the same for every call. (Adapters get a `ClassifyContext` of their own, see adapter.ts.)
 *
 * @packageDocumentation
 */
import type {
  ContractVersion,
  EnvelopeMeta,
  EnvelopeWarning,
  ErrorEnvelope,
  ErrorKind,
  MigrationEntry,
  NormalizedEvent,
  RateLimitMeta,
} from '@mcp-envelope/contract';
import type {
  CallToolResult,
  InputRequiredResult,
  Server as LowLevelServer,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';

import type { EnvelopeAdapter, ResponseMeta } from './adapter.js';
import type { EnvelopeLogger } from './logger.js';
import type { RateLimitPlan } from './rate-limit/store.js';
import type { UpstreamAnswer } from './rate-limit/upstream-answer.js';
import type { Redactor } from './redact.js';

/** A JSON Schema document as parsed JSON (an object; boolean schemas are not tool schemas). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/** The SDK v2 low-level server class that carries our `tools/list` and `tools/call` handlers. */
export type SdkServer = LowLevelServer;

/**
 * The protocol era a result is shaped for: `legacy` (2025-11-25 and older, whose result schema
 * only admits an object `structuredContent`) or `modern` (2026-07-28, any JSON value).
 */
export type ProtocolEra = 'legacy' | 'modern';

/** `fetch` options plus a timeout and a body limit. */
export interface UpstreamFetchInit extends RequestInit {
  /**
   * One deadline for the whole exchange, in milliseconds: redirects, headers and the body (a 2xx
   * body is read under it too, through the returned response).
   */
  readonly timeoutMs?: number;
  /**
   * The most bytes a successful body may have, as declared (`Content-Length`) and as read after
   * decompression; defaults to the call's `MCP_MAX_UPSTREAM_BODY_BYTES`, else
   * `DEFAULT_MAX_UPSTREAM_BODY_BYTES`.
   */
  readonly maxBodyBytes?: number;
  /**
   * `true` for a lookup: a request that changes nothing upstream, made to prepare the call's own
   * (an identity or credentials lookup). When it fails, and no request without the mark had been
   * started in the call by the time its failure reached core, nothing that could act was sent, so
   * the failure is not effect-unknown (CONTRACT.md "Safe retries"). Core takes the mark at its
   * word whatever the method: a request marked so that does change something hides an unknown
   * effect. Default false.
   */
  readonly lookup?: boolean;
}

/**
 * Core's mutable record of one `tools/call`: which tool runs and the upstream telemetry its HTTP
 * calls recorded. Each call gets its own, so concurrent calls never see each other's meta and
 * nothing is shared between the servers of one process. Implements CONTRACT.md "_meta".
 */
export interface CallRecord {
  /** The tool being run. */
  readonly tool: string;
  /** The adapter whose `parseResponseMeta` reads upstream headers. */
  readonly adapter: EnvelopeAdapter;
  /**
   * The tool's MCP annotations: whether it is idempotent decides if a failure whose effect is
   * unknown stays retryable (CONTRACT.md "Safe retries"). Absent: not idempotent.
   */
  readonly annotations?: ToolAnnotations | undefined;
  /** Normalization events of this call's arguments. */
  readonly normalized: readonly NormalizedEvent[];
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** The limit on a successful upstream body in this call (`MCP_MAX_UPSTREAM_BODY_BYTES`); absent: the default. */
  readonly maxUpstreamBodyBytes?: number;
  /** Most recent upstream `rate_limit` seen in this call. */
  rateLimit: RateLimitMeta | undefined;
  /** Most recent upstream `retry_after_seconds` seen in this call. */
  retryAfterSeconds: number | undefined;
  /** Every upstream warning seen in this call, in arrival order. */
  warnings: EnvelopeWarning[] | undefined;
  /** Whether an upstream request was started in this call (a cancelled call that sent none gives its rate limit token back). */
  upstreamStarted?: boolean;
  /** Whether a request that was not a lookup (`UpstreamFetchInit.lookup`) was started in this call. */
  changeStarted?: boolean;
  /** The HTTP status of the last upstream answer in this call (a 429 drains the limiter's bucket). */
  upstreamStatus?: number;
  /**
   * The last upstream answer in this call and when it arrived. The limiter reads from it, after
   * the handler and only when it is on, whether it was a rate limit of any status (a 403 with
   * `remaining: 0`, say) or a budget spent until a stated reset.
   */
  lastAnswer?: { readonly answer: UpstreamAnswer; readonly arrived: Date };
  /** `false` on a server whose OpenTelemetry is off: its upstream exchanges get no span. */
  readonly traced?: boolean;
  /** The server's text redaction, for what the call's spans record (an upstream URL). */
  readonly redactText?: (text: string) => string;
}

/**
 * What every envelope one server emits is built and finalized with: the same for all its calls.
 */
export interface ServerEnvironment {
  /** The adapter id, for the migrations table. */
  readonly serverId: string;
  /** The migrations open in the emitting release, selected once per server (versions do not change while it runs). */
  readonly openMigrations: readonly MigrationEntry[];
  readonly redactor: Redactor;
  /** The kinds the server advertises; an envelope of any other kind is replaced. */
  readonly advertisedKinds: ReadonlySet<ErrorKind>;
  /**
   * The adapter's upstreams, the primary (the API the server fronts) first: filled into an
   * upstream envelope that names none; an adapter verdict naming another is replaced.
   */
  readonly upstreams: readonly string[];
  readonly logger: EnvelopeLogger;
  /** The adapter that classifies upstream and credential failures. */
  readonly adapter: EnvelopeAdapter;
  /** Whether `_meta.normalized` is emitted (`MCP_SCHEMA_KEY_NORMALIZATION_META`). */
  readonly includeNormalized: boolean;
  /**
   * Whether every failed call's envelope gets a logged `_meta.correlation_id` for the ToolFailure
   * mirror (`MCP_TOOL_FAILURE_META`); absent means off.
   */
  readonly toolFailureMeta?: boolean;
  /** The clock. */
  readonly now: () => Date;
  /** `false`: no OpenTelemetry span or counter for its calls (`EnvelopeServerOptions.telemetry`); absent: on. */
  readonly telemetry?: boolean;
}

/**
 * Answers one `tools/call`: `params` as sent, the SDK's request context, the era served, and the
 * contract version the client reads (default 2), which handlers see as `context.contractVersion`.
 */
export type CallTool = (
  params: unknown,
  request: ServerContext,
  era: ProtocolEra,
  version?: ContractVersion,
) => Promise<CallToolResult>;

/**
 * {@link CallTool} that may also answer with an input-required result (a tool asking the client
 * for input). `version` is the contract version the client reads (the answer is built in version
 * 2 and projected where it leaves the server); handlers see it as `context.contractVersion`.
 */
export type AnswerTool = (
  params: unknown,
  request: ServerContext,
  era: ProtocolEra,
  version?: ContractVersion,
) => Promise<CallToolResult | InputRequiredResult>;

/** What a tool handler receives besides its (normalized, validated) arguments. */
export interface ToolHandlerContext {
  /** The tool being run. */
  readonly tool: string;
  /**
   * The contract version the client reads. Handlers build envelopes in version 2 whatever it is:
   * the answer is projected where it leaves the server. Code Mode answers inner calls in it.
   */
  readonly contractVersion: ContractVersion;
  /** Aborted when the client cancels the call, or when its connection closes (e.g. the server is closed). */
  readonly signal: AbortSignal;
  /** The normalization events of this call's arguments (whether or not they are emitted). */
  readonly normalized: readonly NormalizedEvent[];
  /** `upstreamFetch` bound to this call: records response telemetry in this call and throws classifiable errors. */
  readonly fetch: (url: string | URL, init?: UpstreamFetchInit) => Promise<Response>;
  /**
   * Reads the body of a 2xx response `fetch` returned: the parsed JSON, else the text, `{}` when
   * empty (as `readSuccessBody`). When the adapter's `inBandFailure` judges the body a failure, it
   * rejects with an `UpstreamHttpError` of the status of the same meaning (`inBand` set), which
   * the call ends with. `readSuccessBody` reads the same body as data whatever it holds.
   * Implements CONTRACT.md "In-band failures from the upstream".
   *
   * @throws UpstreamHttpError for an in-band failure; UpstreamClientError as `readSuccessBody`.
   */
  readonly readBody: (response: Response) => Promise<unknown>;
  /** Records telemetry from an HTTP client other than `fetch`, into this call. */
  readonly recordResponseMeta: (meta: ResponseMeta) => void;
  /**
   * The SDK's request context (`sessionId`; `mcpReq` with the request id, `_meta`, `notify`,
   * `send`, `log` and, on a call retried with input, `inputResponses`), for advanced use.
   */
  readonly request: ServerContext;
  /**
   * Seals a JSON value into a `requestState` for `inputRequiredResult`, signed with the server's
   * key and bound to this tool. The client can read it (it is signed, not encrypted): no secrets.
   */
  readonly mintRequestState: (value: unknown) => Promise<string>;
  /** The value of the `requestState` this call echoed (verified, minted for this tool), or `undefined`. */
  readonly requestState: () => unknown;
}

/**
 * One tool. `inputSchema` is a raw JSON Schema object (root `type: "object"`); `outputSchema`,
 * when given, is published widened to admit the envelope. An `outputSchema` whose root is not
 * `type: "object"` (an array, string, number, boolean or `null` result) is published to
 * 2026-07-28 clients only, as `{ anyOf: [schema, envelope] }`: 2025-11-25 clients, whose
 * `outputSchema` must have an object root, see the tool without one and get its results as text.
 *
 * The handler returns either a plain value (data) or a `CallToolResult` marked with `toolResult`:
 * - a plain object becomes `structuredContent` and, as JSON, `content[0].text`, with the call's
 *   `_meta` merged in, whatever its keys: an object shaped like a `CallToolResult` (an upstream
 *   body with `content`, `isError`, ...) is data like any other, so no upstream can forge a result;
 *   the telemetry keys of its own `_meta` (`rate_limit`, `warnings`, ...) are dropped first;
 * - a string becomes `content[0].text` as is; an array, number, boolean or `null` becomes its JSON
 *   text; `undefined` becomes an empty `content`. Under protocol revision 2026-07-28 the value is
 *   also sent as `structuredContent` (that revision admits any JSON value there); under 2025-11-25
 *   and older it is not (their result schema only admits an object). None of these gets `_meta`;
 * - `toolResult({ content, structuredContent?, isError?, _meta? })` is sent as that result.
 *
 * Every result passes the server's redactor (known secrets and credential patterns) and its size
 * limit (`MCP_MAX_RESULT_BYTES`; past it, an `upstream_client` envelope). Anything the
 * handler throws becomes an envelope (see `classifyFailure`).
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
  /**
   * The tool's usage plan for the pre-flight limiter (`MCP_RATE_LIMIT`): a token bucket per server,
   * tool and identity, taken before the handler runs. Absent: the tool runs unlimited until an
   * upstream answer teaches the limiter a plan (a reported limit, a 429).
   */
  readonly rateLimit?: RateLimitPlan;
  /**
   * The identity a call runs under (a seller, an account), so that callers acting for different
   * identities never share a bucket; `undefined`: the server's one identity. Called before the
   * handler, with the validated arguments; it must not throw (a throw lets the call through unlimited).
   */
  readonly rateLimitIdentity?: (args: Record<string, unknown>, context: ToolHandlerContext) => string | undefined;
  /** @returns the result; may be a promise. */
  handler(args: Args, context: ToolHandlerContext): unknown;
}

/**
 * What went wrong in a call, by who is at fault and so how its envelope is made:
 * - `thrown`: the tool handler threw, or core met an upstream or client failure: classified
 *   (an `EnvelopeError` or a carried envelope as it is, an upstream failure by the adapter);
 * - `internal`: the server's own fault (`reason` says where): logged, `internal_error`;
 * - `core`: an envelope core built (validation, the limiter): finalized;
 * - `unknown_tool`: a `tool_not_found` envelope, as a result or, `as: 'jsonrpc'`, a -32602 error;
 * - `error_result`: a handler returned an `isError` result: its envelope, else `internal_error`;
 * - `ready`: an envelope already fit to send (a shutdown's, a cancelled call's).
 */
export type CallFailure =
  | { readonly type: 'thrown'; readonly error: unknown; readonly call: CallRecord }
  | { readonly type: 'internal'; readonly error: unknown; readonly reason: string; readonly call: CallRecord }
  | { readonly type: 'core'; readonly envelope: ErrorEnvelope; readonly omittedDetails?: number | undefined }
  | { readonly type: 'unknown_tool'; readonly envelope: ErrorEnvelope; readonly as: 'result' | 'jsonrpc' }
  | { readonly type: 'error_result'; readonly result: CallToolResult; readonly call: CallRecord }
  | { readonly type: 'ready'; readonly envelope: ErrorEnvelope };

/** The `_meta` keys a call's telemetry fills, each `undefined` when nothing was recorded. */
export type CallTelemetry = {
  readonly [Key in 'normalized' | 'rate_limit' | 'retry_after_seconds' | 'warnings']: EnvelopeMeta[Key] | undefined;
};

/**
 * What a failure's envelope is made of: classify.ts's verdict on a {@link CallFailure}, and the
 * one input of envelope-builder.ts's `buildEnvelope`, so that the exit walks each module once.
 * - `handler`: an envelope a handler made (thrown, carried, relayed or returned); the call's
 *   telemetry fills the `_meta` keys it sets none of;
 * - `adapter`: the adapter's verdict as an envelope without `_meta`; `meta` holds the `_meta`
 *   keys (`undefined` ones are left out), `condition` what gave it (for the migrations table);
 *   its `upstream` must be one of the server's;
 * - `internal`: the server's own fault: `error` is logged under a correlation id that the
 *   `internal_error` envelope of `tool` names; `reason` says where (`handler`, `classify`, `result`, ...);
 * - `core`: an envelope core built; `omittedDetails` were cut before it was built;
 * - `ready`: an envelope already fit to send, sent as it is.
 */
export type EnvelopeDraft =
  | { readonly type: 'handler'; readonly envelope: ErrorEnvelope; readonly telemetry: CallTelemetry }
  | {
      readonly type: 'adapter';
      readonly envelope: ErrorEnvelope;
      readonly meta: Readonly<Record<string, unknown>>;
      readonly condition: string;
    }
  | {
      readonly type: 'internal';
      readonly error: unknown;
      readonly reason: string;
      readonly tool: string;
      readonly telemetry: CallTelemetry;
    }
  | { readonly type: 'core'; readonly envelope: ErrorEnvelope; readonly omittedDetails?: number | undefined }
  | { readonly type: 'ready'; readonly envelope: ErrorEnvelope };
