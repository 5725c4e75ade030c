/**
 * The Streamable HTTP options of a server's command line (`--http`, `--host`, `--allowed-origins`,
 * `--max-sessions`, `--max-sessions-per-client`, `--event-store-stream-bytes`, `--event-store-bytes`,
 * `--session-idle-timeout`, `--shutdown-grace`), shared by every CLI of the
 * family so that each server reads them the same way.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';

import { DEFAULT_EVENT_STORE_STREAM_BYTES, DEFAULT_EVENT_STORE_TOTAL_BYTES } from './event-store.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  parseAllowedOrigins,
} from './http-host.js';
import type { StreamableHttpOptions } from './http-host.js';
import { shutdownOnSignals } from './http-host.js';
import { endpointUrlProblem } from './endpoint-url.js';
import type { EnvelopeServer } from './server.js';

/** What {@link addStreamableHttpOptions} adds to a command's parsed options (durations in seconds). */
export interface StreamableHttpCliOptions {
  /** The port of `--http`; absent means stdio. */
  readonly http?: number;
  readonly host: string;
  readonly allowedOrigins?: string[];
  readonly maxSessions: number;
  /** `--max-sessions-per-client`: sessions open at once from one client address. */
  readonly maxSessionsPerClient: number;
  /** `--event-store-stream-bytes`: bytes of SSE events kept for one stream. */
  readonly eventStoreStreamBytes: number;
  /** `--event-store-bytes`: bytes of SSE events kept over every session. */
  readonly eventStoreBytes: number;
  /** Seconds. */
  readonly sessionIdleTimeout: number;
  /** Seconds. */
  readonly shutdownGrace: number;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be a TCP port number (0-65535)');
  return port;
}

function parseOrigins(value: string): string[] {
  try {
    return parseAllowedOrigins(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return count;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new InvalidArgumentError('must be a number of seconds (0 or more)');
  return seconds;
}

/**
 * Adds the Streamable HTTP options to a commander command; a value that cannot be read is a
 * usage error naming the option.
 *
 * @param command - the command (changed in place).
 * @returns `command`, for chaining.
 */
export function addStreamableHttpOptions(command: Command): Command {
  return command
    .option('--http <port>', 'serve Streamable HTTP on PORT (path /mcp) instead of stdio', parsePort)
    .option('--host <host>', 'interface for --http', '127.0.0.1')
    .option(
      '--allowed-origins <list>',
      'with --http: the Origin values browsers may call from, comma-separated, or none (default: the loopback origins; required when --host is not a loopback address)',
      parseOrigins,
    )
    .option('--max-sessions <n>', 'with --http: the most sessions open at once', parseCount, DEFAULT_MAX_SESSIONS)
    .option(
      '--max-sessions-per-client <n>',
      'with --http: the most sessions open at once from one client address (behind a proxy, raise it to --max-sessions)',
      parseCount,
      DEFAULT_MAX_SESSIONS_PER_CLIENT,
    )
    .option(
      '--event-store-stream-bytes <n>',
      'with --http: bytes of SSE events kept for resuming one stream',
      parseCount,
      DEFAULT_EVENT_STORE_STREAM_BYTES,
    )
    .option(
      '--event-store-bytes <n>',
      'with --http: bytes of SSE events kept for resuming, over every session',
      parseCount,
      DEFAULT_EVENT_STORE_TOTAL_BYTES,
    )
    .option(
      '--session-idle-timeout <seconds>',
      'with --http: close a session after this long without a request',
      parseSeconds,
      DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000,
    )
    .option(
      '--shutdown-grace <seconds>',
      'with --http: on SIGTERM, how long calls in progress may still run',
      parseSeconds,
      DEFAULT_SHUTDOWN_GRACE_MS / 1000,
    );
}

/**
 * The endpoint options the parsed command-line options ask for.
 *
 * @param options - the options {@link addStreamableHttpOptions} parsed; `http` must be set.
 * @returns the options for `serveStreamableHttp` (durations in milliseconds).
 */
export function streamableHttpOptionsFrom(
  options: StreamableHttpCliOptions & { readonly http: number },
): StreamableHttpOptions {
  return {
    port: options.http,
    host: options.host,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    maxSessions: options.maxSessions,
    maxSessionsPerClient: options.maxSessionsPerClient,
    eventStoreMaxStreamBytes: options.eventStoreStreamBytes,
    eventStoreMaxTotalBytes: options.eventStoreBytes,
    sessionIdleTimeoutMs: options.sessionIdleTimeout * 1000,
  };
}

/** What {@link serveFromCommandLine} needs of a server: its two ways of serving, and closing. */
export type CommandLineServable = Pick<EnvelopeServer, 'serveStdio' | 'serveStreamableHttp' | 'close'>;

/**
 * Serves a server the way its command line asked, the same way for every CLI of the family: over
 * stdio until the client closes stdin (then the process exits 0, since calls still running have
 * nobody to answer and a pending upstream request must not keep it alive until its timeout), or
 * over Streamable HTTP with `--http PORT` until SIGTERM or SIGINT, which drain the endpoint for
 * `--shutdown-grace` seconds and exit 0.
 *
 * @param server - the envelope server.
 * @param options - the options {@link addStreamableHttpOptions} parsed.
 * @param listening - the line written to stderr once the HTTP endpoint listens, given its URL.
 * @returns once the HTTP endpoint listens; over stdio, never (the process exits).
 */
export async function serveFromCommandLine(
  server: CommandLineServable,
  options: StreamableHttpCliOptions,
  listening: (url: URL) => string,
): Promise<void> {
  if (options.http === undefined) {
    const stdio = await server.serveStdio();
    await stdio.closed;
    await server.close();
    process.exit(0);
  }
  const handle = await server.serveStreamableHttp(streamableHttpOptionsFrom({ ...options, http: options.http }));
  process.stderr.write(`${listening(handle.url)}\n`);
  shutdownOnSignals(handle, options.shutdownGrace * 1000, () => process.exit(0));
}

/**
 * The `--upstream` base URL of a command line, checked after parsing with
 * `endpointUrlProblem` (`@mcp-envelope/core/adapter`): commander quotes a rejected option value in
 * its message, and this one may carry a credential, so the check runs here and names only the option.
 *
 * @param value - the parsed option, or `undefined` when it was not given.
 * @param command - the command, whose `error` prints the message and exits 1.
 * @returns the trimmed URL without trailing slashes, or `undefined`.
 */
export function upstreamFromCommandLine(value: string | undefined, command: Command): string | undefined {
  if (value === undefined) return undefined;
  const problem = endpointUrlProblem(value.trim());
  if (problem !== undefined)
    command.error(`error: --upstream ${problem} (its value is not shown, as it may hold a secret)`);
  return value.trim().replace(/\/+$/, '');
}
