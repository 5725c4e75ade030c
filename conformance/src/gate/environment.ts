/**
 * The running environment of the gate: the gated servers (read from their descriptors), the
 * upstream replay server, the prepared model folders and one stdio session per (server, variant),
 * opened on first use with the real SDK client.
 *
 * @packageDocumentation
 */
import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import type { ContractVersion } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { ReplayRoute, UpstreamReplay } from '@mcp-envelope/testing';

import { describeValue, withDeadline } from '../call-outcome.js';
import { openSession } from '../connect.js';
import type { Session } from '../connect.js';
import { loadGateServers } from './descriptor.js';
import type { GateServer } from './descriptor.js';
import { defaultServerCommand, prepareModelFolders, serverCommandLine } from './reference-servers.js';
import type { ServerId, ServerSetup, VariantName } from './reference-servers.js';
import { GATE_SERVER_PACKAGES } from './servers.js';

/** Options of {@link startGateEnvironment}. */
export interface GateEnvironmentOptions {
  /** The servers to gate, read with `loadGateServers` (default those of `GATE_SERVER_PACKAGES`). */
  readonly servers?: readonly GateServer[];
  /** Replace the command that starts a server, by server id (its descriptor's arguments are appended). */
  readonly commands?: Partial<Record<ServerId, string>>;
  /** Timeout of each request in milliseconds (default 15000). */
  readonly timeoutMs?: number;
}

/**
 * Which envelope versions a gate call reads: `v2` states `[1, 2]` in the request's `_meta` (a
 * current client), `v1` states nothing (every reader written against version 1).
 */
export type GateReader = 'v1' | 'v2';

/** The versions each reader states, by {@link GateReader}; `undefined`: it states none. */
export const READER_VERSIONS: Readonly<Record<GateReader, readonly ContractVersion[] | undefined>> = Object.freeze({
  v1: undefined,
  v2: Object.freeze([1, 2] as const),
});

/**
 * The `_meta` of a `tools/call` that states the versions a reader reads (CONTRACT.md "Versioning").
 *
 * @param reader - which reader makes the call.
 * @returns `{ _meta }` to spread into the request params, or `{}` for a reader that states nothing.
 */
export function readerParams(reader: GateReader): { _meta?: Record<string, unknown> } {
  const versions = READER_VERSIONS[reader];
  return versions === undefined ? {} : { _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [...versions] } } };
}

/** What a call gave, before any judgement. */
export type RawOutcome =
  { readonly type: 'result'; readonly result: unknown } | { readonly type: 'thrown'; readonly error: unknown };

/** A running gate environment. */
export interface GateEnvironment {
  /** The gated servers, in report order. */
  readonly servers: readonly GateServer[];
  readonly replay: UpstreamReplay;
  readonly setup: ServerSetup;
  readonly timeoutMs: number;
  /** The session of a server in a variant (started on first use). */
  session(server: ServerId, variant: VariantName): Promise<Session>;
  /**
   * Sets the replay server's routes (dropping every earlier route and answer) and makes one call,
   * as a reader of `reader` (default `v2`).
   */
  call(
    server: ServerId,
    variant: VariantName,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    routes: readonly ReplayRoute[],
    reader?: GateReader,
  ): Promise<RawOutcome>;
  /** Closes every session, the replay server and the model folders. */
  close(): Promise<void>;
}

/** Default request timeout of the gate, in milliseconds. */
export const GATE_TIMEOUT_MS = 15_000;

/**
 * Reads the servers' descriptors, starts the replay server and prepares the model folders;
 * sessions open lazily.
 *
 * @param options - the server list, command overrides and the timeout.
 * @returns the environment; call `close()` when done.
 * @throws Error when a server package is not installed, its descriptor is invalid, or a command names
 *   no gated server (nothing is started then).
 */
export async function startGateEnvironment(options: GateEnvironmentOptions = {}): Promise<GateEnvironment> {
  const servers = options.servers ?? loadGateServers(GATE_SERVER_PACKAGES);
  const stray = Object.keys(options.commands ?? {}).find((id) => !servers.some((server) => server.id === id));
  if (stray !== undefined)
    throw new Error(
      `a command is given for "${stray}", which is not a gated server (${servers.map((server) => server.id).join(', ')})`,
    );
  const commands = Object.fromEntries(
    servers.map((server) => [server.id, options.commands?.[server.id] ?? defaultServerCommand(server)]),
  );
  // one replay serves every server: each is given its URL and token URL through its descriptor's placeholders
  const replay = await startUpstreamReplay();
  const models = prepareModelFolders(servers);
  const timeoutMs = options.timeoutMs ?? GATE_TIMEOUT_MS;
  const setup: ServerSetup = {
    upstreamUrl: replay.url,
    tokenUrl: replay.tokenUrl,
    servers,
    modelFolders: models.folders,
    commands,
  };
  const sessions = new Map<string, Promise<Session>>();

  function session(server: ServerId, variant: VariantName): Promise<Session> {
    const key = `${server}/${variant}`;
    let opened = sessions.get(key);
    if (opened === undefined) {
      opened = openSession({ transport: 'stdio', commandLine: serverCommandLine(setup, server, variant) }, timeoutMs);
      sessions.set(key, opened);
    }
    return opened;
  }

  return {
    servers,
    replay,
    setup,
    timeoutMs,
    session,
    call: async (server, variant, tool, args, routes, reader = 'v2') => {
      const open = await session(server, variant);
      replay.reset();
      replay.route(...routes);
      try {
        const result = await withDeadline(
          open.client.callTool({ name: tool, arguments: { ...args }, ...readerParams(reader) }, undefined, {
            timeout: timeoutMs,
          }),
          timeoutMs + 1_000,
        );
        return { type: 'result', result };
      } catch (error) {
        return { type: 'thrown', error };
      }
    },
    close: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        all.map(async (pending) => {
          try {
            await (await pending).close();
          } catch (error) {
            // A session that never opened has nothing to close.
            void describeValue(error);
          }
        }),
      );
      await replay.close();
      models.remove();
    },
  };
}
