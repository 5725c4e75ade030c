/**
 * Own-property reads of lockfile records. Tool and property names are any strings a server
 * chooses: `constructor` or `toString` read with `record[name]` or `name in record` would find
 * the prototype's member and take it for a tool or a property.
 *
 * @packageDocumentation
 */

/**
 * The value `record` holds under `key` itself.
 *
 * @param record - a lockfile record (tools by name, surface lines by path).
 * @param key - the name.
 * @returns the value, or `undefined` when `record` has no own `key`.
 */
export function ownValue<Value>(record: Readonly<Record<string, Value>>, key: string): Value | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Whether `record` holds `key` itself.
 *
 * @param record - a lockfile record.
 * @param key - the name.
 * @returns `true` for an own key only.
 */
export function hasOwnKey(record: Readonly<Record<string, unknown>>, key: string): boolean {
  return Object.hasOwn(record, key);
}
