import { fileURLToPath } from 'node:url';

import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/**
 * The import cycles among the TypeScript files `pattern` matches, each as the list of its files
 * relative to the package and sorted (where a cycle starts depends on the order files are found).
 * Type-only imports count: a cycle of shapes is what sends a reader
 * back and forth between modules as much as a cycle of values does.
 */
async function importCycles(pattern: string): Promise<string[][]> {
  const tree = await parseDependencyTree(pattern, {
    context: PACKAGE,
    cwd: PACKAGE,
    tsconfig: `${PACKAGE}tsconfig.json`,
    transform: false,
    skipDynamicImports: false,
  });
  return parseCircular(tree).map((cycle) => [...cycle].sort());
}

describe('import cycles in core', () => {
  it('finds the cycle of two modules that import each other (the check can fail)', async () => {
    expect(await importCycles('test/fixtures/import-cycle/*.ts')).toEqual([
      ['test/fixtures/import-cycle/first.ts', 'test/fixtures/import-cycle/second.ts'],
    ]);
  });

  it('finds none among the modules of src', async () => {
    expect(await importCycles('src/**/*.ts')).toEqual([]);
  }, 60_000);
});
