/**
 * A real Verdaccio registry on a loopback port, with no uplink: it serves only what is published
 * to it, so nothing reaches past 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/** A running registry. */
export interface Registry {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  /** A token of a user that may publish. */
  readonly token: string;
  /** Everything the registry printed, for failure messages. */
  readonly log: () => string;
  readonly stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

function config(folder: string): string {
  return [
    `storage: ${join(folder, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(folder, 'htpasswd')}`,
    '    max_users: 10',
    'uplinks: {}',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    'max_body_size: 200mb',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
}

function verdaccioBin(repositoryRoot: string): string {
  const manifestPath = createRequire(join(repositoryRoot, 'package.json')).resolve('verdaccio/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifestPath), manifest.bin['verdaccio'] ?? 'bin/verdaccio');
}

/**
 * A bounded readiness poll of the child server (every 100 ms, 30 s at most), not a wait for a
 * timer: Verdaccio logs at `warn` here, so it prints no line when it starts listening to wait for.
 */
async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(`${url}/-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`verdaccio did not answer on ${url} within 30 s:\n${log()}`);
}

/**
 * Starts Verdaccio with its storage in `folder`, filled first by `seed` (given the URL it will
 * listen on), and adds a publishing user.
 *
 * @throws Error when it does not come up or refuses the user.
 */
export async function startVerdaccio(
  repositoryRoot: string,
  folder: string,
  seed: (url: string, storage: string) => Promise<void>,
): Promise<Registry> {
  writeFileSync(join(folder, 'config.yaml'), config(folder));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await seed(url, join(folder, 'storage'));
  const child = spawn(
    process.execPath,
    [verdaccioBin(repositoryRoot), '--config', join(folder, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const log = (): string => output;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUntilUp(url, child, log);
    const response = await fetch(`${url}/-/user/org.couchdb.user:release`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'release', password: 'rehearsal-only' }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || typeof body.token !== 'string')
      throw new Error(`verdaccio refused the user (${response.status}): ${JSON.stringify(body)}`);
    return { url, token: body.token, log, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
