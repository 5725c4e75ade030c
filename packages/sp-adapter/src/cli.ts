#!/usr/bin/env node
/**
 * `mcp-envelope-sp`: the reference SP-API MCP server. Stdio by default, Streamable HTTP with
 * `--http PORT`. Tools come from the built-in catalog, or from every model file of `--models DIR`.
 *
 * @packageDocumentation
 */
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS, DEFAULT_SHUTDOWN_GRACE_MS, parseAllowedOrigins, shutdownOnSignals } from '@mcp-envelope/core';

import { defaultModelCacheDirectory } from './model-cache.js';
import { loadBuiltInCatalog, loadSpModels } from './models.js';
import { parseSpRegion, SP_REGION_CODES } from './regions.js';
import type { SpRegion } from './regions.js';
import { createSpServer, SP_ADAPTER_VERSION, SP_SERVER_NAME } from './server.js';

interface CliOptions {
  readonly models?: string;
  readonly modelCache: boolean;
  readonly modelCacheDir?: string;
  readonly upstream?: string;
  readonly http?: number;
  readonly host: string;
  readonly allowedOrigins?: string[];
  readonly maxSessions: number;
  readonly sessionIdleTimeout: number;
  readonly shutdownGrace: number;
  readonly region?: SpRegion;
  readonly sandbox?: boolean;
  readonly conformanceFixtures?: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a TCP port number (0-65535)');
  return port;
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http(s) URL');
  return value.replace(/\/+$/, '');
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
  if (!Number.isFinite(seconds) || seconds < 0) throw new InvalidArgumentError('must be a number of seconds (0 or more)');
  return seconds;
}

function parseFolder(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must be a folder path');
  return value;
}

function parseRegion(value: string): SpRegion {
  const region = parseSpRegion(value);
  if (region === undefined) throw new InvalidArgumentError(`must be one of ${SP_REGION_CODES.join(', ')}`);
  return region;
}

/**
 * Runs the CLI.
 *
 * @param argv - the process arguments (`process.argv`).
 * @returns when the server is serving (stdio or HTTP); the process then stays up.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name(SP_SERVER_NAME)
    .description('Reference SP-API MCP server: SP-API operations as MCP tools, every failure a v1 error envelope.')
    .version(SP_ADAPTER_VERSION)
    .option('--models <dir>', 'load every *.json SP-API model in DIR (default: the built-in catalog)')
    .option('--model-cache-dir <dir>', 'where converted --models are cached (default: $XDG_CACHE_HOME/mcp-envelope-sp, else ~/.cache/mcp-envelope-sp)', parseFolder)
    .option('--no-model-cache', 'convert every --models file on each start, without the cache')
    .option('--upstream <url>', 'send every SP-API call to this base URL instead of the region endpoint', parseUrl)
    .option('--http <port>', 'serve Streamable HTTP on PORT (default: stdio)', parsePort)
    .option('--host <host>', 'interface for --http', '127.0.0.1')
    .option('--allowed-origins <list>', 'with --http: the Origin values browsers may call from, comma-separated, or none (default: the loopback origins; required when --host is not a loopback address)', parseOrigins)
    .option('--max-sessions <n>', 'with --http: the most sessions open at once', parseCount, DEFAULT_MAX_SESSIONS)
    .option('--session-idle-timeout <seconds>', 'with --http: close a session after this long without a request', parseSeconds, DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000)
    .option('--shutdown-grace <seconds>', 'with --http: on SIGTERM, how long calls in progress may still run', parseSeconds, DEFAULT_SHUTDOWN_GRACE_MS / 1000)
    .option('--region <region>', `starting region: ${SP_REGION_CODES.join(', ')} (default: SP_API_REGION, else na)`, parseRegion)
    .option('--sandbox', 'use the SP-API sandbox endpoints (default: SP_API_SANDBOX)')
    .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls')
    .showHelpAfterError();
  program.parse([...argv]);
  const options = program.opts<CliOptions>();

  const cacheDirectory = options.modelCache ? (options.modelCacheDir ?? defaultModelCacheDirectory()) : undefined;
  if (options.models !== undefined && options.modelCache && cacheDirectory === undefined) {
    process.stderr.write(`${SP_SERVER_NAME}: no model cache: neither XDG_CACHE_HOME nor the home folder is an absolute path (use --model-cache-dir)\n`);
  }
  const models =
    options.models === undefined
      ? await loadBuiltInCatalog()
      : await loadSpModels(options.models, {
          ...(cacheDirectory === undefined ? {} : { cacheDirectory }),
          onCacheEvent: (event) => {
            // the load succeeded either way; say why the next start will not be faster
            if (event.kind === 'unreadable' || event.kind === 'unwritable' || event.kind === 'bypassed') {
              const what = { unreadable: 'was unusable and has been rewritten', unwritable: 'could not be written', bypassed: 'is not used' }[event.kind];
              process.stderr.write(`${SP_SERVER_NAME}: model cache ${event.file} ${what}: ${event.reason ?? ''}\n`);
            }
          },
        });
  const server = createSpServer({ models, upstream: options.upstream, region: options.region, sandbox: options.sandbox, conformanceFixtures: options.conformanceFixtures });
  if (options.http === undefined) {
    await server.envelope.serveStdio();
    return;
  }
  const handle = await server.envelope.serveStreamableHttp({
    port: options.http,
    host: options.host,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    maxSessions: options.maxSessions,
    sessionIdleTimeoutMs: options.sessionIdleTimeout * 1000,
  });
  process.stderr.write(`${SP_SERVER_NAME}: ${server.operations.size} SP-API tools on ${handle.url.href}\n`);
  shutdownOnSignals(handle, options.shutdownGrace * 1000, () => process.exit(0));
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`${SP_SERVER_NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
