/**
 * PENDING CORE: generic, not Ads-specific. A handler that asks core's `LwaTokenClient` for a
 * token must turn an `LwaError` into the `auth_error` envelope of `classifyLwaFailure`; core's
 * `envelopeForThrown` does not recognize `LwaError` yet (it becomes `internal_error`). The right
 * home is core's classify.ts (an `LwaError` branch before the adapter). It lives here until the
 * lead moves it, and the SP adapter must not write its own copy.
 *
 * @packageDocumentation
 */
import { classifyLwaFailure, EnvelopeError, LwaError } from '@mcp-envelope/core';
import type { LwaTokenClient } from '@mcp-envelope/core';

/**
 * An access token, or the `auth_error` envelope that says why there is none.
 *
 * @param client - the token client.
 * @returns the access token.
 * @throws EnvelopeError (`auth_error` / `AUTHENTICATION_ERROR`) when LWA fails, naming the missing
 *   variables when credentials are not configured.
 */
export async function accessTokenOrEnvelope(client: LwaTokenClient): Promise<string> {
  try {
    return await client.accessToken();
  } catch (error) {
    if (LwaError.isInstance(error)) throw new EnvelopeError(classifyLwaFailure(error), { cause: error });
    throw error;
  }
}
