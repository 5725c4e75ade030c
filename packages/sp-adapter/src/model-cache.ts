/**
 * A cache of converted SP-API models on disk, so that a server started again on the same model
 * folder skips parsing and converting every file (most of its start-up). One cache file per model
 * folder; it is used only when its key matches, and the key covers everything the models depend
 * on: the format, this package's and core's versions, the size and modification time of the
 * converter modules (a rebuilt converter never reads an older result), the folder's path, and the
 * name and SHA-256 of every model file's content.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PACKAGE_VERSION as CORE_VERSION } from '@mcp-envelope/core';

/** Bump when the cached shape changes. */
export const SP_MODEL_CACHE_FORMAT = 1;

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
 *
 * @param env - the environment to read `XDG_CACHE_HOME` from (default `process.env`).
 * @returns an absolute path (not created).
 */
export function defaultModelCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CACHE_HOME'];
  return join(base !== undefined && base.trim() !== '' ? base : join(homedir(), '.cache'), 'mcp-envelope-sp');
}

const OWN_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const CONVERTER_MODULES = ['openapi/schema.js', 'openapi/operations.js', 'openapi/tool-name.js', 'index.js'];

/** Size and modification time of this module and core's converter modules, or `undefined` when one cannot be read. */
function codeFingerprint(): string | undefined {
  try {
    const coreEntry = createRequire(import.meta.url).resolve('@mcp-envelope/core');
    const modules = [fileURLToPath(import.meta.url), ...CONVERTER_MODULES.map((module) => join(dirname(coreEntry), module))];
    return modules
      .map((module) => {
        const stats = statSync(module);
        return `${module}:${stats.size}:${stats.mtimeMs}`;
      })
      .join('\n');
  } catch {
    return undefined;
  }
}

/** One folder's cache file and the key its content must carry. */
export interface ModelCacheSlot {
  readonly file: string;
  readonly key: string;
}

/**
 * Computes the cache slot of a model folder: reads every model file once to hash it. Whether the
 * models may be cached at all (none refers to other files) is a property of their content, which
 * the key covers: it is decided when a slot is written (see `loadSpModels`), not on every read.
 *
 * @param cacheDirectory - the cache folder.
 * @param root - the model folder (absolute).
 * @param files - the model file names, in load order.
 * @returns the slot, or `{ bypassed }` with the reason.
 * @throws Error when a model file cannot be read (the load would fail on it too).
 */
export function modelCacheSlot(cacheDirectory: string, root: string, files: readonly string[]): ModelCacheSlot | { readonly bypassed: string } {
  const code = codeFingerprint();
  if (code === undefined) return { bypassed: 'the converter modules could not be fingerprinted' };
  const key = createHash('sha256');
  key.update(`format ${SP_MODEL_CACHE_FORMAT}\nsp-adapter ${OWN_VERSION}\ncore ${CORE_VERSION}\n${code}\n${root}\n`);
  for (const name of files) {
    key.update(`${name}\n`);
    key.update(createHash('sha256').update(readFileSync(join(root, name))).digest('hex'));
    key.update('\n');
  }
  const folder = createHash('sha256').update(root).digest('hex').slice(0, 24);
  return { file: join(cacheDirectory, `sp-models-${folder}.json`), key: key.digest('hex') };
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

/**
 * Reads a slot's cached value.
 *
 * @returns the cached value when the file exists and carries the slot's key and format;
 *   `undefined` when there is no file; `{ unreadable }` with the reason otherwise.
 */
export function readModelCache(slot: ModelCacheSlot): { readonly value: unknown } | { readonly unreadable: string } | undefined {
  let text: string;
  try {
    text = readFileSync(slot.file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
  try {
    const parsed = JSON.parse(text) as { format?: unknown; key?: unknown; value?: unknown };
    if (parsed.format !== SP_MODEL_CACHE_FORMAT) return { unreadable: 'another cache format' };
    // a key mismatch is the common miss (the models or the converter changed): no reason to report
    if (parsed.key !== slot.key) return undefined;
    return { value: parsed.value };
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Writes a slot's value: to a temporary file in the cache folder, then renamed over the cache
 * file, so that a reader (another server starting at the same moment) sees the old file or the
 * new one, never half of one.
 *
 * @throws Error when the folder cannot be created or the file cannot be written.
 */
export function writeModelCache(slot: ModelCacheSlot, value: unknown): void {
  mkdirSync(dirname(slot.file), { recursive: true });
  const temporary = `${slot.file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify({ format: SP_MODEL_CACHE_FORMAT, key: slot.key, value }));
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
