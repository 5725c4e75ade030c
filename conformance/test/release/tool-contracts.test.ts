import { describe, expect, it } from 'vitest';

import { formatReleaseCheck, runReleaseCheck } from '../../src/release/index.js';
import type { ReleaseCheckResult } from '../../src/release/index.js';
import { serializeToolsLock } from '../../src/tools-lock/index.js';
import type { ToolsLock } from '../../src/tools-lock/index.js';
import { addChangeset, git, makeReleaseRepo, tagRelease, write } from './release-repo.js';

const LOCK_FILE = 'packages/sp-adapter/tools.lock.json';

/** The released contract of two tools. */
const RELEASED: Record<string, Record<string, string>> = {
  orders_get: {
    orderId: 'string required',
    status: 'string enum ["open","closed"]',
    limit: 'integer',
  },
  orders_list: {
    marketplaceIds: 'array required',
    'marketplaceIds[]': 'string',
  },
};

function lockOf(tools: Record<string, Record<string, string>>, history: ToolsLock['history'] = []): ToolsLock {
  return {
    lockfile_version: 1,
    server: 'sp',
    package: '@mcp-envelope/sp-adapter',
    // the release check compares surfaces; the hash only has to be a hash
    tools: Object.fromEntries(
      Object.entries(tools).map(([name, input]) => [name, { hash: name.length.toString(16).padStart(16, '0'), input }]),
    ),
    history,
  };
}

/** A repository released at 0.1.0 with {@link RELEASED} locked, then the checkout's lock changed to `tools`. */
function releasedThenChanged(
  tools: Record<string, Record<string, string>>,
  history: ToolsLock['history'] = [],
): string {
  const root = makeReleaseRepo({ tag: false, migrations: [], changelog: false });
  write(root, LOCK_FILE, serializeToolsLock(lockOf(RELEASED)));
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'lock the tools');
  tagRelease(root, '0.1.0');
  write(root, LOCK_FILE, serializeToolsLock(lockOf(tools, history)));
  return root;
}

function toolFindings(result: ReleaseCheckResult): string[] {
  return result.findings.filter((finding) => finding.rule === 'tool-contracts').map((finding) => finding.message);
}

function changed(tool: string, input: Record<string, string>): Record<string, Record<string, string>> {
  return { ...RELEASED, [tool]: input };
}

const SINCE = 'since @mcp-envelope/contract@0.1.0';

describe('tool-contracts: a breaking tool change needs a changeset that says so', () => {
  it.each([
    [
      'a removed property',
      changed('orders_get', { orderId: 'string required', status: 'string enum ["open","closed"]' }),
      `orders_get: limit was removed (removed_property, ${LOCK_FILE} ${SINCE})`,
    ],
    [
      'a property that became required',
      changed('orders_get', { ...RELEASED['orders_get'], limit: 'integer required' }),
      `orders_get: limit is now required (newly_required, ${LOCK_FILE} ${SINCE})`,
    ],
    [
      'a new required property',
      changed('orders_get', { ...RELEASED['orders_get'], shopId: 'string required' }),
      `orders_get: new property shopId is required (newly_required, ${LOCK_FILE} ${SINCE})`,
    ],
    [
      'a narrowed enum',
      changed('orders_get', { ...RELEASED['orders_get'], status: 'string enum ["open"]' }),
      `orders_get: status no longer allows "closed" (narrowed_enum, ${LOCK_FILE} ${SINCE})`,
    ],
    [
      'a narrowed type',
      changed('orders_list', { marketplaceIds: 'array required', 'marketplaceIds[]': 'integer' }),
      `orders_list: marketplaceIds[] no longer takes string (was string, is integer) (narrowed_type, ${LOCK_FILE} ${SINCE})`,
    ],
    [
      'a removed tool',
      { orders_get: RELEASED['orders_get'] ?? {} },
      `orders_list was removed (removed_tool, ${LOCK_FILE} ${SINCE})`,
    ],
  ])('fails %s without a changeset', async (_case, tools, message) => {
    const result = await runReleaseCheck({ root: releasedThenChanged(tools) });
    expect(result.ok).toBe(false);
    expect(toolFindings(result)).toEqual([`${message}: a breaking change of sp's tool contract`]);
  });

  it('passes additive changes: a new optional property, a new tool, a widened enum and type', async () => {
    const tools = {
      orders_get: { ...RELEASED['orders_get'], status: 'string enum ["open","closed","pending"]', note: 'string' },
      orders_list: { marketplaceIds: 'array required', 'marketplaceIds[]': 'string|null' },
      orders_cancel: { orderId: 'string required' },
    };
    const result = await runReleaseCheck({ root: releasedThenChanged(tools) });
    expect(toolFindings(result)).toEqual([]);
    expect(result.skipped.map((skip) => skip.rule)).not.toContain('tool-contracts');
  });

  it('passes a breaking change with a minor changeset (before 1.0) of the package that names the tool', async () => {
    const root = releasedThenChanged(changed('orders_get', { orderId: 'string required' }), [
      { tool: 'orders_get', old: 'limit', new: null, since: '0.2.0' },
      { tool: 'orders_get', old: 'status', new: null, since: '0.2.0' },
    ]);
    addChangeset(
      root,
      'drop-filters',
      'minor',
      '`orders_get` no longer takes limit or status.',
      '@mcp-envelope/sp-adapter',
    );
    expect(toolFindings(await runReleaseCheck({ root }))).toEqual([]);
  });

  it('still fails when the changeset names another tool, is a patch, or releases another package', async () => {
    const tools = changed('orders_get', { orderId: 'string required', status: 'string enum ["open","closed"]' });
    const other = releasedThenChanged(tools);
    addChangeset(other, 'other-tool', 'minor', '`orders_getAll` changed.', '@mcp-envelope/sp-adapter');
    const patch = releasedThenChanged(tools);
    addChangeset(patch, 'patch', 'patch', '`orders_get` no longer takes limit.', '@mcp-envelope/sp-adapter');
    const elsewhere = releasedThenChanged(tools);
    addChangeset(elsewhere, 'core', 'minor', '`orders_get` no longer takes limit.', '@mcp-envelope/core');
    for (const root of [other, patch, elsewhere])
      expect(toolFindings(await runReleaseCheck({ root }))).toEqual([
        `orders_get: limit was removed (removed_property, ${LOCK_FILE} ${SINCE}): a breaking change of sp's tool contract`,
      ]);
  });

  it('reads hyphens as part of a tool name: a changeset about get-order-items does not announce get-order', async () => {
    const released = { 'get-order': { id: 'string required' }, 'get-order-items': { id: 'string required' } };
    const removed = (): string => {
      const root = makeReleaseRepo({ tag: false, migrations: [], changelog: false });
      write(root, LOCK_FILE, serializeToolsLock(lockOf(released)));
      git(root, 'add', '-A');
      git(root, 'commit', '-qm', 'lock the tools');
      tagRelease(root, '0.1.0');
      write(root, LOCK_FILE, serializeToolsLock(lockOf({ 'get-order-items': released['get-order-items'] })));
      return root;
    };
    const other = removed();
    addChangeset(other, 'items', 'minor', 'get-order-items takes a page size.', '@mcp-envelope/sp-adapter');
    expect(toolFindings(await runReleaseCheck({ root: other }))).toEqual([
      `get-order was removed (removed_tool, ${LOCK_FILE} ${SINCE}): a breaking change of sp's tool contract`,
    ]);
    const announced = removed();
    addChangeset(announced, 'gone', 'minor', 'Removed get-order.', '@mcp-envelope/sp-adapter');
    expect(toolFindings(await runReleaseCheck({ root: announced }))).toEqual([]);
  });

  it('says what to do, and names a rename the history records', async () => {
    const root = releasedThenChanged(
      changed('orders_get', { orderId: 'string required', status: 'string enum ["open","closed"]', max: 'integer' }),
      [{ tool: 'orders_get', old: 'limit', new: 'max', since: '0.2.0' }],
    );
    const lines = formatReleaseCheck(await runReleaseCheck({ root }))
      .split('\n')
      .filter((line) => line.includes('tool-contracts') || line.includes('orders_get'));
    expect(lines).toEqual([
      `FAIL [tool-contracts] orders_get: limit was removed (renamed to max) (removed_property, ${LOCK_FILE} ${SINCE}): a breaking change of sp's tool contract`,
      '     fix: Add a changeset releasing @mcp-envelope/sp-adapter as minor (or higher) whose text names `orders_get` and says what callers must change, or restore the contract (a new optional property instead of a required one, the old values kept).',
    ]);
  });

  it('compares nothing before the first release, and a lockfile the base lacks breaks nothing', async () => {
    const unreleased = makeReleaseRepo({ tag: false, migrations: [], changelog: false });
    write(unreleased, LOCK_FILE, serializeToolsLock(lockOf(RELEASED)));
    const before = await runReleaseCheck({ root: unreleased });
    expect(before.skipped).toContainEqual({
      rule: 'tool-contracts',
      reason: 'no release and no --since ref to compare the tool lockfiles with',
    });
    const released = makeReleaseRepo({ migrations: [], changelog: false });
    write(released, LOCK_FILE, serializeToolsLock(lockOf({ orders_get: { orderId: 'string required' } })));
    expect(toolFindings(await runReleaseCheck({ root: released }))).toEqual([]);
  });
});
