/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector`, `--cli`) against both reference
 * servers, over stdio and Streamable HTTP, in its default (legacy, 2025-11-25) era and with
 * `--protocol-era modern` (2026-07-28): it lists the tools and calls one, and the envelope of a
 * failed call arrives intact.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { isEnvelope } from '@mcp-envelope/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { binArgs, gated, mainEnv, prepareGatedModels } from './helpers/gate-servers.js';
import type { ServerId } from '../src/gate/reference-servers.js';

const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
  'clients',
  'launcher',
  'build',
  'index.js',
);

let replay: UpstreamReplay;
let models: ReturnType<typeof prepareGatedModels>;

beforeAll(async () => {
  replay = await startUpstreamReplay();
  models = prepareGatedModels();
});

afterAll(async () => {
  await replay.close();
  models.remove();
});

function serverEnv(server: ServerId): Record<string, string> {
  return mainEnv(server, replay);
}

function serverArgs(server: ServerId): string[] {
  return binArgs(server, replay.url, models.folders[server] ?? '');
}

/** Runs the Inspector CLI and parses the JSON it prints. */
function inspect(target: readonly string[], options: readonly string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', ...target, ...options], {
      env: { PATH: process.env['PATH'] ?? '', HOME: models.folders['sp'] ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout) as unknown);
      } catch {
        reject(
          new Error(`inspector exited ${String(code)} without JSON: ${stdout.slice(0, 500)} ${stderr.slice(-1000)}`),
        );
      }
    });
  });
}

async function startHttp(server: ServerId): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...serverArgs(server), '--http', '0'], {
    env: { PATH: process.env['PATH'] ?? '', ...serverEnv(server) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`no URL within 20 s: ${stderr.slice(-500)}`));
    }, 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
  });
  return { url, child };
}

const CASES = (['sp', 'ads'] as const).flatMap((server) =>
  (['stdio', 'http'] as const).flatMap((over) =>
    (['default', 'modern'] as const).map((era) => [server, over, era] as const),
  ),
);

describe.each(CASES)('Inspector CLI against %s over %s, era %s', (server, over, era) => {
  let target: string[];
  let stop = (): void => undefined;

  beforeAll(async () => {
    if (over === 'stdio') {
      target = [
        ...Object.entries(serverEnv(server)).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
        process.execPath,
        ...serverArgs(server),
      ];
    } else {
      const running = await startHttp(server);
      target = [running.url];
      stop = () => running.child.kill('SIGKILL');
    }
  }, 30_000);

  afterAll(() => {
    stop();
  });

  const eraOptions = era === 'modern' ? ['--protocol-era', 'modern'] : [];

  it('lists the tools, get_envelope_contract among them', async () => {
    const listed = (await inspect(target, ['--method', 'tools/list', ...eraOptions])) as {
      tools?: { name: string; inputSchema: unknown }[];
    };
    expect(listed.tools?.length ?? 0).toBeGreaterThan(3);
    expect(listed.tools?.map((tool) => tool.name)).toContain('get_envelope_contract');
  }, 60_000);

  it('calls a tool: success data and a failure envelope both intact', async () => {
    const contract = (await inspect(target, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_envelope_contract',
      ...eraOptions,
    ])) as { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };
    expect(contract.isError ?? false).toBe(false);
    // a 2026-07-28 server stamps its identity on every result; a 2025-era answer has no such key
    expect(contract._meta?.['io.modelcontextprotocol/serverInfo']).toEqual(
      era === 'modern' ? expect.objectContaining({ name: gated(server).bin }) : undefined,
    );
    expect(contract.structuredContent).toMatchObject({ contract_version: 1 });
    const failed = (await inspect(target, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_envelope_contract',
      '--tool-arg',
      'unexpected=1',
      ...eraOptions,
    ])) as {
      isError?: boolean;
      structuredContent?: unknown;
      content?: { type: string; text: string }[];
    };
    expect(failed.isError).toBe(true);
    expect(isEnvelope(failed.structuredContent)).toBe(true);
    expect(failed.structuredContent).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
      tool: 'get_envelope_contract',
    });
    expect(JSON.parse(failed.content?.[0]?.text ?? '')).toEqual(failed.structuredContent);
  }, 60_000);
});
