#!/usr/bin/env node
/**
 * `mcp-envelope-ads`: the reference Amazon Ads API MCP server. Stdio by default; `--http PORT`
 * serves Streamable HTTP on 127.0.0.1. Settings come from the environment (see the README).
 *
 * @packageDocumentation
 */
import { Command, InvalidArgumentError } from 'commander';
import { createEnvelopeLogger } from '@mcp-envelope/core';

import { ADS_PACKAGE_VERSION, createAdsServer } from './server/create-server.js';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}

const program = new Command()
  .name('mcp-envelope-ads')
  .description('Reference Amazon Ads API MCP server that answers every failure with a v1 error envelope.')
  .version(ADS_PACKAGE_VERSION)
  .option('--upstream <url>', 'send every Ads API call to this base URL instead of the region host (e.g. the sandbox https://advertising-api-test.amazon.com)')
  .option('--models <dir>', 'also serve the operations of the OpenAPI 3 Ads descriptions (*.json) in this folder')
  .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio', port)
  .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls')
  .action(async (options: { upstream?: string; models?: string; http?: number; conformanceFixtures?: boolean }) => {
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
    const handle = await server.envelope.serveStreamableHttp({ port: options.http });
    process.stderr.write(`mcp-envelope-ads listening on ${handle.url.href}\n`);
    const stop = (): void => {
      void handle.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mcp-envelope-ads: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
