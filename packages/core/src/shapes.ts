/**
 * The one object check core's modules share, so that every "is this a JSON object" question is
 * answered the same way: arrays and `null` are not.
 *
 * @packageDocumentation
 */

/**
 * Whether `value` is a non-null, non-array object (a JSON object, or any object used as one).
 *
 * @param value - anything.
 * @returns `true` when its keys can be read as a record.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
