import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serverEverythingCommandLine } from '../src/server-everything.js';
import { ensureBuilt, GATE_SLACK, packageRoot, PROBE_SLACK, run, runCliProcess } from './helpers/cli-runner.js';

/** One line of the guard's log. */
interface GuardEntry {
  readonly pid: number;
  readonly event: 'guarded' | 'refused';
  readonly via?: string;
  readonly host?: string;
  readonly port?: number | string | null;
  readonly argv?: readonly string[];
}

const guardUrl = pathToFileURL(join(packageRoot, 'test', 'helpers', 'loopback-guard.mjs')).href;

let folder: string;

beforeAll(async () => {
  await ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), 'conformance-loopback-'));
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The environment that preloads the guard into a process and every Node process it starts. */
function guardedEnv(log: string): Record<string, string> {
  const inherited = process.env['NODE_OPTIONS'] ?? '';
  return { LOOPBACK_GUARD_LOG: log, NODE_OPTIONS: `${inherited} --import=${guardUrl}`.trim() };
}

function readLog(log: string): GuardEntry[] {
  // No file means no process wrote to it: the guard was not loaded, or nothing was attempted.
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as GuardEntry);
}

const refusedOf = (entries: readonly GuardEntry[]): GuardEntry[] =>
  entries.filter((entry) => entry.event === 'refused');

describe('the loopback guard', () => {
  it('refuses and records a connection to a non-loopback address before it is made, and lets loopback through', async () => {
    const listener = createServer((socket) => socket.end('loopback answer'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    const log = join(folder, 'self-test.log');
    const script = [
      "const net = require('node:net');",
      "const outside = net.connect(80, '203.0.113.1');",
      "outside.on('error', (error) => console.log('outside', error.code));",
      "fetch('https://example.com/').catch((error) => console.log('fetch', error.cause.code));",
      `const inside = net.connect(${port}, '127.0.0.1');`,
      "inside.on('data', (chunk) => console.log('inside', String(chunk)));",
    ].join('\n');
    try {
      const child = await run(process.execPath, ['-e', script], folder, 30_000, guardedEnv(log));
      expect(child.code).toBe(0);
      expect(
        child.stdout
          .split('\n')
          .filter((line) => line !== '')
          .sort(),
      ).toEqual(['fetch ENETUNREACH', 'inside loopback answer', 'outside ENETUNREACH']);
    } finally {
      listener.close();
    }
    expect(refusedOf(readLog(log)).map(({ via, host, port: target }) => ({ via, host, port: target }))).toEqual([
      { via: 'net.Socket.connect', host: '203.0.113.1', port: 80 },
      { via: 'net.Socket.connect', host: 'example.com', port: 443 },
    ]);
  });
});

describe('nothing npm start runs leaves 127.0.0.1', () => {
  it('the gate (reference servers, upstream replays, child processes) opens no non-loopback connection', async () => {
    const log = join(folder, 'gate.log');
    const gate = await runCliProcess(
      ['gate', ...GATE_SLACK, '--json', join(folder, 'gate.json')],
      packageRoot,
      300_000,
      guardedEnv(log),
    );
    expect(gate.code).toBe(0);
    const entries = readLog(log);
    expect(refusedOf(entries)).toEqual([]);
    // The gate process and the reference servers it starts were all guarded.
    expect(new Set(entries.map((entry) => entry.pid)).size).toBeGreaterThan(2);
  }, 300_000);

  it('the server-everything probe, run as the demo runs it, opens no non-loopback connection', async () => {
    const log = join(folder, 'everything.log');
    const probe = await runCliProcess(
      ['probe', '--stdio', serverEverythingCommandLine(), ...PROBE_SLACK, '--allow-nonconformant'],
      packageRoot,
      300_000,
      guardedEnv(log),
    );
    expect(probe.code).toBe(0);
    const entries = readLog(log);
    expect(refusedOf(entries)).toEqual([]);
    // The gzip tool refuses its default public URL instead of fetching it.
    expect(probe.stdout).toMatch(
      /\nunknown-extra +gzip-file-as-resource .*"Error processing file https:\/\/raw\.githubusercontent\.com\/\S+: Domain …"\n/,
    );
    const serverEverything = entries.filter(
      (entry) => entry.event === 'guarded' && entry.argv?.includes('stdio') === true,
    );
    expect(serverEverything).toHaveLength(1);
  }, 300_000);
});
