#!/usr/bin/env node
/**
 * `mcp-envelope-github`: the reference GitHub MCP server. Stdio by default, Streamable HTTP with
 * `--http PORT`. Tools come from GitHub's OpenAPI description (`@octokit/openapi`); the token from
 * `GITHUB_TOKEN`.
 *
 * @packageDocumentation
 */
import { Command } from 'commander';
import { addStreamableHttpOptions, shutdownOnSignals, streamableHttpOptionsFrom } from '@mcp-envelope/core';
import type { StreamableHttpCliOptions } from '@mcp-envelope/core';
import { endpointUrlProblem } from '@mcp-envelope/core/adapter';

import { createGithubServer, DEFAULT_GITHUB_UPSTREAM, GITHUB_ADAPTER_VERSION, GITHUB_SERVER_NAME } from './server.js';

interface CliOptions extends StreamableHttpCliOptions {
  readonly upstream: string;
  readonly conformanceFixtures?: boolean;
}

/**
 * The `--upstream` base URL, checked after parsing: commander quotes a rejected option value in its
 * message, and this one may carry a credential.
 */
function checkedUpstream(value: string, program: Command): string {
  const problem = endpointUrlProblem(value.trim());
  if (problem !== undefined)
    program.error(`error: --upstream ${problem} (its value is not shown, as it may hold a secret)`);
  return value.trim().replace(/\/+$/, '');
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
    upstream: checkedUpstream(options.upstream, program),
    conformanceFixtures: options.conformanceFixtures,
  });
  if (options.http === undefined) {
    const stdio = await server.envelope.serveStdio();
    // the client closed stdin to stop this server: calls still running have nobody to answer
    await stdio.closed;
    await server.envelope.close();
    process.exit(0);
  }
  const handle = await server.envelope.serveStreamableHttp(
    streamableHttpOptionsFrom({ ...options, http: options.http }),
  );
  process.stderr.write(`${GITHUB_SERVER_NAME}: ${server.operations.size} GitHub tools on ${handle.url.href}\n`);
  shutdownOnSignals(handle, options.shutdownGrace * 1000, () => process.exit(0));
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`${GITHUB_SERVER_NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
