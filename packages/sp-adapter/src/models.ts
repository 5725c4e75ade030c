/**
 * Loading SP-API models (Swagger 2.0 JSON files) into tool definitions. References are followed
 * lazily by core's converter (only what the operations use, which is much faster than
 * dereferencing whole documents) and resolved with `@apidevtools/json-schema-ref-parser`: the
 * library reads files that refer to other files and answers every pointer that is not plain; a
 * plain pointer inside one JSON document is walked here the way the library walks it (see
 * `convertModelFile`). The conversion to JSON Schema 2020-12 and the tool-name rule
 * (`<model>_<operationId>`, lower camel) are core's, shared with the Ads adapter.
 *
 * @packageDocumentation
 */
import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';

import $RefParser from '@apidevtools/json-schema-ref-parser';
import { modelNameFromFileName, OperationConverter, uniqueOperationToolNames } from '@mcp-envelope/core/openapi';
import type { ConvertedOperation } from '@mcp-envelope/core/openapi';

import { modelCacheSlot, readModelCache, removeModelCache, writeModelCache } from './model-cache.js';
import type { SpModelCacheEvent } from './model-cache.js';

/** Headers the reference server sets itself; never tool arguments. */
export const SP_SERVER_SET_HEADERS = [
  'x-amz-access-token',
  'authorization',
  'host',
  'user-agent',
  'x-amz-date',
  'x-amz-security-token',
] as const;

/** One operation of a loaded model, with its tool name. */
export interface SpModelOperation extends ConvertedOperation {
  /** `<model>_<operationId>` in lower camel style, unique across everything loaded together. */
  readonly toolName: string;
  /** The model the operation comes from (lower camel file name, e.g. `ordersV0`). */
  readonly model: string;
}

/** One loaded model file. */
export interface SpModel {
  /** Lower camel model name, e.g. `catalogItems20220401`. */
  readonly model: string;
  /** The file it was read from. */
  readonly file: string;
  /** `info.title`, when the file has one. */
  readonly title?: string;
  readonly operations: readonly SpModelOperation[];
}

/** The folder of the built-in catalog that ships with the package (`catalog/`). */
export const BUILT_IN_CATALOG_DIRECTORY = fileURLToPath(new URL('../catalog/', import.meta.url));

/** A model converted but not yet named (names depend on the models loaded before it). */
interface ConvertedModel {
  readonly model: string;
  readonly file: string;
  readonly title: string | undefined;
  readonly operations: readonly ConvertedOperation[];
}

/**
 * A `"$ref": "<anything but #...>"` member (the `$` possibly written `\u0024`): the document may
 * point into other files, which only the library's external resolution reads.
 */
const NON_LOCAL_REFERENCE = /"(?:\$|\\u0024)ref"\s*:\s*"(?!#)/i;

function convertDocument(
  file: string,
  document: unknown,
  resolveReference: (reference: string) => unknown,
): ConvertedModel {
  const converter = new OperationConverter(document, {
    resolveReference,
    omitHeaders: SP_SERVER_SET_HEADERS,
    // each definition once under $defs: the official models nest deeply (aplusContent's inlined
    // inputs reach 155 kB, which validators compile slowly); recursive definitions stay recursive
    referenceMode: 'defs',
  });
  const info = (document as Record<string, unknown>)['info'];
  const title = typeof info === 'object' && info !== null ? (info as Record<string, unknown>)['title'] : undefined;
  return {
    model: modelNameFromFileName(file),
    file,
    title: typeof title === 'string' ? title : undefined,
    operations: converter.operations(),
  };
}

/** The library's whole job: read and parse the file, then read every file it refers to. */
async function convertWithExternalReferences(file: string): Promise<ConvertedModel> {
  const parser = new $RefParser();
  await parser.resolve(file, { resolve: { external: true } });
  return convertDocument(file, parser.schema, (reference) => parser.$refs.get(reference));
}

/** A pointer whose every token is plain (no escapes, no percent-encoding, none empty). */
const PLAIN_POINTER = /^#(?:\/[A-Za-z0-9_.-]+)+$/;

/** What {@link plainPointerTarget} answers when only the library can say. */
const ASK_THE_LIBRARY = Symbol('ask the library');

function mentionsReference(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

/**
 * Whether the library resolves pointers in `document` from the document's root alone: it does
 * unless the root declares an identifier or a `$schema`, or is OpenAPI 3.1 (the library then
 * tracks `$id` scopes while walking).
 */
function pointersFromRoot(document: Readonly<Record<string, unknown>>): boolean {
  const openapi = document['openapi'];
  return (
    !('$id' in document) &&
    !('id' in document) &&
    !('$schema' in document) &&
    !(typeof openapi === 'string' && openapi.startsWith('3.1'))
  );
}

/**
 * `parser.$refs.get(reference)` for the plain case, without its cost per call (two URL
 * resolutions and a pointer object per lookup): a {@link PLAIN_POINTER} walked from the root
 * through objects that carry no `$ref`, ending on a truthy value that carries none either. There
 * the library reads `value[token]` at each step and returns what it reaches, and so does this.
 * Anything else (a `$ref` on the way or at the end, which the library follows and may merge, a
 * missing or null step, escapes) is {@link ASK_THE_LIBRARY}.
 */
function plainPointerTarget(document: Readonly<Record<string, unknown>>, reference: string): unknown {
  if (!PLAIN_POINTER.test(reference)) return ASK_THE_LIBRARY;
  let value: unknown = document;
  for (const token of reference.slice(2).split('/')) {
    if (mentionsReference(value) || value === null || (typeof value !== 'object' && typeof value !== 'function'))
      return ASK_THE_LIBRARY;
    const next = (value as Record<string, unknown>)[token];
    if (next === undefined || next === null) return ASK_THE_LIBRARY;
    value = next;
  }
  return !value || mentionsReference(value) ? ASK_THE_LIBRARY : value;
}

/**
 * The file as a JSON object when every `$ref` in its text is local (`#...`), else `undefined`
 * (unreadable, not JSON, not an object, or possibly pointing into other files).
 *
 * @param content - the file's bytes when already read (the model cache hashed them), so that
 *   what is converted is exactly what was hashed.
 */
function readLocalDocument(file: string, content?: Buffer): Record<string, unknown> | undefined {
  try {
    // read synchronously, right before it is parsed and converted (see loadSpModels)
    const text = content === undefined ? readFileSync(file, 'utf8') : content.toString('utf8');
    // the library's JSON parser drops a byte order mark too
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    if (NON_LOCAL_REFERENCE.test(json)) return undefined;
    const document: unknown = JSON.parse(json);
    return typeof document === 'object' && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads one model file, in three tiers that give the same result (the last tier is the
 * library's whole job, and the first two are taken only where they provably agree with it):
 * 1. a JSON document whose references are all local and plain (every official model): parsed
 *    once with `JSON.parse`, pointers walked by {@link plainPointerTarget}. Neither the library's
 *    crawl of the whole document for files to read nor its per-lookup cost is paid;
 * 2. a document with local references the library must follow (a `$ref` on the way, escapes):
 *    the parsed document is handed to the library with external resolution off, which answers
 *    those lookups (`$refs.get`);
 * 3. anything else (not a JSON object, a `$ref` that may leave the file, a lookup that fails):
 *    the library reads and resolves the file as it always did, so its results and errors stand.
 */
async function convertModelFile(
  file: string,
  content?: Buffer,
): Promise<{ readonly converted: ConvertedModel; readonly selfContained: boolean }> {
  const document = readLocalDocument(file, content);
  if (document === undefined) return { converted: await convertWithExternalReferences(file), selfContained: false };
  if (pointersFromRoot(document)) {
    let plain = true;
    const converted = convertDocument(file, document, (reference) => {
      const target = plainPointerTarget(document, reference);
      if (target !== ASK_THE_LIBRARY) return target;
      plain = false;
      return undefined;
    });
    // tier 1 read nothing but this file's bytes: its result depends on them (and the code) alone
    if (plain) return { converted, selfContained: true };
  }
  const parser = new $RefParser();
  await parser.resolve(file, document, { resolve: { external: false } });
  let unsure = false;
  const converted = convertDocument(file, document, (reference) => {
    const target = plainPointerTarget(document, reference);
    if (target !== ASK_THE_LIBRARY) return target;
    try {
      return parser.$refs.get(reference);
    } catch (error) {
      // a dangling local pointer, or a reference the text scan missed: let the library decide
      unsure = true;
      throw error;
    }
  });
  return { converted: unsure ? await convertWithExternalReferences(file) : converted, selfContained: false };
}

function namedModel(converted: ConvertedModel, taken: ReadonlySet<string>): SpModel {
  const { model, file, title, operations } = converted;
  const names = uniqueOperationToolNames(model, operations, taken);
  return {
    model,
    file,
    ...(title === undefined ? {} : { title }),
    operations: operations.map((operation, index) => ({
      ...operation,
      toolName: names[index] ?? operation.operationId,
      model,
    })),
  };
}

/**
 * Loads one model file. References are resolved with `@apidevtools/json-schema-ref-parser`,
 * including references into other files (relative to `file`).
 *
 * @param file - path of a Swagger 2.0 (or OpenAPI 3) JSON file.
 * @param taken - tool names already used by other models (for uniqueness); not modified.
 * @returns the model with its operations.
 * @throws Error when the file cannot be read or parsed, or is not an API description.
 */
export async function loadSpModel(file: string, taken: ReadonlySet<string> = new Set()): Promise<SpModel> {
  return namedModel((await convertModelFile(file)).converted, taken);
}

/** Options of {@link loadSpModels}. */
export interface LoadSpModelsOptions {
  /**
   * A folder for the converted-models cache (created when missing; see `model-cache.ts`): a load
   * whose folder, files, file contents and converter are unchanged reads the converted models
   * from one file instead of parsing and converting every model. Default: no cache. The CLI uses
   * `defaultModelCacheDirectory()` unless started with `--no-model-cache`.
   */
  readonly cacheDirectory?: string;
  /** Called once per load that uses the cache, with what happened (for a log line). */
  readonly onCacheEvent?: (event: SpModelCacheEvent) => void;
}

/** Whether a symbolic link leads to a file (a folder of links to model files is a folder of models). */
function isFileBehindLink(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether a cached value has the shape of loaded models (the key already matched). */
function isModelList(value: unknown): value is SpModel[] {
  return (
    Array.isArray(value) &&
    value.every(
      (model: unknown) =>
        typeof model === 'object' &&
        model !== null &&
        typeof (model as SpModel).model === 'string' &&
        Array.isArray((model as SpModel).operations),
    )
  );
}

/**
 * Loads every `*.json` model file of a folder, with tool names unique across all of them
 * (assigned in file-name order). The files are loaded one after the other, each read right
 * before it is converted, so that only one file's text and parsed document are alive at a time
 * (reading them all ahead made start-up spend its time in the garbage collector); a file that
 * refers to other files is still resolved asynchronously by the library. With
 * `options.cacheDirectory`, an unchanged folder is read from the cache instead (see
 * {@link LoadSpModelsOptions}); a cache that cannot be read or written never fails the load.
 *
 * @param directory - the folder (e.g. a checkout of the official `selling-partner-api-models/models`
 *   flattened, or any folder of Swagger files).
 * @param options - see {@link LoadSpModelsOptions}.
 * @returns the models, in file-name order.
 * @throws Error when the folder cannot be read, holds no JSON file, or a file fails to load (the
 *   message names the first such file in file-name order).
 * @throws TypeError when `options.cacheDirectory` is empty.
 */
export async function loadSpModels(directory: string, options: LoadSpModelsOptions = {}): Promise<SpModel[]> {
  const root = resolvePath(directory);
  const files = (await readdir(root, { withFileTypes: true }))
    .filter(
      (entry) =>
        entry.name.toLowerCase().endsWith('.json') &&
        (entry.isFile() || (entry.isSymbolicLink() && isFileBehindLink(join(root, entry.name)))),
    )
    .map((entry) => entry.name)
    .sort();
  if (files.length === 0) throw new Error(`no *.json model files in ${root}`);
  if (options.cacheDirectory === undefined) return (await convertModelFiles(root, files)).models;
  if (options.cacheDirectory.trim() === '')
    throw new TypeError('cacheDirectory must be a folder path (an empty one would be the working directory)');
  return loadThroughCache(
    root,
    files,
    resolvePath(options.cacheDirectory),
    options.onCacheEvent ?? ((): void => undefined),
  );
}

/** {@link loadSpModels} with a cache folder: a hit, or a conversion that is then stored when it may be. */
async function loadThroughCache(
  root: string,
  files: readonly string[],
  cacheDirectory: string,
  report: (event: SpModelCacheEvent) => void,
): Promise<SpModel[]> {
  let slot: ReturnType<typeof modelCacheSlot>;
  try {
    slot = modelCacheSlot(cacheDirectory, root, files);
  } catch {
    // a model file that cannot be read: the load reports it, by name
    return (await convertModelFiles(root, files)).models;
  }
  if ('bypassed' in slot) {
    report({ kind: 'bypassed', file: cacheDirectory, reason: slot.bypassed });
    return (await convertModelFiles(root, files)).models;
  }
  const cached = readModelCache(slot);
  if (cached !== undefined && 'value' in cached && isModelList(cached.value)) {
    report({ kind: 'hit', file: slot.file });
    return cached.value;
  }
  // the very bytes that were hashed are converted
  const { models, notSelfContained } = await convertModelFiles(root, files, slot.contents);
  if (notSelfContained !== undefined) {
    // the models depend on more than the hashed bytes: not cached
    removeModelCache(slot);
    report({
      kind: 'bypassed',
      file: slot.file,
      reason: `${notSelfContained} refers to other files or needs the reference library`,
    });
    return models;
  }
  let event: SpModelCacheEvent;
  try {
    writeModelCache(slot, models);
    event =
      cached === undefined
        ? { kind: 'stored', file: slot.file }
        : {
            kind: 'unreadable',
            file: slot.file,
            reason: 'value' in cached ? 'not a list of models' : cached.unreadable,
          };
  } catch (error) {
    event = { kind: 'unwritable', file: slot.file, reason: error instanceof Error ? error.message : String(error) };
  }
  report(event);
  return models;
}

/**
 * Converts and names the files in order. `notSelfContained` names the first file whose models do
 * not depend on its own bytes alone (it refers to other files, or needed the reference library).
 */
async function convertModelFiles(
  root: string,
  files: readonly string[],
  contents?: readonly Buffer[],
): Promise<{ readonly models: SpModel[]; readonly notSelfContained: string | undefined }> {
  const taken = new Set<string>();
  const models: SpModel[] = [];
  let notSelfContained: string | undefined;
  for (const [index, name] of files.entries()) {
    let model: SpModel;
    try {
      const { converted, selfContained } = await convertModelFile(join(root, name), contents?.[index]);
      if (!selfContained) notSelfContained ??= name;
      model = namedModel(converted, taken);
    } catch (error) {
      throw new Error(`cannot load model ${name}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    for (const operation of model.operations) taken.add(operation.toolName);
    models.push(model);
  }
  return { models, notSelfContained };
}

/**
 * Loads the built-in catalog: a subset of operations written for this package from the official
 * models' facts (orders, catalog items, FBA inventory, reports, sellers, notifications, feeds,
 * listings, FBA inbound).
 *
 * @returns the catalog's models.
 * @throws Error when the package's `catalog/` folder is missing (a broken install).
 */
export async function loadBuiltInCatalog(): Promise<SpModel[]> {
  return loadSpModels(BUILT_IN_CATALOG_DIRECTORY);
}
