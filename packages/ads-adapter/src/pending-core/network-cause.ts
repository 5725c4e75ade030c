/**
 * PENDING CORE: generic, not Ads-specific. Both adapters describe a `network` failure by the
 * system error code buried in the `fetch` error's cause chain (undici throws
 * `TypeError('fetch failed')` with `cause.code = 'ECONNREFUSED'`). This belongs next to
 * `upstreamFetch` in core; it lives here until the lead moves it, and the SP adapter must not
 * write its own copy.
 *
 * @packageDocumentation
 */

/**
 * The first system error code (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`, ...) in an error's
 * `cause` chain. Reads only `code` strings, never messages, so nothing secret can leak.
 *
 * @param error - anything thrown by `fetch`.
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
