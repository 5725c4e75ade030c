/**
 * The wire shape of the error envelope (contract versions 2 and 1) and its `_meta` telemetry, as
 * readonly TypeScript types. `schemas/error-envelope-v2.schema.json` and
 * `schemas/error-envelope.schema.json` (v1) are the machine-checkable forms of the same shapes.
 *
 * @packageDocumentation
 */
import type { ErrorCode, ErrorKind, ErrorKindV1, NormalizedEventKind, WarningKind } from './taxonomy.js';

/**
 * One structured issue in `details[]`. `path` is a JSON-pointer path without the leading slash
 * (`filters/0/marketplaceId`; a top-level field is its bare name; `''` when no field applies).
 * Keyword parameters and upstream facts travel as extra keys (`limit`, `actual`, `allowed`,
 * `extra`, `expected_type`, `upstream_code`, `request_id`, `http_status`, ...).
 */
export interface EnvelopeDetail {
  readonly path: string;
  readonly issue: string;
  /** The JSON type of the value received (`string`, `integer`, `array`, `null`, ...). */
  readonly received_type: string;
  /**
   * `SCHEMA_*` details (since v2, optional): the value received; a string cut to 200 characters,
   * an array or object only when its JSON has at most 200; `"[REDACTED]"` when it looks like a secret.
   */
  readonly received_value?: unknown;
  /** `true` when {@link EnvelopeDetail.received_value} is a cut string (it ends with `…`). */
  readonly received_truncated?: true;
  /** `SCHEMA_*` details (since v2, optional): what would have passed, in a few words. */
  readonly expected?: string;
  /**
   * `SCHEMA_*` details (since v2, optional): the nearest value that passes the failed check; for
   * `SCHEMA_ADDITIONAL_PROPERTIES`, the nearest declared key name. Absent when none is found.
   */
  readonly did_you_mean?: unknown;
  readonly [extra: string]: unknown;
}

/** `renamed`: a key matched exactly one schema property ignoring case and separators. */
export interface RenamedEvent {
  readonly kind: 'renamed';
  readonly from: string;
  readonly to: string;
  readonly reason?: string;
}

/** `dropped_alias`: both the canonical key and an alias were sent; the alias was dropped. */
export interface DroppedAliasEvent {
  readonly kind: 'dropped_alias';
  readonly from: string;
  readonly canonical: string;
  readonly reason?: string;
}

/** `coerced`: a value's type was adjusted (a scalar wrapped into a one-item array). */
export interface CoercedEvent {
  readonly kind: 'coerced';
  readonly field: string;
  readonly from_type: string;
  readonly to_type: string;
  readonly reason?: string;
}

/** `unknown_field_passed_through`: no schema match; forwarded as-is (strict mode off). */
export interface UnknownFieldPassedThroughEvent {
  readonly kind: 'unknown_field_passed_through';
  readonly field: string;
  readonly reason?: string;
}

/** `unknown_field_rejected`: no schema match; strict validation will reject it (the default). */
export interface UnknownFieldRejectedEvent {
  readonly kind: 'unknown_field_rejected';
  readonly field: string;
  readonly reason?: string;
}

/** One `_meta.normalized[]` event: a discriminated union on `kind`. */
export type NormalizedEvent =
  RenamedEvent | DroppedAliasEvent | CoercedEvent | UnknownFieldPassedThroughEvent | UnknownFieldRejectedEvent;

/** Compile-time check that the union covers exactly the kinds of the taxonomy table. */
export type NormalizedEventOfKind<K extends NormalizedEventKind> = Extract<NormalizedEvent, { kind: K }>;

/**
 * `_meta.rate_limit` in contract version 1: upstream rate-limit headroom in three keys, the limit
 * always per second. Only keys parsed from upstream headers are present; numbers when the header
 * value is a finite number, else the raw (trimmed) string; `reset_at` is always the raw string.
 */
export interface RateLimitMetaV1 {
  /** Requests per second (SP `x-amzn-RateLimit-Limit`, Ads `X-RateLimit-Limit`). */
  readonly limit_per_second?: number | string;
  readonly remaining?: number | string;
  readonly reset_at?: string;
}

/**
 * `_meta.rate_limit` in contract version 2: a limit per any window and a reset, as far as the
 * upstream stated them. Absent keys were not stated; at least one key is present. Keys a later
 * minor release adds are allowed. Implements CONTRACT.md "Rate limit".
 */
export interface RateLimitMeta {
  /** Requests allowed per `window_seconds` (a number when the upstream sent one, else its raw text). */
  readonly limit?: number | string;
  /** The window `limit` counts over, in seconds (1, 60, 3600, 86400 or any other positive number). */
  readonly window_seconds?: number;
  /** The same limit as a rate per second, written only where the upstream states a per-second rate (as in v1). */
  readonly limit_per_second?: number | string;
  /** Requests left in the current window. */
  readonly remaining?: number | string;
  /** When the window resets: the upstream's text as sent (an epoch, an HTTP date, an ISO 8601 date-time). */
  readonly reset_at?: string;
  /** Seconds until the window resets (>= 0, may be fractional). */
  readonly reset_after_seconds?: number;
  readonly [extra: string]: unknown;
}

/** One `_meta.warnings[]` entry: a degraded-but-successful condition. */
export interface EnvelopeWarning {
  readonly kind: WarningKind | (string & {});
  readonly summary: string;
  readonly details: readonly unknown[];
  readonly hints: readonly string[];
  readonly [extra: string]: unknown;
}

/**
 * `_meta`: optional telemetry. Consumers must tolerate its absence and unknown keys.
 */
export interface EnvelopeMeta {
  readonly normalized?: readonly NormalizedEvent[];
  readonly rate_limit?: RateLimitMeta;
  /** Seconds to wait before a retry (non-negative, may be fractional). */
  readonly retry_after_seconds?: number;
  readonly warnings?: readonly EnvelopeWarning[];
  /** Ties an `internal_error` envelope to the server log line that holds the detail. */
  readonly correlation_id?: string;
  /** On `SCHEMA_VALIDATION_FAILED` envelopes: the JSON Schema keyword that failed (`not`, `dependentRequired`, ...). */
  readonly validator?: string;
  readonly [extra: string]: unknown;
}

/**
 * The error envelope of contract version 2: nine required fields, `upstream` when an upstream
 * API is involved, `legacy_error_kind` during a migration window, and optional `_meta`.
 * Implements CONTRACT.md "The envelope".
 */
export interface ErrorEnvelope {
  readonly error_kind: ErrorKind;
  /** The tool that failed; `"unknown_tool"` when it cannot be known. */
  readonly tool: string;
  /** One line for humans; not stable enough to match on. */
  readonly summary: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
  readonly examples: readonly unknown[];
  readonly error_code: ErrorCode | (string & {});
  readonly retryable: boolean;
  readonly _envelope_version: 2;
  /**
   * The upstream API the failure came from (`sp-api`, `github`, ...): required with
   * `upstream_http`, `upstream_client` and `UPSTREAM_HTTP_*` codes; absent when the server itself failed.
   */
  readonly upstream?: string;
  /** The kind the previous release emitted for this condition, while its one-release window is open (a v1 kind after the move to v2). */
  readonly legacy_error_kind?: ErrorKind | ErrorKindV1;
  readonly _meta?: EnvelopeMeta;
  readonly [extra: string]: unknown;
}

/** `_meta` of a contract version 1 envelope: as in v2, with the closed three-key `rate_limit`. */
export type EnvelopeMetaV1 = Omit<EnvelopeMeta, 'rate_limit'> & { readonly rate_limit?: RateLimitMetaV1 };

/**
 * The error envelope of contract version 1, as servers still send it to readers of v1: vendor
 * kinds and prefixed upstream codes (`SP_API_HTTP_404`), no `upstream` field. Implements
 * CONTRACT.md "Upgrading an agent from v1".
 */
export interface ErrorEnvelopeV1 {
  readonly error_kind: ErrorKindV1;
  readonly tool: string;
  readonly summary: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
  readonly examples: readonly unknown[];
  readonly error_code: string;
  readonly retryable: boolean;
  readonly _envelope_version: 1;
  readonly legacy_error_kind?: ErrorKindV1;
  readonly _meta?: EnvelopeMetaV1;
  readonly [extra: string]: unknown;
}

/** An envelope of either contract version; `_envelope_version` tells which. */
export type AnyErrorEnvelope = ErrorEnvelope | ErrorEnvelopeV1;

/** The `_meta` a successful object result may carry (no `correlation_id` needed). */
export type SuccessMeta = Pick<EnvelopeMeta, 'normalized' | 'rate_limit' | 'retry_after_seconds' | 'warnings'>;
