/**
 * The lockfiles of the gated servers, read from the servers themselves: each is started the way
 * the gate starts it (its descriptor's bin, arguments and dummy settings, against the loopback
 * replay server) and its `tools/list` read page by page, so any server package that describes
 * itself to the gate gets a lockfile without code of its own.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { isRecord } from '@mcp-envelope/contract';

import type { Session } from '../connect.js';
import { loadGateServers } from '../gate/descriptor.js';
import type { GateServer } from '../gate/descriptor.js';
import { startGateEnvironment } from '../gate/environment.js';
import { GATE_SERVER_PACKAGES } from '../gate/servers.js';
import { historyProblems, lockDrift } from './compare.js';
import { TOOLS_LOCK_FILE, buildToolsLock, readToolsLock, serializeToolsLock } from './lockfile.js';
import type { ListedTool, ToolsLock } from './lockfile.js';

/** The most `tools/list` pages read from one server: a cursor that never ends must not hang the lock. */
const MAX_PAGES = 1_000;

/**
 * A server as it ships: only its package's own model folders (the gate's test models are not part
 * of its contract), no optional variant, Code Mode off (it hides the tools) and strict unknown
 * fields at their default, whatever the shell running the lock has set.
 */
function shippedForm(server: GateServer): GateServer {
  return {
    ...server,
    models: server.models.filter((path) => !path.startsWith('{gate}/')),
    variants: {},
    env: { ...server.env, CODE_MODE: 'false', MCP_STRICT_UNKNOWN_FIELDS: 'true' },
  };
}

async function listAllTools(session: Session, timeoutMs: number): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await session.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`tools/list did not end within ${MAX_PAGES} pages`);
}

function packageVersion(server: GateServer): string {
  const manifest: unknown = JSON.parse(readFileSync(join(server.packageRoot, 'package.json'), 'utf8'));
  return isRecord(manifest) && typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0';
}

/** One server's lockfile now: the one its tools give, beside the one checked in. */
export interface ServerToolsLock {
  readonly server: GateServer;
  /** The checked-in lockfile (`undefined`: the package has none yet). */
  readonly checkedIn: ToolsLock | undefined;
  /** The lockfile of the tools the server lists now, with the checked-in history carried over. */
  readonly current: ToolsLock;
}

/**
 * Starts each server, lists its tools and builds its lockfile.
 *
 * @param servers - the servers (default those of `GATE_SERVER_PACKAGES`).
 * @returns one entry per server, in list order.
 * @throws Error when a server cannot start or its tool list cannot be read.
 */
export async function readServerToolLocks(servers?: readonly GateServer[]): Promise<ServerToolsLock[]> {
  const shipped = (servers ?? loadGateServers(GATE_SERVER_PACKAGES)).map(shippedForm);
  const environment = await startGateEnvironment({ servers: shipped });
  try {
    const locks: ServerToolsLock[] = [];
    for (const server of shipped) {
      const tools = await listAllTools(await environment.session(server.id, 'probe'), environment.timeoutMs);
      const checkedIn = readToolsLock(server.packageRoot);
      const identity = { id: server.id, packageName: server.packageName, version: packageVersion(server) };
      locks.push({ server, checkedIn, current: buildToolsLock(identity, tools, checkedIn) });
    }
    return locks;
  } finally {
    await environment.close();
  }
}

/**
 * What is wrong with a server's checked-in lockfile: missing, out of date, or a history entry
 * that names a property the tool lacks.
 *
 * @param lock - the server's lockfiles.
 * @returns one line per problem; `[]` when the lockfile is up to date.
 */
export function toolLockProblems(lock: ServerToolsLock): string[] {
  const file = join(lock.server.packageRoot, TOOLS_LOCK_FILE);
  if (lock.checkedIn === undefined) return [`${file} does not exist`];
  return [...lockDrift(lock.checkedIn, lock.current), ...historyProblems(lock.checkedIn)];
}

/**
 * Writes each server's lockfile when it changed.
 *
 * @param locks - the lockfiles read by {@link readServerToolLocks}.
 * @returns per server, the file, whether it was written and its size in bytes.
 */
export function writeServerToolLocks(
  locks: readonly ServerToolsLock[],
): { server: string; file: string; written: boolean; bytes: number; tools: number }[] {
  return locks.map(({ server, current }) => {
    const file = join(server.packageRoot, TOOLS_LOCK_FILE);
    const text = serializeToolsLock(current);
    const written = !existsSync(file) || readFileSync(file, 'utf8') !== text;
    if (written) writeFileSync(file, text);
    return {
      server: server.id,
      file,
      written,
      bytes: Buffer.byteLength(text),
      tools: Object.keys(current.tools).length,
    };
  });
}
