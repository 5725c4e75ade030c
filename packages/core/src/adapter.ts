/**
 * The adapter seam: what a server family (SP, Ads) plugs into core. An adapter is data plus a
 * few pure functions; everything that differs between upstream APIs lives behind it.
 * Shapes are shared, code is per server. Implements CONTRACT.md "Classification".
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail, EnvelopeMeta, ErrorKind, RateLimitMeta, EnvelopeWarning } from '@mcp-envelope/contract';

import type { AdapterHintTables } from './hint-tables.js';
import type { RedactorOptions } from './redact.js';

/** Response headers keyed by lower-case name; repeated headers joined with `", "`. */
export type HeaderRecord = Readonly<Record<string, string>>;

/** The upstream request that failed: method and URL (query strings may hold secrets; redact before display). */
export interface FailedRequest {
  /** Upper-case HTTP method, e.g. `GET`. */
  readonly method: string;
  /** Absolute URL as sent. */
  readonly url: string;
  /**
   * `true` when the request was a lookup (`UpstreamFetchInit.lookup`) and no request without that
   * mark had been started in the call when it was sent: whatever became of it, nothing that could
   * act was sent, so its failure is not effect-unknown (CONTRACT.md "Safe retries"), unless such a
   * request was started before the failure reached core (a lookup run beside a POST).
   */
  readonly lookupFirst?: boolean;
}

/** The upstream answered with a non-2xx status. */
export interface UpstreamHttpFailure {
  readonly type: 'upstream_http';
  /** HTTP status code (100-599). */
  readonly status: number;
  readonly headers: HeaderRecord;
  /** Parsed JSON when the body was JSON, else the text (at most 64 KiB read), `''` when empty. */
  readonly body: unknown;
  readonly request: FailedRequest;
  /**
   * Set when the upstream answered 2xx with a failure in its body (see
   * {@link EnvelopeAdapter.inBandFailure}): `status` is then the status of the same meaning, and
   * this holds the status that really arrived. Implements CONTRACT.md "In-band failures from the upstream".
   */
  readonly inBand?: InBandMark;
}

/** What marks an {@link UpstreamHttpFailure} as found in a 2xx body. */
export interface InBandMark {
  /** The 2xx status the upstream really answered with. */
  readonly status: number;
}

/** A 2xx upstream answer whose body a handler read through `context.readBody`. */
export interface InBandAnswer {
  /** The HTTP status (200-299). */
  readonly status: number;
  /** The response headers, lower-case names. */
  readonly headers: HeaderRecord;
  /** The parsed JSON body, else the text; `{}` for an empty body. */
  readonly body: unknown;
  /** The request that got the answer (a response not from `context.fetch`: `GET` of its URL). */
  readonly request: FailedRequest;
}

/** An adapter's verdict that a 2xx body is a failure. */
export interface InBandVerdict {
  /** The HTTP status of the same meaning (400-599), e.g. 404 for a `NotFound` code. */
  readonly status: number;
  /**
   * What `classify` reads as the failure's body (the error object or list found); absent: the
   * whole body.
   */
  readonly body?: unknown;
}

/**
 * The exchange broke: no HTTP answer arrived (connection refused, reset, DNS, TLS...), or, with
 * `phase: 'body'`, a 2xx answer's body was cut off midway.
 */
export interface NetworkFailure {
  readonly type: 'network';
  /** The underlying error (for logging; never copied into an envelope as is). */
  readonly cause: unknown;
  readonly request?: FailedRequest;
  /** `'body'` when the headers had arrived and the body broke; absent before any answer. */
  readonly phase?: 'body';
}

/** The exchange (headers and body) was abandoned after `timeoutMs` milliseconds. */
export interface TimeoutFailure {
  readonly type: 'timeout';
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;
  readonly request?: FailedRequest;
  /** `'body'` when the headers had arrived and the body stalled; absent before any answer. */
  readonly phase?: 'body';
}

/**
 * An upstream body, or the result built from it, was larger than the server's limit: reading
 * stopped there and nothing of it is sent.
 */
export interface ResponseTooLargeFailure {
  readonly type: 'response_too_large';
  /** `upstream_body`: the bytes read from upstream (declared or decompressed); `result`: the tool result as sent. */
  readonly subject: 'upstream_body' | 'result';
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;
  /** The setting that holds the limit, e.g. `MCP_MAX_UPSTREAM_BODY_BYTES`. */
  readonly setting: string;
  readonly request?: FailedRequest;
}

/**
 * The upstream answered with a redirect that was not followed: to another origin (the request
 * carried credentials), or one hop too many.
 */
export interface RedirectFailure {
  readonly type: 'redirect';
  /** The redirect status (301, 302, 303, 307, 308). */
  readonly status: number;
  /** Where it pointed: origin and path only (query string, fragment and user info removed). */
  readonly location: string;
  /** `cross_origin`: another scheme, host or port; `user_info`: the target carries user info; `too_many`: more same-origin hops than allowed. */
  readonly reason: 'cross_origin' | 'user_info' | 'too_many';
  readonly request?: FailedRequest;
}

/** A request body value that looked like JSON could not be parsed before sending. */
export interface BodyCoercionFailure {
  readonly type: 'body_coercion';
  /** JSON-pointer path (no leading slash) of the offending argument. */
  readonly path: string;
  /** What arrived (the raw value; redacted before display). */
  readonly received: unknown;
}

/**
 * A credential client failed (getting an access token, say): a handler let an error escape that
 * the adapter's {@link EnvelopeAdapter.isCredentialError} recognizes; the adapter classifies it.
 */
export interface CredentialFailure {
  readonly type: 'credential';
  readonly error: unknown;
}

/**
 * Every failure core hands to {@link EnvelopeAdapter.classify}, discriminated by `type`.
 */
export type ClassifiableFailure =
  | UpstreamHttpFailure
  | NetworkFailure
  | TimeoutFailure
  | BodyCoercionFailure
  | ResponseTooLargeFailure
  | RedirectFailure
  | CredentialFailure;

/** What `classify` is told about the call besides the failure. */
export interface ClassifyContext {
  /** The tool being run. */
  readonly tool: string;
  /** The time of classification (for HTTP-date `Retry-After` values). */
  readonly now: Date;
}

/** Telemetry parsed from upstream response headers. Implements CONTRACT.md "_meta". */
export interface ResponseMeta {
  readonly rate_limit?: RateLimitMeta;
  /** Seconds (>= 0). */
  readonly retry_after_seconds?: number;
  readonly warnings?: readonly EnvelopeWarning[];
}

/**
 * The adapter's verdict on one failure: the envelope fields that depend on the upstream. Core adds
 * `tool`, `_envelope_version`, `legacy_error_kind`, redaction, bounds and the call's `_meta`.
 */
export interface ClassifiedError {
  /** A contract version 2 kind: a vendor kind (`github_api_http`) does not compile. */
  readonly error_kind: ErrorKind;
  /** UPPER_SNAKE code, e.g. `UPSTREAM_HTTP_404`, `RATE_LIMITED`. */
  readonly error_code: string;
  readonly retryable: boolean;
  readonly summary: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
  readonly examples?: readonly unknown[];
  /** `_meta` keys to set; each key set here wins over the same key read from response headers. */
  readonly meta?: Partial<EnvelopeMeta>;
  /**
   * The condition behind this verdict, for the migrations table (CONTRACT.md "Migration
   * windows"): an entry with `conditions` gives `legacy_error_kind` only to the envelopes of its
   * conditions. Defaults to the failure's `type` (`upstream_http`: the HTTP answer of the API
   * the server fronts). An adapter names another when the failure came from somewhere else, e.g.
   * an internal service the server calls besides that API (`identity_service_http`), so that
   * condition does not inherit a kind it never had.
   */
  readonly condition?: string;
  /**
   * The upstream API the failure came from, one of {@link EnvelopeAdapter.upstreams}. Core fills
   * the primary (first) upstream when an `upstream_*` kind or `UPSTREAM_HTTP_*` code lacks it; a
   * name outside `upstreams` makes the envelope an `internal_error` (logged).
   */
  readonly upstream?: string;
}

/**
 * What an upstream family implements so core can classify its failures and read its telemetry.
 */
export interface EnvelopeAdapter {
  /** Server id used by the migrations table (`sp`, `ads`, ...). */
  readonly id: string;
  /** Every kind `classify` can return. Advertised in the capability, with core's own kinds. */
  readonly errorKinds: readonly ErrorKind[];
  /**
   * The `upstream` names the server's envelopes can carry (pattern `^[a-z0-9][a-z0-9._-]{0,63}$`),
   * advertised in the capability. The first is the primary: the API the server fronts. A server
   * whose upstreams all had a contract version 1 spelling (the contract's `V1_UPSTREAMS`) also
   * answers readers of v1; any other answers in v2 only. Implements CONTRACT.md "Capabilities".
   */
  readonly upstreams: readonly string[];
  /**
   * Turns a failure into envelope fields. Must be pure and must not throw (a throw becomes an
   * `internal_error` envelope and a log line).
   */
  classify(failure: ClassifiableFailure, context: ClassifyContext): ClassifiedError;
  /**
   * Reads rate limit, retry-after and warnings from response headers (success or failure).
   *
   * @param headers - lower-case names.
   * @param now - the time the response arrived.
   */
  parseResponseMeta(headers: HeaderRecord, now: Date): ResponseMeta;
  /** Key renames, value aliases, curated enums and extra hints for argument checking. */
  readonly hints?: AdapterHintTables;
  /**
   * What the server's redactor replaces beside core's defaults (patterns, secret header names,
   * secret keys, public prefixes of credentials), in every envelope and log line.
   */
  readonly redactions?: RedactorOptions;
  /**
   * Whether a thrown value is a failure of one of the adapter's credential clients; core then
   * hands it to {@link EnvelopeAdapter.classify} as a {@link CredentialFailure}.
   */
  readonly isCredentialError?: (error: unknown) => boolean;
  /**
   * Which 2xx bodies are failures, for an upstream that reports some failures in a 2xx body
   * (`{ "errors": [...] }` without data). Called by a handler's `context.readBody` with each 2xx
   * answer it reads; a verdict makes the call fail as an `upstream_http` failure of
   * `verdict.status`, classified by {@link EnvelopeAdapter.classify} with `inBand` set; `undefined`
   * keeps the body as data. Must be pure and must not throw (a throw, like a verdict whose status is
   * outside 400-599, ends the call with an `internal_error` envelope and a log line). The kit's `inBandError` and `inBandStatus` read the common forms. Implements
   * CONTRACT.md "In-band failures from the upstream".
   */
  readonly inBandFailure?: (answer: InBandAnswer) => InBandVerdict | undefined;
}
