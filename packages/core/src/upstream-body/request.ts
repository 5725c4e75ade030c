/**
 * Describing a failed upstream request safely: its path (never the query string, which may hold
 * secrets), its host, and the system error code of a network failure.
 *
 * @packageDocumentation
 */

/**
 * The path part of a request URL: no scheme, host, query or fragment; no trailing slash.
 *
 * @param url - an absolute URL or a path (`/sp/campaigns/list?x=1`).
 * @returns the path, e.g. `/sp/campaigns/list`; `/` for the root.
 */
export function requestPath(url: string): string {
  const withoutHost = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const path = withoutHost.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  return path === '' ? '/' : path.startsWith('/') ? path : `/${path}`;
}

/**
 * The `host[:port]` of a request URL.
 *
 * @param url - an absolute URL, or `undefined`.
 * @param fallback - what to return when there is no URL or it does not parse.
 * @returns the host, e.g. `api.example.com` or `127.0.0.1:8080`.
 */
export function requestHost(url: string | undefined, fallback: string): string {
  if (url === undefined) return fallback;
  try {
    return new URL(url).host || fallback;
  } catch {
    return fallback;
  }
}

/**
 * The first system error code (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`, ...) in an error's
 * `cause` chain (undici throws `TypeError('fetch failed')` with the code on its `cause`). Reads
 * only `code` strings, never messages, so nothing secret can leak.
 *
 * @param error - anything `fetch` threw.
 * @returns the code, or `undefined` when none is found within 5 levels.
 */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    let code: unknown;
    let cause: unknown;
    try {
      code = (current as { code?: unknown }).code;
      cause = (current as { cause?: unknown }).cause;
    } catch {
      return undefined;
    }
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
    current = cause;
  }
  return undefined;
}

/**
 * A redirect's `Location` resolved against the URL it came from.
 *
 * @param location - the header value.
 * @param base - the URL of the response that carried it.
 * @returns the absolute URL, or `undefined` when it does not parse.
 */
export function locationUrl(location: string, base: string | URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/**
 * A redirect target as an envelope or a log may show it: origin and path only; user info, query
 * string and fragment (which may hold credentials) removed.
 *
 * @param url - the resolved target.
 * @returns e.g. `https://example.com/auth/o2/token`.
 */
export function displayLocation(url: URL): string {
  // a scheme without an origin (`file:`, `javascript:`) would print as `null`
  if (url.origin !== 'null') return `${url.origin}${url.pathname}`;
  const authority = url.href.startsWith(`${url.protocol}//`) ? `//${url.host}` : '';
  return `${url.protocol}${authority}${url.pathname}`;
}
