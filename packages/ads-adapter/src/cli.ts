#!/usr/bin/env node
/**
 * `mcp-envelope-ads`: the reference Amazon Ads API MCP server. Stdio by default; `--http PORT`
 * serves Streamable HTTP on 127.0.0.1. Settings come from the environment (see the README).
 *
 * @packageDocumentation
 */
import { Command } from 'commander';
import {
  addStreamableHttpOptions,
  createEnvelopeLogger,
  serveFromCommandLine,
  upstreamFromCommandLine,
} from '@mcp-envelope/core';
import type { StreamableHttpCliOptions } from '@mcp-envelope/core';

import { ADS_PACKAGE_VERSION, createAdsServer } from './server/create-server.js';

interface CliOptions extends StreamableHttpCliOptions {
  readonly upstream?: string;
  readonly models?: string;
  readonly conformanceFixtures?: boolean;
}

const command = new Command()
  .name('mcp-envelope-ads')
  .description(
    'Reference Amazon Ads API MCP server that answers every failure with an error envelope (contract v1 or v2, as the client states).',
  )
  .version(ADS_PACKAGE_VERSION)
  .option(
    '--upstream <url>',
    'send every Ads API call to this base URL instead of the region host (e.g. the sandbox https://advertising-api-test.amazon.com)',
  )
  .option('--models <dir>', 'also serve the operations of the OpenAPI 3 Ads descriptions (*.json) in this folder')
  .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls');

const program = addStreamableHttpOptions(command).action(async (options: CliOptions) => {
  const upstream = upstreamFromCommandLine(options.upstream, program);
  const logger = createEnvelopeLogger();
  const started = performance.now();
  const server = await createAdsServer({
    logger,
    ...(upstream === undefined ? {} : { upstream }),
    ...(options.models === undefined ? {} : { modelsDir: options.models }),
    conformanceFixtures: options.conformanceFixtures === true,
  });
  logger.info(
    {
      tools: server.toolNames.length,
      models: server.models?.models ?? [],
      skipped: server.models?.skipped ?? [],
      region: server.settings.region,
      startup_ms: Math.round(performance.now() - started),
    },
    'mcp-envelope-ads ready',
  );
  await serveFromCommandLine(server.envelope, options, (url) => `mcp-envelope-ads listening on ${url.href}`);
});

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mcp-envelope-ads: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
