import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { loopbackNpmEnv, writeRegistryNpmrc } from '../registry/consumer.js';

describe('the release rehearsal npm environment', () => {
  it('ignores the user and global npmrc, so a scoped registry there cannot send an install past 127.0.0.1', () => {
    const home = mkdtempSync(join(tmpdir(), 'npm-home-'));
    const folder = mkdtempSync(join(tmpdir(), 'npm-consumer-'));
    writeFileSync(join(home, '.npmrc'), '@mcp-envelope:registry=https://registry.example.test/\n');
    writeRegistryNpmrc(folder, 'http://127.0.0.1:4873', join(folder, 'cache'));
    const env = { ...loopbackNpmEnv(folder), HOME: home };
    const get = (key: string): string => execFileSync('npm', ['config', 'get', key], { cwd: folder, env, encoding: 'utf8' }).trim();
    expect([get('registry'), get('@mcp-envelope:registry')]).toEqual(['http://127.0.0.1:4873/', 'undefined']);
  });
});
