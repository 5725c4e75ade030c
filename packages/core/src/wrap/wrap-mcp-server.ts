/**
 * `wrapMcpServer`: a server written with the MCP SDK's high-level `McpServer` (`registerTool` with
 * zod schemas; SDK v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/server`) served by
 * core without a change to its code. Core connects an in-memory SDK client to the `McpServer`,
 * lists its tools and registers each as an envelope tool whose handler calls the original tool
 * through that client, so the tool runs exactly as under the SDK (its `extra`, its zod parsing),
 * while arguments, failures and telemetry take core's one path (call-pipeline.ts, call-exit.ts).
 * Implements CONTRACT.md "Classification" for servers core did not build.
 *
 * @packageDocumentation
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { CallToolResult, Implementation, Tool, Transport } from '@modelcontextprotocol/server';

import type { EnvelopeAdapter } from '../adapter.js';
import type { JsonSchemaObject } from '../arguments/index.js';
import { envelopeInResult } from '../classify.js';
import { EnvelopeError, UpstreamClientError, UpstreamHttpError } from '../errors.js';
import { createEnvelopeLogger } from '../logger.js';
import type { Redactor } from '../redact.js';
import { createEnvelopeServer } from '../server.js';
import type { EnvelopeServer, EnvelopeServerOptions } from '../server.js';
import { toolResult } from '../tool-result.js';
import type { EnvelopeTool, ToolHandlerContext } from '../types.js';
import { createUpstreamWatch } from './upstream-watch.js';
import type { UpstreamExchange, UpstreamWatch } from './upstream-watch.js';

/**
 * What {@link wrapMcpServer} needs of an SDK `McpServer`: that it connects to a transport and
 * closes. Both SDK lines' `McpServer` (v1 `@modelcontextprotocol/sdk/server/mcp.js`, v2
 * `@modelcontextprotocol/server`) fit.
 */
export interface WrappableMcpServer {
  /** Connects the server to a transport (core passes one half of an in-memory pair). */
  connect(transport: Transport): Promise<void>;
  /** Closes the server and its transport. */
  close(): Promise<void>;
}

/** The input of {@link wrapMcpServer}. */
export interface WrapMcpServerInput {
  /** Classifies the upstream failures of the wrapped tools and reads their telemetry. */
  readonly adapter: EnvelopeAdapter;
  /** Name and version sent at initialization; default the wrapped server's own. */
  readonly info?: Implementation;
  /** See `EnvelopeServerOptions`: switches, limits, Code Mode, the limiter. */
  readonly options?: EnvelopeServerOptions;
  /** See `CreateEnvelopeServerInput.redactor`. */
  readonly redactor?: Redactor;
}

/**
 * The text an SDK `McpServer` answers when its zod schema refused the arguments (v1 prefixes the
 * JSON-RPC error's `MCP error -32602: `). Only checks the JSON Schema cannot express (a zod
 * `refine`, a transform) get this far: core validated the arguments against the listed schema first.
 */
const SDK_INPUT_ERROR = /^(?:MCP error -32602: )?Input validation error: Invalid arguments for tool [^:]*: (.*)$/s;

/** The longest tool text an envelope's summary or a log line quotes. */
const MAX_QUOTED_CHARS = 500;

function textOf(result: CallToolResult): string {
  const texts = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  const text = texts.join('\n').trim();
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 3)}...` : text;
}

/** An abort (the tool's own timeout or `AbortController`) as opposed to a broken connection. */
function isAbort(error: unknown): boolean {
  // undici reports the signal's reason, a DOMException named after the way it aborted
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** The failure of the tool's last upstream exchange, when that exchange failed: the adapter classifies it. */
function upstreamFailure(last: UpstreamExchange | undefined): Error | undefined {
  if (last === undefined) return undefined;
  const { request, answer, failure } = last;
  if (failure !== undefined) {
    // headers had arrived: the body broke or stalled
    const phase = answer === undefined ? {} : { phase: 'body' as const };
    if (isAbort(failure.error))
      return new UpstreamClientError({
        type: 'timeout',
        timeoutMs: Math.round(failure.endedAt - last.startedAt),
        request,
        ...phase,
      });
    return new UpstreamClientError({ type: 'network', cause: failure.error, request, ...phase });
  }
  // The body is not seen: the tool read it itself (or not), and reading it here would take it away.
  if (answer !== undefined && answer.status >= 400)
    return new UpstreamHttpError({ status: answer.status, headers: answer.headers, body: '', request });
  return undefined;
}

/**
 * What a failed wrapped call throws, in core's order: an envelope the tool relayed; its last
 * upstream exchange, when that failed; the SDK's refusal of the arguments; else the tool's own
 * failure (a thrown error or an `isError` result), which core answers as every unclassified
 * failure: `internal_error` with a correlation id, the text in the log line only.
 */
function wrappedFailure(tool: string, result: CallToolResult, exchanges: readonly UpstreamExchange[]): Error {
  const relayed = envelopeInResult(result);
  // an envelope that names no tool is the wrapped tool's own
  const envelope = relayed?.tool === 'unknown_tool' ? { ...relayed, tool } : relayed;
  if (envelope !== undefined) return Object.assign(new Error('relayed envelope'), { envelope });
  const upstream = upstreamFailure(exchanges.at(-1));
  if (upstream !== undefined) return upstream;
  const text = textOf(result);
  const refused = SDK_INPUT_ERROR.exec(text);
  if (refused !== null)
    return new EnvelopeError({
      error_kind: 'mcp_input_validation',
      error_code: 'INPUT_VALIDATION_FAILED',
      summary: `The arguments were refused: ${refused[1] ?? text}`,
      hints: ['Correct the arguments as the summary says, then call again.'],
      retryable: false,
    });
  return new Error(`the wrapped tool failed: ${text === '' ? '(no text)' : text}`);
}

/** The handler of one wrapped tool: the original tool through the inner client, its upstream requests watched. */
function wrappedHandler(
  name: string,
  client: Client,
  watch: UpstreamWatch,
  adapter: EnvelopeAdapter,
): EnvelopeTool['handler'] {
  return async (args: Record<string, unknown>, context: ToolHandlerContext) => {
    const exchanges: UpstreamExchange[] = [];
    // No deadline of the inner request: the outer client's cancellation (context.signal) ends it.
    const result = await watch.run(exchanges, () =>
      client.callTool({ name, arguments: args }, { signal: context.signal, timeout: 2 ** 31 - 1 }),
    );
    for (const { answer } of exchanges)
      if (answer !== undefined) context.recordResponseMeta(adapter.parseResponseMeta(answer.headers, answer.at));
    if (result.isError !== true) return toolResult(result);
    throw wrappedFailure(name, result, exchanges);
  };
}

/**
 * A listed schema as core compiles it: the `$schema` the SDK stamps on (draft-07 from SDK v1)
 * is dropped, since core validates every input schema as JSON Schema 2020-12, which reads the
 * keywords zod emits the same way.
 */
function coreSchema(schema: Readonly<Record<string, unknown>> | undefined): JsonSchemaObject | undefined {
  if (schema === undefined) return undefined;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
}

function envelopeTool(tool: Tool, client: Client, watch: UpstreamWatch, adapter: EnvelopeAdapter): EnvelopeTool {
  const outputSchema = coreSchema(tool.outputSchema);
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    inputSchema: coreSchema(tool.inputSchema) ?? { type: 'object' },
    ...(outputSchema === undefined ? {} : { outputSchema }),
    handler: wrappedHandler(tool.name, client, watch, adapter),
  };
}

/** The envelope tools of the tools `client` lists now, which call them through `client`. */
async function listedTools(client: Client, watch: UpstreamWatch, adapter: EnvelopeAdapter): Promise<EnvelopeTool[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => envelopeTool(tool, client, watch, adapter));
}

/** The envelope server of the tools `client` lists, which call them through `client`. */
async function serveListedTools(
  client: Client,
  watch: UpstreamWatch,
  input: WrapMcpServerInput,
): Promise<EnvelopeServer> {
  return createEnvelopeServer({
    info: input.info ?? client.getServerVersion() ?? { name: 'wrapped-mcp-server', version: '0.0.0' },
    adapter: input.adapter,
    tools: await listedTools(client, watch, input.adapter),
    // the wrapped server may change its tools while it runs: core then tells its own clients
    options: { toolListChanged: true, ...input.options },
    ...(input.redactor === undefined ? {} : { redactor: input.redactor }),
  });
}

/**
 * Keeps `server`'s tools those the wrapped server lists: at each `notifications/tools/list_changed`
 * it sends to core's client, they are listed again and replace the served ones. The re-lists run
 * one after another, so the last change wins, and notices that arrive while one waits to start
 * share it; one that fails leaves the tools as they were, with a log line.
 */
function followToolChanges(
  client: Client,
  watch: UpstreamWatch,
  input: WrapMcpServerInput,
  server: EnvelopeServer,
): void {
  const queue = { last: Promise.resolve(), waiting: false };
  const logger = input.options?.logger ?? createEnvelopeLogger();
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    // a re-list that has not started yet will see this change too: a flood lists twice, not once per notice
    if (queue.waiting) return;
    queue.waiting = true;
    queue.last = queue.last
      .then(async () => {
        queue.waiting = false;
        server.replaceTools(await listedTools(client, watch, input.adapter));
      })
      .catch((error: unknown) => {
        logger.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'the wrapped server changed its tools, but they could not be listed and served again: the previous tools stay',
        );
      });
  });
}

/**
 * Serves an SDK `McpServer` as an envelope server, with no change to its code: every failure of
 * its tools becomes a contract version 2 envelope in both channels. A thrown error or an `isError`
 * result is `internal_error` with a correlation id (its text in the log line); arguments the
 * listed schema refuses are `mcp_input_validation` with `SCHEMA_*` codes, those only its zod
 * schema refuses `INPUT_VALIDATION_FAILED`; when the last upstream request of the call, made
 * through Node's `fetch`, failed, `input.adapter` classifies it. Structured successes carry the
 * upstream's telemetry in `_meta`, and the envelope capability is advertised. Serve the result
 * instead of connecting the `McpServer` to a transport (`serveStdio`, `serveStreamableHttp`).
 *
 * Tools the `McpServer` registers, removes, enables or disables after this call are followed: core
 * lists them again and serves the new list, telling its clients with
 * `notifications/tools/list_changed` (see `EnvelopeServer.replaceTools`).
 *
 * Not kept (docs/adding-a-server.md "Wrapping an existing server"): the server's prompts,
 * resources and completions; requests its tools send to the client (sampling, elicitation, roots)
 * and their progress notifications; the body of a failed upstream answer (the tool reads it); requests made through `node:http` rather than
 * `fetch`; unknown argument keys, which the SDK strips and core refuses (`MCP_STRICT_UNKNOWN_FIELDS`).
 *
 * @param mcpServer - the `McpServer`, its tools registered and not connected to a transport.
 * @param input - see {@link WrapMcpServerInput}.
 * @returns an {@link EnvelopeServer}; its `close` also closes `mcpServer`.
 * @throws what `createEnvelopeServer` throws (e.g. a TypeError for a tool name the server
 *   registers itself, `get_envelope_contract`), or the SDK's error when `mcpServer` is already
 *   connected or does not answer `tools/list`.
 */
export async function wrapMcpServer(mcpServer: WrappableMcpServer, input: WrapMcpServerInput): Promise<EnvelopeServer> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverSide);
  const client = new Client({ name: 'mcp-envelope-wrap', version: '1.0.0' });
  const watch = createUpstreamWatch();
  const release = async (): Promise<void> => {
    watch.close();
    await Promise.allSettled([client.close(), mcpServer.close()]);
  };
  let server: EnvelopeServer;
  try {
    await client.connect(clientSide);
    server = await serveListedTools(client, watch, input);
    followToolChanges(client, watch, input, server);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    ...server,
    close: async () => {
      await Promise.allSettled([server.close(), release()]);
    },
  };
}
