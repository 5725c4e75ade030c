/**
 * The tool-name rule for tools generated from API descriptions: `<model>_<operationId>`, both
 * parts in lower camel style, so names are stable across runs, readable, and inside the MCP
 * tool-name alphabet (`[A-Za-z0-9_.-]`, at most 128 characters).
 *
 * Examples: model file `ordersV0.json` + `getOrders` -> `ordersV0_getOrders`;
 * `catalogItems_2022-04-01.json` + `searchCatalogItems` -> `catalogItems20220401_searchCatalogItems`;
 * `vendorShipments.json` + `SubmitShipments` -> `vendorShipments_submitShipments`.
 *
 * @packageDocumentation
 */

/** The longest tool name MCP clients accept, in characters. */
export const TOOL_NAME_LIMIT = 128;

/**
 * Lower-cases the leading capitals of a word: `Orders` -> `orders`, `ASINList` -> `asinList`,
 * `SKU` -> `sku`, `getOrders` unchanged.
 */
function lowerLeading(word: string): string {
  const run = /^[A-Z]+/.exec(word)?.[0] ?? '';
  if (run === '') return word;
  const rest = word.slice(run.length);
  // keep the last capital when it starts the next word (`ASINList`: `ASIN` + `List`)
  if (run.length > 1 && /^[a-z]/.test(rest)) return `${run.slice(0, -1).toLowerCase()}${run.slice(-1)}${rest}`;
  return `${run.toLowerCase()}${rest}`;
}

/**
 * Turns any text into a lower camel identifier of ASCII letters and digits: it is split at every
 * run of other characters, the first part gets {@link lowerLeading}, the others an upper-case
 * first letter.
 *
 * @param text - e.g. `catalogItems_2022-04-01`, `Submit shipments`.
 * @returns e.g. `catalogItems20220401`, `submitShipments`; `''` when `text` has no letters or digits.
 */
export function lowerCamelIdentifier(text: string): string {
  const parts = text.split(/[^A-Za-z0-9]+/).filter((part) => part !== '');
  return parts
    .map((part, index) => (index === 0 ? lowerLeading(part) : `${part.charAt(0).toUpperCase()}${part.slice(1)}`))
    .join('');
}

/**
 * The model part of tool names for a model file: the file's base name without directories and
 * without a `.json`/`.yaml`/`.yml` extension, in lower camel style.
 *
 * @param fileName - a file name or path, e.g. `/models/catalogItems_2022-04-01.json`.
 * @returns e.g. `catalogItems20220401`.
 * @throws TypeError when nothing usable is left.
 */
export function modelNameFromFileName(fileName: string): string {
  const base = fileName
    .slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1)
    .replace(/\.(json|ya?ml)$/i, '');
  const name = lowerCamelIdentifier(base);
  if (name === '') throw new TypeError(`"${fileName}" gives no model name: it needs letters or digits`);
  return name;
}

/**
 * A tool name by the project's rule: `<lowerCamel(model)>_<lowerCamel(operationId)>`, cut to
 * {@link TOOL_NAME_LIMIT} characters.
 *
 * @param model - the model name (any text; usually from {@link modelNameFromFileName}).
 * @param operationId - the operation's id (any text).
 * @returns the tool name.
 * @throws TypeError when either part has no letters or digits.
 */
export function operationToolName(model: string, operationId: string): string {
  const modelPart = lowerCamelIdentifier(model);
  const operationPart = lowerCamelIdentifier(operationId);
  if (modelPart === '' || operationPart === '')
    throw new TypeError(`cannot build a tool name from model "${model}" and operation "${operationId}"`);
  return `${modelPart}_${operationPart}`.slice(0, TOOL_NAME_LIMIT);
}

/**
 * Tool names for the operations of one model, unique within it: each gets
 * `operationToolName`; an operation whose name is already taken (a model that repeats an
 * `operationId`, e.g. on PUT and POST of one path) gets `_<method>` appended, then `_2`, `_3`, ...
 *
 * @param model - the model name.
 * @param operations - the operations in document order (`operationId` and HTTP `method`).
 * @param taken - names already used (e.g. by other models); not modified.
 * @returns one name per operation, in the same order.
 * @throws TypeError as `operationToolName`.
 */
export function uniqueOperationToolNames(
  model: string,
  operations: readonly { readonly operationId: string; readonly method: string }[],
  taken: ReadonlySet<string> = new Set(),
): string[] {
  // the names given here; `taken` itself is only read (it grows to every tool of a server)
  const given = new Set<string>();
  const used = (name: string): boolean => given.has(name) || taken.has(name);
  return operations.map((operation) => {
    const base = operationToolName(model, operation.operationId);
    let name = base;
    if (used(name)) name = `${base}_${operation.method.toLowerCase()}`.slice(0, TOOL_NAME_LIMIT);
    for (let index = 2; used(name); index += 1) name = `${base}_${index}`.slice(0, TOOL_NAME_LIMIT);
    given.add(name);
    return name;
  });
}
