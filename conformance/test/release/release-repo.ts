/**
 * Builds throwaway git repositories with this project's layout for the release-check tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const PACKAGES = [
  ['contract', '@mcp-envelope/contract'],
  ['packages/core', '@mcp-envelope/core'],
  ['packages/sp-adapter', '@mcp-envelope/sp-adapter'],
  ['packages/ads-adapter', '@mcp-envelope/ads-adapter'],
  ['conformance', '@mcp-envelope/conformance'],
] as const;

export interface Migration {
  id: string;
  error_codes?: string[];
  servers?: string[];
  contract_version?: 1 | 2;
  from_kind: string;
  to_kind: string;
  introduced_in: string;
  cutover_date?: string;
  removed_in?: string;
}

export const TOOL_NOT_FOUND_MIGRATION: Migration = {
  id: 'unknown-tool-to-tool-not-found',
  error_codes: ['TOOL_NOT_FOUND'],
  servers: ['sp', 'ads'],
  from_kind: 'mcp_input_validation',
  to_kind: 'tool_not_found',
  introduced_in: '0.1.0',
  cutover_date: '2027-03-01',
};

/** The release notes a server's CHANGELOG needs for `entry` when `opening` ships it. */
export function migrationNote(entry: Migration, opening: string, others: readonly string[] = []): string {
  const also =
    others.length === 0 ? '' : ` The same window applies to ${others.map((name) => `\`${name}\``).join(', ')}.`;
  return `- \`${entry.id}\`: ${entry.from_kind} becomes ${entry.to_kind}; cutover date ${entry.cutover_date ?? ''}, legacy_error_kind is dropped in the release after ${opening}.${also}`;
}

/** Tags a release the way `changeset publish` does: one `<package>@<version>` tag per package. */
export function tagRelease(root: string, version: string): void {
  for (const [, name] of PACKAGES) git(root, 'tag', `${name}@${version}`);
}

export function write(root: string, path: string, content: unknown): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.test',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.test',
    },
  });
}

/** The package of each server of the scratch repositories. */
export const SERVER_PACKAGES: Readonly<Record<string, string>> = {
  sp: '@mcp-envelope/sp-adapter',
  ads: '@mcp-envelope/ads-adapter',
};

/** An envelope fixture of one envelope version (v1 by default, as the v1 folder holds them). */
export function envelopeFixture(code: string, kind: string, legacy?: string, version: 1 | 2 = 1): unknown {
  return {
    _fixture_meta: { scenario: code },
    envelope: {
      error_kind: kind,
      tool: 'list_things',
      summary: 'failed',
      details: [],
      hints: [],
      examples: [],
      error_code: code,
      retryable: false,
      _envelope_version: version,
      ...(legacy === undefined ? {} : { legacy_error_kind: legacy }),
    },
  };
}

/** A server's CHANGELOG naming every entry that touches it (an entry without `servers` touches both). */
function writeChangelogs(root: string, migrations: readonly Migration[], version: string): void {
  for (const [server, name] of Object.entries(SERVER_PACKAGES)) {
    const touching = migrations.filter((entry) => entry.servers === undefined || entry.servers.includes(server));
    const notes = touching.map((entry) =>
      migrationNote(
        entry,
        version,
        Object.keys(SERVER_PACKAGES)
          .filter((other) => other !== server && (entry.servers === undefined || entry.servers.includes(other)))
          .map((other) => SERVER_PACKAGES[other] ?? other),
      ),
    );
    write(root, `${folderOf(name)}/CHANGELOG.md`, `# changelog\n\n${notes.join('\n')}\n`);
  }
}

function folderOf(name: string): string {
  return PACKAGES.find(([, candidate]) => candidate === name)?.[0] ?? name;
}

/**
 * A committed repository at version `version` with the given migrations, server CHANGELOGs
 * naming them, and two v1 SP fixtures (under `conformance/fixtures/v1/sp/`); tagged as released
 * at `version` unless `tag` is false.
 */
export function makeReleaseRepo(
  options: { version?: string; migrations?: Migration[]; changelog?: boolean; tag?: boolean } = {},
): string {
  const root = mkdtempSync(join(tmpdir(), 'release-check-'));
  const version = options.version ?? '0.1.0';
  const migrations = options.migrations ?? [TOOL_NOT_FOUND_MIGRATION];
  write(root, 'package.json', { name: 'scratch', private: true, version: '0.0.0' });
  write(root, 'pnpm-workspace.yaml', 'packages:\n  - contract\n  - conformance\n  - packages/*\n');
  write(root, '.changeset/config.json', {
    changelog: false,
    commit: false,
    fixed: [PACKAGES.map(([, name]) => name)],
    linked: [],
    access: 'public',
    baseBranch: 'main',
    updateInternalDependencies: 'patch',
    ignore: [],
  });
  for (const [folder, name] of PACKAGES) write(root, `${folder}/package.json`, { name, version });
  write(root, 'contract/src/taxonomy.ts', "export const ERROR_KINDS = ['internal_error'] as const;\n");
  write(root, 'contract/migrations.json', { migrations });
  if (options.changelog ?? true) writeChangelogs(root, migrations, version);
  write(
    root,
    'conformance/fixtures/v1/sp/tool-not-found.json',
    envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found', 'mcp_input_validation'),
  );
  write(root, 'conformance/fixtures/v1/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'auth_error'));
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'initial');
  if (options.tag ?? true) tagRelease(root, version);
  return root;
}

export function addChangeset(
  root: string,
  name: string,
  bump: 'patch' | 'minor' | 'major',
  summary: string,
  packageName = '@mcp-envelope/contract',
): void {
  write(root, `.changeset/${name}.md`, `---\n'${packageName}': ${bump}\n---\n\n${summary}\n`);
}
