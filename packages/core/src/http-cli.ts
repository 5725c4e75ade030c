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
