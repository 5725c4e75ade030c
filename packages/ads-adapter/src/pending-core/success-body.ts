/**
 * PENDING CORE: generic, not Ads-specific. How a tool handler reads a 2xx upstream answer that
 * `upstreamFetch` returned unread: JSON when it parses, the text otherwise, `{}` when empty (so
 * the result is an object that can carry `_meta`). The SP reference server reads its answers the
 * same way (`readResult`); this belongs next to `upstreamFetch` in core and lives here until the
 * lead moves it.
 *
 * @packageDocumentation
 */

/**
 * Reads a successful response body.
 *
 * @param response - a 2xx `Response` whose body is unread.
 * @returns the parsed JSON value; the raw text when it is not JSON; `{}` for an empty body.
 */
export async function readSuccessBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
