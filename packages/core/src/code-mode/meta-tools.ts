/**
 * The Code Mode meta tools: `search_tools` (find tools by words), `get_tool_schema` (one tool's
 * schemas) and `execute_code` (run code that calls tools). They are ordinary tools of the
 * server, so their own arguments are validated like any other's and their failures are
 * envelopes. Implements CONTRACT.md "Code Mode".
 *
 * @packageDocumentation
 */
import type { ContractVersion } from '@mcp-envelope/contract';
import type { CallToolResult, ServerContext, Tool } from '@modelcontextprotocol/server';

import { toolNotFound } from '../call-pipeline.js';
import { EnvelopeError } from '../errors.js';
import type { CallTool, EnvelopeTool, ToolHandlerContext } from '../types.js';
import { createInnerCall, EXECUTE_CODE_TOOL_NAME } from './inner-call.js';
import { SessionRunsExceededError } from './fair-slots.js';
import { sandboxFailureError, sessionRunsError } from './outcome.js';
import type { SandboxRunner } from './runner.js';
import type { SandboxLimits } from './sandbox.js';
import { createToolSearch } from './search.js';
import type { ToolSearch, ToolSearchHit } from './search.js';
import type { CodeModeSettings } from './settings.js';
import { createTelemetryAggregate } from './telemetry.js';

/** The name of the search tool. */
export const SEARCH_TOOLS_TOOL_NAME = 'search_tools';

/** The name of the schema tool. */
export const GET_TOOL_SCHEMA_TOOL_NAME = 'get_tool_schema';

/** The most hits one `search_tools` call returns. */
export const MAX_SEARCH_RESULTS = 50;

/** What the meta tools read of their server, late-bound since they are registered with it. */
export interface MetaToolsInput {
  readonly settings: CodeModeSettings;
  /** The listing of a registered tool, or `undefined`. */
  readonly listing: (name: string) => Tool | undefined;
  /** Every registered tool name (meta tools included), in registration order. */
  readonly names: () => readonly string[];
  /** The server's `tools/call` pipeline. */
  readonly callTool: () => CallTool;
  /** An inner call's result in the contract version the outer client reads. */
  readonly inVersion: (result: CallToolResult, version: ContractVersion) => CallToolResult;
  readonly runSandboxed: SandboxRunner;
}

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

function searchTool(input: MetaToolsInput, isMeta: (name: string) => boolean): EnvelopeTool {
  const state: { search: ToolSearch | undefined } = { search: undefined };
  const index = (): ToolSearch => {
    // built on the first search: a server that never searches never pays for the index
    state.search ??= createToolSearch(
      input
        .names()
        .filter((name) => !isMeta(name))
        .flatMap((name) => input.listing(name) ?? []),
    );
    return state.search;
  };
  return {
    name: SEARCH_TOOLS_TOOL_NAME,
    title: 'Search tools',
    description: `Finds this server's tools by words of their name, description and parameters. Returns up to \`limit\` (default 10, at most ${MAX_SEARCH_RESULTS}) tool names with one-line descriptions, best match first. Then read a tool's schemas with get_tool_schema and call it from execute_code.`,
    annotations: READ_ONLY,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words to look for, e.g. "list orders".' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, description: 'The most tools to return.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    inputSchemaCheck: 'first-call',
    handler: (args: Record<string, unknown>): { tools: ToolSearchHit[] } => ({
      tools: index().search(String(args['query']), typeof args['limit'] === 'number' ? args['limit'] : 10),
    }),
  };
}

/** How an unknown-tool answer tells a Code Mode caller to find the tools (`tools/list` hides them). */
export const FIND_TOOL_HINT = `Call ${SEARCH_TOOLS_TOOL_NAME} to find the tool you need.`;

function unknownToolError(name: string, names: readonly string[]): EnvelopeError {
  return new EnvelopeError({
    error_kind: 'tool_not_found',
    error_code: 'TOOL_NOT_FOUND',
    ...toolNotFound(name, names, FIND_TOOL_HINT),
    details: [{ path: 'name', issue: 'no registered tool has this name', received_type: 'string' }],
  });
}

function schemaTool(input: MetaToolsInput): EnvelopeTool {
  return {
    name: GET_TOOL_SCHEMA_TOOL_NAME,
    title: 'Get a tool schema',
    description:
      "Returns one tool's description, inputSchema and outputSchema (when it has one), by exact name as search_tools gives it.",
    annotations: READ_ONLY,
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'The tool name.' } },
      required: ['name'],
      additionalProperties: false,
    },
    inputSchemaCheck: 'first-call',
    handler: (args: Record<string, unknown>) => {
      const name = String(args['name']);
      const tool = input.listing(name);
      if (tool === undefined) throw unknownToolError(name, input.names());
      return {
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        description: tool.description ?? '',
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      };
    },
  };
}

/** The sandbox limits of one run, from the settings. */
export function sandboxLimits(settings: CodeModeSettings): SandboxLimits {
  return {
    wallTimeMs: settings.CODE_MODE_WALL_TIME_MS,
    memoryBytes: settings.CODE_MODE_MEMORY_MB * 1024 * 1024,
    outputBytes: settings.CODE_MODE_OUTPUT_BYTES,
    innerCalls: settings.CODE_MODE_MAX_CALLS,
  };
}

function executeDescription(settings: CodeModeSettings): string {
  return [
    'Runs JavaScript in a sandbox: `code` is the body of an async function.',
    '`await callTool(name, args)` calls any tool of this server (find them with search_tools, read their schemas with get_tool_schema) and returns its result;',
    'a failure that carries an error envelope is returned as that object in the contract version your client reads (branch on `result._envelope_version` and `result.error_kind`), a failure without one throws.',
    'The returned value (any JSON) comes back as `result`, what the code logged with console.log as `logs`.',
    `No require, import, network, file system, process or timers. Limits: ${settings.CODE_MODE_WALL_TIME_MS} ms, ${settings.CODE_MODE_MEMORY_MB} MiB, ${settings.CODE_MODE_OUTPUT_BYTES} bytes of output, ${settings.CODE_MODE_MAX_CALLS} callTool calls; at most ${settings.CODE_MODE_MAX_SESSION_RUNS} execute_code calls of one session queued or running at once.`,
  ].join(' ');
}

/**
 * Whose queue a run joins: the MCP session; for a stateless (2026-07-28) HTTP request, that
 * request alone, since nothing ties it to a client; for a connection without sessions (stdio),
 * its one client.
 */
function runQueueOf(request: ServerContext): unknown {
  return request.sessionId ?? request.http?.req ?? '';
}

/** Runs the code in the sandbox, a session past its runs refused with its envelope. */
async function runSandboxed(
  input: MetaToolsInput,
  code: string,
  bridge: ReturnType<typeof createInnerCall>,
  context: ToolHandlerContext,
): ReturnType<SandboxRunner> {
  try {
    return await input.runSandboxed(
      code,
      bridge,
      sandboxLimits(input.settings),
      context.signal,
      runQueueOf(context.request),
    );
  } catch (error) {
    if (error instanceof SessionRunsExceededError) throw sessionRunsError(input.settings);
    throw error;
  }
}

function executeTool(input: MetaToolsInput): EnvelopeTool {
  return {
    name: EXECUTE_CODE_TOOL_NAME,
    title: 'Execute code',
    description: executeDescription(input.settings),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          minLength: 1,
          maxLength: 100_000,
          description: 'The body of an async JavaScript function, e.g. `const r = await callTool("x", {}); return r;`.',
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { result: {}, logs: { type: 'array', items: { type: 'string' } } },
      required: ['result'],
    },
    inputSchemaCheck: 'first-call',
    handler: async (args: Record<string, unknown>, context) => {
      const telemetry = createTelemetryAggregate();
      const request: ServerContext = context.request;
      const bridge = createInnerCall({
        callTool: input.callTool(),
        request,
        telemetry,
        version: context.contractVersion,
        // the code reads inner envelopes in the version its client reads, like the outer answer
        inVersion: (result) => input.inVersion(result, context.contractVersion),
      });
      const outcome = await runSandboxed(input, String(args['code']), bridge, context);
      // recorded before a failure is thrown too, so a limit envelope still carries the inner calls' telemetry
      context.recordResponseMeta(telemetry.meta());
      if (!outcome.ok) throw sandboxFailureError(outcome, input.settings);
      const result = outcome.value === undefined ? null : outcome.value;
      return outcome.logs.length === 0 ? { result } : { result, logs: outcome.logs };
    },
  };
}

/** The names of the meta tools, in listing order. */
export const META_TOOL_NAMES: readonly string[] = [
  SEARCH_TOOLS_TOOL_NAME,
  GET_TOOL_SCHEMA_TOOL_NAME,
  EXECUTE_CODE_TOOL_NAME,
];

/**
 * The three meta tools of a Code Mode server.
 *
 * @param input - see {@link MetaToolsInput}.
 * @returns `search_tools`, `get_tool_schema`, `execute_code`.
 */
export function createMetaTools(input: MetaToolsInput): EnvelopeTool[] {
  const isMeta = (name: string): boolean => META_TOOL_NAMES.includes(name);
  return [searchTool(input, isMeta), schemaTool(input), executeTool(input)];
}
