// The user guides under docs/ stay true to the code they describe: every environment variable
// the servers' packages read by name is in docs/credentials.md, and docs/inspector.md pins the
// Inspector version this repository installs; the guides' relative links lead to files that exist.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER_PACKAGES = [
  'packages/core',
  'packages/amazon',
  'packages/sp-adapter',
  'packages/ads-adapter',
  'packages/github-adapter',
];

/** The TypeScript files under `folder`, recursively. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The variables read as `env['NAME']` in the packages' sources (core's switches are read through a table of these names too). */
function variablesReadByName(): string[] {
  const names = new Set<string>();
  for (const folder of SERVER_PACKAGES)
    for (const file of sourceFiles(join(ROOT, folder, 'src')))
      for (const match of readFileSync(file, 'utf8').matchAll(/env(?:\?\.)?\['([A-Z][A-Z0-9_]+)'\]/g))
        names.add(match[1] ?? '');
  return [...names].sort();
}

describe('docs/credentials.md', () => {
  const text = readFileSync(join(ROOT, 'docs', 'credentials.md'), 'utf8');

  it('names every variable the servers read, credentials first among them', () => {
    const read = variablesReadByName();
    expect(read).toEqual(expect.arrayContaining(['LWA_CLIENT_ID', 'LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN']));
    expect(read.filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
  });

  it('is linked from the root README', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/credentials.md)');
  });
});

describe('docs/inspector.md', () => {
  const text = readFileSync(join(ROOT, 'docs', 'inspector.md'), 'utf8');
  const pinned = (
    JSON.parse(readFileSync(join(ROOT, 'conformance', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies['@modelcontextprotocol/inspector'];

  it('names the Inspector version the repository installs, and never runs an unpinned one', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(text).toContain(`\`@modelcontextprotocol/inspector\` **${String(pinned)}**`);
    expect(text).toContain(`npx -y @modelcontextprotocol/inspector@${String(pinned)}`);
    // an unpinned npx run may only be named to warn against it, in prose, never in a command block
    const commands = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '').join('\n');
    expect(commands).not.toMatch(/npx (-y )?@modelcontextprotocol\/inspector(?!@)/);
    expect(commands).toContain('npx pnpm --filter @mcp-envelope/conformance exec mcp-inspector --cli');
    expect(commands).toContain('exec mcp-inspector --web');
  });

  it('is linked from the root README', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/inspector.md)');
  });
});

describe('relative links of the README and the guides', () => {
  const pages = [
    'README.md',
    'conformance/README.md',
    ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`),
  ];

  it('lead to files that exist', () => {
    const links = pages.flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((match) => match[1] ?? '')
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => join(dirname(page), target)),
    );
    expect(links).toEqual(
      expect.arrayContaining(['docs/credentials.md', 'docs/inspector.md', 'conformance/README.md']),
    );
    expect(links.filter((link) => !existsSync(join(ROOT, link)))).toEqual([]);
  });
});
