#!/usr/bin/env node
/**
 * `mcp-envelope-sp`: the reference SP-API MCP server. Stdio by default, Streamable HTTP with
 * `--http PORT`. Tools come from the built-in catalog, or from every model file of `--models DIR`.
 *
 * @packageDocumentation
 */
import { Command, InvalidArgumentError } from 'commander';
import { addStreamableHttpOptions, serveFromCommandLine, upstreamFromCommandLine } from '@mcp-envelope/core';
import type { StreamableHttpCliOptions } from '@mcp-envelope/core';

import { defaultModelCacheDirectory } from './model-cache.js';
import { loadBuiltInCatalog, loadSpModels } from './models.js';
import { parseSpRegion, SP_REGION_CODES } from './regions.js';
import type { SpRegion } from './regions.js';
import { createSpServer, SP_ADAPTER_VERSION, SP_SERVER_NAME } from './server.js';

interface CliOptions extends StreamableHttpCliOptions {
  readonly models?: string;
  readonly modelCache: boolean;
  readonly modelCacheDir?: string;
  readonly upstream?: string;
  readonly region?: SpRegion;
  readonly sandbox?: boolean;
  readonly conformanceFixtures?: boolean;
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
  const command = new Command()
    .name(SP_SERVER_NAME)
    .description(
      'Reference SP-API MCP server: SP-API operations as MCP tools, every failure an error envelope (contract v1 or v2, as the client states).',
    )
    .version(SP_ADAPTER_VERSION)
    .option('--models <dir>', 'load every *.json SP-API model in DIR (default: the built-in catalog)')
    .option(
      '--model-cache-dir <dir>',
      'where converted --models are cached (default: $XDG_CACHE_HOME/mcp-envelope-sp, else ~/.cache/mcp-envelope-sp)',
      parseFolder,
    )
    .option('--no-model-cache', 'convert every --models file on each start, without the cache')
    .option('--upstream <url>', 'send every SP-API call to this base URL instead of the region endpoint')
    .option(
      '--region <region>',
      `starting region: ${SP_REGION_CODES.join(', ')} (default: SP_API_REGION, else na)`,
      parseRegion,
    )
    .option('--sandbox', 'use the SP-API sandbox endpoints (default: SP_API_SANDBOX)')
    .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls')
    .showHelpAfterError();
  const program = addStreamableHttpOptions(command);
  program.parse([...argv]);
  const options = program.opts<CliOptions>();
  const upstream = upstreamFromCommandLine(options.upstream, program);

  const cacheDirectory = options.modelCache ? (options.modelCacheDir ?? defaultModelCacheDirectory()) : undefined;
  if (options.models !== undefined && options.modelCache && cacheDirectory === undefined) {
    process.stderr.write(
      `${SP_SERVER_NAME}: no model cache: neither XDG_CACHE_HOME nor the home folder is an absolute path (use --model-cache-dir)\n`,
    );
  }
  const models =
    options.models === undefined
      ? await loadBuiltInCatalog()
      : await loadSpModels(options.models, {
          ...(cacheDirectory === undefined ? {} : { cacheDirectory }),
          onCacheEvent: (event) => {
            // the load succeeded either way; say why the next start will not be faster
            if (event.kind === 'unreadable' || event.kind === 'unwritable' || event.kind === 'bypassed') {
              const what = {
                unreadable: 'was unusable and has been rewritten',
                unwritable: 'could not be written',
                bypassed: 'is not used',
              }[event.kind];
              process.stderr.write(`${SP_SERVER_NAME}: model cache ${event.file} ${what}: ${event.reason ?? ''}\n`);
            }
          },
        });
  const server = createSpServer({
    models,
    upstream,
    region: options.region,
    sandbox: options.sandbox,
    conformanceFixtures: options.conformanceFixtures,
  });
  await serveFromCommandLine(
    server.envelope,
    options,
    (url) => `${SP_SERVER_NAME}: ${server.operations.size} SP-API tools on ${url.href}`,
  );
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`${SP_SERVER_NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
