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
  error_codes: string[];
  servers?: string[];
  from_kind: string;
  to_kind: string;
  introduced_in: string;
  removed_in: string;
}

export const TOOL_NOT_FOUND_MIGRATION: Migration = {
  id: 'unknown-tool-to-tool-not-found',
  error_codes: ['TOOL_NOT_FOUND'],
  from_kind: 'mcp_input_validation',
  to_kind: 'tool_not_found',
  introduced_in: '0.1.0',
  removed_in: '0.2.0',
};

export function write(root: string, path: string, content: unknown): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } });
}

export function envelopeFixture(code: string, kind: string, legacy?: string): unknown {
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
      _envelope_version: 1,
      ...(legacy === undefined ? {} : { legacy_error_kind: legacy }),
    },
  };
}

/**
 * A committed repository at version `version` with the given migrations, a CHANGELOG naming
 * them, and two SP fixtures; tagged `v<version>`.
 */
export function makeReleaseRepo(options: { version?: string; migrations?: Migration[]; changelog?: boolean; tag?: boolean } = {}): string {
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
  if (options.changelog ?? true) {
    write(
      root,
      'contract/CHANGELOG.md',
      `# changelog\n\n${migrations.map((entry) => `- ${entry.id}: ${entry.from_kind} -> ${entry.to_kind}; cutover ${entry.removed_in}`).join('\n')}\n`,
    );
  }
  write(root, 'conformance/fixtures/sp/tool-not-found.json', envelopeFixture('TOOL_NOT_FOUND', 'tool_not_found', 'mcp_input_validation'));
  write(root, 'conformance/fixtures/sp/sp-http-403.json', envelopeFixture('SP_API_HTTP_403', 'auth_error'));
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'initial');
  if (options.tag ?? true) git(root, 'tag', `v${version}`);
  return root;
}

export function addChangeset(root: string, name: string, bump: 'patch' | 'minor' | 'major', summary: string): void {
  write(root, `.changeset/${name}.md`, `---\n'@mcp-envelope/contract': ${bump}\n---\n\n${summary}\n`);
}
