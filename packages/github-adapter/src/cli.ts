#!/usr/bin/env node
/**
 * `mcp-envelope-github`: the reference GitHub MCP server. Stdio by default, Streamable HTTP with
 * `--http PORT`. Tools come from GitHub's OpenAPI description (`@octokit/openapi`); the token from
 * `GITHUB_TOKEN`.
 *
 * @packageDocumentation
 */
import { Command } from 'commander';
import { addStreamableHttpOptions, serveFromCommandLine, upstreamFromCommandLine } from '@mcp-envelope/core';
import type { StreamableHttpCliOptions } from '@mcp-envelope/core';

import { createGithubServer, DEFAULT_GITHUB_UPSTREAM, GITHUB_ADAPTER_VERSION, GITHUB_SERVER_NAME } from './server.js';

interface CliOptions extends StreamableHttpCliOptions {
  readonly upstream: string;
  readonly conformanceFixtures?: boolean;
}

/**
 * Runs the CLI.
 *
 * @param argv - the process arguments (`process.argv`).
 * @returns when the server is serving (stdio or HTTP); the process then stays up.
 * @throws GithubSettingsError when `GITHUB_TOKEN` is missing (the caller prints it and exits 1).
 */
export async function main(argv: readonly string[]): Promise<void> {
  const command = new Command()
    .name(GITHUB_SERVER_NAME)
    .description(
      'Reference GitHub MCP server: every GitHub REST API operation as an MCP tool, every failure an error envelope (contract v2). Needs GITHUB_TOKEN.',
    )
    .version(GITHUB_ADAPTER_VERSION)
    .option(
      '--upstream <url>',
      'send every call to this base URL (GitHub Enterprise Server: https://HOST/api/v3)',
      DEFAULT_GITHUB_UPSTREAM,
    )
    .option('--conformance-fixtures', 'also serve the fixture tools the official MCP conformance suite calls')
    .showHelpAfterError();
  const program = addStreamableHttpOptions(command);
  program.parse([...argv]);
  const options = program.opts<CliOptions>();
  const server = createGithubServer({
    upstream: upstreamFromCommandLine(options.upstream, program) ?? DEFAULT_GITHUB_UPSTREAM,
    conformanceFixtures: options.conformanceFixtures,
  });
  await serveFromCommandLine(
    server.envelope,
    options,
    (url) => `${GITHUB_SERVER_NAME}: ${server.operations.size} GitHub tools on ${url.href}`,
  );
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`${GITHUB_SERVER_NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
