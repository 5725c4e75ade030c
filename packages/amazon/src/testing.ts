/**
 * `@mcp-envelope/amazon/testing`: core's loopback upstream replay server answering as Login with
 * Amazon does at its token path, and a token endpoint that never answers, for the tests of
 * Amazon-facing servers and the conformance gate.
 *
 * @packageDocumentation
 */
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay, UpstreamReplayOptions } from '@mcp-envelope/testing';

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

/** A token endpoint that accepts connections and never answers: see {@link startSilentTokenEndpoint}. */
export interface SilentTokenEndpoint {
  /** `http://127.0.0.1:<port>/auth/o2/token`, for `LWA_TOKEN_URL`. */
  readonly tokenUrl: string;
  /** How many connections it has accepted so far. */
  connections(): number;
  /**
   * Resolves once it has accepted at least `count` connections, at once if it already has: a test
   * waits for the token request to be on its way instead of polling {@link SilentTokenEndpoint.connections}.
   *
   * @param count - how many connections to wait for (>= 1).
   */
  whenConnections(count: number): Promise<void>;
  /** Stops listening and drops the connections it holds. */
  close(): void;
}

/**
 * Starts, on 127.0.0.1, a token endpoint that takes every connection and never writes a byte:
 * for testing what a server does while a token request hangs (closing, aborting, exiting), which
 * the replay cannot show because it always answers.
 *
 * @returns the listening endpoint.
 * @throws Error when no loopback port can be bound.
 */
export async function startSilentTokenEndpoint(): Promise<SilentTokenEndpoint> {
  const sockets = new Set<Socket>();
  const waiters = new Set<() => boolean>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    for (const settled of waiters) if (settled()) waiters.delete(settled);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // a client that resets its connection is simply gone; unhandled, the error would end the process
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    tokenUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${LWA_TOKEN_PATH}`,
    connections: () => accepted,
    whenConnections: (count) =>
      new Promise<void>((resolve) => {
        const settled = (): boolean => {
          if (accepted < count) return false;
          resolve();
          return true;
        };
        if (!settled()) waiters.add(settled);
      }),
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
