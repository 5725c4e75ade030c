#!/usr/bin/env node
/**
 * `mcp-envelope-ads`: the reference Amazon Ads API MCP server. Stdio by default; `--http PORT`
 * serves Streamable HTTP on 127.0.0.1. Settings come from the environment (see the README).
 *
 * @packageDocumentation
 */
import { Command, InvalidArgumentError } from 'commander';
import { createEnvelopeLogger, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS, DEFAULT_SHUTDOWN_GRACE_MS, parseAllowedOrigins, shutdownOnSignals } from '@mcp-envelope/core';

import { ADS_PACKAGE_VERSION, createAdsServer } from './server/create-server.js';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}

function origins(value: string): string[] {
  try {
    return parseAllowedOrigins(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a count is a whole number of at least 1');
  return parsed;
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('a duration is a number of seconds (0 or more)');
  return parsed;
}

interface CliOptions {
  readonly upstream?: string;
  readonly models?: string;
  readonly http?: number;
  readonly host: string;
  readonly allowedOrigins?: string[];
  readonly maxSessions: number;
  readonly sessionIdleTimeout: number;
  readonly shutdownGrace: number;
  readonly conformanceFixtures?: boolean;
}

const program = new Command()
  .name('mcp-envelope-ads')
  .description('Reference Amazon Ads API MCP server that answers every failure with a v1 error envelope.')
  .version(ADS_PACKAGE_VERSION)
  .option('--upstream <url>', 'send every Ads API call to this base URL instead of the region host (e.g. the sandbox https://advertising-api-test.amazon.com)')
  .option('--models <dir>', 'also serve the operations of the OpenAPI 3 Ads descriptions (*.json) in this folder')
  .option('--http <port>', 'serve Streamable HTTP on <host>:<port>/mcp instead of stdio', port)
  .option('--host <host>', 'interface for --http', '127.0.0.1')
  .option('--allowed-origins <list>', 'with --http: the Origin values browsers may call from, comma-separated, or none (default: the loopback origins; required when --host is not a loopback address)', origins)
  .option('--max-sessions <n>', 'with --http: the most sessions open at once', count, DEFAULT_MAX_SESSIONS)
  .option('--session-idle-timeout <seconds>', 'with --http: close a session after this long without a request', seconds, DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000)
  .option('--shutdown-grace <seconds>', 'with --http: on SIGTERM, how long calls in progress may still run', seconds, DEFAULT_SHUTDOWN_GRACE_MS / 1000)
  .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls')
  .action(async (options: CliOptions) => {
    const logger = createEnvelopeLogger();
    const started = performance.now();
    const server = await createAdsServer({ logger, ...(options.upstream === undefined ? {} : { upstream: options.upstream }), ...(options.models === undefined ? {} : { modelsDir: options.models }), conformanceFixtures: options.conformanceFixtures === true });
    logger.info(
      { tools: server.toolNames.length, models: server.models?.models ?? [], skipped: server.models?.skipped ?? [], region: server.settings.region, startup_ms: Math.round(performance.now() - started) },
      'mcp-envelope-ads ready',
    );
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
    process.stderr.write(`mcp-envelope-ads listening on ${handle.url.href}\n`);
    shutdownOnSignals(handle, options.shutdownGrace * 1000, () => process.exit(0));
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mcp-envelope-ads: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
