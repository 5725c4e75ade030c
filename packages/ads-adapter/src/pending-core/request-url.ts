/**
 * PENDING CORE: generic, not Ads-specific. Both adapters name the failed request in summaries
 * and details by its method, path (never the query string, which may hold secrets) and host.
 * These belong next to `FailedRequest` in core; they live here until the lead moves them, and
 * the SP adapter has its own `requestPath`/`hostOf` today.
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
 * @returns the host, e.g. `advertising-api.amazon.com` or `127.0.0.1:8080`.
 */
export function requestHost(url: string | undefined, fallback: string): string {
  if (url === undefined) return fallback;
  try {
    return new URL(url).host || fallback;
  } catch {
    return fallback;
  }
}
