/**
 * Opens an MCP session with the real SDK `Client` over stdio or Streamable HTTP, keeping the raw
 * `initialize` result (SDK clients drop capability keys they do not know).
 *
 * @packageDocumentation
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import { DeadlineError, withDeadline } from './call-outcome.js';
import { displayStdioCommand, parseStdioCommand } from './command-line.js';
import { isRecord } from '@mcp-envelope/contract';

/** Where the server is. */
export type ProbeTarget =
  | { readonly transport: 'stdio'; readonly commandLine: string; readonly cwd?: string }
  | { readonly transport: 'http'; readonly url: string; readonly headers?: Readonly<Record<string, string>> };

/** Thrown when no MCP session can be opened with the server. */
export class ServerUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerUnreachableError';
  }
}

/** An open session. */
export interface Session {
  readonly client: Client;
  /** The raw `result` of the `initialize` response (`undefined` if it could not be captured). */
  readonly initializeResult: Readonly<Record<string, unknown>> | undefined;
  /** A display string for the target that carries no secret. */
  readonly display: string;
  /** Closes the session; never throws, never takes longer than a few seconds. */
  close(): Promise<void>;
}

/** How many characters of the server's stderr are kept for error messages. */
const STDERR_TAIL = 2_000;
/** How long closing may take before it is abandoned, in milliseconds. */
const CLOSE_DEADLINE_MS = 5_000;

/** This package's name and version, sent as `clientInfo`. */
export const CLIENT_INFO = { name: 'mcp-envelope-conformance', version: '0.1.0' } as const;

interface PreparedTransport {
  readonly transport: Transport;
  readonly display: string;
  readonly stderrTail: () => string;
}

function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function prepareStdio(commandLine: string, cwd: string | undefined): PreparedTransport {
  const command = parseStdioCommand(commandLine);
  const environment: Record<string, string> = { ...getDefaultEnvironment() };
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
  const transport = new StdioClientTransport({
    command: command.command,
    args: [...command.args],
    env: { ...environment, ...command.env },
    stderr: 'pipe',
    ...(cwd === undefined ? {} : { cwd }),
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL);
  });
  return { transport, display: `stdio: ${displayStdioCommand(command)}`, stderrTail: () => tail };
}

function prepareHttp(address: string, headers: Readonly<Record<string, string>> | undefined): PreparedTransport {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ServerUnreachableError(`"${address}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ServerUnreachableError(`URL must be http: or https:, got ${url.protocol}`);
  const transport = new StreamableHTTPClientTransport(
    url,
    headers === undefined ? {} : { requestInit: { headers: { ...headers } } },
  );
  return { transport, display: `streamable-http: ${displayUrl(url)}`, stderrTail: () => '' };
}

/**
 * Runs before the SDK reads each incoming message (the SDK calls an `onmessage` set before
 * `connect` first): records the raw `initialize` result, and turns a `nextCursor: null` into an
 * absent cursor, since both end a list while the SDK's result schema rejects `null`.
 */
function watchIncoming(transport: Transport, record: (result: Readonly<Record<string, unknown>>) => void): void {
  transport.onmessage = (message: unknown) => {
    if (!isRecord(message)) return;
    const result = message['result'];
    if (!isRecord(result)) return;
    if (Object.hasOwn(result, 'capabilities') && Object.hasOwn(result, 'protocolVersion')) record(result);
    if (result['nextCursor'] === null) delete result['nextCursor'];
  };
}

async function closeQuietly(client: Client, transport: Transport): Promise<void> {
  try {
    await withDeadline(client.close(), CLOSE_DEADLINE_MS);
  } catch {
    try {
      await withDeadline(transport.close(), CLOSE_DEADLINE_MS);
    } catch {
      // Nothing more can be done; the child process, if any, was sent a signal by the SDK.
    }
  }
}

function unreachableMessage(error: unknown, stderrTail: string): string {
  const reason = error instanceof Error ? error.message : String(error);
  const lines = stderrTail
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-5)
    .join('\n  ');
  return lines === '' ? reason : `${reason}\n  server stderr (last lines):\n  ${lines}`;
}

/**
 * Starts the transport and runs the MCP `initialize` handshake with the SDK `Client`. The client
 * declares no optional capabilities (no sampling, elicitation or roots).
 *
 * @param target - the server to reach.
 * @param timeoutMs - the timeout in milliseconds of every request, the `initialize` handshake
 *   (process start included) among them.
 * @returns the open session.
 * @throws ServerUnreachableError when the process cannot start, the URL is unusable, the handshake
 *   fails or times out; the message includes the tail of the server's stderr when there is one.
 * @throws CommandLineError when the `--stdio` command line cannot be split.
 */
export async function openSession(target: ProbeTarget, timeoutMs: number): Promise<Session> {
  const prepared =
    target.transport === 'stdio'
      ? prepareStdio(target.commandLine, target.cwd)
      : prepareHttp(target.url, target.headers);
  let initializeResult: Readonly<Record<string, unknown>> | undefined;
  watchIncoming(prepared.transport, (result) => {
    initializeResult ??= result;
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.onerror = () => {
    // Transport-level noise (unparseable lines and the like) is reported through the calls it breaks.
  };
  try {
    await withDeadline(client.connect(prepared.transport, { timeout: timeoutMs }), timeoutMs + 1_000);
  } catch (error) {
    await closeQuietly(client, prepared.transport);
    const timedOut =
      error instanceof DeadlineError ||
      (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number));
    const reason = timedOut ? new Error(`no answer to initialize within ${timeoutMs} ms (--timeout-ms)`) : error;
    throw new ServerUnreachableError(unreachableMessage(reason, prepared.stderrTail()));
  }
  return { client, initializeResult, display: prepared.display, close: () => closeQuietly(client, prepared.transport) };
}
