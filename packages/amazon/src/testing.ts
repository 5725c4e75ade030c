/**
 * `@mcp-envelope/amazon/testing`: core's loopback upstream replay server answering as Login with
 * Amazon does at its token path, for the tests of Amazon-facing servers and the conformance gate.
 *
 * @packageDocumentation
 */
import { startUpstreamReplay } from '@mcp-envelope/core/testing';
import type { UpstreamReplay, UpstreamReplayOptions } from '@mcp-envelope/core/testing';

/** The access token the replay's token endpoint hands out (an LWA access token's shape). */
export const REPLAY_ACCESS_TOKEN = 'Atza|replay-access-token-0001';

/** Login with Amazon's token endpoint path, where the replay answers token requests. */
export const LWA_TOKEN_PATH = '/auth/o2/token';

/**
 * Starts core's replay server on 127.0.0.1 with the LWA token route: `POST /auth/o2/token`
 * answers {@link REPLAY_ACCESS_TOKEN} unless the options say otherwise.
 *
 * @param options - as core's `startUpstreamReplay`; `tokenPath` and `accessToken` default to LWA's.
 * @returns the running server; point `LWA_TOKEN_URL` at its `tokenUrl`.
 */
export function startAmazonReplay(options: UpstreamReplayOptions = {}): Promise<UpstreamReplay> {
  return startUpstreamReplay({ tokenPath: LWA_TOKEN_PATH, accessToken: REPLAY_ACCESS_TOKEN, ...options });
}
