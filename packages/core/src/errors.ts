/**
 * Error classes.
 *
 * - {@link EnvelopeError} is the package's one error class that *is* an envelope: a
 *   tool handler throws it to emit a chosen envelope (e.g. `sandbox_runtime`); `toEnvelope()` and
 *   `toJSON()` return exactly the wire shape.
 * - {@link UpstreamHttpError} and {@link UpstreamClientError} are not envelopes: they record a
 *   failure (HTTP status, headers, body; network, timeout, body coercion) that only the server's
 *   adapter can classify. Giving them a `toEnvelope()` would have to invent a kind, so they have none.
 *
 * Each class has a static `isInstance` brand check (a `Symbol.for` key) that also recognizes
 * instances made by another copy of this package.
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { EnvelopeDetail, EnvelopeMeta, ErrorEnvelope, ErrorKind } from '@mcp-envelope/contract';

import type {
  BodyCoercionFailure,
  FailedRequest,
  HeaderRecord,
  InBandMark,
  NetworkFailure,
  RedirectFailure,
  ResponseTooLargeFailure,
  TimeoutFailure,
  UpstreamHttpFailure,
} from './adapter.js';

const ENVELOPE_ERROR_BRAND = Symbol.for('@mcp-envelope/core/EnvelopeError');
const UPSTREAM_HTTP_ERROR_BRAND = Symbol.for('@mcp-envelope/core/UpstreamHttpError');
const UPSTREAM_CLIENT_ERROR_BRAND = Symbol.for('@mcp-envelope/core/UpstreamClientError');

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * What {@link EnvelopeError} is built from: the envelope's fields, with `tool`, `details`,
 * `hints`, `examples` and `retryable` optional (defaults: the running tool, `[]`, `[]`, `[]`,
 * `false`). `_envelope_version` is always set by the class.
 */
export interface EnvelopeErrorInit {
  readonly error_kind: ErrorKind;
  readonly error_code: string;
  readonly summary: string;
  /** Defaults to the tool being run when thrown from a handler, else `"unknown_tool"`. */
  readonly tool?: string;
  readonly details?: readonly EnvelopeDetail[];
  readonly hints?: readonly string[];
  readonly examples?: readonly unknown[];
  readonly retryable?: boolean;
  readonly legacy_error_kind?: ErrorKind;
  /** The upstream API the failure came from; core names the server's first upstream when an upstream kind or code has none. */
  readonly upstream?: string;
  readonly _meta?: EnvelopeMeta;
}

/**
 * An error that carries a v1 envelope. Thrown from a tool handler, core emits its envelope (after
 * filling `tool`, bounding, redacting and validating it). Implements CONTRACT.md "The envelope".
 */
export class EnvelopeError extends Error {
  /** The envelope, with `tool` set to `"unknown_tool"` when the init had none. */
  readonly envelope: ErrorEnvelope;
  /** Whether the init named the tool (core fills the running tool otherwise). */
  readonly hasTool: boolean;
  private readonly [ENVELOPE_ERROR_BRAND] = true;

  /**
   * @param init - the envelope fields; see {@link EnvelopeErrorInit}.
   * @param options - `cause`, kept for logs only.
   */
  constructor(init: EnvelopeErrorInit, options?: { readonly cause?: unknown }) {
    super(init.summary, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EnvelopeError';
    this.hasTool = init.tool !== undefined;
    this.envelope = {
      error_kind: init.error_kind,
      tool: init.tool ?? 'unknown_tool',
      summary: init.summary,
      details: init.details ?? [],
      hints: init.hints ?? [],
      examples: init.examples ?? [],
      error_code: init.error_code,
      retryable: init.retryable ?? false,
      _envelope_version: CONTRACT_VERSION,
      ...(init.upstream === undefined ? {} : { upstream: init.upstream }),
      ...(init.legacy_error_kind === undefined ? {} : { legacy_error_kind: init.legacy_error_kind }),
      ...(init._meta === undefined ? {} : { _meta: init._meta }),
    };
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is an `EnvelopeError`.
   */
  static isInstance(value: unknown): value is EnvelopeError {
    return hasBrand(value, ENVELOPE_ERROR_BRAND);
  }

  /** @returns the envelope, exactly as it goes on the wire (before core's finalization). */
  toEnvelope(): ErrorEnvelope {
    return this.envelope;
  }

  /** @returns the same object as {@link EnvelopeError.toEnvelope}, so `JSON.stringify` gives the wire JSON. */
  toJSON(): ErrorEnvelope {
    return this.envelope;
  }
}

/** The URL without query string and fragment (they may hold credentials). */
function displayUrl(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

/**
 * An upstream HTTP response with a non-2xx status. Thrown by {@link upstreamFetch}; handlers that
 * use their own HTTP client can throw it too. Core hands it to the adapter's `classify` as an
 * `upstream_http` failure. The message names method, URL path and status, never the body.
 */
export class UpstreamHttpError extends Error {
  /** HTTP status code. */
  readonly status: number;
  /** Response headers, lower-case names. */
  readonly headers: HeaderRecord;
  /** Parsed JSON body, else the text (at most 64 KiB read by `upstreamFetch`). */
  readonly body: unknown;
  /** The request that failed. */
  readonly request: FailedRequest;
  /** Set when the failure was found in a 2xx body: the status that really arrived. */
  readonly inBand: InBandMark | undefined;
  private readonly [UPSTREAM_HTTP_ERROR_BRAND] = true;

  /**
   * @param init - status, headers (any casing; stored lower-cased), body and request; `inBand`
   *   for a failure found in a 2xx body (`status` is then the status of the same meaning).
   */
  constructor(init: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: unknown;
    readonly request: FailedRequest;
    readonly inBand?: InBandMark;
  }) {
    super(
      init.inBand === undefined
        ? `upstream ${init.request.method} ${displayUrl(init.request.url)} answered HTTP ${init.status}`
        : `upstream ${init.request.method} ${displayUrl(init.request.url)} answered HTTP ${init.inBand.status} with a failure in its body (as HTTP ${init.status})`,
    );
    this.inBand = init.inBand;
    this.name = 'UpstreamHttpError';
    this.status = init.status;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers)) headers[name.toLowerCase()] = value;
    this.headers = headers;
    this.body = init.body;
    this.request = init.request;
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is an `UpstreamHttpError`.
   */
  static isInstance(value: unknown): value is UpstreamHttpError {
    return hasBrand(value, UPSTREAM_HTTP_ERROR_BRAND);
  }

  /** @returns the failure record the adapter classifies. */
  toFailure(): UpstreamHttpFailure {
    return {
      type: 'upstream_http',
      status: this.status,
      headers: this.headers,
      body: this.body,
      request: this.request,
      ...(this.inBand === undefined ? {} : { inBand: this.inBand }),
    };
  }

  /** @returns `{ name, status, method, url }` with the URL's query string removed; no body, no headers. */
  toJSON(): { name: string; status: number; method: string; url: string } {
    return { name: this.name, status: this.status, method: this.request.method, url: displayUrl(this.request.url) };
  }
}

/**
 * A client-side failure: the exchange broke or ran out of time, its body could not be built, the
 * answer was too large, or it redirected where credentials must not follow.
 */
export type ClientSideFailure =
  NetworkFailure | TimeoutFailure | BodyCoercionFailure | ResponseTooLargeFailure | RedirectFailure;

function clientFailureMessage(failure: ClientSideFailure): string {
  const where =
    'request' in failure && failure.request !== undefined
      ? ` (${failure.request.method} ${displayUrl(failure.request.url)})`
      : '';
  switch (failure.type) {
    case 'timeout':
      return `upstream request timed out after ${failure.timeoutMs} ms${failure.phase === 'body' ? ' while reading the body' : ''}${where}`;
    case 'network':
      return failure.phase === 'body'
        ? `upstream response body broke off${where}`
        : `upstream request failed before any HTTP answer${where}`;
    case 'body_coercion':
      return `the value at "${failure.path}" is not valid JSON`;
    case 'response_too_large':
      return `${failure.subject === 'result' ? 'the tool result' : 'the upstream body'} is larger than ${failure.setting} (${failure.limitBytes} bytes)${where}`;
    case 'redirect':
      return `upstream redirect (HTTP ${failure.status}) to ${failure.location} not followed: ${failure.reason === 'cross_origin' ? 'another origin' : failure.reason === 'user_info' ? 'user info in the target' : 'too many hops'}${where}`;
  }
}

/**
 * A client-side failure (`network`, `timeout`, `body_coercion`, `response_too_large`, `redirect`)
 * as a throwable error. Thrown by {@link upstreamFetch} (and the body it returns) on connection
 * failures, timeouts, oversized bodies and refused redirects; a handler throws it with a
 * `body_coercion` failure when an argument that should hold JSON does not parse.
 */
export class UpstreamClientError extends Error {
  /** The failure record the adapter classifies. */
  readonly failure: ClientSideFailure;
  private readonly [UPSTREAM_CLIENT_ERROR_BRAND] = true;

  /**
   * @param failure - the failure record.
   */
  constructor(failure: ClientSideFailure) {
    super(clientFailureMessage(failure), failure.type === 'network' ? { cause: failure.cause } : undefined);
    this.name = 'UpstreamClientError';
    this.failure = failure;
  }

  /**
   * Brand check that also recognizes instances from another copy of this package.
   *
   * @param value - anything.
   * @returns whether `value` is an `UpstreamClientError`.
   */
  static isInstance(value: unknown): value is UpstreamClientError {
    return hasBrand(value, UPSTREAM_CLIENT_ERROR_BRAND);
  }

  /** @returns `{ name, type, message }`; never the received value or the cause. */
  toJSON(): { name: string; type: ClientSideFailure['type']; message: string } {
    return { name: this.name, type: this.failure.type, message: this.message };
  }
}

/**
 * What core's own error classes make of a thrown value, read in one call so that a failure's
 * classification enters this module once: a thrown {@link EnvelopeError}'s envelope (and whether
 * it names its tool), or the failure an {@link UpstreamHttpError} or {@link UpstreamClientError}
 * records for the adapter to classify.
 */
export type KnownThrown =
  | { readonly type: 'envelope'; readonly envelope: ErrorEnvelope; readonly hasTool: boolean }
  | { readonly type: 'failure'; readonly failure: UpstreamHttpFailure | ClientSideFailure };

/**
 * Reads a thrown value with the brand checks of this module's classes (instances of another
 * copy of this package count).
 *
 * @param error - anything thrown.
 * @returns what the value is to core (see {@link KnownThrown}), or `undefined` for anything else.
 */
export function knownThrown(error: unknown): KnownThrown | undefined {
  if (EnvelopeError.isInstance(error))
    return { type: 'envelope', envelope: error.toEnvelope(), hasTool: error.hasTool };
  if (UpstreamHttpError.isInstance(error)) return { type: 'failure', failure: error.toFailure() };
  if (UpstreamClientError.isInstance(error)) return { type: 'failure', failure: error.failure };
  return undefined;
}
