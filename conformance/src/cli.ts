#!/usr/bin/env node
/**
 * The `mcp-envelope-conformance` binary: runs {@link runCli} on the process arguments and exits
 * with its code (exiting explicitly, so that nothing a server leaves behind can keep it alive).
 *
 * @packageDocumentation
 */
import { runCli } from './cli-program.js';

process.exit(await runCli(process.argv.slice(2)));
