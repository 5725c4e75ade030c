/**
 * Judges a probe's outcome: did the expected envelope arrive, is it valid, is its kind advertised,
 * do kind and code fit the probe.
 *
 * @packageDocumentation
 */
import { SCHEMA_KEYWORD_CODES, validateMeta } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

import type { CallOutcome, OutcomeChannel } from './call-outcome.js';
import { kindAdvertisementIssue } from './capability-check.js';
import type { ServerSettings } from './capability-check.js';
import { isRecord } from '@mcp-envelope/contract';
import type { ExpectedFailure, UnknownKeyPolicy } from './probe-plan.js';
import type { CapabilityStatus, ProbeName, ProbeRow, RowResult } from './report-types.js';

/** How long a quote of what arrived may be, in characters. */
export const QUOTE_LIMIT = 120;

/** Informational notes for envelopes that arrived on a channel other than an `isError` result. */
const CHANNEL_NOTES: Readonly<Partial<Record<OutcomeChannel, string>>> = {
  json_rpc_error: 'envelope arrived in a JSON-RPC error',
  in_band: 'envelope arrived in-band (isError not set)',
};

/** A judged outcome: the row's `got`, `result` and note parts. */
export interface Judgement {
  readonly got: string;
  readonly result: RowResult;
  readonly notes: readonly string[];
}

/**
 * Shortens text for a report cell: collapses whitespace and cuts at `limit` characters with `…`.
 *
 * @param text - any text.
 * @param limit - the maximum length in characters (default {@link QUOTE_LIMIT}).
 * @returns the shortened text.
 */
export function truncate(text: string, limit = QUOTE_LIMIT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/**
 * Formats an expected or received `kind/code` pair.
 *
 * @param kind - the `error_kind`.
 * @param code - the `error_code`.
 * @returns `kind/code`.
 */
export function kindCode(kind: string, code: string): string {
  return `${kind}/${code}`;
}

function candidateLabel(candidate: Readonly<Record<string, unknown>>): string {
  const part = (value: unknown): string => (typeof value === 'string' ? value : '?');
  return `${part(candidate['error_kind'])}/${part(candidate['error_code'])} (invalid)`;
}

/**
 * The checks shared by every outcome that is not a valid envelope.
 *
 * @param outcome - a non-envelope outcome.
 * @param expected - what the probe expects, for the success message.
 * @returns the judgement (always FAIL).
 */
function judgeWithoutEnvelope(outcome: Exclude<CallOutcome, { type: 'envelope' }>, expected: string): Judgement {
  switch (outcome.type) {
    case 'success':
      return { got: 'success', result: 'FAIL', notes: [`call succeeded; expected ${expected}`] };
    case 'invalid-envelope': {
      const reasons = outcome.violations.map(
        (violation) => `${violation.path === '' ? '(root)' : violation.path}: ${violation.message}`,
      );
      return {
        got: candidateLabel(outcome.candidate),
        result: 'FAIL',
        notes: [truncate(`invalid envelope: ${reasons.join('; ')}`, 240)],
      };
    }
    case 'no-envelope':
      if (outcome.channel === 'timeout') return { got: 'timeout', result: 'FAIL', notes: [outcome.text] };
      return {
        got: 'no envelope',
        result: 'FAIL',
        notes: [`no envelope (${outcome.channel}): "${truncate(outcome.text)}"`],
      };
  }
}

/**
 * Judges a probe that expects a failure with a given kind and code: (1) an envelope arrived,
 * (2) it is schema-valid, (3) its kind is advertised, (4) kind and code match.
 *
 * @param outcome - the call's outcome.
 * @param expected - the expected kind and code.
 * @param capability - the advertised capability.
 * @returns the judgement; `notes` lists every failed check.
 */
export function judgeExpectedFailure(
  outcome: CallOutcome,
  expected: ExpectedFailure,
  capability: CapabilityStatus,
): Judgement {
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, expected.code);
  const { error_kind: kind, error_code: code } = outcome.envelope;
  const notes = envelopeIssues(outcome, capability);
  if (kind !== expected.kind || code !== expected.code)
    notes.push(`expected ${kindCode(expected.kind, expected.code)}`);
  const channel = CHANNEL_NOTES[outcome.channel];
  return {
    got: kindCode(kind, code),
    result: notes.length === 0 ? 'PASS' : 'FAIL',
    notes: channel === undefined ? notes : [...notes, channel],
  };
}

/**
 * What is wrong with an envelope that arrived whatever the probe expected: its kind is not
 * advertised, or its text copy differs from it.
 */
function envelopeIssues(outcome: Extract<CallOutcome, { type: 'envelope' }>, capability: CapabilityStatus): string[] {
  const issues: string[] = [];
  const advertised = kindAdvertisementIssue(
    capability,
    outcome.envelope.error_kind,
    outcome.envelope._envelope_version,
  );
  if (advertised !== undefined) issues.push(advertised);
  if (outcome.textCopyIssue !== undefined) issues.push(outcome.textCopyIssue);
  return issues;
}

function detailNames(envelope: ErrorEnvelope, key: string): boolean {
  return envelope.details.some(
    (detail) =>
      detail.path === key ||
      Object.values(detail).some((value) => value === key || (Array.isArray(value) && value.includes(key))),
  );
}

function successMetaNotes(value: unknown): string[] {
  if (!isRecord(value) || !Object.hasOwn(value, '_meta')) return [];
  const validation = validateMeta(value['_meta']);
  if (validation.valid) return [];
  return [
    truncate(
      `invalid _meta: ${validation.errors.map((error) => `${error.path || '(root)'}: ${error.message}`).join('; ')}`,
      240,
    ),
  ];
}

function reportsRename(value: unknown, key: string): boolean {
  return reportsEvent(value, 'renamed', 'from', key);
}

function successJudgement(value: unknown, key: string, canonical: string, optional: boolean): Judgement {
  const metaNotes = successMetaNotes(value);
  const failed = metaNotes.length > 0;
  if (reportsRename(value, key))
    return {
      got: 'success',
      result: failed ? 'FAIL' : 'PASS',
      notes: [`normalized: "${key}" accepted, renamed event in _meta.normalized`, ...metaNotes],
    };
  if (optional) {
    const reason = `inconclusive: "${key}" accepted, but "${canonical}" is optional and no renamed event was reported, so a server that dropped the key would look the same`;
    return { got: 'success', result: failed ? 'FAIL' : 'SKIP', notes: [reason, ...metaNotes] };
  }
  return {
    got: 'success',
    result: failed ? 'FAIL' : 'PASS',
    notes: [`normalized: "${key}" accepted (call succeeded)`, ...metaNotes],
  };
}

/** Everything {@link judgeWrongCase} needs. */
export interface WrongCaseInput {
  readonly outcome: CallOutcome;
  /** The case-changed key that was sent. */
  readonly key: string;
  /** The schema's spelling of the key. */
  readonly canonical: string;
  /** Whether the renamed property is optional in the schema (then a success cannot prove normalization). */
  readonly optional: boolean;
  readonly capability: CapabilityStatus;
  /** The server's reported switches (`undefined` fields: not reported). */
  readonly settings: ServerSettings;
  /** The rejection that passes: `mcp_input_validation` / `SCHEMA_ADDITIONAL_PROPERTIES`. */
  readonly expected: ExpectedFailure;
  /** How the schema treats the wrong-case key as an undeclared key; absent: `forbidden`. */
  readonly unknownKeys?: UnknownKeyPolicy;
  /** Calls the same tool with the correct key; used only when the outcome alone cannot decide. */
  readonly reference: () => Promise<CallOutcome>;
}

function outcomeLabel(outcome: CallOutcome): string {
  if (outcome.type === 'envelope') return kindCode(outcome.envelope.error_kind, outcome.envelope.error_code);
  if (outcome.type === 'invalid-envelope') return candidateLabel(outcome.candidate);
  return outcome.type === 'success' ? 'success' : 'no envelope';
}

/**
 * The `wrong-case` expectation when the server reports normalization off: a `SCHEMA_*` envelope
 * whose details name the key, or a hint naming both spellings (a `case_mismatch` hint).
 *
 * @param key - the case-changed key that was sent.
 * @returns the text of the row's `expected` column.
 */
export function wrongCaseUnnormalizedExpectation(key: string): string {
  return `SCHEMA_* naming "${key}" or a case_mismatch hint`;
}

/**
 * Whether the key may pass through as an undeclared key when nothing renames it: the schema
 * admits it, or says nothing and the server reports strict unknown fields off.
 *
 * @param unknownKeys - how the schema treats undeclared keys.
 * @param settings - the server's reported switches.
 * @returns `true` when a success with the key unrenamed is conforming.
 */
export function mayPassThrough(unknownKeys: UnknownKeyPolicy | undefined, settings: ServerSettings): boolean {
  return unknownKeys === 'admitted' || (unknownKeys === 'silent' && settings.strictUnknownFields === false);
}

function reportsEvent(value: unknown, kind: string, field: string, key: string): boolean {
  if (!isRecord(value) || !isRecord(value['_meta'])) return false;
  const events = value['_meta']['normalized'];
  return (
    Array.isArray(events) && events.some((event) => isRecord(event) && event['kind'] === kind && event[field] === key)
  );
}

/** A success with normalization off, for a key the schema lets through as an undeclared key. */
function unnormalizedPassThrough(value: unknown, key: string): Judgement {
  const metaNotes = successMetaNotes(value);
  if (reportsEvent(value, 'renamed', 'from', key)) {
    return {
      got: 'success',
      result: 'FAIL',
      notes: [
        `"${key}" renamed although normalization is off (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED false)`,
        ...metaNotes,
      ],
    };
  }
  const result = metaNotes.length > 0 ? 'FAIL' : undefined;
  if (reportsEvent(value, 'unknown_field_passed_through', 'field', key)) {
    return {
      got: 'success',
      result: result ?? 'PASS',
      notes: [
        `passed through: "${key}" accepted as an undeclared key the schema admits (normalization off)`,
        ...metaNotes,
      ],
    };
  }
  const reason = `inconclusive: "${key}" accepted, and the schema lets it through as an undeclared key (normalization off), but no unknown_field_passed_through event shows that it was not renamed`;
  return { got: 'success', result: result ?? 'SKIP', notes: [reason, ...metaNotes] };
}

function judgeUnnormalized(input: WrongCaseInput): Judgement {
  const { outcome, key, canonical } = input;
  const expectation = wrongCaseUnnormalizedExpectation(key);
  if (outcome.type === 'success' && mayPassThrough(input.unknownKeys, input.settings))
    return unnormalizedPassThrough(outcome.value, key);
  if (outcome.type === 'success') {
    return {
      got: 'success',
      result: 'FAIL',
      notes: [
        `"${key}" accepted although normalization is off (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED false); expected ${expectation}`,
      ],
    };
  }
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, expectation);
  const { envelope } = outcome;
  const issues = envelopeIssues(outcome, input.capability);
  const got = kindCode(envelope.error_kind, envelope.error_code);
  if (envelope.error_code.startsWith('SCHEMA_') && detailNames(envelope, key)) {
    return {
      got,
      result: issues.length === 0 ? 'PASS' : 'FAIL',
      notes: [`rejected: "${key}" named in a ${envelope.error_code} detail (normalization off)`, ...issues],
    };
  }
  const hint = envelope.hints.find((text) => text.includes(key) && text.includes(canonical));
  if (hint !== undefined)
    return {
      got,
      result: issues.length === 0 ? 'PASS' : 'FAIL',
      notes: [`case_mismatch hint: "${truncate(hint)}" (normalization off)`, ...issues],
    };
  return {
    got,
    result: 'FAIL',
    notes: [`normalization is off (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED false); expected ${expectation}`, ...issues],
  };
}

async function judgeNormalizable(input: WrongCaseInput): Promise<Judgement> {
  const { outcome, key, capability, expected: rejection } = input;
  if (outcome.type === 'success') return successJudgement(outcome.value, key, input.canonical, input.optional);
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, `normalization or ${rejection.code}`);
  const { envelope } = outcome;
  const got = kindCode(envelope.error_kind, envelope.error_code);
  const extraNotes = envelopeIssues(outcome, capability);
  if (envelope.error_kind === rejection.kind && envelope.error_code === rejection.code) {
    if (input.settings.normalizationEnabled === true) {
      return {
        got,
        result: 'FAIL',
        notes: [
          `"${key}" rejected as an additional property although normalization is on (MCP_SCHEMA_KEY_NORMALIZATION_ENABLED true)`,
          ...extraNotes,
        ],
      };
    }
    return {
      got,
      result: extraNotes.length === 0 ? 'PASS' : 'FAIL',
      notes: [`rejected: "${key}" reported as an additional property`, ...extraNotes],
    };
  }
  if (detailNames(envelope, key)) {
    return {
      got,
      result: 'FAIL',
      notes: [
        `complaint names the wrong-case key "${key}"; expected normalization or ${kindCode(rejection.kind, rejection.code)}`,
        ...extraNotes,
      ],
    };
  }
  const reference = await input.reference();
  const same =
    reference.type === 'envelope' &&
    reference.envelope.error_kind === envelope.error_kind &&
    reference.envelope.error_code === envelope.error_code;
  if (!same) {
    return {
      got,
      result: 'FAIL',
      notes: [
        `neither normalized nor rejected as an additional property: with the correct key the call gives ${outcomeLabel(reference)}`,
        ...extraNotes,
      ],
    };
  }
  if (extraNotes.length > 0)
    return { got, result: 'FAIL', notes: [`same outcome as with the correct key (${got})`, ...extraNotes] };
  if (input.optional) {
    return {
      got,
      result: 'SKIP',
      notes: [
        `inconclusive: same outcome as with the correct key (${got}), but "${input.canonical}" is optional, so a server that dropped the key would look the same`,
      ],
    };
  }
  return { got, result: 'PASS', notes: [`normalized: same outcome as with the correct key (${got})`] };
}

/**
 * Judges the `wrong-case` probe by the server's reported switches.
 *
 * - Normalization off (`MCP_SCHEMA_KEY_NORMALIZATION_ENABLED` false in `get_envelope_contract`):
 *   a `SCHEMA_*` envelope naming the key, or a hint naming both spellings, passes. When the key
 *   may pass through as an undeclared key ({@link mayPassThrough}), a success passes too if an
 *   `unknown_field_passed_through` event names the key, fails if a `renamed` event does, and is
 *   inconclusive (`SKIP`) otherwise.
 * - Otherwise two outcomes pass: the server normalized the key (the call succeeded, or failed the
 *   same way as the same call with the correct key, with no complaint naming the wrong-case key),
 *   or (unless normalization is reported on) it rejected the key as `mcp_input_validation` /
 *   `SCHEMA_ADDITIONAL_PROPERTIES`. When the property is optional and no `renamed` event proves
 *   the rename, a normalized-looking outcome is inconclusive: `SKIP` with the reason.
 *
 * A failure without a valid envelope, or with an unadvertised kind or a differing text copy, fails.
 *
 * @param input - see {@link WrongCaseInput}.
 * @returns the judgement; the first note says which outcome happened.
 */
export async function judgeWrongCase(input: WrongCaseInput): Promise<Judgement> {
  return input.settings.normalizationEnabled === false ? judgeUnnormalized(input) : judgeNormalizable(input);
}

/** Everything {@link judgePassThrough} needs. */
export interface PassThroughInput {
  readonly outcome: CallOutcome;
  /** The unknown key that was sent. */
  readonly key: string;
  readonly capability: CapabilityStatus;
  /** Calls the same tool without the unknown key; used only when the outcome alone cannot decide. */
  readonly reference: () => Promise<CallOutcome>;
}

/**
 * Judges the `unknown-extra` probe on a server that reports `MCP_STRICT_UNKNOWN_FIELDS` off, for
 * a schema that says nothing about `additionalProperties`: the key must pass through, so the call
 * succeeds or fails as it does without the key; a `SCHEMA_ADDITIONAL_PROPERTIES` rejection fails.
 *
 * @param input - see {@link PassThroughInput}.
 * @returns the judgement.
 */
export async function judgePassThrough(input: PassThroughInput): Promise<Judgement> {
  const { outcome, key } = input;
  if (outcome.type === 'success') {
    const metaNotes = successMetaNotes(outcome.value);
    return {
      got: 'success',
      result: metaNotes.length === 0 ? 'PASS' : 'FAIL',
      notes: [`passed through: "${key}" accepted (strict unknown fields off)`, ...metaNotes],
    };
  }
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, 'pass-through');
  const got = kindCode(outcome.envelope.error_kind, outcome.envelope.error_code);
  const issues = envelopeIssues(outcome, input.capability);
  if (outcome.envelope.error_code === SCHEMA_KEYWORD_CODES.additionalProperties) {
    return {
      got,
      result: 'FAIL',
      notes: [`"${key}" rejected although strict unknown fields is off (MCP_STRICT_UNKNOWN_FIELDS false)`, ...issues],
    };
  }
  const reference = await input.reference();
  const same =
    reference.type === 'envelope' &&
    reference.envelope.error_kind === outcome.envelope.error_kind &&
    reference.envelope.error_code === outcome.envelope.error_code;
  if (!same)
    return {
      got,
      result: 'FAIL',
      notes: [
        `without "${key}" the call gives ${outcomeLabel(reference)}, so the key did not simply pass through`,
        ...issues,
      ],
    };
  return {
    got,
    result: issues.length === 0 ? 'PASS' : 'FAIL',
    notes: [`passed through: same outcome as without the key (${got})`, ...issues],
  };
}

/**
 * A probe report row from a judgement: the same row shape for the probe's own checks and the
 * upstream fault rounds.
 *
 * @param probe - the check.
 * @param tool - the tool it called, or `-`.
 * @param expected - what the check expects, in words.
 * @param judgement - what came back and the verdict.
 * @param durationMs - how long the check took, in milliseconds.
 * @param args - the arguments it sent, when it called a tool.
 * @returns the row.
 */
export function probeRow(
  probe: ProbeName,
  tool: string,
  expected: string,
  judgement: Judgement,
  durationMs: number,
  args?: Readonly<Record<string, unknown>>,
): ProbeRow {
  return {
    probe,
    tool,
    expected,
    got: judgement.got,
    result: judgement.result,
    note: judgement.notes.join('; '),
    ...(args === undefined ? {} : { arguments: args }),
    duration_ms: durationMs,
  };
}
