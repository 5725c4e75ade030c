/**
 * Building and finalizing envelopes. A failed call's envelope is built here in one entry,
 * {@link buildEnvelope}, from the draft classify.ts made of the failure. Every envelope core
 * emits goes through `finalizeEnvelope`: redaction, size bounds, `legacy_error_kind` from the migrations table,
 * the advertised-kind check, then the contract schema. One that still fails is replaced by an
 * `internal_error` envelope and logged. Implements CONTRACT.md "The envelope", "Hints" (bounds),
 * "Migration windows" and "Conformance" rule 1.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

import {
  CONTRACT_VERSION,
  coveringMigration,
  toV1Envelope,
  UPSTREAM_HTTP_CODE_PREFIX,
  validateEnvelope,
} from '@mcp-envelope/contract';
import type { EnvelopeDetail, EnvelopeMeta, ErrorEnvelope, ErrorKind, ErrorKindV1 } from '@mcp-envelope/contract';

import { capRateLimitReset, capRetryAfter, MAX_RETRY_AFTER_SECONDS } from './http-meta/rate-limit.js';
import type { Redactor } from './redact.js';
import type { CallTelemetry, EnvelopeDraft, ServerEnvironment } from './types.js';

/** At most this many hints per envelope. */
export const MAX_HINTS = 10;
/** At most this many characters per hint (longer ones are cut and end with `…`). */
export const MAX_HINT_LENGTH = 300;
/** At most this many details per envelope; the rest are counted in a closing hint. */
export const MAX_DETAILS = 50;
/** At most this many characters in `summary`. */
export const MAX_SUMMARY_LENGTH = 1000;
/** At most this many characters in `tool` (an unknown tool's name is the caller's text). */
export const MAX_TOOL_LENGTH = 256;
/** At most this many characters in any string inside a detail (`path`, `issue`, `extra`, ...). */
export const MAX_DETAIL_STRING_LENGTH = 1000;

/** The generic summary of every `internal_error` envelope. */
export const INTERNAL_ERROR_SUMMARY = 'The server failed while running this tool. The failure has been logged.';

/**
 * This package's version, read from its `package.json` (used for the migrations table).
 */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Builds an `internal_error` / `INTERNAL_ERROR` envelope: generic summary, no details, one hint,
 * `_meta.correlation_id`; no message or stack ever leaks.
 *
 * @param tool - the tool that failed.
 * @param correlationId - the id written to the log line with the detail.
 * @returns the envelope (valid by construction).
 */
export function internalErrorEnvelope(tool: string, correlationId: string): ErrorEnvelope {
  return {
    error_kind: 'internal_error',
    tool: tool === '' ? 'unknown_tool' : tool,
    summary: INTERNAL_ERROR_SUMMARY,
    details: [],
    hints: [`If this keeps happening, report correlation_id ${correlationId} to the server operator.`],
    examples: [],
    error_code: 'INTERNAL_ERROR',
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
    _meta: { correlation_id: correlationId },
  };
}

function capString(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/**
 * Line breaks with the blanks around them: the mandatory breaks of Unicode line breaking (LF,
 * VT, FF, CR, NEL, the line and paragraph separators), so a summary that any viewer shows as
 * several lines is folded.
 */
const LINE_BREAKS = /[^\S\n\v\f\r\u0085\u2028\u2029]*[\n\v\f\r\u0085\u2028\u2029]\s*/;

/** Whether a string holds any of the {@link LINE_BREAKS} characters. */
const HAS_LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;

/**
 * `summary` on one line, as the contract wants it: every line break ({@link LINE_BREAKS}, vertical
 * tab and form feed included), with the blanks around it, becomes one space, and a break at either
 * end is dropped.
 *
 * @param summary - any summary.
 * @returns the one-line summary (the same string when it had no line break).
 */
export function foldSummary(summary: string): string {
  if (!HAS_LINE_BREAK.test(summary)) return summary;
  // split at every break: a `g` pattern at module level would share its lastIndex
  const spaced = summary.split(LINE_BREAKS).join(' ');
  const folded = spaced.trim();
  return folded === '' ? spaced : folded;
}

/** Whether a value holds a string (or key) longer than {@link MAX_DETAIL_STRING_LENGTH}; no copies. */
function hasLongString(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.length > MAX_DETAIL_STRING_LENGTH;
  if (typeof value !== 'object' || value === null || depth > 8) return false;
  if (Array.isArray(value)) return value.some((item: unknown) => hasLongString(item, depth + 1));
  for (const key in value) {
    if (key.length > MAX_DETAIL_STRING_LENGTH || hasLongString((value as Record<string, unknown>)[key], depth + 1))
      return true;
  }
  return false;
}

/** Caps every string inside a detail (keys too), so one echoed value cannot blow up the reply. */
function capDetail(detail: EnvelopeDetail): EnvelopeDetail {
  let changed = false;
  const capValue = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') {
      if (value.length <= MAX_DETAIL_STRING_LENGTH) return value;
      changed = true;
      return capString(value, MAX_DETAIL_STRING_LENGTH);
    }
    if (typeof value !== 'object' || value === null || depth > 8) return value;
    if (Array.isArray(value)) return value.slice(0, MAX_DETAILS).map((item: unknown) => capValue(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        // a long key alone is reason enough for the copy: a detail may carry a key of megabytes
        if (key.length > MAX_DETAIL_STRING_LENGTH) changed = true;
        return [capString(key, MAX_DETAIL_STRING_LENGTH), capValue(item, depth + 1)];
      }),
    );
  };
  const capped = capValue(detail, 0) as EnvelopeDetail;
  return changed ? capped : detail;
}

/**
 * `_meta` with `retry_after_seconds` and `rate_limit.reset_after_seconds` at most
 * {@link MAX_RETRY_AFTER_SECONDS}, whoever stated the wait (a handler, an adapter reading its own
 * headers): the same object when it already is.
 */
function boundRetryAfter(meta: EnvelopeMeta | undefined): EnvelopeMeta | undefined {
  if (meta === undefined) return meta;
  const seconds = meta.retry_after_seconds;
  const rateLimit = meta.rate_limit === undefined ? undefined : capRateLimitReset(meta.rate_limit);
  const waitWithin = typeof seconds !== 'number' || seconds <= MAX_RETRY_AFTER_SECONDS;
  if (waitWithin && rateLimit === meta.rate_limit) return meta;
  return {
    ...meta,
    ...(waitWithin ? {} : { retry_after_seconds: capRetryAfter(seconds) }),
    ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
  };
}

/**
 * Applies the size bounds and puts `summary` on one line ({@link foldSummary}): at most {@link MAX_HINTS} hints of at most {@link MAX_HINT_LENGTH}
 * characters, at most {@link MAX_DETAILS} details, `summary` at most {@link MAX_SUMMARY_LENGTH}
 * and `tool` at most {@link MAX_TOOL_LENGTH} characters, every string inside a detail (keys
 * included) at most {@link MAX_DETAIL_STRING_LENGTH} characters; cut strings end with `…`. When
 * details are cut, the last hint slot says how many were left out (`"12 more details omitted"`).
 * `_meta.retry_after_seconds` is at most {@link MAX_RETRY_AFTER_SECONDS}.
 * A caller-chosen key or tool name of megabytes therefore cannot make the reply exceed a client's
 * read buffer.
 *
 * @param envelope - any envelope.
 * @param omittedDetails - details left out before the envelope was built (a failed argument
 *   check builds at most 200); added to the count in the closing hint. Default 0.
 * @returns the same object when already within bounds, else a bounded copy.
 */
export function boundEnvelope(envelope: ErrorEnvelope, omittedDetails = 0): ErrorEnvelope {
  const details = envelope.details;
  const hints = envelope.hints;
  const summary = capString(foldSummary(envelope.summary), MAX_SUMMARY_LENGTH);
  const tool = capString(envelope.tool, MAX_TOOL_LENGTH);
  const cappedDetails = details.some((detail) => hasLongString(detail, 0)) ? details.map(capDetail) : details;
  const meta = boundRetryAfter(envelope._meta);
  const withMeta = meta === undefined ? {} : { _meta: meta };
  const omitted = Math.max(0, details.length - MAX_DETAILS) + omittedDetails;
  const needsCut = omitted > 0 || hints.length > MAX_HINTS || hints.some((hint) => hint.length > MAX_HINT_LENGTH);
  if (!needsCut) {
    const unchanged =
      summary === envelope.summary && tool === envelope.tool && cappedDetails === details && meta === envelope._meta;
    return unchanged ? envelope : { ...envelope, summary, tool, details: cappedDetails, ...withMeta };
  }
  envelope = { ...envelope, summary, tool, details: cappedDetails, ...withMeta };
  const shortened = hints.map((hint) =>
    hint.length > MAX_HINT_LENGTH ? `${hint.slice(0, MAX_HINT_LENGTH - 1)}…` : hint,
  );
  let boundedHints = shortened.slice(0, MAX_HINTS);
  let boundedDetails: readonly EnvelopeDetail[] = envelope.details;
  if (omitted > 0) {
    boundedDetails = envelope.details.slice(0, MAX_DETAILS);
    boundedHints = [...shortened.slice(0, MAX_HINTS - 1), `${omitted} more details omitted`];
  }
  return { ...envelope, details: boundedDetails, hints: boundedHints };
}

function redactEnvelope(envelope: ErrorEnvelope, redactor: Redactor): ErrorEnvelope {
  // Every string of the envelope, `tool` and all of `_meta` included (an upstream can echo a
  // token into a rate-limit header as easily as into a message). Testing the JSON text first
  // costs a third of walking an envelope that holds nothing to redact, the common case.
  return redactor.mayRedact(JSON.stringify(envelope)) ? redactor.value(envelope) : envelope;
}

/**
 * The prior kind an envelope of this server must carry as `legacy_error_kind`, if any: the
 * condition takes part, so a code shared by conditions with different pasts (an upstream 429 and
 * the server's own limiter, both `RATE_LIMITED`) is given only the kind its own condition had.
 */
function legacyKindOf(
  envelope: ErrorEnvelope,
  environment: ServerEnvironment,
  condition: string | undefined,
): ErrorKind | ErrorKindV1 | undefined {
  const subject = {
    error_code: envelope.error_code,
    error_kind: envelope.error_kind,
    version: CONTRACT_VERSION,
    condition,
  };
  const entry = coveringMigration(subject, environment.serverId, environment.openMigrations);
  if (entry === undefined) return undefined;
  // a v1 -> v2 window names the kind a v1 reader saw for this very envelope: none for an upstream
  // v1 never knew or another server's (a relayed envelope), whose v1 kind was never this one
  if (entry.contract_version === 2 && toV1Envelope(envelope)?.error_kind !== entry.from_kind) return undefined;
  return entry.from_kind;
}

/**
 * Makes an envelope ready for the wire: redaction of summary, details, hints, examples and
 * `_meta.warnings`; bounds ({@link boundEnvelope}); `legacy_error_kind` when an open migration
 * covers its code, kind and condition; then checks. An envelope whose kind is not advertised, or that fails
 * the contract schema, is logged (with a correlation id and the violations, never its content)
 * and replaced by {@link internalErrorEnvelope}.
 *
 * @param envelope - the envelope to send.
 * @param environment - see {@link ServerEnvironment}.
 * @param omittedDetails - details left out before the envelope was built (see {@link boundEnvelope}).
 * @param condition - what gave the envelope, for migration entries that name their conditions
 *   (`upstream_http` for an adapter's verdict on the fronted API's answer); `undefined` for
 *   envelopes core or a handler made, which such entries never cover.
 * @returns a schema-valid envelope.
 */
function finalizeEnvelope(
  envelope: ErrorEnvelope,
  environment: ServerEnvironment,
  omittedDetails = 0,
  condition?: string,
): ErrorEnvelope {
  let result: ErrorEnvelope;
  try {
    result = boundEnvelope(redactEnvelope(withUpstream(envelope, environment), environment.redactor), omittedDetails);
    if (result.legacy_error_kind === undefined && typeof result.error_code === 'string') {
      const legacy = legacyKindOf(result, environment, condition);
      if (legacy !== undefined) result = { ...result, legacy_error_kind: legacy };
    }
  } catch (error) {
    return replaceInvalid(envelope, environment, [
      { path: '', keyword: 'exception', message: error instanceof Error ? error.name : typeof error },
    ]);
  }
  return checkEnvelope(result, environment);
}

/** Whether an envelope is about an upstream call and so must name its upstream (CONTRACT.md "The upstream field"). */
function involvesUpstream(envelope: ErrorEnvelope): boolean {
  return (
    envelope.error_kind === 'upstream_http' ||
    envelope.error_kind === 'upstream_client' ||
    (typeof envelope.error_code === 'string' && envelope.error_code.startsWith(UPSTREAM_HTTP_CODE_PREFIX))
  );
}

/** `envelope` naming the primary upstream when it is about an upstream call and names none. */
function withUpstream(envelope: ErrorEnvelope, environment: ServerEnvironment): ErrorEnvelope {
  const primary = environment.upstreams[0];
  if (envelope.upstream !== undefined || primary === undefined || !involvesUpstream(envelope)) return envelope;
  return { ...envelope, upstream: primary };
}

/**
 * Checks an adapter's verdict names one of the adapter's own upstreams (or none, filled later):
 * an envelope naming an upstream the server does not advertise would mislead an agent.
 * Returns `envelope` itself, or an `internal_error` replacement (and a log line).
 */
function checkAdapterUpstream(envelope: ErrorEnvelope, environment: ServerEnvironment): ErrorEnvelope {
  if (envelope.upstream === undefined || environment.upstreams.includes(envelope.upstream)) return envelope;
  return replaceInvalid(envelope, environment, [
    {
      path: '/upstream',
      keyword: 'advertised',
      message: `upstream "${envelope.upstream}" is not one of this server's upstreams`,
    },
  ]);
}

/**
 * Checks an envelope without changing it: advertised kind, then the contract schema.
 * Returns `envelope` itself when it passes, else an `internal_error` replacement (and a log line).
 */
function checkEnvelope(envelope: ErrorEnvelope, environment: ServerEnvironment): ErrorEnvelope {
  if (!environment.advertisedKinds.has(envelope.error_kind)) {
    return replaceInvalid(envelope, environment, [
      {
        path: '/error_kind',
        keyword: 'advertised',
        message: `error_kind "${envelope.error_kind}" is not advertised by this server`,
      },
    ]);
  }
  const validation = validateEnvelope(envelope);
  if (validation.valid) return envelope;
  return replaceInvalid(envelope, environment, validation.errors);
}

function replaceInvalid(
  envelope: ErrorEnvelope,
  environment: ServerEnvironment,
  violations: readonly { readonly path: string; readonly keyword: string; readonly message: string }[],
): ErrorEnvelope {
  const correlationId = randomUUID();
  const tool = typeof envelope.tool === 'string' && envelope.tool !== '' ? envelope.tool : 'unknown_tool';
  environment.logger.error(
    {
      correlation_id: correlationId,
      tool,
      error_kind: envelope.error_kind,
      error_code: envelope.error_code,
      violations: violations.slice(0, 20).map((violation) => ({
        path: violation.path,
        keyword: violation.keyword,
        message: environment.redactor.string(violation.message),
      })),
    },
    'an error envelope failed the contract checks and was replaced by internal_error',
  );
  return internalErrorEnvelope(tool, correlationId);
}

/**
 * Assembles `_meta` from its parts, leaving out `undefined` values and empty arrays.
 *
 * @param parts - `_meta` keys (`normalized`, `rate_limit`, `retry_after_seconds`, `warnings`,
 *   `correlation_id`, ...), any of them `undefined`.
 * @returns the object, or `undefined` when nothing is set.
 */
export function composeMeta(parts: Readonly<Record<string, unknown>>): EnvelopeMeta | undefined {
  const meta: Record<string, unknown> = {};
  let count = 0;
  for (const [key, value] of Object.entries(parts)) {
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    meta[key] = value;
    count += 1;
  }
  return count === 0 ? undefined : meta;
}

/** `envelope` with the call's telemetry added to `_meta`; keys the envelope sets itself win. */
function withCallTelemetry(envelope: ErrorEnvelope, telemetry: CallTelemetry): ErrorEnvelope {
  const meta = composeMeta(telemetry);
  if (meta === undefined) return envelope;
  return { ...envelope, _meta: { ...meta, ...envelope._meta } };
}

/** What a thrown value was, for the log line: name, message and stack, redacted. */
function describeThrown(error: unknown, redactor: Redactor): Record<string, unknown> {
  const redact = redactor.string;
  if (error instanceof Error) {
    return {
      type: error.name,
      message: redact(error.message),
      ...(error.stack === undefined ? {} : { stack: redact(error.stack) }),
    };
  }
  let text: string;
  try {
    text = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    text = Object.prototype.toString.call(error);
  }
  return { type: typeof error, message: redact(text.slice(0, 4000)) };
}

/**
 * Logs the full detail of an unclassified failure once and returns the `internal_error` envelope
 * that points at the log line through `_meta.correlation_id`, with the call's telemetry.
 */
function internalFailureEnvelope(
  draft: Extract<EnvelopeDraft, { type: 'internal' }>,
  environment: ServerEnvironment,
): ErrorEnvelope {
  const correlationId = randomUUID();
  environment.logger.error(
    {
      correlation_id: correlationId,
      tool: draft.tool,
      reason: draft.reason,
      error: describeThrown(draft.error, environment.redactor),
    },
    'tool call failed with an unclassified error',
  );
  const envelope = internalErrorEnvelope(draft.tool, correlationId);
  const withTelemetry = withCallTelemetry(envelope, draft.telemetry);
  // The bare envelope is valid by construction; one with telemetry goes through the checks.
  return withTelemetry === envelope ? envelope : finalizeEnvelope(withTelemetry, environment);
}

/** The envelope of the adapter's verdict: its `_meta` composed, its upstream checked, then finalized. */
function adapterEnvelope(
  draft: Extract<EnvelopeDraft, { type: 'adapter' }>,
  environment: ServerEnvironment,
): ErrorEnvelope {
  const meta = composeMeta(draft.meta);
  const envelope: ErrorEnvelope = meta === undefined ? draft.envelope : { ...draft.envelope, _meta: meta };
  const checked = checkAdapterUpstream(envelope, environment);
  if (checked !== envelope) return checked;
  return finalizeEnvelope(envelope, environment, 0, draft.condition);
}

/**
 * The envelope a failed call answers with, built from classify.ts's draft in one entry: composed
 * (`_meta` from the call's telemetry), checked (an adapter's upstream) and finalized
 * (`finalizeEnvelope`: redaction, bounds, `legacy_error_kind`, advertised kind, schema). An
 * `internal` draft logs its error once under the correlation id its envelope names.
 * Implements CONTRACT.md "The envelope" and "Conformance" rule 1.
 *
 * @param draft - what the envelope is made of (see `EnvelopeDraft`).
 * @param environment - see {@link ServerEnvironment}.
 * @returns a schema-valid envelope of an advertised kind; a `ready` draft's envelope as it is.
 * @throws only what the server's logger throws (every other step catches its own failure).
 */
export function buildEnvelope(draft: EnvelopeDraft, environment: ServerEnvironment): ErrorEnvelope {
  switch (draft.type) {
    case 'handler':
      return finalizeEnvelope(withCallTelemetry(draft.envelope, draft.telemetry), environment);
    case 'adapter':
      return adapterEnvelope(draft, environment);
    case 'internal':
      return internalFailureEnvelope(draft, environment);
    case 'core':
      return finalizeEnvelope(draft.envelope, environment, draft.omittedDetails);
    case 'ready':
      return draft.envelope;
  }
}
