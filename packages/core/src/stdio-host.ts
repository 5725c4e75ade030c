/**
 * Serving an envelope server over stdin/stdout, with a size limit per message that answers an
 * oversized line instead of dropping the connection.
 *
 * @packageDocumentation
 */
import { Transform } from 'node:stream';
import type { TransformCallback, Writable } from 'node:stream';

import { parseJSONRPCMessage, serializeMessage } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, Server as LowLevelServer, Transport } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioEras } from '@modelcontextprotocol/server/stdio';
import type { StdioServerHandle } from '@modelcontextprotocol/server/stdio';

import type { EnvelopeLogger } from './logger.js';

/** What {@link EnvelopeServer.serveStdio} returns: the SDK's handle, and when the connection ended. */
export interface EnvelopeStdioHandle extends StdioServerHandle {
  /**
   * Settles when the connection has ended: stdin ended (the client closed it, which is how an MCP
   * client over stdio asks its server to stop) or `close` was called.
   */
  readonly closed: Promise<void>;
}

/** Options of {@link EnvelopeServer.serveStdio}. */
export interface StdioOptions {
  /** The longest message (one line) read, in bytes (default `DEFAULT_MAX_STDIO_MESSAGE_BYTES`). */
  readonly maxMessageBytes?: number;
}

/** Default {@link StdioOptions.maxMessageBytes}: the MCP SDK's own stdio buffer limit, 10 MiB. */
export const DEFAULT_MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * How much of an oversized line's start and end is kept to find its JSON-RPC `id`: the TypeScript
 * SDK writes `id` last, clients that serialize fields in declaration order (the Python SDK) write
 * it right after `jsonrpc`.
 */
const TAIL_BYTES = 512;

/** A top-level `"id": <number or string>` closing the object, at the very end of a line. */
const TRAILING_ID = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;

/** A top-level `"id": <number or string>` opening the object, alone or after `"jsonrpc": "2.0"`. */
const LEADING_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")\s*,/;

/** The JSON-RPC id at the start of a line's head or at the end of its tail, or `null` when none is found. */
function lineId(head: string, tail: string): string | number | null {
  const match = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (match?.[1] === undefined) return null;
  try {
    const id: unknown = JSON.parse(match[1]);
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/** What `OversizedLineFilter` reports about a line it dropped. */
export interface OversizedLine {
  /** The line's length in bytes, newline excluded. */
  readonly bytes: number;
  /** The JSON-RPC id found at its start or end, else `null`. */
  readonly id: string | number | null;
}

/**
 * Passes stdin through line by line, whole lines only, and drops every line longer than
 * `limit` bytes (reporting it), so the SDK's read buffer never overflows: on overflow the SDK
 * closes the transport without a word.
 */
export class OversizedLineFilter extends Transform {
  readonly #limit: number;
  readonly #onOversized: (line: OversizedLine) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #dropping = false;
  #droppedBytes = 0;
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  /**
   * @param limit - the longest line passed on, in bytes.
   * @param onOversized - called for each dropped line, once its end has arrived.
   */
  constructor(limit: number, onOversized: (line: OversizedLine) => void) {
    super();
    this.#limit = limit;
    this.#onOversized = onOversized;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const complete: Buffer[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      const newline = chunk.indexOf(0x0a, offset);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.#take(chunk.subarray(offset, end), newline !== -1);
      offset = end;
      if (newline === -1) break;
      if (this.#dropping) {
        this.#onOversized({
          bytes: this.#droppedBytes - 1,
          id: lineId(this.#head.toString('utf8'), this.#tail.toString('utf8').replace(/\r?\n$/, '')),
        });
        this.#dropping = false;
        this.#droppedBytes = 0;
        this.#head = Buffer.alloc(0);
        this.#tail = Buffer.alloc(0);
      } else {
        complete.push(...this.#pending);
      }
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    if (complete.length > 0) this.push(Buffer.concat(complete));
    callback();
  }

  /** Adds a piece of the current line: kept while the line fits, else counted and its end kept. */
  #take(piece: Buffer, endsLine: boolean): void {
    if (!this.#dropping && this.#pendingBytes + piece.length - (endsLine ? 1 : 0) <= this.#limit) {
      this.#pending.push(piece);
      this.#pendingBytes += piece.length;
      return;
    }
    if (!this.#dropping) {
      this.#dropping = true;
      this.#droppedBytes = this.#pendingBytes;
      const kept = Buffer.concat([...this.#pending, piece.subarray(0, TAIL_BYTES)]);
      this.#head = kept.subarray(0, TAIL_BYTES);
      this.#tail = Buffer.concat(this.#pending).subarray(-TAIL_BYTES);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    this.#droppedBytes += piece.length;
    this.#tail = Buffer.concat([this.#tail, piece.subarray(-TAIL_BYTES)]).subarray(-TAIL_BYTES);
  }
}

/**
 * Serves stdin/stdout through an `OversizedLineFilter`, with the SDK's `serveStdio`, which
 * answers both protocol eras: a 2025-11-25 `initialize` pins a `legacy` server, a 2026-07-28
 * `server/discover` a `modern` one (each made by `createSdkServer`). A line over the limit is
 * answered with a JSON-RPC error -32600 (with the line's `id` when it starts or ends with one,
 * else `null`; `data: { limit_bytes, received_bytes }`) and a log line, and the connection stays up.
 *
 * @param createSdkServer - makes an SDK server for an era.
 * @param logger - where the log line goes.
 * @param options - see {@link StdioOptions}.
 * @param stdin - the input (default `process.stdin`).
 * @param stdout - the output (default `process.stdout`).
 * @returns the SDK's handle (its `close` ends the connection) and when the connection ended.
 */
export async function serveStdio(
  createSdkServer: (era: 'legacy' | 'modern') => LowLevelServer,
  logger: EnvelopeLogger,
  options: StdioOptions = {},
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: Writable = process.stdout,
): Promise<EnvelopeStdioHandle> {
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_STDIO_MESSAGE_BYTES;
  const filter = new OversizedLineFilter(limit, ({ bytes, id }) => {
    logger.error({ received_bytes: bytes, limit_bytes: limit, id }, 'stdio message over the size limit refused');
    const message = `Request too large: a message of ${bytes} bytes exceeds the stdio limit of ${limit} bytes`;
    stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message, data: { limit_bytes: limit, received_bytes: bytes } } })}\n`,
    );
  });
  stdin.pipe(filter);
  const transport = new LineTransport(filter, stdout, logger);
  const handle = serveStdioEras(({ era }) => createSdkServer(era), { transport });
  return Promise.resolve({ close: () => handle.close(), closed: transport.closed });
}

/**
 * The JSON-RPC error for a line the SDK's stdio transport could not read: `-32700` for text that
 * is not JSON (`NaN`, a cut-off object), `-32600` for JSON that is no JSON-RPC message; `undefined`
 * for any other transport error.
 */
function unreadableLineError(error: unknown): { code: number; message: string } | undefined {
  if (error instanceof SyntaxError) return { code: -32700, message: 'Parse error: the message is not valid JSON' };
  if (error instanceof Error && error.name === 'ZodError')
    return { code: -32600, message: 'Invalid Request: the message is not a JSON-RPC 2.0 message' };
  return undefined;
}

/**
 * The stdio transport: reads the whole lines `OversizedLineFilter` passes and writes one
 * JSON line per message. Unlike the SDK's stdio transport, which skips a line that is not JSON
 * without a word, it answers every unreadable line with a JSON-RPC error (id `null`, as JSON-RPC
 * 2.0 says when the id cannot be read) and a log line, so the client does not wait for its own
 * timeout. The line itself is not logged (it may hold credentials).
 */
class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #lines: NodeJS.ReadableStream;
  readonly #stdout: Writable;
  readonly #logger: EnvelopeLogger;
  #rest = '';
  #closed = false;
  #ended: () => void = () => undefined;
  readonly #endedPromise = new Promise<void>((resolve) => {
    this.#ended = resolve;
  });

  constructor(lines: NodeJS.ReadableStream, stdout: Writable, logger: EnvelopeLogger) {
    this.#lines = lines;
    this.#stdout = stdout;
    this.#logger = logger;
  }

  start(): Promise<void> {
    this.#lines.on('data', this.#onData);
    this.#lines.on('end', this.#onEnd);
    this.#lines.on('error', this.#onError);
    return Promise.resolve();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const lines = (this.#rest + chunk.toString()).split('\n');
    this.#rest = lines.pop() ?? '';
    for (const line of lines) this.#read(line.replace(/\r$/, ''));
  };

  readonly #onEnd = (): void => {
    void this.close();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  #read(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      // Checked against the JSON-RPC schema and passed on as parsed; the SDK checks each request's
      // params against its method's schema again.
      message = JSON.parse(line) as JSONRPCMessage;
      parseJSONRPCMessage(message);
    } catch (error) {
      const answer = unreadableLineError(error);
      if (answer === undefined) throw error;
      this.#logger.error({ code: answer.code }, 'unreadable stdio message refused');
      this.#stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: answer })}\n`);
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(serializeMessage(message))) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  /** Settles once the transport has closed (stdin ended, or `close` was called). */
  get closed(): Promise<void> {
    return this.#endedPromise;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#lines.off('data', this.#onData);
    this.#lines.off('end', this.#onEnd);
    this.#lines.off('error', this.#onError);
    this.onclose?.();
    this.#ended();
    return Promise.resolve();
  }
}
