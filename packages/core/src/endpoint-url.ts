/**
 * The check every configured endpoint URL gets at start (an upstream base URL, a token endpoint, a
 * credentials service): one place, so each server refuses the same mistakes with the same words,
 * and none of them ever quotes the value, which may carry a secret.
 *
 * @packageDocumentation
 */

// Hosts a plain-http URL may name: credentials sent to them never cross a network.
const LOOPBACK_HOSTS = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether a URL's host is this machine (`localhost`, `127.0.0.0/8`, `[::1]`).
 *
 * @param url - a parsed URL.
 * @returns true for a loopback host.
 */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.test(url.hostname);
}

/**
 * What is wrong with a configured endpoint URL, or `undefined` when it can be used. A usable URL
 * is absolute, `https:` (or `http:` to a loopback host, for local replays and proxies: a token sent
 * over plain HTTP to another host can be read on the way), has no blank or line break (the URL
 * parser would encode the blank or drop the break, sending the rest of a pasted line in the path),
 * no user name or password, no query string and no fragment (servers append paths to it).
 *
 * @param value - the URL as configured (trimmed by the caller).
 * @returns a phrase that completes "<NAME> ...", e.g. `"must be an https URL (http only to a
 *   loopback host)"`; never the value itself.
 */
export function endpointUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (/\s/.test(value)) return 'must not contain blanks or line breaks';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.protocol === 'http:' && !isLoopbackUrl(url))
    return 'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.search !== '' || url.hash !== '') return 'must not carry a query string or a fragment';
  return undefined;
}
