/**
 * Keeps secrets out of the values a failed argument check echoes. A caller may put a token in the
 * wrong field, or send a password that fails a length check: `received_value` must not carry it
 * back, nor a `did_you_mean` made from it, nor a hint quoting it. Implements CONTRACT.md "Schema
 * validation codes" (correction keys) and the rule that secrets never appear in any output.
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail } from '@mcp-envelope/contract';

import { REDACTED } from '../redact.js';
import type { Redactor } from '../redact.js';

/** The longest prefix of a value that a hint quotes before it cuts it (hints render at most 80 characters). */
const HINT_QUOTE_LENGTH = 79;

/** What {@link concealSecretValues} reads and returns: the details and hints of one failed check. */
export interface EchoedValues {
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
}

/**
 * Whether a detail's `did_you_mean` is taken from the schema rather than made from the value
 * sent: a key name (the detail names an unknown key in `extra`) or one of the `allowed` values.
 */
function suggestionFromSchema(detail: EnvelopeDetail, suggestion: unknown): boolean {
  if (typeof detail['extra'] === 'string') return true;
  const allowed = detail['allowed'];
  return Array.isArray(allowed) && allowed.some((value) => JSON.stringify(value) === JSON.stringify(suggestion));
}

/**
 * Whether the server's redactor takes `value`, sent under the key `name`, for a secret: it
 * matches a secret pattern or a registered secret, or the key names a credential (`password`,
 * `Authorization`, ...). The redactor copies only what it changes, so a changed probe means a secret.
 */
function looksSecret(redactor: Redactor, name: string, value: unknown): boolean {
  const probe = { [name]: value };
  return redactor.value(probe) !== probe;
}

/**
 * One detail with its echoed secrets hidden; `concealed` collects the received strings hidden, for
 * the hints. A `did_you_mean` made from the value goes too when the value was a secret, or when
 * it is one itself (a cut array can be echoed where the whole one was too large to be).
 */
function concealInDetail(original: EnvelopeDetail, redactor: Redactor, concealed: string[]): EnvelopeDetail {
  const detail = concealInBranchDetails(original, redactor, concealed);
  const name = typeof detail['extra'] === 'string' ? detail['extra'] : (detail.path.split('/').at(-1) ?? '');
  const value = detail.received_value;
  const receivedSecret = Object.hasOwn(detail, 'received_value') && looksSecret(redactor, name, value);
  const suggestionSecret =
    Object.hasOwn(detail, 'did_you_mean') &&
    !suggestionFromSchema(detail, detail.did_you_mean) &&
    (receivedSecret || looksSecret(redactor, name, detail.did_you_mean));
  if (!receivedSecret && !suggestionSecret) return detail;
  const copy: Record<string, unknown> = { ...detail };
  if (receivedSecret) {
    if (typeof value === 'string' && value !== '') concealed.push(value.slice(0, HINT_QUOTE_LENGTH));
    copy['received_value'] = REDACTED;
    delete copy['received_truncated'];
  }
  if (suggestionSecret) delete copy['did_you_mean'];
  return copy as unknown as EnvelopeDetail;
}

/**
 * A combinator detail with the secrets in its `branch_details` hidden (they echo values and
 * suggest fixes like any other detail); the detail itself when there are none.
 */
function concealInBranchDetails(detail: EnvelopeDetail, redactor: Redactor, concealed: string[]): EnvelopeDetail {
  const nested = detail['branch_details'];
  if (!Array.isArray(nested)) return detail;
  const hidden = (nested as EnvelopeDetail[]).map((inner) => concealInDetail(inner, redactor, concealed));
  if (hidden.every((inner, index) => inner === nested[index])) return detail;
  return { ...detail, branch_details: hidden };
}

/**
 * The details and hints of a failed check with every echoed secret hidden: a detail whose
 * `received_value` the redactor takes for a secret gets `received_value: "[REDACTED]"`, loses
 * `received_truncated`, and loses a `did_you_mean` unless it comes from the schema (an allowed
 * value, a key name); hints lose the quoted value.
 *
 * @param echoed - the check's details and hints.
 * @param redactor - the server's redactor (its patterns, secret keys and registered secrets).
 * @returns the same object when nothing was a secret, else a copy.
 */
export function concealSecretValues(echoed: EchoedValues, redactor: Redactor): EchoedValues {
  const concealed: string[] = [];
  const details = echoed.details.map((detail) => concealInDetail(detail, redactor, concealed));
  if (details.every((detail, index) => detail === echoed.details[index])) return echoed;
  const hints = echoed.hints.map((hint) => concealed.reduce((text, secret) => text.split(secret).join(REDACTED), hint));
  return { details, hints };
}
