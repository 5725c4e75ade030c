/**
 * Showing a Redis URL without its credentials. It sits apart from the lazy store and the Redis
 * store, which both show the URL, so that neither imports the other for it.
 *
 * @packageDocumentation
 */

/**
 * Query parameters of a Redis URL shown as they are: options that cannot carry a credential. The
 * Redis client turns every other query parameter into a connection option of the same name
 * (`?password=`, `?username=`, `?sentinelPassword=`, ...), so any other value is masked.
 */
const HARMLESS_QUERY_KEYS: ReadonlySet<string> = new Set(['db', 'family', 'connectionName', 'keyPrefix']);

/** What replaces a user name, a password or a query value in a shown Redis URL. */
const MASK = '***';

/**
 * A Redis URL fit for logs and settings, without loading the Redis client: the user name and
 * the password (`redis://user:password@host`, `redis://:password@host`) and the value of every
 * query parameter but `db`, `family`, `connectionName` and `keyPrefix` (`?password=`,
 * `?username=`, `?sentinelPassword=`, ...) replaced by `***`, as the Redis client reads
 * credentials from all of these.
 *
 * @param url - a `redis://` or `rediss://` URL.
 * @returns the masked URL (an unparsable URL becomes `redis://(unparsable)`).
 */
export function withoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'redis://(unparsable)';
  }
  if (parsed.username !== '') parsed.username = MASK;
  if (parsed.password !== '') parsed.password = MASK;
  if (parsed.search !== '') {
    const shown = new URLSearchParams();
    for (const [key, value] of parsed.searchParams) shown.append(key, HARMLESS_QUERY_KEYS.has(key) ? value : MASK);
    parsed.search = shown.toString();
  }
  return parsed.toString();
}
