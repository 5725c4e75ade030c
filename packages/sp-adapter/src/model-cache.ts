/**
 * A cache of converted SP-API models on disk, so that a server started again on the same model
 * folder skips parsing and converting every file (most of its start-up). One cache file per model
 * folder; it is used only when its key matches, and the key covers everything the models depend
 * on: the format, this package's and core's versions, the size and modification time of every
 * module of this package and of core (a rebuilt converter never reads an older result), the
 * folder's path, and the name and SHA-256 of every model file's content. Only folders whose every
 * model was converted from its own bytes alone are cached (see `loadSpModels`). The file holds a
 * header line (format, key, SHA-256 of the value) and the value, so a damaged value is noticed.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PACKAGE_VERSION as CORE_VERSION } from '@mcp-envelope/core';

import { SP_ADAPTER_VERSION } from './version.js';

/** Bump when the cached shape changes. */
export const SP_MODEL_CACHE_FORMAT = 2;

/** What happened to the cache on one load, for a log line. */
export interface SpModelCacheEvent {
  /**
   * - `hit`: the models came from the cache file;
   * - `stored`: the models were converted and written to the cache file;
   * - `unreadable`: a cache file existed but could not be used (corrupt, another format); the
   *   models were converted and the file rewritten;
   * - `unwritable`: the models were converted, but the cache file could not be written (the load
   *   still succeeds);
   * - `bypassed`: the cache was not used because a model refers to other files (whose changes
   *   the key would not see), a model file changed while the folder was loaded, or a converter
   *   module could not be fingerprinted.
   */
  readonly kind: 'hit' | 'stored' | 'unreadable' | 'unwritable' | 'bypassed';
  /** The cache file (the cache folder when the converter modules could not be fingerprinted). */
  readonly file: string;
  /** Why, for `unreadable`, `unwritable` and `bypassed` (an error message; never file contents). */
  readonly reason?: string;
}

/**
 * The default cache folder: `$XDG_CACHE_HOME/mcp-envelope-sp`, else `~/.cache/mcp-envelope-sp`.
 * As the XDG base directory rules say, a relative `XDG_CACHE_HOME` is ignored; without an
 * absolute home folder either there is no default (a server started with an empty `HOME` would
 * otherwise write into whatever folder it was started in).
 *
 * @param env - the environment to read `XDG_CACHE_HOME` from (default `process.env`).
 * @returns an absolute path (not created), or `undefined`.
 */
export function defaultModelCacheDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = env['XDG_CACHE_HOME']?.trim();
  if (base !== undefined && isAbsolute(base)) return join(base, 'mcp-envelope-sp');
  const home = homedir();
  return isAbsolute(home) ? join(home, '.cache', 'mcp-envelope-sp') : undefined;
}

/** The `.js` (or, run from source, `.ts`) modules in `folder` and, with `recursive`, below it. */
function modulesIn(folder: string, recursive: boolean): string[] {
  return readdirSync(folder, { recursive, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Size and modification time of every module of this package and of core (what converts and
 * names the models, down to the text capping), or `undefined` when they cannot be listed.
 */
function codeFingerprint(): string | undefined {
  try {
    const coreEntry = createRequire(import.meta.url).resolve('@mcp-envelope/core');
    const modules = [
      ...modulesIn(dirname(fileURLToPath(import.meta.url)), false),
      ...modulesIn(dirname(coreEntry), true),
    ];
    return JSON.stringify(
      modules.map((module) => {
        const stats = statSync(module);
        return [module, stats.size, stats.mtimeMs];
      }),
    );
  } catch {
    return undefined;
  }
}

/** One folder's cache file, the key its content must carry, and the model files' bytes. */
export interface ModelCacheSlot {
  readonly file: string;
  readonly key: string;
  /** Each model file's bytes, as hashed: the loader converts these, not a later read. */
  readonly contents: readonly Buffer[];
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Computes the cache slot of a model folder: reads every model file once and hashes it.
 *
 * @param cacheDirectory - the cache folder.
 * @param root - the model folder (absolute).
 * @param files - the model file names, in load order.
 * @returns the slot, or `{ bypassed }` with the reason.
 * @throws Error when a model file cannot be read (the load would fail on it too).
 */
export function modelCacheSlot(
  cacheDirectory: string,
  root: string,
  files: readonly string[],
): ModelCacheSlot | { readonly bypassed: string } {
  const code = codeFingerprint();
  if (code === undefined) return { bypassed: 'the modules of the converter could not be listed' };
  const contents = files.map((name) => readFileSync(join(root, name)));
  // JSON keeps names apart whatever they contain (a newline in a file name, say)
  const material = JSON.stringify([
    SP_MODEL_CACHE_FORMAT,
    SP_ADAPTER_VERSION,
    CORE_VERSION,
    code,
    root,
    files.map((name, index) => [name, sha256(contents[index] as Buffer)]),
  ]);
  return { file: join(cacheDirectory, `sp-models-${sha256(root).slice(0, 24)}.json`), key: sha256(material), contents };
}

/**
 * Removes a slot's cache file, if any (a folder whose models can no longer be cached).
 */
export function removeModelCache(slot: ModelCacheSlot): void {
  try {
    unlinkSync(slot.file);
  } catch {
    // none there, or not ours to remove: it will never match a key again either way
  }
}

/** The first line of a cache file. */
interface CacheHeader {
  readonly format: unknown;
  readonly key: unknown;
  /** SHA-256 of the value's JSON text (the rest of the file). */
  readonly value: unknown;
}

/**
 * Reads a slot's cached value.
 *
 * @returns the cached value when the file exists, carries the slot's key and format, and its
 *   value is intact; `undefined` when there is no file or it belongs to other contents (the
 *   common miss); `{ unreadable }` with the reason otherwise.
 */
export function readModelCache(
  slot: ModelCacheSlot,
): { readonly value: unknown } | { readonly unreadable: string } | undefined {
  let text: string;
  try {
    text = readFileSync(slot.file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
  try {
    const newline = text.indexOf('\n');
    if (newline === -1) return { unreadable: 'no header line' };
    const header = JSON.parse(text.slice(0, newline)) as CacheHeader;
    if (header.format !== SP_MODEL_CACHE_FORMAT) return { unreadable: 'another cache format' };
    if (header.key !== slot.key) return undefined;
    const valueText = text.slice(newline + 1);
    if (header.value !== sha256(valueText))
      return { unreadable: 'the cached models were damaged (their SHA-256 does not match)' };
    return { value: JSON.parse(valueText) };
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

/** Temporary files of a write that never finished (a killed process) are removed after this long. */
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

/** Removes temporary files of this slot left by writes that never finished. */
function removeStaleTemporaries(slot: ModelCacheSlot, now: number): void {
  const prefix = `${basename(slot.file)}.`;
  for (const name of readdirSync(dirname(slot.file))) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const path = join(dirname(slot.file), name);
    try {
      if (now - statSync(path).mtimeMs > STALE_TEMPORARY_MS) unlinkSync(path);
    } catch {
      // gone already, or another process's
    }
  }
}

/**
 * Writes a slot's value: to a temporary file in the cache folder, then renamed over the cache
 * file, so that a reader (another server starting at the same moment) sees the old file or the
 * new one, never half of one. Temporary files of this slot older than ten minutes (a process
 * killed while writing) are removed first.
 *
 * @throws Error when the folder cannot be created or the file cannot be written.
 */
export function writeModelCache(slot: ModelCacheSlot, value: unknown): void {
  mkdirSync(dirname(slot.file), { recursive: true });
  removeStaleTemporaries(slot, Date.now());
  const temporary = `${slot.file}.${process.pid}.${Date.now()}.tmp`;
  const valueText = JSON.stringify(value);
  const header = JSON.stringify({
    format: SP_MODEL_CACHE_FORMAT,
    key: slot.key,
    value: sha256(valueText),
  } satisfies CacheHeader);
  try {
    writeFileSync(temporary, `${header}\n${valueText}`);
    renameSync(temporary, slot.file);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
    throw error;
  }
}
