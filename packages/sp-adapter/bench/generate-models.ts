/**
 * A model set the size of the official SP-API catalogue (about 60 model files, 370 operations),
 * built from the checked-in catalog (10 files, 15 operations, trimmed to what the reference server
 * needs). Each catalog file is copied under 6 new file names (`copy3_ordersV0.json`, so every copy
 * gives its own tool names), and each copy repeats every operation under numbered paths and
 * operation ids (`/orders/v0/orders/r2`, `getOrdersR2`) until the set holds the operations asked
 * for. Every copy is a real SP-API model with its `$ref`s, enums, patterns and descriptions, so
 * loading, converting, registering and listing it is the work the official files ask for.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CATALOG_DIRECTORY = fileURLToPath(new URL('../catalog/', import.meta.url));
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

const FILE_COPIES = 6;

interface ModelDocument {
  paths?: Record<string, Record<string, unknown>>;
}

/** The operations of a model: each `paths` entry's HTTP methods with their operation objects. */
function operationsOf(document: ModelDocument): { path: string; method: string; operation: Record<string, unknown> }[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Record<string, unknown> })),
  );
}

/**
 * `document` with each operation repeated `repeats` times (the first keeps its path and id),
 * cut to the first `keep` operations.
 */
function repeated(document: ModelDocument, repeats: number, keep: number): ModelDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const operations = operationsOf(document);
  let kept = 0;
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    for (const { path, method, operation } of operations) {
      if (kept >= keep) break;
      const suffix = repeat === 0 ? '' : `R${repeat}`;
      const item = (paths[repeat === 0 ? path : `${path}/r${repeat}`] ??= {});
      item[method] = { ...operation, operationId: `${String(operation['operationId'])}${suffix}` };
      kept += 1;
    }
  }
  return { ...document, paths };
}

/**
 * Writes the model set into a new temporary folder and returns its path (the caller removes it).
 *
 * @param operations - how many operations the set holds in all (370 for the official catalogue's size).
 */
export function writeModelSet(operations: number): string {
  const directory = mkdtempSync(join(tmpdir(), 'sp-bench-models-'));
  const models = readdirSync(CATALOG_DIRECTORY)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      document: JSON.parse(readFileSync(join(CATALOG_DIRECTORY, file), 'utf8')) as ModelDocument,
    }));
  const perSet = models.reduce((count, model) => count + operationsOf(model.document).length, 0);
  const repeats = Math.ceil(operations / (perSet * FILE_COPIES));
  let written = 0;
  for (let copy = 0; copy < FILE_COPIES; copy += 1) {
    for (const { file, document } of models) {
      const model = repeated(document, repeats, operations - written);
      const count = operationsOf(model).length;
      if (count === 0) continue;
      writeFileSync(join(directory, copy === 0 ? file : `copy${copy}_${file}`), JSON.stringify(model, null, 2));
      written += count;
    }
  }
  return directory;
}
