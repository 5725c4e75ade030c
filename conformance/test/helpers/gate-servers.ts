// The gated SP and Ads servers as tests start them by hand: their descriptors, their model
// folders, and the environment of their `main` variant pointed at a replay server.
import type { UpstreamReplay } from '@mcp-envelope/testing';

import { loadGateServers } from '../../src/gate/descriptor.js';
import type { GateServer } from '../../src/gate/descriptor.js';
import { prepareModelFolders, serverBinPath, serverLaunch } from '../../src/gate/reference-servers.js';
import type { ServerSetup } from '../../src/gate/reference-servers.js';
import { GATE_SERVER_PACKAGES } from '../../src/gate/servers.js';

/** The servers of the gate's list, read from their descriptors. */
export const GATED: readonly GateServer[] = Object.freeze(loadGateServers(GATE_SERVER_PACKAGES));

/** One gated server by id. */
export function gated(id: string): GateServer {
  const server = GATED.find((entry) => entry.id === id);
  if (server === undefined) throw new Error(`no gated server ${id}`);
  return server;
}

/** The model folders of every gated server (call `remove()` when done). */
export function prepareGatedModels(): ReturnType<typeof prepareModelFolders> {
  return prepareModelFolders(GATED);
}

/** A setup on a replay server with prepared model folders, each server started by its default command. */
export function setupOn(
  replay: Pick<UpstreamReplay, 'url' | 'tokenUrl'>,
  modelFolders: Readonly<Record<string, string>>,
  commands: Readonly<Record<string, string>> = {},
): ServerSetup {
  return { upstreamUrl: replay.url, tokenUrl: replay.tokenUrl, servers: GATED, modelFolders, commands };
}

/** The `main` variant's environment of a server on a replay server (dummy credentials, the token URL filled in). */
export function mainEnv(id: string, replay: Pick<UpstreamReplay, 'url' | 'tokenUrl'>): Record<string, string> {
  return serverLaunch(setupOn(replay, {}), id, 'main').env;
}

/** `<bin> --upstream <replay> --models <folder>`: a server's bin and its arguments, without the fixture tools. */
export function binArgs(id: string, replayUrl: string, modelsFolder: string): string[] {
  return [serverBinPath(gated(id)), '--upstream', replayUrl, '--models', modelsFolder];
}
