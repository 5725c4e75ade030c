#!/usr/bin/env node
/**
 * `mcp-envelope-release-check [--since REF] [--root DIR] [--json]` and
 * `mcp-envelope-release-check snapshot`: the release gate's command line.
 *
 * @packageDocumentation
 */
import { Command } from 'commander';

import { resolve, sep } from 'node:path';

import { readGateServer } from '../gate/descriptor.js';
import type { GateServer } from '../gate/descriptor.js';
import { GATE_SERVER_PACKAGES } from '../gate/servers.js';
import { readServerToolLocks } from '../tools-lock/live.js';
import { formatReleaseCheck, runReleaseCheck } from './release-check.js';
import { writeReleaseSnapshot } from './snapshot.js';

const program = new Command('mcp-envelope-release-check')
  .description('Check the lockstep and migration-window rules before a release.')
  .option('--root <dir>', 'the checkout to check', process.cwd())
  .option('--since <ref>', 'git ref to diff against (a pull request base such as origin/main)')
  .option('--json', 'print the result as JSON')
  .action(async (options: { root: string; since?: string; json?: boolean }) => {
    // only the gated servers built from this checkout are listed: another checkout's lockfiles
    // describe its own servers, which this installation does not run
    const root = resolve(options.root);
    const servers = GATE_SERVER_PACKAGES.map(readGateServer).filter(
      (server): server is GateServer =>
        server !== undefined && `${server.packageRoot}${sep}`.startsWith(`${root}${sep}`),
    );
    const result = await runReleaseCheck({
      root: options.root,
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(servers.length === 0 ? {} : { liveToolLocks: () => readServerToolLocks(servers) }),
    });
    process.stdout.write(`${options.json === true ? JSON.stringify(result, null, 2) : formatReleaseCheck(result)}\n`);
    process.exitCode = result.ok ? 0 : 1;
  });

program
  .command('snapshot')
  .description('Write contract/releases/<version>.json for the current version (run at release).')
  .action(() => {
    const { path, snapshot } = writeReleaseSnapshot(program.opts<{ root: string }>().root);
    process.stdout.write(
      `wrote ${path} (${Object.keys(snapshot.kinds).length} servers, ${snapshot.migrations.length} migrations)\n`,
    );
  });

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`release:check could not run: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
