import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { loadGateServers } from '../src/gate/descriptor.js';
import { GATE_SERVER_PACKAGES } from '../src/gate/servers.js';
import { runReleaseCheck } from '../src/release/index.js';
import {
  TOOLS_LOCK_FILE,
  breakingChanges,
  buildToolsLock,
  contractHash,
  historyProblems,
  inputSurface,
  lockDrift,
  parseSurfaceLine,
  parseToolsLock,
  readServerToolLocks,
  toolLockProblems,
} from '../src/tools-lock/index.js';
import type { ListedTool } from '../src/tools-lock/index.js';
import { makeReleaseRepo } from './release/release-repo.js';

const ORDERS: ListedTool = {
  name: 'orders_get',
  inputSchema: {
    type: 'object',
    properties: {
      orderId: { type: 'string' },
      status: { enum: ['open', 'closed'] },
      filter: {
        type: 'object',
        properties: { since: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['since'],
      },
      mode: { const: 'fast' },
      anything: {},
      either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    },
    required: ['orderId'],
  },
  annotations: { readOnlyHint: true },
};

const SERVER = { id: 'sp', packageName: '@mcp-envelope/sp-adapter', version: '0.2.0' };

describe('the lockfile of a tool', () => {
  it('lists every property path with its types, whether required, and its values', () => {
    expect(inputSurface(ORDERS.inputSchema)).toEqual({
      anything: 'any',
      either: 'integer|string',
      filter: 'object',
      'filter.since': 'null|string required',
      'filter.tags': 'array',
      'filter.tags[]': 'string',
      mode: 'string enum ["fast"]',
      orderId: 'string required',
      status: 'string enum ["open","closed"]',
    });
    expect(parseSurfaceLine('string required enum ["open","closed"]')).toEqual({
      types: ['string'],
      required: true,
      values: ['"open"', '"closed"'],
    });
  });

  it('hashes the canonical contract: key order does not count, the output schema and annotations do', () => {
    const reordered = {
      ...ORDERS,
      annotations: { readOnlyHint: true },
      inputSchema: { required: ['orderId'], ...(ORDERS.inputSchema as object) },
    };
    expect(contractHash(reordered)).toBe(contractHash(ORDERS));
    expect(contractHash(ORDERS)).toMatch(/^[0-9a-f]{16}$/);
    expect(contractHash({ ...ORDERS, annotations: { readOnlyHint: false } })).not.toBe(contractHash(ORDERS));
    expect(contractHash({ ...ORDERS, outputSchema: { type: 'object' } })).not.toBe(contractHash(ORDERS));
  });

  it('records a property that disappeared as a removal the author can turn into a rename, once', () => {
    const first = buildToolsLock(SERVER, [ORDERS], undefined);
    const properties = (ORDERS.inputSchema as { properties: Record<string, unknown> }).properties;
    const { status, ...rest } = properties;
    const second = buildToolsLock(
      SERVER,
      [{ ...ORDERS, inputSchema: { type: 'object', properties: { ...rest, state: status } } }],
      first,
    );
    expect(second.history).toEqual([{ tool: 'orders_get', old: 'status', new: null, since: '0.2.0' }]);
    const renamed = { ...second, history: [{ tool: 'orders_get', old: 'status', new: 'state', since: '0.2.0' }] };
    expect(historyProblems(renamed)).toEqual([]);
    expect(buildToolsLock(SERVER, [], renamed).history).toEqual(renamed.history);
    expect(
      historyProblems({ ...renamed, history: [{ tool: 'orders_get', old: 'status', new: 'stat', since: '0.2.0' }] }),
    ).toEqual(['orders_get: status is renamed to stat, which the tool does not have']);
    expect(breakingChanges(first, renamed).map((change) => change.message)).toEqual([
      // orderId is no longer required: a widening, not listed
      'orders_get: status was removed (renamed to state)',
    ]);
  });

  it('counts a new required property inside an object callers already send, not inside a new object', () => {
    const lockOf = (filter: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      buildToolsLock(
        SERVER,
        [{ name: 'orders_get', inputSchema: { type: 'object', properties: { filter, ...extra } } }],
        undefined,
      );
    const before = lockOf({ type: 'object', properties: { since: { type: 'string' } } });
    const after = lockOf(
      { type: 'object', properties: { since: { type: 'string' }, region: { type: 'string' } }, required: ['region'] },
      { page: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] } },
    );
    expect(breakingChanges(before, after).map((change) => change.message)).toEqual([
      'orders_get: new property filter.region is required',
    ]);
  });

  it('reads tool and property names such as constructor and toString as names, not inherited members', () => {
    const named = (name: string, property: string): ListedTool => ({
      name,
      inputSchema: { type: 'object', properties: { [property]: { type: 'string' } } },
    });
    const first = buildToolsLock(SERVER, [named('constructor', 'toString'), named('keep', 'a')], undefined);
    const second = buildToolsLock(SERVER, [named('keep', 'valueOf')], first);
    expect(second.history).toEqual([{ tool: 'keep', old: 'a', new: null, since: '0.2.0' }]);
    expect(breakingChanges(first, second).map((change) => change.message)).toEqual([
      'constructor was removed',
      'keep: a was removed',
    ]);
    const required = buildToolsLock(
      SERVER,
      [
        {
          name: 'keep',
          inputSchema: { type: 'object', properties: { constructor: { type: 'string' } }, required: ['constructor'] },
        },
      ],
      undefined,
    );
    expect(breakingChanges(second, required).map((change) => change.message)).toEqual([
      'keep: valueOf was removed',
      'keep: new property constructor is required',
    ]);
    expect(lockDrift(second, first)).toEqual([
      'constructor is served but not in the lockfile',
      'keep changed (hash ' + String(second.tools['keep']?.hash) + ' -> ' + String(first.tools['keep']?.hash) + ')',
    ]);
    expect(historyProblems({ ...second, history: [{ tool: 'toString', old: 'a', new: 'b', since: '0.2.0' }] })).toEqual(
      [],
    );
  });

  it('names the file when a lockfile is not JSON', () => {
    expect(() => parseToolsLock('{"lockfile_version": 1,', 'packages/sp-adapter/tools.lock.json')).toThrow(
      /^packages\/sp-adapter\/tools\.lock\.json is not JSON: /,
    );
  });

  it('tells an out-of-date lockfile from a current one', () => {
    const locked = buildToolsLock(SERVER, [ORDERS], undefined);
    expect(lockDrift(locked, buildToolsLock(SERVER, [ORDERS], locked))).toEqual([]);
    const now = buildToolsLock(SERVER, [{ ...ORDERS, annotations: {} }, { name: 'orders_list' }], locked);
    expect(lockDrift(locked, now)).toEqual([
      `orders_get changed (hash ${contractHash(ORDERS)} -> ${contractHash({ ...ORDERS, annotations: {} })})`,
      'orders_list is served but not in the lockfile',
    ]);
  });
});

describe('the checked-in lockfiles of the gated servers', () => {
  it('describe the tools each server lists now (else run pnpm tools:lock)', async () => {
    const locks = await readServerToolLocks(loadGateServers(GATE_SERVER_PACKAGES));
    expect(locks.map((lock) => [lock.server.id, toolLockProblems(lock)])).toEqual([
      ['sp', []],
      ['ads', []],
      ['github', []],
    ]);
    const github = locks.find((lock) => lock.server.id === 'github');
    expect(Object.keys(github?.current.tools ?? {})).toHaveLength(1222);
    const text = readFileSync(join(github?.server.packageRoot ?? '', TOOLS_LOCK_FILE), 'utf8');
    // small enough to review in a diff: one line per property, no schema copied
    expect(text.length).toBeLessThan(450_000);
  });

  it('fail the release check when out of date, naming the command that refreshes them', async () => {
    const [lock] = await readServerToolLocks(loadGateServers(GATE_SERVER_PACKAGES).slice(1, 2));
    if (lock === undefined) throw new Error('the Ads server is not gated');
    const stale = { ...lock, checkedIn: { ...lock.current, tools: {} } };
    const result = await runReleaseCheck({
      root: makeReleaseRepo({ tag: false }),
      liveToolLocks: () => Promise.resolve([stale]),
    });
    const finding = result.findings.find((entry) => entry.rule === 'tool-lock-fresh');
    expect(finding?.message).toMatch(
      /^the tool lockfile of ads is out of date: create_report is served but not in the lockfile; /,
    );
    expect(finding?.fix).toContain('Run `pnpm tools:lock`');
  });
});
