import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** A CODEOWNERS pattern (gitignore syntax, as GitHub reads it) as a test on a tracked path. */
function matcher(pattern: string): (path: string) => boolean {
  const anchored = pattern.startsWith('/') || pattern.slice(0, -1).includes('/');
  const folder = pattern.endsWith('/');
  const body = pattern.replace(/^\//, '').replace(/\/$/, '');
  const segment = (part: string): string =>
    part
      .split('')
      .map((char) => (char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
  // `**/` spans any number of folders (none included); a trailing `/**` everything below.
  const glob = body
    .split('**/')
    .map((part) => part.split('/**').map(segment).join('/.*'))
    .join('(?:.*/)?');
  const expression = new RegExp(`${anchored ? '^' : '(^|/)'}${glob}${folder ? '/' : '(/|$)'}`);
  return (path) => expression.test(path);
}

function patterns(): string[] {
  return readFileSync(join(ROOT, '.github', 'CODEOWNERS'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(/\s+/)[0] ?? '');
}

describe('CODEOWNERS', () => {
  it('names only paths that exist: every pattern matches a tracked file', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '');
    const unmatched = patterns().filter((pattern) => !tracked.some(matcher(pattern)));
    expect(unmatched).toEqual([]);
  });

  it('protects the migrations table, the release check and the release configuration', () => {
    expect(patterns()).toEqual(
      expect.arrayContaining([
        '/contract/migrations.json',
        '/conformance/src/release/',
        '/.changeset/config.json',
        '/.github/',
      ]),
    );
  });

  it('reads ** as any number of folders, as GitHub does', () => {
    expect(
      ['packages/a/b/CHANGELOG.md', 'packages/CHANGELOG.md', 'contract/CHANGELOG.md'].filter(
        matcher('/packages/**/CHANGELOG.md'),
      ),
    ).toEqual(['packages/a/b/CHANGELOG.md', 'packages/CHANGELOG.md']);
  });

  it('reads patterns the way GitHub does', () => {
    expect(
      ['/contract/', '/scripts/release-check*', 'migrations.json', '/package.json'].map((pattern) => [
        pattern,
        [
          'contract/a.ts',
          'scripts/release-check.ts',
          'contract/migrations.json',
          'package.json',
          'contract/package.json',
        ].filter(matcher(pattern)),
      ]),
    ).toEqual([
      ['/contract/', ['contract/a.ts', 'contract/migrations.json', 'contract/package.json']],
      ['/scripts/release-check*', ['scripts/release-check.ts']],
      ['migrations.json', ['contract/migrations.json']],
      ['/package.json', ['package.json']],
    ]);
  });
});
