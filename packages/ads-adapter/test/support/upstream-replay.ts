/**
 * A real HTTP server on 127.0.0.1 that plays the Amazon Ads API and the LWA token endpoint:
 * it answers each request with the next scripted response and records what it received.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. A string body is sent as is; anything else as JSON. */
export interface ScriptedResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Wait this long before answering (milliseconds). */
  readonly delayMs?: number;
}

/** One request the replay server received. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The running replay server. */
export interface UpstreamReplay {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The LWA token endpoint on this server. */
  readonly tokenUrl: string;
  /** Every request except token requests, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Token requests (form bodies). */
  readonly tokenRequests: ReceivedRequest[];
  /** Queues answers for the next API requests (FIFO). */
  enqueue(...responses: ScriptedResponse[]): void;
  /** What the token endpoint answers (default: a token valid for an hour). */
  setTokenResponse(response: ScriptedResponse): void;
  close(): Promise<void>;
}

/** Response headers the replay server never copies from a fixture (node computes them). */
const COMPUTED_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** The access token the default token endpoint hands out. */
export const REPLAY_ACCESS_TOKEN = 'Atza|replay-access-token-0001';

/**
 * Starts a replay server. Unscripted API requests get a 599 answer that fails the test visibly.
 *
 * @returns the handle.
 */
export async function startUpstreamReplay(): Promise<UpstreamReplay> {
  const queue: ScriptedResponse[] = [];
  const requests: ReceivedRequest[] = [];
  const tokenRequests: ReceivedRequest[] = [];
  let tokenResponse: ScriptedResponse = { status: 200, body: { access_token: REPLAY_ACCESS_TOKEN, token_type: 'bearer', expires_in: 3600 } };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      const isToken = received.url.startsWith('/auth/o2/token');
      (isToken ? tokenRequests : requests).push(received);
      const scripted = isToken ? tokenResponse : (queue.shift() ?? { status: 599, body: { message: `unscripted request ${received.method} ${received.url}` } });
      const send = (): void => {
        for (const [name, value] of Object.entries(scripted.headers ?? {})) {
          if (!COMPUTED_HEADERS.has(name.toLowerCase())) response.setHeader(name, value);
        }
        if (scripted.headers === undefined || !Object.keys(scripted.headers).some((name) => name.toLowerCase() === 'content-type')) {
          response.setHeader('content-type', 'application/json');
        }
        response.statusCode = scripted.status;
        response.end(scripted.body === undefined ? '' : typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body));
      };
      if (scripted.delayMs === undefined) send();
      else setTimeout(send, scripted.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    tokenUrl: `${url}/auth/o2/token`,
    requests,
    tokenRequests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    setTokenResponse: (response) => {
      tokenResponse = response;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => { resolve(); });
      }),
  };
}
