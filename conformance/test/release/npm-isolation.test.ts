import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { gitEnv, loopbackNpmEnv, releaseNpmEnv, writeRegistryNpmrc } from '../registry/consumer.js';

const PNPM = join(resolve(import.meta.dirname, '../../..'), 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');

describe('the release rehearsal npm environment', () => {
  it('ignores the user and global npmrc, so a scoped registry there cannot send an install past 127.0.0.1', () => {
    const home = mkdtempSync(join(tmpdir(), 'npm-home-'));
    const folder = mkdtempSync(join(tmpdir(), 'npm-consumer-'));
    writeFileSync(join(home, '.npmrc'), '@mcp-envelope:registry=https://registry.example.test/\n');
    writeRegistryNpmrc(folder, 'http://127.0.0.1:4873', join(folder, 'cache'));
    const env = { ...loopbackNpmEnv(folder), HOME: home };
    const get = (key: string): string =>
      execFileSync('npm', ['config', 'get', key], { cwd: folder, env, encoding: 'utf8' }).trim();
    expect([get('registry'), get('@mcp-envelope:registry')]).toEqual(['http://127.0.0.1:4873/', 'undefined']);
  });

  it("gives the release commands only the rehearsal's own userconfig: npm and pnpm ignore a developer's ~/.npmrc", () => {
    const home = mkdtempSync(join(tmpdir(), 'npm-home-'));
    const base = mkdtempSync(join(tmpdir(), 'release-base-'));
    writeFileSync(
      join(home, '.npmrc'),
      '@mcp-envelope:registry=https://registry.example.test/\n//registry.example.test/:_authToken=developer-token\nprovenance=true\n',
    );
    writeRegistryNpmrc(base, 'http://127.0.0.1:4873', join(base, 'cache'), 'rehearsal-token');
    const env = { ...releaseNpmEnv('http://127.0.0.1:4873', join(base, '.npmrc')), HOME: home };
    const npm = (key: string): string =>
      execFileSync('npm', ['config', 'get', key], { cwd: base, env, encoding: 'utf8' }).trim();
    const pnpm = (key: string): string =>
      execFileSync(process.execPath, [PNPM, 'config', 'get', key], { cwd: base, env, encoding: 'utf8' }).trim();
    expect([
      npm('userconfig'),
      npm('globalconfig'),
      npm('registry'),
      npm('@mcp-envelope:registry'),
      npm('provenance'),
    ]).toEqual([join(base, '.npmrc'), join(base, '.npmrc.no-global'), 'http://127.0.0.1:4873/', 'undefined', 'false']);
    expect([pnpm('registry'), pnpm('@mcp-envelope:registry')]).toEqual(['http://127.0.0.1:4873/', 'undefined']);
  });

  it("runs git without the user's configuration, so a signing requirement there cannot stop a release commit", () => {
    const home = mkdtempSync(join(tmpdir(), 'git-home-'));
    const repo = mkdtempSync(join(tmpdir(), 'git-repo-'));
    writeFileSync(join(home, '.gitconfig'), '[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n');
    const env = { ...gitEnv(), HOME: home };
    execFileSync('git', ['init', '--quiet'], { cwd: repo, env });
    execFileSync('git', ['commit', '--quiet', '--allow-empty', '-m', 'release'], { cwd: repo, env });
    expect(execFileSync('git', ['log', '--format=%an <%ae>'], { cwd: repo, env, encoding: 'utf8' })).toBe(
      'release <release@example.test>\n',
    );
    expect(() =>
      execFileSync('git', ['commit', '--quiet', '--allow-empty', '-m', 'signed'], {
        cwd: repo,
        env: {
          ...process.env,
          HOME: home,
          GIT_AUTHOR_NAME: 'a',
          GIT_AUTHOR_EMAIL: 'a@example.test',
          GIT_COMMITTER_NAME: 'a',
          GIT_COMMITTER_EMAIL: 'a@example.test',
        },
        stdio: 'pipe',
      }),
    ).toThrow();
  });
});
