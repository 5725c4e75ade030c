import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadSpModels } from '../src/index.js';
import { defaultModelCacheDirectory } from '../src/model-cache.js';
import type { SpModelCacheEvent } from '../src/index.js';

const MODELS = new URL('./fixtures/models/', import.meta.url).pathname;

/** A second model, with a local reference, written by the test. */
const PARTS_MODEL = {
  swagger: '2.0',
  info: { title: 'Parts test model', version: 'v0' },
  paths: {
    '/parts/v0/parts': {
      get: {
        operationId: 'listParts',
        parameters: [
          { name: 'Filter', in: 'query', required: true, type: 'array', items: { type: 'string' }, maxItems: 3 },
          { $ref: '#/parameters/PageSize' },
        ],
      },
    },
  },
  parameters: { PageSize: { name: 'pageSize', in: 'query', type: 'integer', minimum: 1, maximum: 50 } },
};

let folder: string;
let models: string;
let cacheDirectory: string;
let events: SpModelCacheEvent[];

function load(directory = models): ReturnType<typeof loadSpModels> {
  return loadSpModels(directory, { cacheDirectory, onCacheEvent: (event) => events.push(event) });
}

function cacheFiles(): string[] {
  return readdirSync(cacheDirectory);
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'sp-model-cache-test-'));
  models = join(folder, 'models');
  cacheDirectory = join(folder, 'cache');
  events = [];
  mkdirSync(models);
  // our own model files: one fixture (local references only) and one written here
  copyFileSync(join(MODELS, 'gadgets_2025-01-15.json'), join(models, 'gadgets_2025-01-15.json'));
  writeFileSync(join(models, 'partsV0.json'), JSON.stringify(PARTS_MODEL, null, 2));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('the converted-models cache', () => {
  it('stores on the first load and answers the second from one cache file, with exactly the converted models', async () => {
    const uncached = await loadSpModels(models);
    const first = await load();
    const second = await load();
    expect(events.map((event) => event.kind)).toEqual(['stored', 'hit']);
    expect(cacheFiles()).toHaveLength(1);
    expect(events[1]!.file).toBe(join(cacheDirectory, cacheFiles()[0]!));
    expect(first).toStrictEqual(uncached);
    expect(second).toStrictEqual(uncached);
    expect(second.flatMap((model) => model.operations.map((operation) => operation.toolName))).toEqual([
      'gadgets20250115_saveGadget',
      'gadgets20250115_saveGadget_post',
      'partsV0_listParts',
    ]);
    expect(second[1]!.operations[0]!.inputSchema).toEqual({
      type: 'object',
      properties: {
        Filter: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        pageSize: { type: 'integer', minimum: 1, maximum: 50 },
      },
      required: ['Filter'],
    });
  });

  it('converts again when a model file changes, and rewrites the same cache file', async () => {
    await load();
    writeFileSync(
      join(models, 'partsV0.json'),
      JSON.stringify({ ...PARTS_MODEL, paths: { '/parts/v0/parts': { get: { operationId: 'searchParts' } } } }),
    );
    const changed = await load();
    expect(events.map((event) => event.kind)).toEqual(['stored', 'stored']);
    expect(changed[1]!.operations.map((operation) => operation.toolName)).toEqual(['partsV0_searchParts']);
    expect(cacheFiles()).toHaveLength(1);
    expect(await load()).toStrictEqual(changed);
    expect(events.at(-1)!.kind).toBe('hit');
  });

  it('converts again when a model file is added or removed', async () => {
    await load();
    rmSync(join(models, 'partsV0.json'));
    expect((await load()).map((model) => model.model)).toEqual(['gadgets20250115']);
    expect(events.map((event) => event.kind)).toEqual(['stored', 'stored']);
  });

  it('keeps one cache file per model folder', async () => {
    const other = join(folder, 'other-models');
    mkdirSync(other);
    writeFileSync(join(other, 'partsV0.json'), JSON.stringify(PARTS_MODEL));
    await load();
    await load(other);
    await load();
    await load(other);
    expect(events.map((event) => event.kind)).toEqual(['stored', 'stored', 'hit', 'hit']);
    expect(cacheFiles()).toHaveLength(2);
  });

  it('rewrites a corrupt cache file, says so, and still answers the converted models', async () => {
    const uncached = await loadSpModels(models);
    await load();
    const file = join(cacheDirectory, cacheFiles()[0]!);
    const intact = readFileSync(file, 'utf8');
    writeFileSync(file, intact.slice(0, 100));
    expect(await load()).toStrictEqual(uncached);
    expect(events[1]).toEqual({ kind: 'unreadable', file, reason: 'no header line' });
    expect(await load()).toStrictEqual(uncached);
    expect(events[2]!.kind).toBe('hit');
    // a damaged value under an intact header: noticed by its hash, not trusted
    writeFileSync(file, intact.replace('"inputSchema"', '"inputSchemX"'));
    expect(await load()).toStrictEqual(uncached);
    expect(events[3]).toEqual({
      kind: 'unreadable',
      file,
      reason: 'the cached models were damaged (their SHA-256 does not match)',
    });
    expect(await load()).toStrictEqual(uncached);
    expect(events[4]!.kind).toBe('hit');
  });

  it('still loads when the cache folder cannot be created', async () => {
    writeFileSync(cacheDirectory, 'a file where the folder should be');
    const loaded = await load();
    expect(loaded.map((model) => model.model)).toEqual(['gadgets20250115', 'partsV0']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'unwritable' });
    expect(events[0]!.reason).toMatch(/EEXIST|ENOTDIR/);
  });

  it('is bypassed for a folder whose models refer to other files (the key would not see those change)', async () => {
    const loaded = await load(MODELS);
    expect(loaded.map((model) => model.model)).toEqual(['gadgets20250115', 'widgetsV0']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'bypassed',
      reason: 'widgetsV0.json refers to other files or needs the reference library',
    });
    expect(events[0]!.file.startsWith(join(cacheDirectory, 'sp-models-'))).toBe(true);
    expect(() => readdirSync(cacheDirectory)).toThrow(/ENOENT/);
  });

  it('drops the cache file of a folder once one of its models refers to another file', async () => {
    await load();
    expect(cacheFiles()).toHaveLength(1);
    mkdirSync(join(models, 'shared'));
    writeFileSync(
      join(models, 'shared', 'parameters.json'),
      JSON.stringify({ PageSize: { name: 'pageSize', in: 'query', type: 'integer', maximum: 10 } }),
    );
    const external = { ...PARTS_MODEL, parameters: { PageSize: { $ref: 'shared/parameters.json#/PageSize' } } };
    writeFileSync(join(models, 'partsV0.json'), JSON.stringify(external));
    const loaded = await load();
    expect((loaded[1]!.operations[0]!.inputSchema['properties'] as Record<string, unknown>)['pageSize']).toEqual({
      type: 'integer',
      maximum: 10,
    });
    expect(events.map((event) => event.kind)).toEqual(['stored', 'bypassed']);
    expect(events[1]!.reason).toBe('partsV0.json refers to other files or needs the reference library');
    expect(cacheFiles()).toEqual([]);
  });

  it('is bypassed for a reference into another file written with an escaped key, and sees that file change', async () => {
    mkdirSync(join(models, 'shared'));
    const shared = (limit: number): string =>
      JSON.stringify({ PageSize: { name: 'pageSize', in: 'query', type: 'integer', maximum: limit } });
    writeFileSync(join(models, 'shared', 'parameters.json'), shared(10));
    // "$r\u0065f" is "$ref" once parsed
    writeFileSync(
      join(models, 'partsV0.json'),
      JSON.stringify({ ...PARTS_MODEL, parameters: undefined }).replace(
        '{"$ref":"#/parameters/PageSize"}',
        '{"$r\\u0065f":"shared/parameters.json#/PageSize"}',
      ),
    );
    const pageSize = async (): Promise<unknown> =>
      ((await load())[1]!.operations[0]!.inputSchema['properties'] as Record<string, unknown>)['pageSize'];
    expect(await pageSize()).toEqual({ type: 'integer', maximum: 10 });
    writeFileSync(join(models, 'shared', 'parameters.json'), shared(99));
    expect(await pageSize()).toEqual({ type: 'integer', maximum: 99 });
    expect(events.map((event) => [event.kind, event.reason])).toEqual([
      ['bypassed', 'partsV0.json refers to other files or needs the reference library'],
      ['bypassed', 'partsV0.json refers to other files or needs the reference library'],
    ]);
  });

  it('keeps names apart in the key, whatever they contain', async () => {
    const gadgets = readFileSync(join(models, 'gadgets_2025-01-15.json'));
    await load();
    // one file whose name spells both names and a content hash, holding the second file's bytes
    rmSync(join(models, 'gadgets_2025-01-15.json'));
    rmSync(join(models, 'partsV0.json'));
    const hash = createHash('sha256').update(gadgets).digest('hex');
    writeFileSync(join(models, `gadgets_2025-01-15.json\n${hash}\npartsV0.json`), JSON.stringify(PARTS_MODEL, null, 2));
    const loaded = await load();
    expect(loaded.flatMap((model) => model.operations)).toHaveLength(1);
    expect(events.map((event) => event.kind)).toEqual(['stored', 'stored']);
  });

  it('loads model files that are symbolic links', async () => {
    const links = join(folder, 'links');
    mkdirSync(links);
    symlinkSync(join(models, 'partsV0.json'), join(links, 'partsV0.json'));
    symlinkSync(join(folder, 'missing.json'), join(links, 'dangling.json'));
    expect((await loadSpModels(links)).map((model) => model.model)).toEqual(['partsV0']);
  });

  it('refuses an empty cache folder, which would be the working directory', async () => {
    await expect(loadSpModels(models, { cacheDirectory: ' ' })).rejects.toThrow(
      'cacheDirectory must be a folder path (an empty one would be the working directory)',
    );
  });

  it('still names the file that fails to load', async () => {
    writeFileSync(join(models, 'zz-truncated.json'), '{"swagger": "2.0", "paths": {');
    await expect(load()).rejects.toThrow(/cannot load model zz-truncated\.json/);
  });

  it('lives in $XDG_CACHE_HOME/mcp-envelope-sp, else ~/.cache/mcp-envelope-sp; a relative XDG_CACHE_HOME is ignored', () => {
    expect(defaultModelCacheDirectory({ XDG_CACHE_HOME: '/var/cache/agent' })).toBe('/var/cache/agent/mcp-envelope-sp');
    expect(defaultModelCacheDirectory({ XDG_CACHE_HOME: ' ' })).toBe(join(homedir(), '.cache', 'mcp-envelope-sp'));
    expect(defaultModelCacheDirectory({ XDG_CACHE_HOME: 'relcache' })).toBe(
      join(homedir(), '.cache', 'mcp-envelope-sp'),
    );
    expect(defaultModelCacheDirectory({})).toBe(join(homedir(), '.cache', 'mcp-envelope-sp'));
  });
});
