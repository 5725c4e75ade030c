import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import { afterAll, describe, expect, it } from 'vitest';

import { createEnvelopeServer, readToolHistory } from '../src/index.js';

import { connectInMemory } from './fixtures/connect.js';
import { SEARCH_ORDERS_HISTORY, SEARCH_ORDERS_TOOL } from './fixtures/stale-tools.js';
import { testAdapter } from './fixtures/test-adapter.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stale-stdio-server.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'stale-calls-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function lockfile(history: unknown): string {
  const file = join(scratch, `tools-${String(Math.random()).slice(2)}.lock.json`);
  writeFileSync(file, JSON.stringify({ lockfile_version: 1, server: 'test', package: 'test', tools: {}, history }));
  return file;
}

const RENAMED_ENVELOPE = {
  error_kind: 'mcp_input_validation',
  tool: 'search_orders',
  summary:
    'arguments uses marketplaceIds, which was renamed to marketplace_ids in 0.2.0. Call again with marketplace_ids.',
  details: [
    {
      path: '',
      issue: 'renamed since 0.2.0: marketplaceIds -> marketplace_ids',
      received_type: 'array',
      field: '',
      extra: 'marketplaceIds',
      expected: 'only the keys the schema declares',
      did_you_mean: 'marketplace_ids',
      renamed_since: '0.2.0',
    },
  ],
  hints: [
    'Send marketplace_ids instead of marketplaceIds (renamed in 0.2.0); list the tools again for its current schema.',
  ],
  examples: [],
  error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
  retryable: false,
  _envelope_version: 2,
};

describe('a stale call, over stdio from a real server process with its lockfile', () => {
  it('gets the rename in its envelope, and the retry with did_you_mean succeeds', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER],
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', TOOLS_LOCK: lockfile(SEARCH_ORDERS_HISTORY) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stale-call-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      // a current client, which reads version 2 envelopes
      const stale = await client.callTool({
        name: 'search_orders',
        arguments: { marketplaceIds: ['ATVPDKIKX0DER'] },
        _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
      });
      expect(stale.isError).toBe(true);
      const envelope = stale.structuredContent as typeof RENAMED_ENVELOPE & { _meta?: unknown };
      expect({ ...envelope, _meta: undefined }).toEqual({ ...RENAMED_ENVELOPE, _meta: undefined });
      const renamed = envelope.details[0]?.did_you_mean ?? '';
      const retry = await client.callTool({ name: 'search_orders', arguments: { [renamed]: ['ATVPDKIKX0DER'] } });
      expect(retry.isError).toBeFalsy();
      expect(retry.structuredContent).toEqual({ received: { marketplace_ids: ['ATVPDKIKX0DER'] } });
    } finally {
      await client.close();
    }
  });
});

describe('stale calls in process', () => {
  function server(env: Record<string, string> = {}): ReturnType<typeof createEnvelopeServer> {
    return createEnvelopeServer({
      info: { name: 'stale', version: '0.3.0' },
      adapter: testAdapter,
      tools: [SEARCH_ORDERS_TOOL],
      options: { env, toolHistory: SEARCH_ORDERS_HISTORY },
    });
  }

  it('names a removed property with no did_you_mean, and counts every old name in the summary', async () => {
    const connected = await connectInMemory(server());
    try {
      const result = await connected.client.callTool({
        name: 'search_orders',
        arguments: { region: 'eu', marketplaceIds: ['A1'] },
      });
      const envelope = result.structuredContent as typeof RENAMED_ENVELOPE;
      expect(envelope.summary).toBe(
        'arguments uses region, which the tool no longer takes since 0.3.0 (and 1 more). Drop it and call again.',
      );
      expect(envelope.details.map((detail) => [detail.issue, detail.did_you_mean])).toEqual([
        ['removed since 0.3.0: region was removed', undefined],
        ['renamed since 0.2.0: marketplaceIds -> marketplace_ids', 'marketplace_ids'],
      ]);
      expect(envelope.hints[0]).toBe(
        'Drop region: the tool no longer takes it since 0.3.0; list the tools again for its current schema.',
      );
    } finally {
      await connected.close();
    }
  });

  it('refuses the old name with strict unknown fields off too, where it would pass through unread', async () => {
    const connected = await connectInMemory(server({ MCP_STRICT_UNKNOWN_FIELDS: 'false' }));
    try {
      const stale = await connected.client.callTool({
        name: 'search_orders',
        arguments: { marketplace_ids: ['A1'], marketplaceIds: ['A1'] },
      });
      expect((stale.structuredContent as { error_code: string }).error_code).toBe('SCHEMA_ADDITIONAL_PROPERTIES');
      // a key the history does not know still passes through in lenient mode
      const fresh = await connected.client.callTool({
        name: 'search_orders',
        arguments: { marketplace_ids: ['A1'], note: 'x' },
      });
      expect(fresh.isError).toBeFalsy();
    } finally {
      await connected.close();
    }
  });
});

describe('a hostile history', () => {
  it('neither breaks a call nor pollutes objects when it names __proto__ and constructor', async () => {
    const connected = await connectInMemory(
      createEnvelopeServer({
        info: { name: 'stale', version: '0.3.0' },
        adapter: testAdapter,
        tools: [SEARCH_ORDERS_TOOL],
        options: {
          toolHistory: [
            { tool: 'search_orders', old: '__proto__', new: null, since: '0.3.0' },
            { tool: '__proto__', old: 'constructor', new: 'toString', since: '0.3.0' },
          ],
        },
      }),
    );
    try {
      const fresh = await connected.client.callTool({ name: 'search_orders', arguments: { marketplace_ids: ['A1'] } });
      expect(fresh.structuredContent).toEqual({ received: { marketplace_ids: ['A1'] } });
      const arguments_ = JSON.parse('{"marketplace_ids":["A1"],"__proto__":{"polluted":true}}') as Record<
        string,
        unknown
      >;
      const stale = await connected.client.callTool({ name: 'search_orders', arguments: arguments_ });
      // the SDK's parsing of the request drops an own __proto__ key before core sees it
      expect(stale.structuredContent).toEqual({ received: { marketplace_ids: ['A1'] } });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    } finally {
      await connected.close();
    }
  });
});

describe('readToolHistory', () => {
  it('reads a lockfile history, and [] for a server installed without a lockfile', () => {
    expect(readToolHistory(lockfile(SEARCH_ORDERS_HISTORY))).toEqual(SEARCH_ORDERS_HISTORY);
    expect(readToolHistory(join(scratch, 'absent.lock.json'))).toEqual([]);
  });

  it('names the file when the lockfile is not JSON', () => {
    const file = join(scratch, 'broken.lock.json');
    writeFileSync(file, '{"history": [');
    expect(() => readToolHistory(file)).toThrow(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not JSON: `),
    );
  });

  it('refuses a history entry without its since version', () => {
    const file = lockfile([{ tool: 'search_orders', old: 'a', new: 'b' }]);
    expect(() => readToolHistory(file)).toThrow(`${file}: history must be a list of { tool, old, new, since }`);
  });
});
