/**
 * The wire shape of the v1 error envelope and its `_meta` telemetry, as readonly TypeScript types.
 * `schemas/error-envelope.schema.json` is the machine-checkable form of the same shape.
 *
 * @packageDocumentation
 */
import type { ContractVersion, ErrorCode, ErrorKind, NormalizedEventKind, WarningKind } from './taxonomy.js';

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
 * `_meta.rate_limit`: upstream rate-limit headroom. Only keys parsed from upstream headers are
 * present; an absent header is an absent key, never `null`. Numbers when the header value is a
 * finite number, else the raw (trimmed) string; `reset_at` is always the raw string.
 */
export interface RateLimitMeta {
  /** Requests per second (SP `x-amzn-RateLimit-Limit`, Ads `X-RateLimit-Limit`). */
  readonly limit_per_second?: number | string;
  readonly remaining?: number | string;
  readonly reset_at?: string;
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
 * The v1 error envelope: nine required fields, `legacy_error_kind` during a migration window, and
 * optional `_meta`. Implements CONTRACT.md "The envelope".
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
  readonly _envelope_version: ContractVersion;
  /** The prior `error_kind` while a reclassification's one-release window is open. */
  readonly legacy_error_kind?: ErrorKind;
  readonly _meta?: EnvelopeMeta;
  readonly [extra: string]: unknown;
}

/** The `_meta` a successful object result may carry (no `correlation_id` needed). */
export type SuccessMeta = Pick<EnvelopeMeta, 'normalized' | 'rate_limit' | 'retry_after_seconds' | 'warnings'>;
