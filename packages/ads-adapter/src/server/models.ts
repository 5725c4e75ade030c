/**
 * `--models DIR`: Amazon Ads OpenAPI 3 descriptions -> tools, through core's shared converter
 * (`OperationConverter`) and tool-name rule (`<model>_<operationId>`). Files that are not API
 * descriptions (a Postman collection, a README) are skipped and reported (`--models`).
 *
 * @packageDocumentation
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { resolve as resolveReferences } from '@apidevtools/json-schema-ref-parser';
import type { JSONSchema } from '@apidevtools/json-schema-ref-parser';
import {
  apiDescriptionFormat,
  modelNameFromFileName,
  OperationConverter,
  uniqueOperationToolNames,
} from '@mcp-envelope/core/openapi';

import { ADS_REQUEST_HEADERS } from '../hint-tables.js';
import type { AdsAccountHeader, AdsOperation } from './operation.js';

/** Header parameters the server sets itself; they are left out of tool inputs. */
export const SERVER_SET_HEADERS: readonly string[] = Object.values(ADS_REQUEST_HEADERS);

/** What `loadModelOperations` did. */
export interface ModelLoadResult {
  readonly operations: readonly AdsOperation[];
  /** Files read as API descriptions, with how many tools each gave. */
  readonly models: readonly { readonly file: string; readonly tools: number }[];
  /** Files skipped, with the reason (not JSON, not OpenAPI/Swagger, unreadable). */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
}

function accountHeaderFor(path: string): AdsAccountHeader {
  return /^\/adsApi\/v1\//i.test(path) ? 'account' : 'profile';
}

/**
 * Loads every `*.json` API description in `directory` (not recursive), in file-name order.
 *
 * @param directory - the folder.
 * @param taken - tool names already used (the built-in catalog); generated names avoid them.
 * @returns the operations, the models read and the files skipped.
 * @throws Error when `directory` cannot be listed.
 */
export async function loadModelOperations(
  directory: string,
  taken: ReadonlySet<string> = new Set(),
): Promise<ModelLoadResult> {
  const names = (await readdir(directory)).filter((name) => name.toLowerCase().endsWith('.json')).sort();
  const used = new Set(taken);
  const operations: AdsOperation[] = [];
  const models: { file: string; tools: number }[] = [];
  const skipped: { file: string; reason: string }[] = [];
  for (const file of names) {
    let document: unknown;
    try {
      document = JSON.parse(await readFile(join(directory, file), 'utf8')) as unknown;
      apiDescriptionFormat(document);
    } catch (error) {
      skipped.push({
        file,
        reason:
          error instanceof SyntaxError
            ? 'not valid JSON'
            : error instanceof TypeError
              ? 'not a Swagger 2.0 or OpenAPI 3.x description'
              : 'unreadable',
      });
      continue;
    }
    try {
      const references = await resolveReferences(document as JSONSchema, { resolve: { external: false } });
      const converter = new OperationConverter(document, {
        resolveReference: (reference) => references.get(reference),
        omitHeaders: SERVER_SET_HEADERS,
      });
      const converted = converter.operations();
      const toolNames = uniqueOperationToolNames(modelNameFromFileName(file), converted, used);
      converted.forEach((operation, index) => {
        const name = toolNames[index] ?? operation.operationId;
        used.add(name);
        operations.push({
          name,
          description: operation.description ?? operation.summary ?? `${operation.method} ${operation.path}`,
          method: operation.method,
          path: operation.path,
          parameters: operation.parameters,
          ...(operation.body === undefined ? {} : { body: operation.body }),
          inputSchema: operation.inputSchema,
          accountHeader: accountHeaderFor(operation.path),
        });
      });
      models.push({ file, tools: converted.length });
    } catch (error) {
      skipped.push({
        file,
        reason: `conversion failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`,
      });
    }
  }
  return { operations, models, skipped };
}
