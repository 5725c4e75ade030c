/**
 * The reference GitHub MCP server: one tool per operation of GitHub's REST API description, plus
 * core's `get_envelope_contract`, on core's envelope runtime with the GitHub adapter. Calls carry
 * `GITHUB_TOKEN` and go to `https://api.github.com` or an `--upstream` URL (GitHub Enterprise
 * Server's `https://HOST/api/v3`, a test double).
 *
 * @packageDocumentation
 */
import { createEnvelopeServer, readSuccessBody, readToolHistory } from '@mcp-envelope/core';
import type { EnvelopeServer, EnvelopeServerOptions, EnvelopeTool, ToolHandlerContext } from '@mcp-envelope/core';
import { createRedactor, nextPageLink } from '@mcp-envelope/core/adapter';
import { buildOperationRequest, toolAnnotationsForMethod } from '@mcp-envelope/core/openapi';
import { officialSuiteServerExtension, officialSuiteTools } from '@mcp-envelope/testing';

import { createGithubAdapter } from './adapter.js';
import { decodePageCursor, encodePageCursor, NEXT_PAGE_CURSOR_KEY } from './pagination.js';
import { GITHUB_REDACTOR_OPTIONS } from './redaction.js';
import { loadGithubOperations, PAGE_CURSOR_PROPERTY } from './tools.js';
import type { GithubCatalog, GithubOperation } from './tools.js';
import { GITHUB_ADAPTER_VERSION } from './version.js';

export { GITHUB_ADAPTER_VERSION } from './version.js';

/** The server name sent at initialization. */
export const GITHUB_SERVER_NAME = 'mcp-envelope-github';

/** The default upstream. */
export const DEFAULT_GITHUB_UPSTREAM = 'https://api.github.com';

/** Default upstream timeout, in milliseconds. */
export const DEFAULT_GITHUB_TIMEOUT_MS = 30_000;

/** The REST API version the server asks for (`X-GitHub-Api-Version`): the one the description documents. */
export const GITHUB_API_VERSION = '2022-11-28';

/** Why the server cannot start with these settings. */
export class GithubSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GithubSettingsError';
  }
}

/** Options of {@link createGithubServer}. */
export interface GithubServerOptions {
  /** The operations to serve; defaults to {@link loadGithubOperations} (the installed description). */
  readonly catalog?: GithubCatalog;
  /** Environment (`GITHUB_TOKEN`, `GITHUB_TIMEOUT_MS`, `MCP_*`, `CODE_MODE*`); defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The base URL of every call; defaults to {@link DEFAULT_GITHUB_UPSTREAM}. */
  readonly upstream?: string | undefined;
  /** Passed to core's `createEnvelopeServer` (switches, logger, version, ...). */
  readonly envelope?: EnvelopeServerOptions;
  /** Also serve the official MCP conformance suite's fixture tools (`--conformance-fixtures`; `officialSuiteTools` of `@mcp-envelope/testing`). */
  readonly conformanceFixtures?: boolean | undefined;
}

/** What {@link createGithubServer} returns. */
export interface GithubServer {
  /** Core's server (connect, serveStdio, serveStreamableHttp, close). */
  readonly envelope: EnvelopeServer;
  /** The operation tools, by name. */
  readonly operations: ReadonlyMap<string, GithubOperation>;
  /** What was read from the description (versions, operations left out). */
  readonly catalog: GithubCatalog;
  /** The base URL of upstream calls. */
  readonly upstream: string;
}

/**
 * Reads `GITHUB_TOKEN` and `GITHUB_TIMEOUT_MS`.
 *
 * @param env - the environment.
 * @returns the token and the timeout in milliseconds.
 * @throws GithubSettingsError naming the variable (never its value) when the token is missing or
 *   blank, or the timeout is not a positive integer.
 */
export function githubSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): {
  token: string;
  timeoutMs: number;
} {
  const token = env['GITHUB_TOKEN']?.trim() ?? '';
  if (token === '')
    throw new GithubSettingsError(
      'GITHUB_TOKEN is not set: create a token (a fine-grained personal access token, say) and start the server with GITHUB_TOKEN=<token> in its environment',
    );
  if (/\s/.test(token)) throw new GithubSettingsError('GITHUB_TOKEN holds a blank or a line break inside it');
  const timeout = env['GITHUB_TIMEOUT_MS']?.trim();
  if (timeout === undefined || timeout === '') return { token, timeoutMs: DEFAULT_GITHUB_TIMEOUT_MS };
  const milliseconds = Number(timeout);
  if (!Number.isInteger(milliseconds) || milliseconds < 1)
    throw new GithubSettingsError('GITHUB_TIMEOUT_MS must be a positive integer (milliseconds)');
  return { token, timeoutMs: milliseconds };
}

function toolDescription(operation: GithubOperation): string {
  const text = [operation.summary, operation.description].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  const unique = text.length === 2 && text[1]?.startsWith(text[0] ?? '') === true ? [text[1]] : text;
  const paged = operation.paginated ? ` Paged: pass ${NEXT_PAGE_CURSOR_KEY} back as ${PAGE_CURSOR_PROPERTY}.` : '';
  return `${unique.join(' ')}${unique.length > 0 ? ' ' : ''}(GitHub ${operation.method} ${operation.path}${operation.deprecated ? '; deprecated' : ''})${paged}`.slice(
    0,
    1400,
  );
}

/** What every operation tool shares. */
interface CallSettings {
  readonly upstream: string;
  readonly token: string;
  readonly timeoutMs: number;
  /** The server's redactor on one string: a next link's secrets stay out of the cursor made from it. */
  readonly redact: (text: string) => string;
}

/**
 * The tool result for a success body: an array becomes `{ items }` (only an object result carries
 * `_meta` telemetry and structured content), and a next page adds `next_page_cursor`.
 */
function successResult(body: unknown, cursor: string | undefined): unknown {
  if (Array.isArray(body)) return { items: body, ...(cursor === undefined ? {} : { [NEXT_PAGE_CURSOR_KEY]: cursor }) };
  if (cursor !== undefined && typeof body === 'object' && body !== null)
    return { ...body, [NEXT_PAGE_CURSOR_KEY]: cursor };
  return body;
}

function operationTool(operation: GithubOperation, settings: CallSettings): EnvelopeTool {
  return {
    name: operation.toolName,
    description: toolDescription(operation),
    inputSchema: operation.inputSchema,
    // core's converter makes every schema meta-valid by construction: checked on first call
    inputSchemaCheck: 'first-call',
    // converted just now from the parsed description, which nothing changes later
    inputSchemaOwnership: 'transfer',
    annotations: toolAnnotationsForMethod(operation.method, operation.operationId),
    handler: async (args: Record<string, unknown>, context: ToolHandlerContext) => {
      const { [PAGE_CURSOR_PROPERTY]: cursor, ...rest } = args;
      const request = buildOperationRequest(operation, rest, settings.upstream);
      const url =
        typeof cursor === 'string'
          ? `${settings.upstream}${decodePageCursor(operation.toolName, cursor)}`
          : request.url;
      const response = await context.fetch(url, {
        method: request.method,
        headers: {
          ...request.headers,
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${settings.token}`,
          'user-agent': `${GITHUB_SERVER_NAME}/${GITHUB_ADAPTER_VERSION}`,
          'x-github-api-version': GITHUB_API_VERSION,
        },
        ...(request.body === undefined ? {} : { body: request.body }),
        timeoutMs: settings.timeoutMs,
      });
      const next = operation.paginated ? nextPageLink(response.headers) : undefined;
      // an answer that documents `errors` as its data (the CODEOWNERS errors) is never an in-band failure
      const body =
        operation.errorsAreData === true ? await readSuccessBody(response) : await context.readBody(response);
      // a next link that is no URL gives no cursor: the page GitHub answered is still the answer
      const readable = next !== undefined && URL.canParse(next, `${new URL(settings.upstream).origin}/`);
      return successResult(
        body,
        readable ? encodePageCursor(operation.toolName, next, settings.upstream, settings.redact) : undefined,
      );
    },
  };
}

/**
 * Creates the reference GitHub server on core's runtime: one tool per operation of `catalog`
 * (named like `issues_listForRepo`) and core's `get_envelope_contract`; with `CODE_MODE=true`,
 * core lists only its Code Mode tools and every operation stays callable from `execute_code`.
 *
 * A call builds the request from the operation (path, query, JSON body), adds
 * `Authorization: Bearer <GITHUB_TOKEN>`, `Accept: application/vnd.github+json` and
 * `X-GitHub-Api-Version`, and sends it with core's upstream fetch; failures are classified by the
 * GitHub adapter. The token is registered with the server's redactor: it never appears in an
 * envelope or a log line, whatever GitHub echoes.
 *
 * @param options - see {@link GithubServerOptions}.
 * @returns the server, its operations and the upstream base URL.
 * @throws GithubSettingsError when `GITHUB_TOKEN` is missing or blank, or `GITHUB_TIMEOUT_MS` is unreadable.
 * @throws TypeError from core when a conformance fixture tool's schema is invalid.
 * @throws Error when the description cannot be read (no `catalog` given and `@octokit/openapi` missing).
 */
export function createGithubServer(options: GithubServerOptions = {}): GithubServer {
  const env = options.env ?? process.env;
  const { token, timeoutMs } = githubSettingsFromEnv(env);
  const upstream = (options.upstream ?? DEFAULT_GITHUB_UPSTREAM).replace(/\/+$/, '');
  const catalog = options.catalog ?? loadGithubOperations();
  const operations = new Map(catalog.operations.map((operation) => [operation.toolName, operation] as const));
  const redactor = createRedactor(GITHUB_REDACTOR_OPTIONS);
  redactor.registerSecret(token);
  const adapter = createGithubAdapter({ bodyProperty: (tool) => operations.get(tool)?.body?.property });
  const settings: CallSettings = { upstream, token, timeoutMs, redact: redactor.string };
  const envelope = createEnvelopeServer({
    info: {
      name: GITHUB_SERVER_NAME,
      version: GITHUB_ADAPTER_VERSION,
      title: 'GitHub REST API (reference envelope server)',
    },
    adapter,
    tools: [
      ...catalog.operations.map((operation) => operationTool(operation, settings)),
      ...(options.conformanceFixtures === true ? officialSuiteTools() : []),
    ],
    redactor,
    options: {
      instructions: `GitHub REST API tools, one per operation (${operations.size}). Every failure is a JSON error envelope (error_kind, error_code, retryable, hints); call get_envelope_contract for the kinds. Paged listings answer next_page_cursor: pass it back as page_cursor. With Code Mode on, find tools with search_tools and call them from execute_code.`,
      env,
      // a call with a property renamed since an earlier release is told the new name
      toolHistory: readToolHistory(new URL('../tools.lock.json', import.meta.url)),
      ...options.envelope,
      ...(options.conformanceFixtures === true ? { extendSdkServer: officialSuiteServerExtension } : {}),
    },
  });
  return { envelope, operations, catalog, upstream };
}
