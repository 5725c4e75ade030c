/**
 * Serving an envelope server over Streamable HTTP on node:http: one SDK server per 2025-era
 * session (resumable streams through an event store), a stateless SDK server per 2026-07-28
 * request (the SDK's `createMcpHandler`), Host and Origin validation on every request, a cap on sessions, idle expiry, and a graceful
 * shutdown that answers every call it accepted.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
  NodeIncomingMessageLike,
  NodeMcpRequestHandler,
  NodeStreamableHTTPServerTransport,
} from '@modelcontextprotocol/node';
import { SUPPORTED_PROTOCOL_VERSIONS as supportedProtocolVersions } from '@modelcontextprotocol/server';
import type { Server as LowLevelServer } from '@modelcontextprotocol/server';
import { isRecord } from '@mcp-envelope/contract';

import { createEventStore } from './event-store.js';
import type { EndpointEventStore, SessionEventStore } from './event-store.js';
import { checkParamHeaders, HEADER_MISMATCH_CODE, paramHeaderDeclarations } from './param-headers.js';

import type { InFlightCalls } from './in-flight.js';
import type { EnvelopeLogger } from './logger.js';

/** Where and how `serveStreamableHttp` listens. */
export interface StreamableHttpOptions {
  /** TCP port; 0 (default) lets the OS choose; read the chosen one from the handle. */
  readonly port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  readonly host?: string;
  /** The MCP endpoint path; default `/mcp`. */
  readonly path?: string;
  /**
   * Allowed `Host` header values (`name:port`). Defaults, when `host` is a loopback address in any
   * spelling (`localhost`, any `127.x.y.z` including short forms such as `127.1`, `::1`,
   * `::ffff:127.0.0.1`), to the loopback names with the port and `host` itself; otherwise no Host
   * check unless given.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Allowed `Origin` header values, checked on every request that sends one (browsers do; other
   * clients usually do not); a request with another Origin gets HTTP 403. Defaults, on a loopback
   * `host`, to the loopback origins with the port (`http://127.0.0.1:<port>`,
   * `http://localhost:<port>`, `http://[::1]:<port>` and `host` itself), as the MCP Streamable
   * HTTP transport requires servers to validate `Origin`. Required for any other `host` (`[]`
   * refuses every request that sends an Origin).
   */
  readonly allowedOrigins?: readonly string[];
  /** At most this many open sessions (default `DEFAULT_MAX_SESSIONS`); past it, a new session gets HTTP 503. */
  readonly maxSessions?: number;
  /**
   * A session with no request for this long, in milliseconds, is closed (default
   * `DEFAULT_SESSION_IDLE_TIMEOUT_MS`); its client gets HTTP 404 and starts a new one. An
   * open notification stream (GET) does not count as activity.
   */
  readonly sessionIdleTimeoutMs?: number;
  /**
   * At most this many open sessions per client address (default `DEFAULT_MAX_SESSIONS_PER_CLIENT`),
   * so that one client cannot take every session; past it, a new session from that address gets
   * HTTP 429. Behind a reverse proxy every client has the proxy's address: raise it to `maxSessions`.
   */
  readonly maxSessionsPerClient?: number;
  /**
   * Bytes of SSE events kept for one resumable stream (default `DEFAULT_EVENT_STORE_STREAM_BYTES`,
   * 16 MiB), counted as the UTF-8 JSON of each message; the oldest go first.
   */
  readonly eventStoreMaxStreamBytes?: number;
  /**
   * Bytes of SSE events kept over every session (default `DEFAULT_EVENT_STORE_TOTAL_BYTES`, 128 MiB);
   * the endpoint's oldest events go first. A client whose `Last-Event-ID` is followed by an
   * evicted event gets HTTP 410 instead of a replay with a gap.
   */
  readonly eventStoreMaxTotalBytes?: number;
}

/** Default {@link StreamableHttpOptions.maxSessions}: about 40 MB of session state at most. */
export const DEFAULT_MAX_SESSIONS = 1000;
/** The SDK's request body limit (its `DEFAULT_MAX_REQUEST_BODY_SIZE`), in bytes: a longer body gets HTTP 413. */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** Default {@link StreamableHttpOptions.maxSessionsPerClient}: a tenth of the default session cap. */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 100;
/** Default {@link StreamableHttpOptions.sessionIdleTimeoutMs}: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** Default grace period of {@link StreamableHttpHandle.shutdown}, in milliseconds. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** What {@link StreamableHttpHandle.shutdown} did. */
export interface ShutdownReport {
  /** Tool calls still running when the grace period ended, answered with a retryable envelope. */
  readonly forcedCalls: number;
}

/** A running Streamable HTTP endpoint. */
export interface StreamableHttpHandle {
  /** The endpoint, e.g. `http://127.0.0.1:43111/mcp`. */
  readonly url: URL;
  readonly port: number;
  readonly httpServer: HttpServer;
  /** The number of open sessions. */
  readonly sessionCount: number;
  /** Bytes of SSE events the resumability store holds now, over every session (at most `eventStoreMaxTotalBytes`). */
  readonly eventStoreBytes: number;
  /** Closes every session and the listener at once; calls still running get no answer. */
  close(): Promise<void>;
  /**
   * Stops gracefully: stops accepting connections and answers new requests with HTTP 503, lets the
   * requests in progress finish for up to `graceMs` milliseconds (default
   * `DEFAULT_SHUTDOWN_GRACE_MS`), answers the tool calls still running then with a
   * retryable `internal_error` envelope, then closes like {@link StreamableHttpHandle.close}.
   *
   * @returns how many calls had to be answered that way.
   */
  shutdown(graceMs?: number): Promise<ShutdownReport>;
}

/** What the HTTP host needs of the envelope server. */
export interface HttpHostServer {
  /** A new SDK server sharing the envelope server's tools, for one session or one 2026-07-28 request. */
  createSdkServer(era: 'legacy' | 'modern'): LowLevelServer;
  /** The envelope server's unfinished tool calls (see {@link StreamableHttpHandle.shutdown}). */
  readonly calls: InFlightCalls;
  readonly logger: EnvelopeLogger;
  /** The `inputSchema` a listed tool publishes, or `undefined` for a name that is not listed. */
  toolInputSchema(name: string): unknown;
  /** Told when a session ends (deleted by its client, expired, or closed with the host). */
  readonly sessionClosed?: ((sessionId: string) => void) | undefined;
}

/**
 * The canonical form of a host name or address when it is a loopback one, else `undefined`.
 * Parsing as a URL host folds every IPv4 spelling (`127.1`, `0x7f.1`, `2130706433`) to dotted
 * form and every IPv6 one to its compressed form.
 *
 * @param host - a host name or address, IPv6 with or without brackets.
 * @returns e.g. `127.0.0.1`, `[::1]`, `[::ffff:7f00:1]`, `localhost`; `undefined` when not loopback.
 */
export function loopbackHostname(host: string): string | undefined {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let hostname: string;
  try {
    hostname = new URL(`http://${bracketed}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname === 'localhost' || hostname === '[::1]') return hostname;
  if (/^127\.\d+\.\d+\.\d+$/.test(hostname)) return hostname;
  // IPv4-mapped IPv6 (::ffff:127.x.y.z), which URL writes as ::ffff:7fxx:xxxx
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname) ? hostname : undefined;
}

/** The Host values a loopback endpoint answers to by default. */
function loopbackHosts(host: string, canonical: string, port: number): string[] {
  const names = new Set([
    '127.0.0.1',
    'localhost',
    '[::1]',
    canonical,
    host.includes(':') && !host.startsWith('[') ? `[${host}]` : host,
  ]);
  return [...names].map((name) => `${name}:${port}`);
}

interface Session {
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly server: LowLevelServer;
  /** This session's view of the endpoint's event store. */
  readonly events: SessionEventStore;
  /** The client address the session was opened from (see {@link StreamableHttpOptions.maxSessionsPerClient}). */
  readonly client: string;
  /** Gives back the session's place under the per-client cap and its events; idempotent. */
  readonly forget: () => void;
  /** Requests of this session in progress (a notification stream excluded). */
  active: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** A JSON-RPC error answer with no id, as the SDK sends for requests refused before parsing. */
function refuse(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: Record<string, unknown>,
): void {
  const error = data === undefined ? { code, message } : { code, message, data };
  response
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error, id: null }));
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Why a request's Host or Origin is refused, or `undefined` when both are allowed. */
function originProblem(
  request: IncomingMessage,
  allowedHosts: readonly string[] | undefined,
  allowedOrigins: readonly string[],
): string | undefined {
  const host = headerValue(request, 'host');
  if (allowedHosts !== undefined && (host === undefined || !allowedHosts.includes(host)))
    return `Invalid Host header: ${host ?? '(none)'}`;
  const origin = headerValue(request, 'origin');
  if (origin !== undefined && !allowedOrigins.includes(origin)) return `Invalid Origin header: ${origin}`;
  return undefined;
}

/** Counts requests in progress and lets a shutdown wait until there are none. */
function requestCounter(): { start(): void; end(): void; drained(): Promise<void> } {
  let count = 0;
  const waiters = new Set<() => void>();
  return {
    start: () => {
      count += 1;
    },
    end: () => {
      count -= 1;
      if (count > 0) return;
      for (const waiter of waiters) waiter();
      waiters.clear();
    },
    drained: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.add(resolve))),
  };
}

function delay(milliseconds: number): Promise<'timeout'> {
  return new Promise((resolve) => {
    setTimeout(() => {
      resolve('timeout');
    }, milliseconds).unref();
  });
}

/** The open sessions of one endpoint: creation under the cap, activity, idle expiry. */
interface SessionPool {
  readonly size: number;
  /** The session with this id, or `undefined`. */
  get(id: string): Session | undefined;
  /** Which cap one more session from `client` would pass, or `undefined` when it may be opened. */
  capReached(client: string): 'endpoint' | 'client' | undefined;
  /** Serves a request that opens a session (an `initialize`, its body parsed), keeping the session when it is initialized. */
  open(request: IncomingMessage, response: ServerResponse, body: unknown, client: string): Promise<void>;
  /** Counts a request of a session as activity until its response closes. */
  track(session: Session, request: IncomingMessage, response: ServerResponse): void;
  closeAll(): Promise<void>;
}

function closeSession(session: Session): Promise<void> {
  clearTimeout(session.idleTimer);
  return session.server.close();
}

/** Activity counting and idle expiry of the sessions `isKept` says the pool still holds. */
function sessionActivity(
  idleTimeout: number,
  isKept: (id: string) => boolean,
): { readonly track: SessionPool['track']; readonly expireWhenIdle: (session: Session) => void } {
  const expireWhenIdle = (session: Session): void => {
    if (session.idleTimer !== undefined) {
      session.idleTimer.refresh();
      return;
    }
    session.idleTimer = setTimeout(() => {
      if (session.active === 0) void closeSession(session);
    }, idleTimeout).unref();
  };
  const track = (session: Session, request: IncomingMessage, response: ServerResponse): void => {
    if (request.method === 'GET') return;
    session.active += 1;
    response.once('close', () => {
      session.active -= 1;
      const id = session.transport.sessionId;
      if (id !== undefined && isKept(id)) expireWhenIdle(session);
    });
  };
  return { track, expireWhenIdle };
}

/** The caps of a session pool (see {@link StreamableHttpOptions}). */
interface PoolLimits {
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  readonly idleTimeout: number;
}

/** Sessions open (or opening) per client address. */
function clientCounts(): { add(client: string): void; remove(client: string): void; of(client: string): number } {
  const counts = new Map<string, number>();
  return {
    add: (client) => counts.set(client, (counts.get(client) ?? 0) + 1),
    remove: (client) => {
      const left = (counts.get(client) ?? 1) - 1;
      if (left > 0) counts.set(client, left);
      else counts.delete(client);
    },
    of: (client) => counts.get(client) ?? 0,
  };
}

/** Where a session's lifecycle is recorded: the initialized sessions, the ones opening, the per-client counts. */
interface SessionRegistry {
  readonly sessions: Map<string, Session>;
  readonly pending: Set<Session>;
  readonly perClient: ReturnType<typeof clientCounts>;
}

/** A new session from `client`, counted under its cap, its transport with this session's view of the event store. */
function newSession(
  host: HttpHostServer,
  transportClass: typeof NodeStreamableHTTPServerTransport,
  eventStore: EndpointEventStore,
  registry: SessionRegistry,
  client: string,
): Session {
  const { sessions, pending, perClient } = registry;
  const events = eventStore.forSession();
  perClient.add(client);
  let counted = true;
  const forget = (): void => {
    if (!counted) return;
    counted = false;
    perClient.remove(client);
    events.release();
  };
  const session: Session = {
    events,
    client,
    forget,
    transport: new transportClass({
      sessionIdGenerator: randomUUID,
      eventStore: events,
      // tells a client that lost an SSE stream when to reconnect with Last-Event-ID
      retryInterval: 1000,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        pending.delete(session);
      },
    }),
    server: host.createSdkServer('legacy'),
    active: 0,
    idleTimer: undefined,
  };
  session.transport.onclose = () => {
    clearTimeout(session.idleTimer);
    forget();
    const id = session.transport.sessionId;
    pending.delete(session);
    if (id === undefined || !sessions.delete(id)) return;
    host.sessionClosed?.(id);
  };
  return session;
}

function createSessionPool(
  host: HttpHostServer,
  transportClass: typeof NodeStreamableHTTPServerTransport,
  eventStore: EndpointEventStore,
  limits: PoolLimits,
): SessionPool {
  const registry: SessionRegistry = { sessions: new Map(), pending: new Set(), perClient: clientCounts() };
  const { sessions, pending, perClient } = registry;
  const { track, expireWhenIdle } = sessionActivity(limits.idleTimeout, (id) => sessions.has(id));
  return {
    get size() {
      return sessions.size;
    },
    get: (id) => sessions.get(id),
    capReached: (client) => {
      if (sessions.size + pending.size >= limits.maxSessions) return 'endpoint';
      return perClient.of(client) >= limits.maxSessionsPerClient ? 'client' : undefined;
    },
    open: async (request, response, body, client) => {
      const session = newSession(host, transportClass, eventStore, registry, client);
      pending.add(session);
      track(session, request, response);
      try {
        await session.server.connect(session.transport);
        await session.transport.handleRequest(request, response, body);
      } finally {
        if (session.transport.sessionId === undefined) {
          pending.delete(session);
          session.forget();
          await session.server.close();
        } else {
          expireWhenIdle(session);
        }
      }
    },
    track,
    closeAll: async () => {
      const all = [...sessions.values(), ...pending];
      pending.clear();
      // each transport's onclose removes its session and reports it
      await Promise.all(all.map(closeSession));
      sessions.clear();
    },
  };
}

/** The Host and Origin values an endpoint accepts (see {@link StreamableHttpOptions}). */
interface Access {
  readonly hosts: readonly string[] | undefined;
  readonly origins: readonly string[];
}

function accessFor(
  options: StreamableHttpOptions,
  bindHost: string,
  canonical: string | undefined,
  port: number,
): Access {
  return {
    hosts: options.allowedHosts ?? (canonical === undefined ? undefined : loopbackHosts(bindHost, canonical, port)),
    origins:
      options.allowedOrigins ?? loopbackHosts(bindHost, canonical ?? bindHost, port).map((name) => `http://${name}`),
  };
}

/**
 * Reads a request body as UTF-8 text, or stops at `limit` bytes with `too-large` and leaves the
 * rest unread but not destroyed, so the 413 can drain it and reach the client (a body sent without
 * Content-Length is found too large only while it is read).
 */
function readBounded(request: IncomingMessage, limit: number): Promise<{ text: string } | 'too-large'> {
  if (Number(headerValue(request, 'content-length')) > limit) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const received = { bytes: 0 };
    const stop = (): void => {
      request.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      received.bytes += chunk.length;
      if (received.bytes <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      request.pause();
      resolve('too-large');
    };
    const onEnd = (): void => {
      stop();
      resolve({ text: Buffer.concat(chunks).toString('utf8') });
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    request.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/** A request's body as {@link readJsonBody} read it: JSON, not JSON, or over the size limit. */
type ReadBody =
  | { readonly outcome: 'parsed'; readonly body: unknown }
  | { readonly outcome: 'invalid' | 'too-large'; readonly body: undefined };

/** A request's era and body, as {@link EraRouting.classify} read them. */
type Classified = ReadBody & { readonly era: 'modern' | 'legacy' };

/**
 * Reads a POST's body as JSON (no body: `undefined`); a body over the size limit is left for the
 * 413 to drain.
 */
async function readJsonBody(request: IncomingMessage): Promise<ReadBody> {
  const read = request.method === 'POST' ? await readBounded(request, MAX_REQUEST_BODY_BYTES) : { text: '' };
  if (read === 'too-large') return { outcome: 'too-large', body: undefined };
  try {
    return { outcome: 'parsed', body: read.text === '' ? undefined : (JSON.parse(read.text) as unknown) };
  } catch {
    return { outcome: 'invalid', body: undefined };
  }
}

/** How a request without a session is told apart and served (the SDK's pieces, loaded once). */
interface EraRouting {
  /** Reads the body ({@link readJsonBody}) and decides: `modern` (a 2026-07-28 request), else `legacy`. */
  classify(request: IncomingMessage): Promise<Classified>;
  /** Serves a 2026-07-28 request on a fresh SDK server. */
  readonly modern: NodeMcpRequestHandler;
}

async function eraRouting(host: HttpHostServer): Promise<EraRouting & { close(): Promise<void> }> {
  // Loaded here, not with the server module: a stdio server never needs them.
  const [{ createMcpHandler, isLegacyRequest }, { toNodeHandler, toWebRequest }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
  ]);
  const handler = createMcpHandler(() => host.createSdkServer('modern'), { legacy: 'reject' });
  return {
    classify: async (request) => {
      const read = await readJsonBody(request);
      if (read.outcome !== 'parsed') return { ...read, era: 'legacy' };
      const web = await toWebRequest(request as NodeIncomingMessageLike, read.body);
      return { ...read, era: (await isLegacyRequest(web, read.body)) ? 'legacy' : 'modern' };
    },
    modern: toNodeHandler(handler),
    close: () => handler.close(),
  };
}

/**
 * Refuses a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its arguments (see
 * param-headers.ts), before the SDK sees it: HTTP 400, JSON-RPC -32020, and one log line naming
 * the header and the rule, never a value.
 *
 * @returns whether the request was refused (and answered).
 */
function refusedParamHeaders(
  host: HttpHostServer,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
): boolean {
  if (!isRecord(body) || body['method'] !== 'tools/call' || !isRecord(body['params'])) return false;
  const { name, arguments: args } = body['params'];
  if (typeof name !== 'string') return false;
  const refusal = checkParamHeaders(paramHeaderDeclarations(host.toolInputSchema(name)), args, request.headersDistinct);
  if (refusal === undefined) return false;
  host.logger.warn(
    { tool: name, rule: refusal.rule, header: refusal.header },
    'streamable HTTP tools/call refused: its Mcp-Param headers and arguments disagree',
  );
  const id = typeof body['id'] === 'string' || typeof body['id'] === 'number' ? body['id'] : null;
  const error = {
    code: HEADER_MISMATCH_CODE,
    message: `Bad Request: the request headers and body disagree: ${refusal.reason}`,
    data: { mismatch: { header: refusal.header, body: refusal.reason }, rule: refusal.rule },
  };
  response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error }));
  return true;
}

/**
 * Serves a request of a session under the version its `initialize` negotiated when the request's
 * `MCP-Protocol-Version` header names an older supported one: the SDK's transport sends priming
 * events and offers `closeSSE` (SSE polling) by the header's version, and some clients send a
 * stale one after negotiating 2025-11-25. Unsupported values stay as sent, for the transport to refuse.
 */
function alignProtocolVersion(session: Session, request: IncomingMessage): void {
  const negotiated = session.server.getNegotiatedProtocolVersion();
  const sent = headerValue(request, 'mcp-protocol-version');
  if (negotiated === undefined || sent === undefined || sent >= negotiated) return;
  if (!supportedProtocolVersions.includes(sent)) return;
  // The transport builds its Fetch request from rawHeaders, so both views are changed.
  request.headers['mcp-protocol-version'] = negotiated;
  for (let index = 0; index < request.rawHeaders.length; index += 2)
    if (request.rawHeaders[index]?.toLowerCase() === 'mcp-protocol-version') request.rawHeaders[index + 1] = negotiated;
}

/**
 * How much of an oversized body is read and thrown away before the 413 goes out, and for how long,
 * in bytes and milliseconds: a socket closed with the body still arriving is reset, and a client
 * still sending never reads the answer. Past either bound the answer goes out and the socket is cut.
 */
const OVERSIZED_BODY_DRAIN = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Answers a body over the SDK's size limit, whatever the era or session: HTTP 413 and a JSON-RPC
 * error saying the limit, sent once the rest of the body has been read (within
 * {@link OVERSIZED_BODY_DRAIN}), so the client is done sending and reads it.
 */
function refuseTooLarge(request: IncomingMessage, response: ServerResponse): void {
  const answer = (): void => {
    if (response.headersSent) return;
    clearTimeout(timer);
    refuse(
      response,
      413,
      -32000,
      `Payload Too Large: the request body is over ${MAX_REQUEST_BODY_BYTES} bytes; send a smaller request`,
      // the unread rest of a body cut short would otherwise be taken for the next request
      { connection: 'close' },
      { limit_bytes: MAX_REQUEST_BODY_BYTES },
    );
  };
  const cut = (): void => {
    answer();
    request.destroy();
  };
  const timer = setTimeout(cut, OVERSIZED_BODY_DRAIN.ms);
  const drained = { bytes: 0 };
  request.on('data', (chunk: Buffer) => {
    drained.bytes += chunk.length;
    if (drained.bytes > OVERSIZED_BODY_DRAIN.bytes) cut();
  });
  request.once('end', answer).once('error', answer);
  if (request.readableEnded) answer();
  request.resume();
}

/** The JSON-RPC request ids in a parsed POST body (a message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.flatMap((message) =>
    isRecord(message) &&
    typeof message['method'] === 'string' &&
    (typeof message['id'] === 'string' || typeof message['id'] === 'number')
      ? [message['id']]
      : [],
  );
}

/**
 * Cancels a session's requests whose answers were to go on `response` when the connection closes
 * before the response is complete: nobody waits for them, and their handlers (a queued sandbox
 * run, a rate-limit reservation, an upstream request) stop on the abort of their signal. A stream
 * the server ends itself (SSE polling) completes, so its calls go on.
 */
function cancelWhenAbandoned(session: Session, response: ServerResponse, body: unknown): void {
  const ids = requestIds(body);
  if (ids.length === 0) return;
  response.once('close', () => {
    if (response.writableFinished) return;
    for (const requestId of ids)
      session.transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the HTTP connection that was to carry the answer closed' },
      });
  });
}

/**
 * Refuses a session's GET whose `Last-Event-ID` the session cannot replay: an id of another
 * session's stream, or no id at all, gets HTTP 400 (the SDK's answer to an unknown id); one whose
 * stream lost events after it to the store's byte bounds gets HTTP 410, rather than a replay
 * with a gap.
 *
 * @returns whether the request was refused (and answered).
 */
function refusedReplay(session: Session, request: IncomingMessage, response: ServerResponse): boolean {
  const lastEventId = headerValue(request, 'last-event-id');
  if (request.method !== 'GET' || lastEventId === undefined || lastEventId === '') return false;
  const status = session.events.status(lastEventId);
  if (status === 'kept') return false;
  if (status === 'unknown') {
    refuse(
      response,
      400,
      -32000,
      'Bad Request: Last-Event-ID is not an event of this session',
      {},
      {
        reason: 'unknown_event_id',
      },
    );
    return true;
  }
  refuse(
    response,
    410,
    -32000,
    'Gone: events after Last-Event-ID were dropped by the event store bound; the answers they carried are lost: open a new stream without Last-Event-ID and send again the requests still unanswered',
    {},
    { reason: 'events_evicted' },
  );
  return true;
}

/** Serves a request of an open session. */
async function sessionRequest(session: Session, request: IncomingMessage, response: ServerResponse): Promise<void> {
  alignProtocolVersion(session, request);
  if (request.method !== 'POST') {
    if (refusedReplay(session, request, response)) return;
    await session.transport.handleRequest(request, response);
    return;
  }
  // a session's era is settled: only its body is read
  const { body, outcome } = await readJsonBody(request);
  if (outcome === 'too-large') {
    refuseTooLarge(request, response);
    return;
  }
  if (outcome === 'invalid') {
    refuse(response, 400, -32700, 'Parse error: the body is not valid JSON');
    return;
  }
  cancelWhenAbandoned(session, response, body);
  await session.transport.handleRequest(request, response, body);
}

/** Refuses a new session past a cap: HTTP 503 when the endpoint is full, 429 when this client has its share. */
function refuseSession(
  host: HttpHostServer,
  response: ServerResponse,
  cap: 'endpoint' | 'client',
  limits: PoolLimits,
): void {
  const retryAfter = { 'retry-after': String(Math.ceil(Math.min(limits.idleTimeout, 60_000) / 1000)) };
  if (cap === 'endpoint') {
    host.logger.warn(
      { max_sessions: limits.maxSessions },
      'streamable HTTP session refused: the session limit is reached',
    );
    refuse(response, 503, -32000, `Too many sessions (at most ${limits.maxSessions}); try again later`, retryAfter, {
      limit: 'max_sessions',
      max: limits.maxSessions,
    });
    return;
  }
  host.logger.warn(
    { max_sessions_per_client: limits.maxSessionsPerClient },
    'streamable HTTP session refused: this client address has its share of sessions',
  );
  refuse(
    response,
    429,
    -32000,
    `Too many sessions from this client address (at most ${limits.maxSessionsPerClient}); end one you no longer use (HTTP DELETE with its Mcp-Session-Id) or reuse it, then try again`,
    retryAfter,
    { limit: 'max_sessions_per_client', max: limits.maxSessionsPerClient },
  );
}

/** Serves a request without a session: a 2026-07-28 request, or a 2025-era `initialize`. */
async function sessionlessRequest(
  host: HttpHostServer,
  pool: SessionPool,
  routing: EraRouting,
  limits: PoolLimits,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { era, body, outcome } = await routing.classify(request);
  if (outcome === 'too-large') {
    refuseTooLarge(request, response);
    return;
  }
  if (era === 'modern') {
    if (refusedParamHeaders(host, request, response, body)) return;
    await routing.modern(request as NodeIncomingMessageLike, response, body);
    return;
  }
  if (outcome === 'invalid') {
    refuse(response, 400, -32700, 'Parse error: the body is not valid JSON');
    return;
  }
  const client = request.socket.remoteAddress ?? 'unknown';
  const cap = pool.capReached(client);
  if (cap !== undefined) {
    refuseSession(host, response, cap, limits);
    return;
  }
  await pool.open(request, response, body, client);
}

/** The request handler of an endpoint, given its settings once the port is known. */
function requestHandler(
  host: HttpHostServer,
  pool: SessionPool,
  routing: EraRouting,
  path: string,
  state: EndpointState,
  limits: PoolLimits,
) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://placeholder');
    if (url.pathname !== path) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (state.draining || state.access === undefined) {
      refuse(response, 503, -32000, 'Server is shutting down', { 'retry-after': '1', connection: 'close' });
      return;
    }
    const problem = originProblem(request, state.access.hosts, state.access.origins);
    if (problem !== undefined) {
      refuse(response, 403, -32000, problem);
      return;
    }
    const sessionId = headerValue(request, 'mcp-session-id');
    if (sessionId === undefined) {
      await sessionlessRequest(host, pool, routing, limits, request, response);
      return;
    }
    const session = pool.get(sessionId);
    if (session === undefined) {
      refuse(response, 404, -32001, 'Session not found');
      return;
    }
    pool.track(session, request, response);
    await sessionRequest(session, request, response);
  };
}

/** Where a request stands while an endpoint runs: draining after a shutdown began; access once the port is known. */
interface EndpointState {
  draining: boolean;
  access: Access | undefined;
}

/** The node:http server of an endpoint: counts the requests a shutdown waits for and answers a failed one with 500. */
function createListener(
  host: HttpHostServer,
  requests: ReturnType<typeof requestCounter>,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): HttpServer {
  return createServer((request, response) => {
    // a notification stream (GET) stays open as long as its client wants: a shutdown waits for calls only
    if (request.method !== 'GET') {
      requests.start();
      response.once('close', () => {
        requests.end();
      });
    }
    handle(request, response).catch((error: unknown) => {
      host.logger.error(
        { error: error instanceof Error ? { type: error.name, message: error.message } : { type: typeof error } },
        'streamable HTTP request failed',
      );
      if (response.headersSent) response.end();
      else refuse(response, 500, -32603, 'Internal error: the request failed; see the server log');
    });
  });
}

function listen(httpServer: HttpServer, port: number, bindHost: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, bindHost, () => {
      httpServer.off('error', reject);
      resolve((httpServer.address() as AddressInfo).port);
    });
  });
}

/** The parts an endpoint closes, and what tells it that no request is in progress. */
interface EndpointParts {
  readonly host: HttpHostServer;
  readonly httpServer: HttpServer;
  readonly pool: SessionPool;
  readonly routing: { close(): Promise<void> };
  readonly requests: ReturnType<typeof requestCounter>;
  readonly state: EndpointState;
}

/** {@link StreamableHttpHandle.close} and {@link StreamableHttpHandle.shutdown} of an endpoint. */
function endpointStoppers(parts: EndpointParts): Pick<StreamableHttpHandle, 'close' | 'shutdown'> {
  const { host, httpServer, pool, routing, requests, state } = parts;
  const close = async (): Promise<void> => {
    await Promise.all([pool.closeAll(), routing.close()]);
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => {
      httpServer.close(() => {
        resolve();
      });
    });
  };
  const shutdown = async (graceMs: number = DEFAULT_SHUTDOWN_GRACE_MS): Promise<ShutdownReport> => {
    state.draining = true;
    httpServer.close();
    httpServer.closeIdleConnections();
    // an operator (and a test) sees the moment the endpoint stopped taking connections
    host.logger.warn(
      { grace_ms: graceMs },
      'shutting down: no new connections; tool calls in progress have the grace period to finish',
    );
    let forcedCalls = 0;
    if ((await Promise.race([requests.drained(), delay(graceMs)])) === 'timeout') {
      forcedCalls = host.calls.force();
      host.logger.warn(
        { forced_calls: forcedCalls, grace_ms: graceMs },
        'shutting down: tool calls still running after the grace period were answered with a retryable envelope',
      );
      // the answers are on their way; give them a moment to be written before the sockets close
      await Promise.race([requests.drained(), delay(2000)]);
    }
    await close();
    return { forcedCalls };
  };
  return { close, shutdown };
}

/**
 * Serves Streamable HTTP on node:http with one session per client.
 *
 * @param host - the envelope server's parts the host uses.
 * @param options - see {@link StreamableHttpOptions}.
 * @returns the running endpoint.
 * @throws Error when `options.host` is not a loopback address and `allowedOrigins` is not given,
 *   or when the port cannot be bound.
 */
export async function serveStreamableHttp(
  host: HttpHostServer,
  options: StreamableHttpOptions = {},
): Promise<StreamableHttpHandle> {
  // Loaded here, not with the server module: a stdio server never needs it.
  const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
  const bindHost = options.host ?? '127.0.0.1';
  const canonical = loopbackHostname(bindHost);
  if (canonical === undefined && options.allowedOrigins === undefined) {
    throw new Error(
      `serveStreamableHttp: ${bindHost} is not a loopback address, so allowedOrigins must be given (the origins browsers may call from; [] refuses every request that sends an Origin): MCP servers must validate Origin`,
    );
  }
  const limits: PoolLimits = {
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    maxSessionsPerClient: options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT,
    idleTimeout: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  };
  const eventStore = createEventStore({
    maxStreamBytes: options.eventStoreMaxStreamBytes,
    maxTotalBytes: options.eventStoreMaxTotalBytes,
  });
  const pool = createSessionPool(host, NodeStreamableHTTPServerTransport, eventStore, limits);
  const routing = await eraRouting(host);
  const requests = requestCounter();
  const state: EndpointState = { draining: false, access: undefined };
  const path = options.path ?? '/mcp';
  const handle = requestHandler(host, pool, routing, path, state, limits);
  const httpServer = createListener(host, requests, handle);
  const port = await listen(httpServer, options.port ?? 0, bindHost);
  state.access = accessFor(options, bindHost, canonical, port);
  const urlHost = bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  return {
    url: new URL(`http://${urlHost}:${port}${path}`),
    port,
    httpServer,
    get sessionCount() {
      return pool.size;
    },
    get eventStoreBytes() {
      return eventStore.bytesHeld;
    },
    ...endpointStoppers({ host, httpServer, pool, routing, requests, state }),
  };
}

/**
 * Parses an allowed-origins setting as command lines take it: origins separated by commas
 * (`http://localhost:3000,https://app.example`), or `none` for an empty list (every request that
 * sends an Origin is refused).
 *
 * @param value - the setting's text.
 * @returns the origins.
 * @throws TypeError when an entry is not an `http(s)://host[:port]` origin.
 */
export function parseAllowedOrigins(value: string): string[] {
  if (value.trim() === 'none') return [];
  return value.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new TypeError(`"${origin}" is not an origin such as http://localhost:3000 (scheme, host and port only)`);
    }
    return origin;
  });
}

/**
 * Makes SIGTERM and SIGINT stop an endpoint gracefully (see {@link StreamableHttpHandle.shutdown}),
 * once; a second signal during the shutdown is ignored, so that in-flight calls still get their answer.
 *
 * @param handle - the running endpoint.
 * @param graceMs - the grace period in milliseconds.
 * @param stopped - called when the endpoint is closed (a CLI exits there).
 */
export function shutdownOnSignals(
  handle: StreamableHttpHandle,
  graceMs: number,
  stopped: (report: ShutdownReport) => void,
): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void handle.shutdown(graceMs).then(stopped, () => {
      stopped({ forcedCalls: 0 });
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
