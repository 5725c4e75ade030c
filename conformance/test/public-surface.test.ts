/**
 * The public surface of every published package is chosen name by name: entry points list their
 * exports explicitly, and each runtime export appears in the package's checked-in API report
 * (`<package>/api/<name>.api.md`, compared with the build by `pnpm lint`).
 */
import { readdirSync, readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

const repositoryRoot = new URL('../../', import.meta.url);

interface EntryPoint {
  /** How users import it, e.g. `@mcp-envelope/core/adapter`. */
  readonly specifier: string;
  /** The built module, imported by path so that every workspace package is reachable. */
  readonly built: URL;
  readonly source: string;
  readonly report: string;
}

function repositoryFile(path: string): string {
  return readFileSync(new URL(path, repositoryRoot), 'utf8');
}

interface Manifest {
  readonly name: string;
  readonly exports: Readonly<Record<string, string | { readonly types?: string; readonly default?: string }>>;
}

/** The entry points of a package folder, as its package.json `exports` declares them. */
function entryPointsOf(folder: string): EntryPoint[] {
  const manifest = JSON.parse(repositoryFile(`${folder}/package.json`)) as Manifest;
  const unscoped = manifest.name.replace(/^@[^/]+\//, '');
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string' || target.types === undefined || target.default === undefined) return [];
    const report = subpath === '.' ? unscoped : `${unscoped}-${subpath.slice(2).replaceAll('/', '-')}`;
    return [
      {
        specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        built: new URL(`${folder}/${target.default.replace(/^\.\//, '')}`, repositoryRoot),
        source: `${folder}/${target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')}`,
        report: `${folder}/api/${report}.api.md`,
      },
    ];
  });
}

const PACKAGE_FOLDERS = [
  'contract',
  ...readdirSync(new URL('packages/', repositoryRoot)).map((name) => `packages/${name}`),
  'conformance',
];
const ENTRY_POINTS: readonly EntryPoint[] = PACKAGE_FOLDERS.flatMap(entryPointsOf);

/** The names an API report declares as exported values (classes, functions, constants, re-exports). */
function reportedValueNames(report: string): string[] {
  const declared = [
    ...report.matchAll(/^export (?:declare )?(?:abstract )?(?:class|const|function|enum|let|var|namespace) ([\w$]+)/gm),
  ];
  const reexported = [...report.matchAll(/^export \{ ([\w$]+) \}/gm)];
  return [...new Set([...declared, ...reexported].map((match) => match[1] ?? ''))].sort();
}

describe('public surface', () => {
  it.each(ENTRY_POINTS)('$specifier lists its exports by name (no export *)', ({ source }) => {
    expect(repositoryFile(source).match(/^export (?:type )?\*.*$/gm) ?? []).toEqual([]);
  });

  it('finds the entry points of every package', () => {
    expect(ENTRY_POINTS.map((entry) => entry.specifier)).toEqual(
      expect.arrayContaining([
        '@mcp-envelope/contract',
        '@mcp-envelope/core',
        '@mcp-envelope/core/adapter',
        '@mcp-envelope/core/openapi',
        '@mcp-envelope/testing',
        '@mcp-envelope/sp-adapter',
        '@mcp-envelope/ads-adapter',
        '@mcp-envelope/conformance',
      ]),
    );
  });

  it.each(ENTRY_POINTS)('every runtime export of $specifier is in its API report', async ({ built, report }) => {
    const runtime = Object.keys((await import(built.href)) as Record<string, unknown>).sort();
    const reported = reportedValueNames(repositoryFile(report));
    expect(runtime.filter((name) => !reported.includes(name))).toEqual([]);
    expect(runtime.length).toBeGreaterThan(0);
  });

  it('keeps helpers of the CLI and the gate out of @mcp-envelope/conformance', async () => {
    const conformance = (await import('@mcp-envelope/conformance')) as Record<string, unknown>;
    expect(
      ['truncate', 'escapeXml', 'GATE_LWA_CLIENT_ID', 'quoteWord', 'isRecord'].filter((name) => name in conformance),
    ).toEqual([]);
    expect(typeof conformance['probeServer']).toBe('function');
  });
});
