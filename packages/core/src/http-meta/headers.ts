/**
 * Reading HTTP response headers the same way whatever their container or casing.
 *
 * @packageDocumentation
 */

/**
 * Response headers as one of: a WHATWG `Headers` (fetch/undici), Node's `IncomingHttpHeaders`
 * (values may be arrays for repeated headers), or a plain record as recorded in a fixture.
 */
export type HeaderSource =
  | { forEach(callback: (value: string, name: string) => void): void }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/**
 * Copies headers into a map keyed by lower-case name. Repeated headers (array values, or the
 * same name in two casings of a plain record) are joined with `", "`, as HTTP folds them.
 *
 * @param headers - any {@link HeaderSource}; `undefined` gives an empty map.
 * @returns lower-case name -> value.
 */
export function lowerCaseHeaders(headers: HeaderSource | undefined): Map<string, string> {
  const result = new Map<string, string>();
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    const previous = result.get(key);
    result.set(key, previous === undefined ? value : `${previous}, ${value}`);
  };
  if (headers === undefined) return result;
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)) {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      add(name, value);
    });
    return result;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | number | undefined>>;
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const values: readonly (string | number)[] =
      typeof value === 'string' || typeof value === 'number' ? [value] : value;
    for (const item of values) add(name, String(item));
  }
  return result;
}

/**
 * One header's value, trimmed; an empty or whitespace-only value counts as absent.
 *
 * @param headers - from {@link lowerCaseHeaders}.
 * @param names - header names to try in order (any casing); the first present one wins.
 * @returns the trimmed value, or `undefined`.
 */
export function headerValue(headers: ReadonlyMap<string, string>, ...names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers.get(name.toLowerCase())?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}
