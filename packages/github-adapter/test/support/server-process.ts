/**
 * The reference server as a real process (`node dist/cli.js`), a replay upstream on 127.0.0.1 and
 * the recorded cases of `conformance/cases`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { ReplayRoute } from '@mcp-envelope/testing';

/** The package folder. */
export const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

/** The built CLI. */
export const CLI = join(PACKAGE, 'dist', 'cli.js');

/** The descriptor the conformance gate reads. */
export const DESCRIPTOR = JSON.parse(readFileSync(join(PACKAGE, 'conformance', 'server.json'), 'utf8')) as {
  readonly id: string;
  readonly bin: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly credentials: readonly string[];
  readonly cases: string;
};

/** The dummy token of the descriptor: it must never appear in any answer. */
export const TEST_TOKEN = DESCRIPTOR.env['GITHUB_TOKEN'] ?? '';

/** One recorded case (the format of the conformance cases, `expected` only). */
export interface GithubCase {
  readonly id: string;
  readonly server: 'github';
  readonly about: string;
  readonly call: { readonly tool: string; readonly arguments: Record<string, unknown> };
  readonly upstream: readonly ReplayRoute[];
  readonly expected: {
    readonly outcome: 'error' | 'success';
    readonly error_kind?: string;
    readonly error_code?: string;
    readonly upstream?: string;
    readonly retryable?: boolean;
    readonly _meta?: Record<string, unknown>;
  };
}

/** Every recorded case, by file name. */
export function readCases(): GithubCase[] {
  const folder = join(PACKAGE, DESCRIPTOR.cases);
  return readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as GithubCase);
}

/** The environment of a server process: the descriptor's, the search path, and `extra`. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    ...DESCRIPTOR.env,
    // one server answers every recorded rate limit in a row: what the limiter learns from one
    // case would refuse the next (the limiter has its own tests in core)
    MCP_RATE_LIMIT: 'off',
    ...extra,
  };
}

/** The descriptor's arguments with the replay's URL in place of `{upstream}`. */
export function serverArgs(upstream: string): string[] {
  return DESCRIPTOR.args.map((arg) => arg.replaceAll('{upstream}', upstream));
}

/**
 * Starts the server over Streamable HTTP on a free loopback port.
 *
 * @returns the process and its MCP endpoint, once it said where it listens.
 */
export async function startHttpServer(
  upstream: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; endpoint: URL }> {
  const child = spawn(process.execPath, [CLI, ...serverArgs(upstream), '--http', '0'], {
    cwd: PACKAGE,
    env: serverEnv(env),
  });
  const endpoint = await new Promise<URL>((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1] !== undefined) resolve(new URL(match[1]));
    });
    child.on('exit', () => {
      reject(new Error(`server exited: ${stderr}`));
    });
  });
  return { child, endpoint };
}
