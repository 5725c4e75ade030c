/**
 * Loading SP-API models (Swagger 2.0 JSON files) into tool definitions. References are resolved
 * with `@apidevtools/json-schema-ref-parser` (its `$refs` registry, followed lazily by core's
 * converter, which is much faster than dereferencing whole documents); the conversion to JSON
 * Schema 2020-12 and the tool-name rule (`<model>_<operationId>`, lower camel) are core's, shared
 * with the Ads adapter.
 *
 * @packageDocumentation
 */
import { readdir } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';

import $RefParser from '@apidevtools/json-schema-ref-parser';
import { modelNameFromFileName, OperationConverter, uniqueOperationToolNames } from '@mcp-envelope/core';
import type { ConvertedOperation } from '@mcp-envelope/core';

/** Headers the reference server sets itself; never tool arguments. */
export const SP_SERVER_SET_HEADERS = ['x-amz-access-token', 'authorization', 'host', 'user-agent', 'x-amz-date', 'x-amz-security-token'] as const;

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

/**
 * Loads one model file.
 *
 * @param file - path of a Swagger 2.0 (or OpenAPI 3) JSON file.
 * @param taken - tool names already used by other models (for uniqueness); not modified.
 * @returns the model with its operations.
 * @throws Error when the file cannot be read or parsed, or is not an API description.
 */
export async function loadSpModel(file: string, taken: ReadonlySet<string> = new Set()): Promise<SpModel> {
  const parser = new $RefParser();
  await parser.resolve(file, { resolve: { external: true } });
  const document = parser.schema as Record<string, unknown> | null;
  const converter = new OperationConverter(document, {
    resolveReference: (reference) => parser.$refs.get(reference),
    omitHeaders: SP_SERVER_SET_HEADERS,
    // each definition once under $defs: the official models nest deeply (aplusContent's inlined
    // inputs reach 155 kB, which validators compile slowly); recursive definitions stay recursive
    referenceMode: 'defs',
  });
  const model = modelNameFromFileName(file);
  const operations = converter.operations();
  const names = uniqueOperationToolNames(model, operations, taken);
  const info = document?.['info'];
  const title = typeof info === 'object' && info !== null ? (info as Record<string, unknown>)['title'] : undefined;
  return {
    model,
    file,
    ...(typeof title === 'string' ? { title } : {}),
    operations: operations.map((operation, index) => ({ ...operation, toolName: names[index] ?? operation.operationId, model })),
  };
}

/**
 * Loads every `*.json` model file of a folder, in file-name order, with tool names unique across
 * all of them.
 *
 * @param directory - the folder (e.g. a checkout of the official `selling-partner-api-models/models`
 *   flattened, or any folder of Swagger files).
 * @returns the models.
 * @throws Error when the folder cannot be read, holds no JSON file, or a file fails to load (the
 *   message names the file).
 */
export async function loadSpModels(directory: string): Promise<SpModel[]> {
  const root = resolvePath(directory);
  const files = (await readdir(root, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  if (files.length === 0) throw new Error(`no *.json model files in ${root}`);
  const taken = new Set<string>();
  const models: SpModel[] = [];
  for (const name of files) {
    let model: SpModel;
    try {
      model = await loadSpModel(join(root, name), taken);
    } catch (error) {
      throw new Error(`cannot load model ${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    for (const operation of model.operations) taken.add(operation.toolName);
    models.push(model);
  }
  return models;
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
