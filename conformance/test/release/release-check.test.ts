import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { formatReleaseCheck, runReleaseCheck, writeReleaseSnapshot } from '../../src/release/index.js';
import { PACKAGES, TOOL_NOT_FOUND_MIGRATION, addChangeset, envelopeFixture, git, makeReleaseRepo, write } from './release-repo.js';

const changesetBin = join(dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')), 'bin.js');

describe('release:check on a clean checkout', () => {
  it('passes, naming the current and target versions and the rules it could not run', async () => {
    const root = makeReleaseRepo({ tag: false });
    const result = await runReleaseCheck({ root });
    expect(result).toEqual({
      ok: true,
      currentVersion: '0.1.0',
      targetVersion: '0.1.0',
      findings: [],
      skipped: [
        { rule: 'snapshot-drift', reason: 'no released snapshot in contract/releases at or below 0.1.0' },
        { rule: 'changeset-required', reason: 'no --since ref given and no tag v0.1.0' },
      ],
    });
    expect(formatReleaseCheck(result).split('\n').at(-1)).toBe('release:check: passed');
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
    write(root, '.changeset/config.json', { changelog: false, commit: false, fixed: [], linked: [], access: 'public', baseBranch: 'main', updateInternalDependencies: 'patch', ignore: [] });
    addChangeset(root, 'lonely', 'patch', 'Only the contract moves.');
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => finding.rule)).toEqual(['lockstep']);
    expect(result.findings[0]!.message).toBe('the pending release does not move every package to one version: @mcp-envelope/contract@0.1.1');
  });
});

describe('expired-migrations', () => {
  it('fails when the release about to ship is at or past an entry removed_in', async () => {
    const root = makeReleaseRepo();
    addChangeset(root, 'next', 'minor', 'Next minor.');
    const result = await runReleaseCheck({ root });
    expect(result.targetVersion).toBe('0.2.0');
    expect(result.findings).toEqual([
      {
        rule: 'expired-migrations',
        message: 'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) expired in 0.2.0, and 0.2.0 is about to be released',
        fix: 'Delete the entry "unknown-tool-to-tool-not-found" from contract/migrations.json, run `pnpm fixtures:update`, and drop legacy_error_kind "mcp_input_validation" from the recorded cases that still expect it (conformance/cases, packages/*/test/fixtures/upstream).',
      },
      {
        rule: 'expired-migrations',
        message: 'conformance/fixtures/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no migration window open at 0.2.0 explains',
        fix: 'Regenerate the conformance fixtures from the servers (their legacy_error_kind follows the migrations table), or add the missing migration entry.',
      },
    ]);
  });

  it('a patch release inside the window passes', async () => {
    const root = makeReleaseRepo();
    addChangeset(root, 'fix', 'patch', 'A fix.');
    const result = await runReleaseCheck({ root });
    expect(result.targetVersion).toBe('0.1.1');
    expect(result.findings).toEqual([]);
  });

  it('fails when a fixture carries a legacy kind that no entry explains', async () => {
    const root = makeReleaseRepo({ migrations: [] });
    const result = await runReleaseCheck({ root });
    expect(result.findings.map((finding) => [finding.rule, finding.message])).toEqual([
      ['expired-migrations', 'conformance/fixtures/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no migration window open at 0.1.0 explains'],
    ]);
  });
});

describe('snapshot-drift', () => {
  it('fails when a code changed kind since the released snapshot without a migration entry', async () => {
    const root = makeReleaseRepo();
    writeReleaseSnapshot(root);
    write(root, 'conformance/fixtures/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    const result = await runReleaseCheck({ root });
    expect(result.findings.filter((finding) => finding.rule === 'snapshot-drift')).toEqual([
      {
        rule: 'snapshot-drift',
        message: 'sp SP_API_HTTP_403 was auth_error in 0.1.0 and is sp_api_http now, with no migration entry',
        fix: 'Add to contract/migrations.json: {"id": "...", "error_codes": ["SP_API_HTTP_403"], "servers": ["sp"], "from_kind": "auth_error", "to_kind": "sp_api_http", "introduced_in": "0.1.0", "removed_in": "<the release after 0.1.0>"}, or restore the old kind.',
      },
    ]);
  });

  it('passes when a migration entry covers the change', async () => {
    const root = makeReleaseRepo();
    writeReleaseSnapshot(root);
    write(root, 'conformance/fixtures/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'sp_api_http'));
    const entry = { id: 'sp-403-back', error_codes: ['SP_API_HTTP_403'], servers: ['sp'], from_kind: 'auth_error', to_kind: 'sp_api_http', introduced_in: '0.1.0', removed_in: '0.2.0' };
    write(root, 'contract/migrations.json', { migrations: [TOOL_NOT_FOUND_MIGRATION, entry] });
    addChangeset(root, 'note', 'patch', 'sp-403-back: auth_error -> sp_api_http, legacy dropped in 0.2.0');
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([]);
  });

  it('writes the snapshot as code -> kind per server with the migration ids', () => {
    const root = makeReleaseRepo();
    const { snapshot, path } = writeReleaseSnapshot(root);
    expect(path).toBe(join(root, 'contract/releases/0.1.0.json'));
    expect(snapshot).toEqual({ version: '0.1.0', kinds: { sp: { SP_API_HTTP_403: 'auth_error', TOOL_NOT_FOUND: 'tool_not_found' } }, migrations: ['unknown-tool-to-tool-not-found'] });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(snapshot);
  });
});

describe('changeset-required', () => {
  it('fails when a fixture changed with no pending changeset', async () => {
    const root = makeReleaseRepo();
    write(root, 'conformance/fixtures/sp/new-case.json', envelopeFixture('SP_API_HTTP_404', 'sp_api_http'));
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'changeset-required',
        message: 'contract files changed since v0.1.0 with no pending changeset: conformance/fixtures/sp/new-case.json',
        fix: 'Run `pnpm changeset`, pick the bump that fits, and describe the change for users.',
      },
    ]);
  });

  it('fails when the taxonomy changed with only a patch changeset, passes with minor', async () => {
    const root = makeReleaseRepo();
    write(root, 'contract/src/taxonomy.ts', "export const ERROR_KINDS = ['internal_error', 'quota_error'] as const;\n");
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'taxonomy');
    addChangeset(root, 'kinds', 'patch', 'New kind.');
    const patch = await runReleaseCheck({ root, since: 'v0.1.0' });
    expect(patch.findings).toEqual([
      {
        rule: 'changeset-required',
        message: 'the taxonomy changed since v0.1.0 (contract/src/taxonomy.ts) but the pending changesets bump only patch',
        fix: 'Change the changeset to `minor` (or `major` when a kind or code was removed): a taxonomy change is never a patch.',
      },
    ]);
    addChangeset(root, 'kinds', 'minor', 'New kind.');
    write(root, 'contract/migrations.json', { migrations: [{ ...TOOL_NOT_FOUND_MIGRATION, removed_in: '0.3.0' }] });
    write(root, 'contract/CHANGELOG.md', '- unknown-tool-to-tool-not-found: cutover 0.3.0\n');
    const minor = await runReleaseCheck({ root, since: 'v0.1.0' });
    expect(minor.findings).toEqual([]);
  });

  it('ignores changes outside the contract files', async () => {
    const root = makeReleaseRepo();
    write(root, 'packages/core/src/index.ts', 'export {};\n');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });
});

describe('migration-changelog', () => {
  it('fails for a new migration that no changeset or CHANGELOG names with its cutover', async () => {
    const root = makeReleaseRepo({ changelog: false });
    const result = await runReleaseCheck({ root });
    expect(result.findings).toEqual([
      {
        rule: 'migration-changelog',
        message: 'migration "unknown-tool-to-tool-not-found" has no changelog entry naming its cutover release 0.2.0',
        fix: 'Add a changeset (or CHANGELOG.md entry) that names "unknown-tool-to-tool-not-found", says mcp_input_validation becomes tool_not_found in 0.1.0, and that legacy_error_kind is dropped in 0.2.0.',
      },
    ]);
    addChangeset(root, 'window', 'patch', 'unknown-tool-to-tool-not-found: legacy_error_kind is dropped in 0.2.0.');
    expect((await runReleaseCheck({ root })).findings).toEqual([]);
  });

  it('does not ask again for a migration the released snapshot already had', async () => {
    const root = makeReleaseRepo({ changelog: false });
    writeReleaseSnapshot(root);
    expect((await runReleaseCheck({ root })).findings.filter((finding) => finding.rule === 'migration-changelog')).toEqual([]);
  });
});

describe('a dry run of changeset version', () => {
  it('moves every package to one version, and the check then demands the expired migration be removed', async () => {
    const root = makeReleaseRepo();
    addChangeset(root, 'next-minor', 'minor', 'Next minor release.');
    expect((await runReleaseCheck({ root })).targetVersion).toBe('0.2.0');
    execFileSync(process.execPath, [changesetBin, 'version'], { cwd: root, encoding: 'utf8' });
    const versions = PACKAGES.map(([folder]) => (JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { version: string }).version);
    expect(versions).toEqual(['0.2.0', '0.2.0', '0.2.0', '0.2.0', '0.2.0']);
    const after = await runReleaseCheck({ root });
    expect(after.currentVersion).toBe('0.2.0');
    expect(after.ok).toBe(false);
    expect(after.findings.map((finding) => finding.message)).toEqual([
      'migration "unknown-tool-to-tool-not-found" (mcp_input_validation -> tool_not_found) expired in 0.2.0, and 0.2.0 is about to be released',
      'conformance/fixtures/sp/tool-not-found.json still emits legacy_error_kind "mcp_input_validation" for TOOL_NOT_FOUND, which no migration window open at 0.2.0 explains',
    ]);
  });
});
