/**
 * GitHub's own OpenAPI description (the `@octokit/openapi` package, `api.github.com`) -> one tool
 * per REST operation, through core's shared converter (`OperationConverter`). The description is
 * read by path: the package's main module would load every variant of it (about 400 MB).
 *
 * Tool names: the operation id's category and the rest in lower camel style, joined by `_`
 * (`issues/list-for-repo` -> `issues_listForRepo`), by core's tool-name rule.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { isRecord } from '@mcp-envelope/contract';
import { OperationConverter, uniqueOperationToolNames } from '@mcp-envelope/core/openapi';
import type { ConvertedOperation } from '@mcp-envelope/core/openapi';

/** The input property of the opaque pagination cursor added to every paginated operation. */
export const PAGE_CURSOR_PROPERTY = 'page_cursor';

/** Headers the server sets itself; never tool arguments. */
export const GITHUB_SERVER_SET_HEADERS: readonly string[] = Object.freeze([
  'accept',
  'authorization',
  'user-agent',
  'x-github-api-version',
]);

/**
 * Operations that are not served, with the reason: they do not fit a JSON tool call.
 * Implements the package README's "Tools left out".
 */
export const GITHUB_LEFT_OUT_OPERATIONS: Readonly<Record<string, string>> = Object.freeze({
  'repos/upload-release-asset':
    'uploads raw bytes (application/octet-stream) to another origin (uploads.github.com), named by the release',
  'markdown/render-raw':
    'takes the Markdown as a text/plain body; markdown/render takes the same text as JSON and is served',
});

/** One GitHub operation, ready to become a tool. */
export interface GithubOperation extends ConvertedOperation {
  /** E.g. `issues_listForRepo`. */
  readonly toolName: string;
  /** The operation id's category, e.g. `issues`. */
  readonly category: string;
  /** The documentation page of the operation, when the description names one. */
  readonly documentationUrl?: string;
  /** Whether the answer is paged with a `Link` header (the tool then takes {@link PAGE_CURSOR_PROPERTY}). */
  readonly paginated: boolean;
  /**
   * Whether a 2xx answer documents an `errors` or `error` property as its data (the CODEOWNERS
   * errors, a SARIF upload's processing errors): the tool then sends such a body as data, never
   * as an in-band failure (CONTRACT.md "In-band failures from the upstream").
   */
  readonly errorsAreData?: boolean;
}

/** What {@link loadGithubOperations} read. */
export interface GithubCatalog {
  /** The description's `info.version`, e.g. `1.1.4`. */
  readonly descriptionVersion: string;
  /** The installed `@octokit/openapi` version. */
  readonly packageVersion: string;
  /** The served operations, in description order (path, then method). */
  readonly operations: readonly GithubOperation[];
  /** Operations of the description that are not tools, with the reason. */
  readonly leftOut: readonly { readonly operationId: string; readonly reason: string }[];
}

/**
 * Where the description file is: `generated/api.github.com.json` of the installed
 * `@octokit/openapi`, found through its `package.json` (the package has no exports map).
 *
 * @returns an absolute path.
 * @throws Error when `@octokit/openapi` is not installed.
 */
export function githubDescriptionPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json');
}

/** A JSON pointer walked from the document's root (the description's references are all local). */
function pointerTarget(document: unknown, reference: string): unknown {
  if (!reference.startsWith('#/')) throw new RangeError(`not a local reference: ${reference}`);
  let value: unknown = document;
  for (const token of reference.slice(2).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isRecord(value) || !Object.hasOwn(value, key)) throw new RangeError(`dangling reference: ${reference}`);
    value = value[key];
  }
  return value;
}

/** Whether an operation documents a `Link` header or takes a `page` query parameter. */
function isPaginated(rawOperation: unknown, converted: ConvertedOperation): boolean {
  if (converted.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'page')) return true;
  const responses = isRecord(rawOperation) ? rawOperation['responses'] : undefined;
  const ok = isRecord(responses) ? responses['200'] : undefined;
  const headers = isRecord(ok) ? ok['headers'] : undefined;
  return isRecord(headers) && Object.keys(headers).some((name) => name.toLowerCase() === 'link');
}

/** The input schema with the cursor property added (a paginated operation's). */
function withCursor(schema: ConvertedOperation['inputSchema']): ConvertedOperation['inputSchema'] {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  return {
    ...schema,
    properties: {
      ...properties,
      [PAGE_CURSOR_PROPERTY]: {
        type: 'string',
        minLength: 1,
        maxLength: 4096,
        description:
          'The next page: the `next_page_cursor` of the previous answer, as it was. Send the same other arguments again.',
      },
    },
  };
}

/** The object schema `schema` is, or that its local `$ref` names. */
function resolvedSchema(document: unknown, schema: unknown): unknown {
  const reference = isRecord(schema) ? schema['$ref'] : undefined;
  return typeof reference === 'string' ? pointerTarget(document, reference) : schema;
}

/** Whether a 2xx JSON answer of the operation has an `errors` or `error` property in its schema. */
function documentsErrorsAsData(document: unknown, rawOperation: unknown): boolean {
  const responses = isRecord(rawOperation) ? rawOperation['responses'] : undefined;
  if (!isRecord(responses)) return false;
  return Object.entries(responses).some(([status, response]) => {
    if (!status.startsWith('2')) return false;
    const answer = resolvedSchema(document, response);
    const content = isRecord(answer) ? answer['content'] : undefined;
    const json = isRecord(content) ? content['application/json'] : undefined;
    const schema = resolvedSchema(document, isRecord(json) ? json['schema'] : undefined);
    const properties = isRecord(schema) ? schema['properties'] : undefined;
    return isRecord(properties) && (Object.hasOwn(properties, 'errors') || Object.hasOwn(properties, 'error'));
  });
}

function documentationUrl(rawOperation: unknown): string | undefined {
  const docs = isRecord(rawOperation) ? rawOperation['externalDocs'] : undefined;
  return isRecord(docs) && typeof docs['url'] === 'string' ? docs['url'] : undefined;
}

/**
 * Reads GitHub's description and converts every operation but the {@link GITHUB_LEFT_OUT_OPERATIONS}.
 *
 * @param file - the description (default {@link githubDescriptionPath}).
 * @returns the operations in description order (path, then method), their tool names unique.
 * @throws Error when the file cannot be read or is not an OpenAPI 3 description.
 */
export function loadGithubOperations(file: string = githubDescriptionPath()): GithubCatalog {
  const document: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const converter = new OperationConverter(document, {
    resolveReference: (reference) => pointerTarget(document, reference),
    omitHeaders: GITHUB_SERVER_SET_HEADERS,
  });
  const paths = isRecord(document) && isRecord(document['paths']) ? document['paths'] : {};
  const taken = new Set<string>();
  const operations: GithubOperation[] = [];
  const leftOut: { operationId: string; reason: string }[] = [];
  for (const converted of converter.operations()) {
    const reason = GITHUB_LEFT_OUT_OPERATIONS[converted.operationId];
    if (reason !== undefined) {
      leftOut.push({ operationId: converted.operationId, reason });
      continue;
    }
    const item = paths[converted.path];
    const raw = isRecord(item) ? item[converted.method.toLowerCase()] : undefined;
    const slash = converted.operationId.indexOf('/');
    const category = slash > 0 ? converted.operationId.slice(0, slash) : 'github';
    const rest = slash > 0 ? converted.operationId.slice(slash + 1) : converted.operationId;
    const [toolName] = uniqueOperationToolNames(category, [{ operationId: rest, method: converted.method }], taken);
    const name = toolName ?? converted.operationId;
    taken.add(name);
    // only reads are paged: a cursor must never replay a write on another path
    const paginated = converted.method === 'GET' && isPaginated(raw, converted);
    const docs = documentationUrl(raw);
    operations.push({
      ...converted,
      inputSchema: paginated ? withCursor(converted.inputSchema) : converted.inputSchema,
      toolName: name,
      category,
      paginated,
      ...(docs === undefined ? {} : { documentationUrl: docs }),
      ...(documentsErrorsAsData(document, raw) ? { errorsAreData: true } : {}),
    });
  }
  return { ...catalogVersions(document), operations, leftOut };
}

function catalogVersions(document: unknown): { descriptionVersion: string; packageVersion: string } {
  const info = isRecord(document) ? document['info'] : undefined;
  const require = createRequire(import.meta.url);
  const manifest = require('@octokit/openapi/package.json') as { version?: unknown };
  return {
    descriptionVersion: isRecord(info) && typeof info['version'] === 'string' ? info['version'] : 'unknown',
    packageVersion: typeof manifest.version === 'string' ? manifest.version : 'unknown',
  };
}
