/**
 * The `--stdio` command line that starts `@modelcontextprotocol/server-everything`, the MCP
 * reference server the demo probes, so that the demo and its tests start it the same way.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { quote } from 'shell-quote';

import { isRecord } from '@mcp-envelope/contract';

/**
 * The host server-everything's `gzip-file-as-resource` tool may fetch from. Unset, the tool fetches
 * a public URL by default whenever a call leaves out `data`, and the probe's calls do.
 */
export const SERVER_EVERYTHING_ALLOWED_DOMAINS = '127.0.0.1';

/**
 * Finds server-everything's entry file through its package.json `bin` (the package has no `main`).
 *
 * @returns the absolute path of the entry file.
 * @throws Error when the package is not installed or declares no `bin`.
 */
export function serverEverythingEntry(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isRecord(manifest) ? manifest['bin'] : undefined;
  const entry =
    typeof bin === 'string'
      ? bin
      : isRecord(bin)
        ? Object.values(bin).find((value) => typeof value === 'string')
        : undefined;
  if (typeof entry !== 'string') throw new Error('@modelcontextprotocol/server-everything declares no bin entry');
  return join(dirname(manifestPath), entry);
}

/**
 * The command line for `probe --stdio`: this Node binary running server-everything over stdio,
 * with `GZIP_ALLOWED_DOMAINS` limited to loopback so that no call makes it fetch from the internet.
 *
 * @returns e.g. `GZIP_ALLOWED_DOMAINS=127.0.0.1 /usr/bin/node /…/dist/index.js stdio` (paths quoted when they need it).
 * @throws Error when the package is not installed or declares no `bin`.
 */
export function serverEverythingCommandLine(): string {
  // server-everything picks its transport from its first argument; "stdio" is the default, said explicitly.
  return `GZIP_ALLOWED_DOMAINS=${SERVER_EVERYTHING_ALLOWED_DOMAINS} ${quote([process.execPath, serverEverythingEntry()])} stdio`;
}
