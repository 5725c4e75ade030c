import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { formatReleaseCheck, readReleases, runReleaseCheck, writeReleaseSnapshot } from '../../src/release/index.js';
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
  write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
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
        'conformance/fixtures/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no migration window open at 0.2.0 explains',
      ],
    ]);
  });

  it('fails when a fixture carries a legacy kind that no entry explains', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      [
        'expired-migrations',
        'conformance/fixtures/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no migration window open at 0.1.0 explains',
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
    write(root, `conformance/fixtures/sp/${fixture}`, envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    addChangeset(root, 'fix', 'patch', 'A fix.');
    dropWindow(root);
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'snapshot-drift',
        message: `sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/sp/${fixture}), with no migration entry`,
        fix: 'Add to contract/migrations.json: {"id": "...", "error_codes": ["SP_API_HTTP_403"], "servers": ["sp"], "from_kind": "auth_error", "to_kind": "sp_api_http", "introduced_in": "0.1.1", "cutover_date": "YYYY-MM-DD"}, or restore the old kind.',
      },
    ]);
  });

  it('compares with the last release, not with a snapshot written for a release that never shipped', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    write(root, 'contract/releases/0.1.1.json', {
      version: '0.1.1',
      kinds: { sp: { SP_API_HTTP_403: 'sp_api_http' } },
      migrations: [],
    });
    write(root, 'conformance/fixtures/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    for (const [folder, name] of PACKAGES) write(root, `${folder}/package.json`, { name, version: '0.1.1' });
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.message)).toEqual([
      'sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/sp/sp-http-403.json), with no migration entry',
    ]);
  });

  it('reads the snapshot the release tag holds, so editing it in the checkout cannot hide a change', async () => {
    const root = makeReleaseRepo({ migrations: [], tag: false });
    write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'release 0.1.0');
    tagRelease(root, '0.1.0');
    write(root, 'conformance/fixtures/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    writeReleaseSnapshot(root);
    addChangeset(root, 'quiet', 'minor', 'Nothing to see.');
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.message)).toEqual([
      'sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now (conformance/fixtures/sp/sp-http-403.json), with no migration entry',
    ]);
  });

  it('passes when a migration entry covers the change, named in the server CHANGELOG', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    write(
      root,
      'conformance/fixtures/sp/sp-http-403.json',
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
      kinds: { sp: { SP_API_HTTP_403: 'auth_error', TOOL_NOT_FOUND: 'tool_not_found' } },
      migrations: ['unknown-tool-to-tool-not-found'],
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(snapshot);
  });
});

describe('changeset-required', () => {
  it('fails when a fixture changed since the last release tag with no pending changeset', async () => {
    const root = makeReleaseRepo();
    write(root, 'conformance/fixtures/sp/new-case.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'changeset-required',
        message:
          'contract files changed since @mcp-envelope/contract@0.1.0 with no pending changeset: conformance/fixtures/sp/new-case.json',
        fix: 'Run `pnpm changeset`, pick the bump that fits, and describe the change for users.',
      },
    ]);
  });

  it('runs before any release too, from the first commit', async () => {
    const root = makeReleaseRepo({ tag: false });
    write(root, 'conformance/fixtures/sp/new-case.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'new case');
    const first = git(root, 'rev-list', '--max-parents=0', 'HEAD').trim();
    expect((await runReleaseCheck({ root })).findings.map((finding) => finding.message)).toEqual([
      `contract files changed since ${first} with no pending changeset: conformance/fixtures/sp/new-case.json`,
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
    write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found'));
    writeReleaseSnapshot(root);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'snapshot');
    write(
      root,
      'conformance/fixtures/sp/sp-http-403.json',
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
