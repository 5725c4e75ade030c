import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  DEFAULT_LAYOUT,
  formatReleaseCheck,
  readFixtureEnvelopes,
  readReleases,
  runReleaseCheck,
  writeReleaseSnapshot,
} from '../../src/release/index.js';
import type { Migration } from './release-repo.js';
import {
  PACKAGES,
  TOOL_NOT_FOUND_MIGRATION,
  addChangeset,
  envelopeFixture,
  git,
  makeReleaseRepo,
  migrationNote,
  tagRelease,
  write,
} from './release-repo.js';

const changesetBin = join(dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')), 'bin.js');
const NAMES = PACKAGES.map(([, name]) => name);
const REMOVE_FIX =
  'Delete the entry "unknown-tool-to-tool-not-found" from contract/migrations.json, run `pnpm fixtures:update`, and drop legacy_error_kind "mcp_input_validation" from the recorded cases that still expect it (conformance/cases, packages/*/test/fixtures/upstream).';

function dropWindow(root: string): void {
  write(root, 'contract/migrations.json', { migrations: [] });
  write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
}

describe('release:check on a clean checkout', () => {
  it('passes before any release, naming the versions and the rules it could not run', async () => {
    const root = makeReleaseRepo({ tag: false });
    const result = await runReleaseCheck({ root });
    expect(result).toEqual({
      ok: true,
      currentVersion: '0.1.0',
      targetVersion: '0.1.0',
      releases: [],
      findings: [],
      skipped: [{ rule: 'snapshot-drift', reason: 'no released snapshot in contract/releases at or below 0.1.0' }],
    });
    expect(formatReleaseCheck(result).split('\n')).toEqual([
      'release:check 0.1.0 -> 0.1.0 (no release yet)',
      'skip [snapshot-drift] no released snapshot in contract/releases at or below 0.1.0',
      'release:check: passed',
    ]);
  });

  it('reads the releases from the <package>@<version> tags changeset publish creates, once per version; v* and pre-release tags do not count', async () => {
    const root = makeReleaseRepo();
    tagRelease(root, '0.1.1');
    git(root, 'tag', 'v9.9.9');
    git(root, 'tag', 'other-package@3.0.0');
    git(root, 'tag', '@mcp-envelope/contract@0.2.0-next.0');
    git(root, 'tag', '@mcp-envelope/core@0.2.0-rc.1');
    expect(await readReleases(root, NAMES)).toEqual([
      { version: '0.1.0', tag: '@mcp-envelope/contract@0.1.0' },
      { version: '0.1.1', tag: '@mcp-envelope/contract@0.1.1' },
    ]);
  });
});

describe('lockstep', () => {
  it('fails when published packages have different versions', async () => {
    const root = makeReleaseRepo();
    write(root, 'packages/core/package.json', { name: '@mcp-envelope/core', version: '0.1.1' });
    const result = await runReleaseCheck({ root });
    expect(result.findings.filter((finding) => finding.rule === 'lockstep')).toEqual([
      {
        rule: 'lockstep',
        message:
          'published packages have different versions: @mcp-envelope/contract@0.1.0, @mcp-envelope/core@0.1.1, @mcp-envelope/sp-adapter@0.1.0, @mcp-envelope/ads-adapter@0.1.0, @mcp-envelope/conformance@0.1.0',
        fix: 'Put every package in the one `fixed` group of .changeset/config.json and set them all to the same version.',
      },
    ]);
  });

  it('fails when the pending release does not move every package together', async () => {
    const root = makeReleaseRepo();
    write(root, '.changeset/config.json', {
      changelog: false,
      commit: false,
      fixed: [],
      linked: [],
      access: 'public',
      baseBranch: 'main',
      updateInternalDependencies: 'patch',
      ignore: [],
    });
    addChangeset(root, 'lonely', 'patch', 'Only the contract moves.');
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.rule)).toEqual(['lockstep', 'expired-migrations']);
    expect(result.findings[0]!.message).toBe(
      'the pending release does not move every package to one version: @mcp-envelope/contract@0.1.1',
    );
  });
});

describe('expired-migrations: a window is one release long, whatever the bump', () => {
  it('passes the release that ships the entry, and a re-check of that release', async () => {
    const root = makeReleaseRepo();
    const result = await runReleaseCheck({ root });
    expect([result.releases, result.findings]).toEqual([['0.1.0'], []]);
  });

  it('refuses the next release, even a patch, while an entry an earlier release shipped is still there', async () => {
    const root = makeReleaseRepo();
    addChangeset(root, 'fix', 'patch', 'A fix.');
    const result = await runReleaseCheck({ root });
    expect(result.targetVersion).toBe('0.1.1');
    expect(result.findings).toEqual([
      {
        rule: 'expired-migrations',
        message:
          'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) shipped in 0.1.0 (tag @mcp-envelope/contract@0.1.0); its window closes with the next release, and 0.1.1 is about to be released',
        fix: REMOVE_FIX,
      },
    ]);
    dropWindow(root);
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('refuses a shipped entry renamed under a new id: the window is the reclassification, not the id', async () => {
    const root = makeReleaseRepo();
    const renamed = { ...TOOL_NOT_FOUND_MIGRATION, id: 'unknown-tool-to-tool-not-found-again' };
    write(root, 'contract/migrations.json', { migrations: [renamed] });
    addChangeset(
      root,
      'fix',
      'patch',
      `A fix.\n${migrationNote(renamed, '0.1.1', ['@mcp-envelope/ads-adapter'])}`,
      '@mcp-envelope/sp-adapter',
    );
    addChangeset(
      root,
      'fix-ads',
      'patch',
      migrationNote(renamed, '0.1.1', ['@mcp-envelope/sp-adapter']),
      '@mcp-envelope/ads-adapter',
    );
    const result = await runReleaseCheck({ root });
    expect(
      result.findings.filter((finding) => finding.rule === 'expired-migrations').map((finding) => finding.message),
    ).toEqual([
      'migration "unknown-tool-to-tool-not-found-again" (mcp_input_validation -> tool_not_found) shipped in 0.1.0 (tag @mcp-envelope/contract@0.1.0) as "unknown-tool-to-tool-not-found"; its window closes with the next release, and 0.1.1 is about to be released',
    ]);
  });

  it('still honours an explicit removed_in', async () => {
    const root = makeReleaseRepo({ tag: false, migrations: [{ ...TOOL_NOT_FOUND_MIGRATION, removed_in: '0.2.0' }] });
    addChangeset(
      root,
      'next',
      'minor',
      `Next minor.\n${migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/ads-adapter'])}`,
      '@mcp-envelope/sp-adapter',
    );
    addChangeset(
      root,
      'next-ads',
      'minor',
      migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/sp-adapter']),
      '@mcp-envelope/ads-adapter',
    );
    const result = await runReleaseCheck({ root });
    expect(result.targetVersion).toBe('0.2.0');
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      [
        'expired-migrations',
        'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) expired in 0.2.0, and 0.2.0 is about to be released',
      ],
      [
        'expired-migrations',
        'conformance/fixtures/v1/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no v1 migration window of sp open at 0.2.0 explains',
      ],
    ]);
  });

  it('fails when a fixture carries a legacy kind that no entry explains', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      [
        'expired-migrations',
        'conformance/fixtures/v1/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no v1 migration window of sp open at 0.1.0 explains',
      ],
    ]);
  });
});

describe('snapshot-drift', () => {
  it.each([
    // a code that changed kind since the last release
    ['fails when a code changed kind since the last release without a migration entry', 'sp-http-403.json'],
    // sorts after sp-http-403.json, which still shows auth_error for the same code
    [
      'fails when one of two fixtures sharing a code changes kind: every fixture counts, not the first per code',
      'sp-http-403x-retried.json',
    ],
  ])('%s', async (_title, fixture) => {
    const root = makeReleaseRepo();
    writeReleaseSnapshot(root);
    write(root, `conformance/fixtures/v1/sp/${fixture}`, envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    addChangeset(root, 'fix', 'patch', 'A fix.');
    dropWindow(root);
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'snapshot-drift',
        message: `sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/v1/sp/${fixture}), with no migration entry`,
        fix: 'Add to contract/migrations.json: {"id": "...", "error_codes": ["SP_API_HTTP_403"], "servers": ["sp"], "from_kind": "auth_error", "to_kind": "sp_api_http", "introduced_in": "0.1.1", "cutover_date": "YYYY-MM-DD"}, or restore the old kind.',
      },
    ]);
  });

  it('compares with the last release, not with a snapshot written for a release that never shipped', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    write(root, 'contract/releases/0.1.1.json', {
      version: '0.1.1',
      kinds: { sp: { SP_API_HTTP_403: 'sp_api_http' } },
      migrations: [],
    });
    write(root, 'conformance/fixtures/v1/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    for (const [folder, name] of PACKAGES) write(root, `${folder}/package.json`, { name, version: '0.1.1' });
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.message)).toEqual([
      'sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/v1/sp/sp-http-403.json), with no migration entry',
    ]);
  });

  it('reads the snapshot the release tag holds, so editing it in the checkout cannot hide a change', async () => {
    const root = makeReleaseRepo({ migrations: [], tag: false });
    write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'release 0.1.0');
    tagRelease(root, '0.1.0');
    write(root, 'conformance/fixtures/v1/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    writeReleaseSnapshot(root);
    addChangeset(root, 'quiet', 'minor', 'Nothing to see.');
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.message)).toEqual([
      'sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/v1/sp/sp-http-403.json), with no migration entry',
    ]);
  });

  it('passes when a migration entry covers the change, named in the server CHANGELOG', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    write(
      root,
      'conformance/fixtures/v1/sp/sp-http-403.json',
      envelopeFixture('SP_API_HTTP_403', 'sp_api_http', 'auth_error'),
    );
    const entry = {
      id: 'sp-403-back',
      error_codes: ['SP_API_HTTP_403'],
      servers: ['sp'],
      from_kind: 'auth_error',
      to_kind: 'sp_api_http',
      introduced_in: '0.2.0',
      cutover_date: '2027-06-01',
    };
    write(root, 'contract/migrations.json', { migrations: [entry] });
    addChangeset(root, 'note', 'minor', migrationNote(entry, '0.2.0'), '@mcp-envelope/sp-adapter');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('writes the snapshot as code -> kind per server with the migration ids', () => {
    const root = makeReleaseRepo();
    const { snapshot, path } = writeReleaseSnapshot(root);
    expect(path).toBe(join(root, 'contract/releases/0.1.0.json'));
    expect(snapshot).toEqual({
      version: '0.1.0',
      format: 2,
      kinds: {},
      kinds_v1: { sp: { SP_API_HTTP_403: 'auth_error', TOOL_NOT_FOUND: 'tool_not_found' } },
      migrations: ['unknown-tool-to-tool-not-found'],
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(snapshot);
  });
});

describe('changeset-required', () => {
  it('fails when a fixture changed since the last release tag with no pending changeset', async () => {
    const root = makeReleaseRepo();
    write(root, 'conformance/fixtures/v1/sp/new-case.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'changeset-required',
        message:
          'contract files changed since @mcp-envelope/contract@0.1.0 with no pending changeset: conformance/fixtures/v1/sp/new-case.json',
        fix: 'Run `pnpm changeset`, pick the bump that fits, and describe the change for users.',
      },
    ]);
  });

  it('runs before any release too, from the first commit', async () => {
    const root = makeReleaseRepo({ tag: false });
    write(root, 'conformance/fixtures/v1/sp/new-case.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'new case');
    const first = git(root, 'rev-list', '--max-parents=0', 'HEAD').trim();
    expect((await runReleaseCheck({ root })).findings.map((finding) => finding.message)).toEqual([
      `contract files changed since ${first} with no pending changeset: conformance/fixtures/v1/sp/new-case.json`,
    ]);
  });

  it('fails when the taxonomy changed with only a patch changeset, passes with minor', async () => {
    const root = makeReleaseRepo();
    write(root, 'contract/src/taxonomy.ts', "export const ERROR_KINDS = ['internal_error', 'quota_error'] as const;\n");
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'taxonomy');
    addChangeset(root, 'kinds', 'patch', 'New kind.');
    dropWindow(root);
    const patch = await runReleaseCheck({ root, since: '@mcp-envelope/contract@0.1.0' });
    expect(patch.findings).toEqual([
      {
        rule: 'changeset-required',
        message:
          'the taxonomy changed since @mcp-envelope/contract@0.1.0 (contract/src/taxonomy.ts) but the release bumps only patch',
        fix: 'Change the changeset to `minor` (or `major` when a kind or code was removed): a taxonomy change is never a patch.',
      },
    ]);
    addChangeset(root, 'kinds', 'minor', 'New kind.');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('fails a reclassification (a new migration entry) released as a patch, passes it as minor', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'snapshot');
    write(
      root,
      'conformance/fixtures/v1/sp/sp-http-403.json',
      envelopeFixture('SP_API_HTTP_403', 'sp_api_http', 'auth_error'),
    );
    const entry = {
      id: 'sp-403-back',
      error_codes: ['SP_API_HTTP_403'],
      servers: ['sp'],
      from_kind: 'auth_error',
      to_kind: 'sp_api_http',
      introduced_in: '0.1.1',
      cutover_date: '2027-06-01',
    };
    write(root, 'contract/migrations.json', { migrations: [entry] });
    addChangeset(root, 'note', 'patch', migrationNote(entry, '0.1.1'), '@mcp-envelope/sp-adapter');
    expect((await runReleaseCheck({ root })).findings).toEqual([
      {
        rule: 'changeset-required',
        message:
          'migration "sp-403-back" (auth_error -> sp_api_http) is a reclassification but the release bumps only patch',
        fix: 'Change the changeset to `minor` (or `major`): a reclassification is never a patch.',
      },
    ]);
    entry.introduced_in = '0.2.0';
    write(root, 'contract/migrations.json', { migrations: [entry] });
    addChangeset(root, 'note', 'minor', migrationNote(entry, '0.2.0'), '@mcp-envelope/sp-adapter');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('counts the bump changeset version already wrote (the release commit before publish)', async () => {
    const root = makeReleaseRepo();
    write(root, 'contract/src/taxonomy.ts', "export const ERROR_KINDS = ['internal_error', 'quota_error'] as const;\n");
    dropWindow(root);
    addChangeset(root, 'kinds', 'minor', 'New kind.');
    execFileSync(process.execPath, [changesetBin, 'version'], { cwd: root, encoding: 'utf8' });
    const result = await runReleaseCheck({ root });
    expect([result.currentVersion, result.targetVersion, result.findings]).toEqual(['0.2.0', '0.2.0', []]);
  });

  it('ignores changes outside the contract files', async () => {
    const root = makeReleaseRepo();
    write(root, 'packages/core/src/index.ts', 'export {};\n');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });
});

describe('migration-changelog: every affected server CHANGELOG names the window', () => {
  it('fails for each server whose notes lack the id, the cutover date, the dropping release or the other server', async () => {
    const root = makeReleaseRepo({ changelog: false, tag: false });
    write(
      root,
      'packages/ads-adapter/CHANGELOG.md',
      `# changelog\n\n${migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.1.0')}\n`,
    );
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'migration-changelog',
        message:
          'packages/sp-adapter/CHANGELOG.md (and the pending changesets releasing @mcp-envelope/sp-adapter) lack, for migration "unknown-tool-to-tool-not-found": `unknown-tool-to-tool-not-found`, 2027-03-01, release after 0.1.0, `@mcp-envelope/ads-adapter`',
        fix: 'Add a changeset releasing @mcp-envelope/sp-adapter that names `unknown-tool-to-tool-not-found`, says mcp_input_validation becomes tool_not_found, gives the cutover date 2027-03-01, says legacy_error_kind is dropped in the release after 0.1.0, and refers to `@mcp-envelope/ads-adapter`, which the migration also touches.',
      },
      {
        rule: 'migration-changelog',
        message:
          'packages/ads-adapter/CHANGELOG.md (and the pending changesets releasing @mcp-envelope/ads-adapter) lack, for migration "unknown-tool-to-tool-not-found": `@mcp-envelope/sp-adapter`',
        fix: 'Add a changeset releasing @mcp-envelope/ads-adapter that names `unknown-tool-to-tool-not-found`, says mcp_input_validation becomes tool_not_found, gives the cutover date 2027-03-01, says legacy_error_kind is dropped in the release after 0.1.0, and refers to `@mcp-envelope/sp-adapter`, which the migration also touches.',
      },
    ]);
  });

  it('passes with one changeset per server, cross-referenced, and asks only the servers a migration touches', async () => {
    const spOnly = { ...TOOL_NOT_FOUND_MIGRATION, id: 'sp-only', servers: ['sp'] };
    const root = makeReleaseRepo({ changelog: false, tag: false, migrations: [TOOL_NOT_FOUND_MIGRATION, spOnly] });
    addChangeset(
      root,
      'sp',
      'minor',
      `${migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/ads-adapter'])}\n${migrationNote(spOnly, '0.2.0')}`,
      '@mcp-envelope/sp-adapter',
    );
    addChangeset(
      root,
      'ads',
      'minor',
      migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/sp-adapter']),
      '@mcp-envelope/ads-adapter',
    );
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('wants the id, date, dropping release and other server in one note, not gathered from notes about other migrations', async () => {
    const spOnly = { ...TOOL_NOT_FOUND_MIGRATION, id: 'sp-only', servers: ['sp'] };
    const root = makeReleaseRepo({ changelog: false, tag: false, migrations: [TOOL_NOT_FOUND_MIGRATION, spOnly] });
    addChangeset(
      root,
      'sp',
      'minor',
      migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/ads-adapter']),
      '@mcp-envelope/sp-adapter',
    );
    addChangeset(root, 'sp-more', 'minor', 'Also `sp-only` moves.', '@mcp-envelope/sp-adapter');
    addChangeset(
      root,
      'ads',
      'minor',
      migrationNote(TOOL_NOT_FOUND_MIGRATION, '0.2.0', ['@mcp-envelope/sp-adapter']),
      '@mcp-envelope/ads-adapter',
    );
    expect((await runReleaseCheck({ root })).findings.map((finding) => finding.message)).toEqual([
      'packages/sp-adapter/CHANGELOG.md (and the pending changesets releasing @mcp-envelope/sp-adapter) lack, for migration "sp-only": 2027-03-01, release after 0.2.0',
    ]);
  });

  it('fails for an entry without a cutover_date', async () => {
    const undated = { ...TOOL_NOT_FOUND_MIGRATION };
    delete undated.cutover_date;
    const root = makeReleaseRepo({ tag: false, migrations: [undated] });
    expect((await runReleaseCheck({ root })).findings.map((finding) => finding.message)).toEqual([
      'migration "unknown-tool-to-tool-not-found" has no cutover_date',
    ]);
  });

  it('does not ask again for a migration a release already shipped', async () => {
    const root = makeReleaseRepo({ changelog: false });
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });
});

describe('a dry run of changeset version', () => {
  it('moves every package to one version, and the check then demands the shipped migration be removed', async () => {
    const root = makeReleaseRepo();
    addChangeset(root, 'next-minor', 'minor', 'Next minor release.');
    expect((await runReleaseCheck({ root })).targetVersion).toBe('0.2.0');
    execFileSync(process.execPath, [changesetBin, 'version'], { cwd: root, encoding: 'utf8' });
    const versions = PACKAGES.map(
      ([folder]) =>
        (JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { version: string }).version,
    );
    expect(versions).toEqual(['0.2.0', '0.2.0', '0.2.0', '0.2.0', '0.2.0']);
    const after = await runReleaseCheck({ root });
    expect(after.currentVersion).toBe('0.2.0');
    expect(after.findings.map((finding) => finding.message)).toEqual([
      'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) shipped in 0.1.0 (tag @mcp-envelope/contract@0.1.0); its window closes with the next release, and 0.2.0 is about to be released',
    ]);
  });
});

const CUTOVER = '2027-03-01';
const V2_ENTRIES: Migration[] = [
  {
    id: 'sp-api-http-to-upstream-http',
    contract_version: 2,
    servers: ['sp'],
    from_kind: 'sp_api_http',
    to_kind: 'upstream_http',
    introduced_in: '0.2.0',
    cutover_date: CUTOVER,
  },
  {
    id: 'sp-api-client-to-upstream-client',
    contract_version: 2,
    servers: ['sp'],
    from_kind: 'sp_api_client',
    to_kind: 'upstream_client',
    introduced_in: '0.2.0',
    cutover_date: CUTOVER,
  },
];

/** The cases of the v2 window: SP's v2 envelopes (with or without the legacy value) beside their v1 twins. */
function writeWindowFixtures(root: string, legacy: boolean): void {
  write(root, 'conformance/fixtures/v1/sp/api-http-404.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
  write(
    root,
    'conformance/fixtures/v1/sp/api-client-network.json',
    envelopeFixture('TOOL_EXECUTION_FAILED', 'sp_api_client'),
  );
  write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
  write(
    root,
    'conformance/fixtures/sp/api-http-404.json',
    envelopeFixture('UPSTREAM_HTTP_404', 'upstream_http', legacy ? 'sp_api_http' : undefined, 2),
  );
  write(
    root,
    'conformance/fixtures/sp/api-client-network.json',
    envelopeFixture('TOOL_EXECUTION_FAILED', 'upstream_client', legacy ? 'sp_api_client' : undefined, 2),
  );
  write(
    root,
    'conformance/fixtures/sp/tool-not-found.json',
    envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found', undefined, 2),
  );
  // a server new to the family: v2 only, no v1 twin, so no window to serve
  write(
    root,
    'conformance/fixtures/github/api-http-404.json',
    envelopeFixture('UPSTREAM_HTTP_404', 'upstream_http', undefined, 2),
  );
}

/**
 * A repository whose last release (0.1.0) predates contract v2: its snapshot has the old format,
 * whose `kinds` are v1 kinds (SP's TOOL_EXECUTION_FAILED was sp_api_client). Pending: the v2
 * window release 0.2.0 with `entries` in the table and the fixtures of {@link writeWindowFixtures}.
 */
function makeWindowRepo(entries: Migration[], legacy: boolean): string {
  const root = makeReleaseRepo({ migrations: [], tag: false });
  write(root, 'contract/releases/0.1.0.json', {
    version: '0.1.0',
    kinds: {
      sp: { SP_API_HTTP_403: 'auth_error', TOOL_EXECUTION_FAILED: 'sp_api_client', TOOL_NOT_FOUND: 'tool_not_found' },
    },
    migrations: [],
  });
  write(root, 'conformance/fixtures/v1/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'release 0.1.0');
  tagRelease(root, '0.1.0');
  write(root, 'contract/migrations.json', { migrations: entries });
  writeWindowFixtures(root, legacy);
  addChangeset(root, 'v2', 'minor', 'Contract v2.');
  addChangeset(
    root,
    'v2-sp',
    'minor',
    entries.map((entry) => migrationNote(entry, '0.2.0')).join('\n'),
    '@mcp-envelope/sp-adapter',
  );
  return root;
}

/** Runs `changeset version`, writes the snapshot and tags the release, as the release workflow does. */
function releaseAs(root: string, version: string): void {
  execFileSync(process.execPath, [changesetBin, 'version'], { cwd: root, encoding: 'utf8' });
  writeReleaseSnapshot(root);
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', `release ${version}`);
  tagRelease(root, version);
}

const WINDOW_FIX = (server: string, from: string, to: string, target: string): string =>
  `Keep a v2 window open in contract/migrations.json until one release has shipped it ({"id": "...", "contract_version": 2, "servers": ["${server}"], "from_kind": "${from}", "to_kind": "${to}", "introduced_in": "${target}", "cutover_date": "YYYY-MM-DD"}), then run \`pnpm fixtures:update\`; the release after it drops the entry.`;

describe('contract v2: the window release carries both fields, the next drops the legacy one', () => {
  it('(a) passes the window release: v2 fixtures carry the v1 kind as legacy_error_kind from open v2 entries; a new server carries none', async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    const result = await runReleaseCheck({ root });
    expect([result.currentVersion, result.targetVersion, result.releases, result.findings]).toEqual([
      '0.1.0',
      '0.2.0',
      ['0.1.0'],
      [],
    ]);
  });

  it('(b) refuses a release that drops the window early: v2 entries gone before any release shipped them', async () => {
    const root = makeWindowRepo([], false);
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'window-required',
        message:
          'conformance/fixtures/sp/api-client-network.json is upstream_client where a v1 reader gets sp_api_client (conformance/fixtures/v1/sp/api-client-network.json); it carries no legacy_error_kind and no open v2 migration entry covers it, but no release has shipped a v2 kind for sp TOOL_EXECUTION_FAILED yet, so 0.2.0 must carry the window',
        fix: WINDOW_FIX('sp', 'sp_api_client', 'upstream_client', '0.2.0'),
      },
      {
        rule: 'window-required',
        message:
          'conformance/fixtures/sp/api-http-404.json is upstream_http where a v1 reader gets sp_api_http (conformance/fixtures/v1/sp/api-http-404.json); it carries no legacy_error_kind and no open v2 migration entry covers it, but no release has shipped a v2 kind for sp UPSTREAM_HTTP_404 yet, so 0.2.0 must carry the window',
        fix: WINDOW_FIX('sp', 'sp_api_http', 'upstream_http', '0.2.0'),
      },
    ]);
  });

  it('(b) refuses it too when the entries are gone but the fixtures were not regenerated: the servers read the table, not the fixtures', async () => {
    const root = makeWindowRepo([], true);
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      [
        'expired-migrations',
        'conformance/fixtures/sp/api-client-network.json still emits legacy_error_kind "sp_api_client" for TOOL_EXECUTION_FAILED, which no v2 migration window of sp open at 0.2.0 explains',
      ],
      [
        'expired-migrations',
        'conformance/fixtures/sp/api-http-404.json still emits legacy_error_kind "sp_api_http" for UPSTREAM_HTTP_404, which no v2 migration window of sp open at 0.2.0 explains',
      ],
      [
        'window-required',
        'conformance/fixtures/sp/api-client-network.json is upstream_client where a v1 reader gets sp_api_client (conformance/fixtures/v1/sp/api-client-network.json); it carries legacy_error_kind "sp_api_client" and no open v2 migration entry covers it, but no release has shipped a v2 kind for sp TOOL_EXECUTION_FAILED yet, so 0.2.0 must carry the window',
      ],
      [
        'window-required',
        'conformance/fixtures/sp/api-http-404.json is upstream_http where a v1 reader gets sp_api_http (conformance/fixtures/v1/sp/api-http-404.json); it carries legacy_error_kind "sp_api_http" and no open v2 migration entry covers it, but no release has shipped a v2 kind for sp UPSTREAM_HTTP_404 yet, so 0.2.0 must carry the window',
      ],
    ]);
  });

  it("(b) refuses a v2 fixture whose legacy value is not its v1 twin's kind", async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    write(
      root,
      'conformance/fixtures/sp/api-http-404.json',
      envelopeFixture('UPSTREAM_HTTP_404', 'upstream_http', 'sp_api_client', 2),
    );
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      [
        'expired-migrations',
        'conformance/fixtures/sp/api-http-404.json still emits legacy_error_kind "sp_api_client" for UPSTREAM_HTTP_404, which no v2 migration window of sp open at 0.2.0 explains',
      ],
      [
        'window-required',
        'conformance/fixtures/sp/api-http-404.json is upstream_http where a v1 reader gets sp_api_http (conformance/fixtures/v1/sp/api-http-404.json); it carries legacy_error_kind "sp_api_client" and entry "sp-api-http-to-upstream-http" is open, but no release has shipped a v2 kind for sp UPSTREAM_HTTP_404 yet, so 0.2.0 must carry the window',
      ],
    ]);
  });

  it('(c) after the window release: the next release keeps it late and fails; with the entries removed and no legacy value it passes', async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    releaseAs(root, '0.2.0');
    expect(JSON.parse(readFileSync(join(root, 'contract/releases/0.2.0.json'), 'utf8'))).toEqual({
      version: '0.2.0',
      format: 2,
      kinds: {
        github: { UPSTREAM_HTTP_404: 'upstream_http' },
        sp: {
          TOOL_EXECUTION_FAILED: 'upstream_client',
          TOOL_NOT_FOUND: 'tool_not_found',
          UPSTREAM_HTTP_404: 'upstream_http',
        },
      },
      kinds_v1: {
        sp: {
          SP_API_HTTP_403: 'auth_error',
          SP_API_HTTP_404: 'sp_api_http',
          TOOL_EXECUTION_FAILED: 'sp_api_client',
          TOOL_NOT_FOUND: 'tool_not_found',
        },
      },
      migrations: ['sp-api-http-to-upstream-http', 'sp-api-client-to-upstream-client'],
    });
    addChangeset(root, 'fix', 'patch', 'A fix.');
    const late = await runReleaseCheck({ root });
    expect([late.targetVersion, late.findings.map((finding) => [finding.rule, finding.message])]).toEqual([
      '0.2.1',
      [
        [
          'expired-migrations',
          'migration "sp-api-http-to-upstream-http" (sp_api_http -> upstream_http) shipped in 0.2.0 (tag @mcp-envelope/contract@0.2.0); its window closes with the next release, and 0.2.1 is about to be released',
        ],
        [
          'expired-migrations',
          'migration "sp-api-client-to-upstream-client" (sp_api_client -> upstream_client) shipped in 0.2.0 (tag @mcp-envelope/contract@0.2.0); its window closes with the next release, and 0.2.1 is about to be released',
        ],
      ],
    ]);
    write(root, 'contract/migrations.json', { migrations: [] });
    const stale = await runReleaseCheck({ root });
    expect(stale.findings.map((finding) => finding.message)).toEqual([
      'conformance/fixtures/sp/api-client-network.json still emits legacy_error_kind "sp_api_client" for TOOL_EXECUTION_FAILED, which no v2 migration window of sp open at 0.2.1 explains',
      'conformance/fixtures/sp/api-http-404.json still emits legacy_error_kind "sp_api_http" for UPSTREAM_HTTP_404, which no v2 migration window of sp open at 0.2.1 explains',
    ]);
    writeWindowFixtures(root, false);
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('(c) a case recorded after the window release (a status no release had a fixture for) needs no window of its own', async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    releaseAs(root, '0.2.0');
    write(root, 'contract/migrations.json', { migrations: [] });
    writeWindowFixtures(root, false);
    // the window of sp_api_http -> upstream_http shipped in 0.2.0 for every code; a new 503 case is not a new move
    write(root, 'conformance/fixtures/v1/sp/api-http-503.json', envelopeFixture('SP_API_HTTP_503', 'sp_api_http'));
    write(
      root,
      'conformance/fixtures/sp/api-http-503.json',
      envelopeFixture('UPSTREAM_HTTP_503', 'upstream_http', undefined, 2),
    );
    addChangeset(root, 'more-cases', 'minor', 'A recorded 503 case.');
    const result = await runReleaseCheck({ root });
    expect([result.targetVersion, result.findings]).toEqual(['0.3.0', []]);
  });

  it('(c) a v2 entry renamed after its window release is still the window that shipped (error_codes absent on both)', async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    releaseAs(root, '0.2.0');
    const [http] = V2_ENTRIES;
    write(root, 'contract/migrations.json', {
      migrations: [{ ...http, id: 'upstream-http-again', introduced_in: '0.3.0' }],
    });
    addChangeset(root, 'again', 'minor', 'Again.');
    expect((await runReleaseCheck({ root })).findings.map((finding) => finding.message)).toContain(
      'migration "upstream-http-again" (sp_api_http -> upstream_http) shipped in 0.2.0 (tag @mcp-envelope/contract@0.2.0) as "sp-api-http-to-upstream-http"; its window closes with the next release, and 0.3.0 is about to be released',
    );
  });

  it('(d) fails an entry without servers: a server new to the family must not inherit its window', async () => {
    const everywhere = { ...TOOL_NOT_FOUND_MIGRATION };
    delete everywhere.servers;
    const root = makeReleaseRepo({ tag: false, migrations: [everywhere] });
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'expired-migrations',
        message:
          'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) names no servers, so every server, one that joins the family later included, would carry legacy_error_kind "mcp_input_validation"',
        fix: 'Give the entry "unknown-tool-to-tool-not-found" in contract/migrations.json "servers": the ids of the servers that emitted "mcp_input_validation" before (for example ["sp", "ads"]).',
      },
      {
        rule: 'expired-migrations',
        message:
          'conformance/fixtures/v1/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no v1 migration window of sp open at 0.1.0 explains',
        fix: 'Regenerate the conformance fixtures from the servers (their legacy_error_kind follows the migrations table), or add the missing migration entry.',
      },
    ]);
  });

  it("(e) fails a new server's fixture that carries a legacy value from windows of other servers, v1 or v2", async () => {
    const root = makeWindowRepo([...V2_ENTRIES, { ...TOOL_NOT_FOUND_MIGRATION, introduced_in: '0.2.0' }], true);
    write(
      root,
      'conformance/fixtures/github/api-http-404.json',
      envelopeFixture('UPSTREAM_HTTP_404', 'upstream_http', 'sp_api_http', 2),
    );
    write(
      root,
      'conformance/fixtures/github/tool-not-found.json',
      envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found', 'mcp_input_validation', 2),
    );
    const result = await runReleaseCheck({ root });
    expect(
      result.findings.filter((finding) => finding.rule !== 'migration-changelog').map((finding) => finding.message),
    ).toEqual([
      'conformance/fixtures/github/api-http-404.json still emits legacy_error_kind "sp_api_http" for UPSTREAM_HTTP_404, which no v2 migration window of github open at 0.2.0 explains',
      'conformance/fixtures/github/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no v2 migration window of github open at 0.2.0 explains',
    ]);
  });
});

describe('fixture layout: v2 under fixtures/<server>/, v1 under fixtures/v1/<server>/', () => {
  it('reads each fixture with the version of its folder; v1 is not a server', () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    const read = readFixtureEnvelopes(root, DEFAULT_LAYOUT).map((fixture) => [
      fixture.server,
      fixture.version,
      fixture.name,
    ]);
    expect(read).toEqual([
      ['github', 2, 'api-http-404.json'],
      ['sp', 2, 'api-client-network.json'],
      ['sp', 2, 'api-http-404.json'],
      ['sp', 2, 'tool-not-found.json'],
      ['sp', 1, 'api-client-network.json'],
      ['sp', 1, 'api-http-404.json'],
      ['sp', 1, 'sp-http-403.json'],
      ['sp', 1, 'tool-not-found.json'],
    ]);
  });

  it("fails a fixture whose _envelope_version is not its folder's", async () => {
    const root = makeWindowRepo(V2_ENTRIES, true);
    write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    write(
      root,
      'conformance/fixtures/v1/sp/sp-http-403.json',
      envelopeFixture('SP_API_HTTP_403', 'auth_error', undefined, 2),
    );
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'fixture-layout',
        message:
          'conformance/fixtures/sp/tool-not-found.json states _envelope_version 1 but lies among the v2 fixtures',
        fix: 'Regenerate the fixtures (`pnpm fixtures:update`): v2 envelopes belong in conformance/fixtures/<server>/, their v1 forms in conformance/fixtures/v1/<server>/.',
      },
      {
        rule: 'fixture-layout',
        message:
          'conformance/fixtures/v1/sp/sp-http-403.json states _envelope_version 2 but lies among the v1 fixtures',
        fix: 'Regenerate the fixtures (`pnpm fixtures:update`): v2 envelopes belong in conformance/fixtures/<server>/, their v1 forms in conformance/fixtures/v1/<server>/.',
      },
    ]);
  });
});
