/**
 * Judges one round of the upstream fault battery: the outcome against the round's expectation,
 * `retryable` and `_meta.retry_after_seconds` included.
 *
 * @packageDocumentation
 */
import type { CallOutcome } from '../call-outcome.js';
import { judgeExpectedFailure, kindCode, truncate } from '../probe-evaluate.js';
import type { Judgement } from '../probe-evaluate.js';
import type { CapabilityStatus } from '../report-types.js';

import type { FaultExpectation } from './rounds.js';

type EnvelopeExpectation = Extract<FaultExpectation, { type: 'envelope' }>;
type EnvelopeOutcome = Extract<CallOutcome, { type: 'envelope' }>;

function range(bounds: { readonly min: number; readonly max: number }): string {
  return bounds.min === bounds.max ? `${bounds.min} s` : `${bounds.min} to ${bounds.max} s`;
}

/**
 * The `expected` column of a round, e.g. `rate_limited/RATE_LIMITED, retryable, retry after 7 s`.
 *
 * @param expected - the round's expectation.
 * @returns the text.
 */
export function faultExpectationLabel(expected: FaultExpectation): string {
  switch (expected.type) {
    case 'success':
      return 'success';
    case 'success-or-kind':
      return `success, or ${expected.kind}`;
    case 'envelope': {
      const parts = [kindCode(expected.kind, expected.code), expected.retryable ? 'retryable' : 'not retryable'];
      if (expected.retryAfter !== undefined) parts.push(`retry after ${range(expected.retryAfter)}`);
      if (expected.effectUnknown === true) parts.push('effect unknown');
      return parts.join(', ');
    }
  }
}

function retryAfterOf(outcome: EnvelopeOutcome): number | undefined {
  return outcome.envelope._meta?.retry_after_seconds;
}

/** Whether the envelope says the request may have taken effect (CONTRACT.md "Safe retries"). */
function hasEffectUnknownDetail(outcome: EnvelopeOutcome): boolean {
  return outcome.envelope.details.some((detail) => detail['reason'] === 'effect_unknown');
}

/** What arrived, in the words of {@link faultExpectationLabel}. */
function envelopeLabel(outcome: EnvelopeOutcome): string {
  const { envelope } = outcome;
  const parts = [
    kindCode(envelope.error_kind, envelope.error_code),
    envelope.retryable ? 'retryable' : 'not retryable',
  ];
  const retryAfter = retryAfterOf(outcome);
  if (retryAfter !== undefined) parts.push(`retry after ${retryAfter} s`);
  if (hasEffectUnknownDetail(outcome)) parts.push('effect unknown');
  return parts.join(', ');
}

/** What is wrong with an envelope beyond its kind and code: `retryable`, the wait, `upstream`. */
function faultIssues(outcome: EnvelopeOutcome, expected: EnvelopeExpectation): string[] {
  const issues: string[] = [];
  const { envelope } = outcome;
  if (envelope.retryable !== expected.retryable) issues.push(`expected retryable: ${String(expected.retryable)}`);
  if (expected.retryAfter !== undefined) {
    const seconds = retryAfterOf(outcome);
    if (typeof seconds !== 'number') issues.push('no _meta.retry_after_seconds');
    else if (seconds < expected.retryAfter.min || seconds > expected.retryAfter.max)
      issues.push(`_meta.retry_after_seconds ${seconds}, expected ${range(expected.retryAfter)}`);
  }
  if (expected.effectUnknown === true && !hasEffectUnknownDetail(outcome))
    issues.push('no detail with reason "effect_unknown" for a tool that is not idempotent');
  // every round is about what the upstream answered, so the envelope names the API (CONTRACT.md "upstream")
  if (typeof envelope.upstream !== 'string' || envelope.upstream === '') issues.push('names no upstream');
  return issues;
}

function judgeEnvelope(outcome: CallOutcome, expected: EnvelopeExpectation, capability: CapabilityStatus): Judgement {
  const base = judgeExpectedFailure(outcome, expected, capability);
  if (outcome.type !== 'envelope') return base;
  const issues = faultIssues(outcome, expected);
  return {
    got: envelopeLabel(outcome),
    result: base.result === 'PASS' && issues.length === 0 ? 'PASS' : 'FAIL',
    notes: [...base.notes, ...issues],
  };
}

function outcomeLabel(outcome: CallOutcome): string {
  if (outcome.type === 'envelope') return envelopeLabel(outcome);
  if (outcome.type === 'success') return 'success';
  return outcome.type === 'no-envelope' && outcome.channel === 'timeout' ? 'timeout' : outcome.type;
}

function outcomeText(outcome: CallOutcome): string {
  if (outcome.type === 'envelope') return `"${truncate(outcome.envelope.summary)}"`;
  if (outcome.type === 'no-envelope') return `"${truncate(outcome.text)}"`;
  return '';
}

/**
 * Judges one round:
 *
 * - `success`: the call succeeds (no `isError`);
 * - `success-or-kind`: it succeeds, or fails with a valid, advertised envelope of that kind;
 * - `envelope`: a valid, advertised envelope (text copy equal) with the kind and code, the
 *   `retryable` value, an `upstream`, `_meta.retry_after_seconds` within the bounds when the
 *   round announces a wait, and a detail with `reason: "effect_unknown"` when the expectation says so.
 *
 * @param outcome - the call's outcome.
 * @param expected - the round's expectation.
 * @param capability - the advertised capability.
 * @returns the judgement; `notes` lists every failed check.
 */
export function judgeFaultRound(
  outcome: CallOutcome,
  expected: FaultExpectation,
  capability: CapabilityStatus,
): Judgement {
  if (expected.type === 'envelope') return judgeEnvelope(outcome, expected, capability);
  if (outcome.type === 'success') return { got: 'success', result: 'PASS', notes: [] };
  if (
    expected.type === 'success-or-kind' &&
    outcome.type === 'envelope' &&
    outcome.envelope.error_kind === expected.kind
  ) {
    const base = judgeExpectedFailure(outcome, { kind: expected.kind, code: outcome.envelope.error_code }, capability);
    return { ...base, got: envelopeLabel(outcome) };
  }
  const text = outcomeText(outcome);
  return {
    got: outcomeLabel(outcome),
    result: 'FAIL',
    notes: [`expected ${faultExpectationLabel(expected)}${text === '' ? '' : `; got ${text}`}`],
  };
}
