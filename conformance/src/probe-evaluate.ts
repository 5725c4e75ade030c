/**
 * Judges a probe's outcome: did the expected envelope arrive, is it valid, is its kind advertised,
 * do kind and code fit the probe.
 *
 * @packageDocumentation
 */
import { validateMeta } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

import type { CallOutcome, OutcomeChannel } from './call-outcome.js';
import { kindAdvertisementIssue } from './capability-check.js';
import { isRecord } from './json-schema.js';
import type { ExpectedFailure } from './probe-plan.js';
import type { CapabilityStatus, RowResult } from './report-types.js';

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
      const reasons = outcome.violations.map((violation) => `${violation.path === '' ? '(root)' : violation.path}: ${violation.message}`);
      return { got: candidateLabel(outcome.candidate), result: 'FAIL', notes: [truncate(`invalid envelope: ${reasons.join('; ')}`, 240)] };
    }
    case 'no-envelope':
      if (outcome.channel === 'timeout') return { got: 'timeout', result: 'FAIL', notes: [outcome.text] };
      return { got: 'no envelope', result: 'FAIL', notes: [`no envelope (${outcome.channel}): "${truncate(outcome.text)}"`] };
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
export function judgeExpectedFailure(outcome: CallOutcome, expected: ExpectedFailure, capability: CapabilityStatus): Judgement {
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, expected.code);
  const { error_kind: kind, error_code: code } = outcome.envelope;
  const notes: string[] = [];
  const advertised = kindAdvertisementIssue(capability, kind);
  if (advertised !== undefined) notes.push(advertised);
  if (kind !== expected.kind || code !== expected.code) notes.push(`expected ${kindCode(expected.kind, expected.code)}`);
  const channel = CHANNEL_NOTES[outcome.channel];
  return { got: kindCode(kind, code), result: notes.length === 0 ? 'PASS' : 'FAIL', notes: channel === undefined ? notes : [...notes, channel] };
}

function detailNames(envelope: ErrorEnvelope, key: string): boolean {
  return envelope.details.some((detail) => detail.path === key || Object.values(detail).some((value) => value === key || (Array.isArray(value) && value.includes(key))));
}

function successMetaNotes(value: unknown): string[] {
  if (!isRecord(value) || !Object.hasOwn(value, '_meta')) return [];
  const validation = validateMeta(value['_meta']);
  if (validation.valid) return [];
  return [truncate(`invalid _meta: ${validation.errors.map((error) => `${error.path || '(root)'}: ${error.message}`).join('; ')}`, 240)];
}

function reportsRename(value: unknown, key: string): boolean {
  if (!isRecord(value) || !isRecord(value['_meta'])) return false;
  const events = value['_meta']['normalized'];
  return Array.isArray(events) && events.some((event) => isRecord(event) && event['kind'] === 'renamed' && event['from'] === key);
}

function successNote(value: unknown, key: string, optional: boolean): string {
  if (reportsRename(value, key)) return `normalized: "${key}" accepted, renamed event in _meta.normalized`;
  if (optional) return `normalized: "${key}" accepted (call succeeded; the property is optional, so a server that dropped the key would look the same)`;
  return `normalized: "${key}" accepted (call succeeded)`;
}

/** Everything {@link judgeWrongCase} needs. */
export interface WrongCaseInput {
  readonly outcome: CallOutcome;
  /** The case-changed key that was sent. */
  readonly key: string;
  /** Whether the renamed property is optional in the schema (then a success cannot prove normalization). */
  readonly optional: boolean;
  readonly capability: CapabilityStatus;
  /** The rejection that passes: `mcp_input_validation` / `SCHEMA_ADDITIONAL_PROPERTIES`. */
  readonly expected: ExpectedFailure;
  /** Calls the same tool with the correct key; used only when the outcome alone cannot decide. */
  readonly reference: () => Promise<CallOutcome>;
}

function outcomeLabel(outcome: CallOutcome): string {
  if (outcome.type === 'envelope') return kindCode(outcome.envelope.error_kind, outcome.envelope.error_code);
  if (outcome.type === 'invalid-envelope') return candidateLabel(outcome.candidate);
  return outcome.type === 'success' ? 'success' : 'no envelope';
}

/**
 * Judges the `wrong-case` probe. Two outcomes pass: the server normalized the key (the call
 * succeeded, or failed the same way as the same call with the correct key, with no complaint
 * naming the wrong-case key), or it rejected the key as `mcp_input_validation` /
 * `SCHEMA_ADDITIONAL_PROPERTIES`. A failure without a valid envelope fails.
 *
 * @param input - see {@link WrongCaseInput}.
 * @returns the judgement; the first note says which of the two passing outcomes happened.
 */
export async function judgeWrongCase(input: WrongCaseInput): Promise<Judgement> {
  const { outcome, key, capability, expected: rejection } = input;
  if (outcome.type === 'success') {
    const metaNotes = successMetaNotes(outcome.value);
    return { got: 'success', result: metaNotes.length === 0 ? 'PASS' : 'FAIL', notes: [successNote(outcome.value, key, input.optional), ...metaNotes] };
  }
  if (outcome.type !== 'envelope') return judgeWithoutEnvelope(outcome, `normalization or ${rejection.code}`);
  const { envelope } = outcome;
  const got = kindCode(envelope.error_kind, envelope.error_code);
  const advertised = kindAdvertisementIssue(capability, envelope.error_kind);
  const extraNotes = advertised === undefined ? [] : [advertised];
  if (envelope.error_kind === rejection.kind && envelope.error_code === rejection.code) {
    return { got, result: extraNotes.length === 0 ? 'PASS' : 'FAIL', notes: [`rejected: "${key}" reported as an additional property`, ...extraNotes] };
  }
  if (detailNames(envelope, key)) {
    return { got, result: 'FAIL', notes: [`complaint names the wrong-case key "${key}"; expected normalization or ${kindCode(rejection.kind, rejection.code)}`, ...extraNotes] };
  }
  const reference = await input.reference();
  const same = reference.type === 'envelope' && reference.envelope.error_kind === envelope.error_kind && reference.envelope.error_code === envelope.error_code;
  if (same) return { got, result: extraNotes.length === 0 ? 'PASS' : 'FAIL', notes: [`normalized: same outcome as with the correct key (${got})`, ...extraNotes] };
  return {
    got,
    result: 'FAIL',
    notes: [`neither normalized nor rejected as an additional property: with the correct key the call gives ${outcomeLabel(reference)}`, ...extraNotes],
  };
}
