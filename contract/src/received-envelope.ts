/**
 * The tolerant reading of an envelope that client code needs. A client must keep working when a
 * server of a later minor release sends a kind, a code or a `_meta` key it does not know, so the
 * client helpers recognize an envelope by its structure; `validateEnvelope` stays the strict
 * check that servers and the conformance gate use. Implements CONTRACT.md "Receiving envelopes".
 *
 * @packageDocumentation
 */
import { isRecord } from './shapes.js';
import type { EnvelopeDetail, RateLimitMetaV1 } from './envelope.js';
import type { ErrorCode, ErrorKind, ErrorKindV1 } from './taxonomy.js';

/**
 * An envelope as a client receives it, of any contract version: the nine required fields with
 * their JSON types, and the vocabularies left open, because a later release may add values.
 * Every schema-valid `ErrorEnvelope` (v2) and `ErrorEnvelopeV1` is one; `_envelope_version` tells
 * which, and `isEnvelope` gives the closed types.
 */
export interface ReceivedEnvelope {
  /** A v2 kind (`_envelope_version` 2), a v1 kind (1), or a kind a later release added: keep a default branch. */
  readonly error_kind: ErrorKind | ErrorKindV1 | (string & {});
  readonly tool: string;
  readonly summary: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
  readonly examples: readonly unknown[];
  readonly error_code: ErrorCode | (string & {});
  readonly retryable: boolean;
  /** The contract version of this envelope: 1, 2, or a later integer. */
  readonly _envelope_version: number;
  /** Version 2: the upstream API the failure came from (`sp-api`, `github`, ...), when one was involved. */
  readonly upstream?: string;
  readonly legacy_error_kind?: ErrorKind | ErrorKindV1 | (string & {});
  /** Telemetry: the known keys with their JSON types checked, their contents left open. */
  readonly _meta?: ReceivedMeta;
  readonly [extra: string]: unknown;
}

/**
 * `_meta` as a client receives it. The recognizer checks the JSON type of each known key; what
 * is inside `normalized`, `warnings` and `rate_limit` is left open, since a later release may add
 * event kinds, warning kinds and keys.
 */
export interface ReceivedMeta {
  readonly normalized?: readonly unknown[];
  /** Upstream rate-limit headroom: v1's three keys, v2's window keys, or keys a later release adds. */
  readonly rate_limit?:
    | RateLimitMetaV1
    | {
        readonly limit?: unknown;
        readonly window_seconds?: unknown;
        readonly limit_per_second?: unknown;
        readonly remaining?: unknown;
        readonly reset_at?: unknown;
        readonly reset_after_seconds?: unknown;
        readonly [extra: string]: unknown;
      };
  /** Seconds to wait before a retry; see {@link retryAfterSecondsOf} for the checked value. */
  readonly retry_after_seconds?: number;
  readonly warnings?: readonly unknown[];
  readonly correlation_id?: string;
  readonly [extra: string]: unknown;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isOptional(value: unknown, check: (present: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isMeta(value: unknown): boolean {
  return (
    isRecord(value) &&
    isOptional(value['normalized'], Array.isArray) &&
    isOptional(value['warnings'], Array.isArray) &&
    isOptional(value['rate_limit'], isRecord) &&
    isOptional(value['retry_after_seconds'], (seconds) => typeof seconds === 'number') &&
    isOptional(value['correlation_id'], isString)
  );
}

function isDetail(value: unknown): boolean {
  return isRecord(value) && isString(value['path']) && isString(value['issue']) && isString(value['received_type']);
}

/**
 * Structural recognizer: true when `value` has every required envelope field with its JSON type.
 * - `error_kind`, `tool`, `summary`, `error_code`: strings (any value, so a later kind or code passes);
 * - `details`: an array of objects, each with string `path`, `issue` and `received_type`;
 * - `hints`: an array of strings; `examples`: an array;
 * - `retryable`: a boolean;
 * - `_envelope_version`: an integer, 1 or more (the string `"1"` is not);
 * - `upstream` and `legacy_error_kind`, when present, strings;
 * - `_meta`, when present, an object whose `normalized` and `warnings` (when present) are arrays,
 *   `rate_limit` an object, `retry_after_seconds` a number and `correlation_id` a string.
 *
 * Extra keys and unknown vocabulary values are accepted; a fragment with only some of the
 * required fields is not an envelope. Never throws.
 *
 * @param value - any value.
 * @returns whether the client helpers treat `value` as an envelope.
 */
export function isReceivedEnvelope(value: unknown): value is ReceivedEnvelope {
  if (!isRecord(value)) return false;
  const version = value['_envelope_version'];
  return (
    isString(value['error_kind']) &&
    isString(value['tool']) &&
    isString(value['summary']) &&
    isString(value['error_code']) &&
    typeof value['retryable'] === 'boolean' &&
    typeof version === 'number' &&
    Number.isInteger(version) &&
    version >= 1 &&
    Array.isArray(value['details']) &&
    value['details'].every(isDetail) &&
    Array.isArray(value['hints']) &&
    value['hints'].every(isString) &&
    Array.isArray(value['examples']) &&
    isOptional(value['upstream'], isString) &&
    isOptional(value['legacy_error_kind'], isString) &&
    isOptional(value['_meta'], isMeta)
  );
}

/**
 * The wait an envelope asks for before a retry: `_meta.retry_after_seconds` when it is a finite,
 * non-negative number.
 *
 * @param envelope - a received envelope.
 * @returns seconds (may be fractional), or `undefined` when the envelope names no wait.
 */
export function retryAfterSecondsOf(envelope: ReceivedEnvelope): number | undefined {
  const seconds = envelope._meta?.retry_after_seconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
