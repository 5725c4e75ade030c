/**
 * Deep freezing for exported tables: the contract's own, and those of the packages built on it.
 *
 * @packageDocumentation
 */

/**
 * Freezes `value` and every object reachable through its own enumerable properties (arrays, plain
 * objects, regular expressions), then returns it. Exported tables are read by every server and
 * client in a process; frozen, a caller that changes one by mistake gets a TypeError instead of
 * changing what all the others see.
 *
 * @param value - a table built from literals or JSON (no cycles, no accessors).
 * @returns `value` itself, frozen.
 */
export function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFrozen(member);
    Object.freeze(value);
  }
  return value;
}
