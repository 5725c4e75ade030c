/**
 * JSON type names for received values, as reported in `details[].received_type`.
 *
 * @packageDocumentation
 */

/**
 * The JSON type name of a value, as JSON Schema's `type` keyword names it.
 *
 * @param value - any value, typically one taken from a tool call's arguments.
 * @returns `'string'`, `'integer'` (a finite number without a fractional part, or a bigint),
 *   `'number'` (any other number, including `NaN` and infinities), `'boolean'`, `'array'`,
 *   `'object'`, `'null'`, or `'undefined'` for a missing value. Values JSON cannot carry report
 *   their JavaScript `typeof` (`'function'`, `'symbol'`). Never a class name.
 *
 * `received_type` names the JSON type of the value received.
 */
export function jsonTypeOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return 'integer';
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return typeof value;
  }
}

/**
 * Whether a value is a JSON scalar that pre-flight normalization may wrap into a one-item array:
 * a string, a number or a boolean (never `null`).
 *
 * @param value - the value to test.
 * @returns `true` for strings, numbers and booleans.
 */
export function isWrappableScalar(value: unknown): value is string | number | boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean';
}
