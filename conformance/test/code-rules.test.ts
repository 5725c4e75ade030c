// The repository's code rules that lint enforces (small functions, no module-level mutable
// state) and the ones a scan of the sources checks (no generated code).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

import { packageRoot } from './helpers/cli-runner.js';

const repositoryRoot = join(packageRoot, '..');
/** An existing source file of core: lint runs the given text as if it were this file. */
const probeFile = join(repositoryRoot, 'packages', 'core', 'src', 'json-references.ts');

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repositoryRoot });
});

async function rulesBroken(text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: probeFile });
  return (result?.messages ?? []).map((message) => message.ruleId ?? 'parse');
}

/** A function declaration spanning exactly `lines` lines. */
function functionOfLines(lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, index) => `  total += ${index};`);
  return ['export function long(): number {', '  let total = 0;', ...body, '  return total;', '}', ''].join('\n');
}

describe('lint rules for shipped code', () => {
  it('refuses a function of 81 lines and accepts one of 80', async () => {
    expect(await rulesBroken(functionOfLines(81))).toEqual(['max-lines-per-function']);
    expect(await rulesBroken(functionOfLines(80))).toEqual([]);
  });

  it('refuses a module-level let, exported or not, and accepts one inside a function', async () => {
    const counter = 'let calls = 0;\nexport function count(): number {\n  calls += 1;\n  return calls;\n}\n';
    expect(await rulesBroken(counter)).toEqual(['no-restricted-syntax']);
    expect(await rulesBroken('export let calls = 0;\nexport function bump(): void {\n  calls += 1;\n}\n')).toEqual([
      'no-restricted-syntax',
    ]);
    expect(
      await rulesBroken('export function count(): number {\n  let calls = 0;\n  calls += 1;\n  return calls;\n}\n'),
    ).toEqual([]);
  });

  it('refuses a module-level Map or Set not typed read-only, which a run could fill for every server', async () => {
    const cache =
      'const seen = new Map<string, number>();\nexport function remember(key: string): void {\n  seen.set(key, 1);\n}\n';
    expect(await rulesBroken(cache)).toEqual(['no-restricted-syntax']);
    expect(await rulesBroken("export const NAMES = new Set(['a']);\n")).toEqual(['no-restricted-syntax']);
    expect(await rulesBroken("export const NAMES: ReadonlySet<string> = new Set(['a']);\n")).toEqual([]);
    expect(
      await rulesBroken(
        'export function remember(key: string): number {\n  const seen = new Map<string, number>();\n  seen.set(key, 1);\n  return seen.size;\n}\n',
      ),
    ).toEqual([]);
  });

  it('refuses a module-level g or y regular expression, whose lastIndex every caller shares', async () => {
    expect(await rulesBroken('export const WORD = /w/g;\n')).toEqual(['no-restricted-syntax']);
    expect(await rulesBroken('export const WORDS: readonly RegExp[] = [/a/, /w/y];\n')).toEqual([
      'no-restricted-syntax',
    ]);
    expect(await rulesBroken("const WORD = new RegExp('w', 'gi');\nexport const word = WORD;\n")).toEqual([
      'no-restricted-syntax',
    ]);
    expect(await rulesBroken('export const WORD = /w/i;\n')).toEqual([]);
    expect(
      await rulesBroken("export function words(text: string): string {\n  return text.replace(/w/g, '');\n}\n"),
    ).toEqual([]);
  });
});

/** Every TypeScript file under `folder`, recursively. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('shipped sources', () => {
  const folders = [
    'contract/src',
    'conformance/src',
    ...readdirSync(join(repositoryRoot, 'packages')).map((name) => `packages/${name}/src`),
  ];
  const files = folders.flatMap((folder) => sourceFiles(join(repositoryRoot, folder)));

  it('generate no code at run time (no new Function, no eval)', () => {
    expect(files.length).toBeGreaterThan(50);
    const generating = files
      .filter((file) => /\bnew Function\(|\beval\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(repositoryRoot, file));
    expect(generating).toEqual([]);
  });
});
