/**
 * The one object check the contract, core, the adapters and the conformance tools share, so
 * that every "is this a JSON object" question is answered the same way: arrays and `null` are not.
 *
 * @packageDocumentation
 */

/**
 * Whether `value` is a non-null, non-array object: a parsed JSON object, or any object read as
 * one (its own keys as fields).
 *
 * @param value - anything.
 * @returns `true` when its keys can be read as a record.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
