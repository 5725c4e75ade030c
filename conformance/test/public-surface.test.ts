/**
 * The public surface of every published package is chosen name by name: entry points list their
 * exports explicitly, and each runtime export appears in the package's checked-in API report
 * (`<package>/api/<name>.api.md`, compared with the build by `pnpm lint`).
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

const repositoryRoot = new URL('../../', import.meta.url);

interface EntryPoint {
  readonly specifier: string;
  readonly source: string;
  readonly report: string;
}

const ENTRY_POINTS: readonly EntryPoint[] = [
  { specifier: '@mcp-envelope/contract', source: 'contract/src/index.ts', report: 'contract/api/contract.api.md' },
  { specifier: '@mcp-envelope/core', source: 'packages/core/src/index.ts', report: 'packages/core/api/core.api.md' },
  { specifier: '@mcp-envelope/core/testing', source: 'packages/core/src/testing/index.ts', report: 'packages/core/api/core-testing.api.md' },
  { specifier: '@mcp-envelope/sp-adapter', source: 'packages/sp-adapter/src/index.ts', report: 'packages/sp-adapter/api/sp-adapter.api.md' },
  { specifier: '@mcp-envelope/ads-adapter', source: 'packages/ads-adapter/src/index.ts', report: 'packages/ads-adapter/api/ads-adapter.api.md' },
  { specifier: '@mcp-envelope/conformance', source: 'conformance/src/index.ts', report: 'conformance/api/conformance.api.md' },
];

function repositoryFile(path: string): string {
  return readFileSync(new URL(path, repositoryRoot), 'utf8');
}

/** The names an API report declares as exported values (classes, functions, constants, re-exports). */
function reportedValueNames(report: string): string[] {
  const declared = [...report.matchAll(/^export (?:declare )?(?:abstract )?(?:class|const|function|enum|let|var|namespace) ([\w$]+)/gm)];
  const reexported = [...report.matchAll(/^export \{ ([\w$]+) \}/gm)];
  return [...new Set([...declared, ...reexported].map((match) => match[1] ?? ''))].sort();
}

describe('public surface', () => {
  it.each(ENTRY_POINTS)('$specifier lists its exports by name (no export *)', ({ source }) => {
    expect(repositoryFile(source).match(/^export (?:type )?\*.*$/gm) ?? []).toEqual([]);
  });

  it.each(ENTRY_POINTS)('every runtime export of $specifier is in its API report', async ({ specifier, report }) => {
    const runtime = Object.keys((await import(specifier)) as Record<string, unknown>).sort();
    const reported = reportedValueNames(repositoryFile(report));
    expect(runtime.filter((name) => !reported.includes(name))).toEqual([]);
    expect(runtime.length).toBeGreaterThan(0);
  });

  it('keeps helpers of the CLI and the gate out of @mcp-envelope/conformance', async () => {
    const conformance = (await import('@mcp-envelope/conformance')) as Record<string, unknown>;
    expect(['truncate', 'escapeXml', 'GATE_LWA_CLIENT_ID', 'quoteWord', 'isRecord'].filter((name) => name in conformance)).toEqual([]);
    expect(typeof conformance['probeServer']).toBe('function');
  });
});
