/**
 * A real HTTP server on 127.0.0.1 that plays SP-API and the LWA token endpoint for tests: it
 * answers each SP-API request with the response queued for it and records what it received.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One canned HTTP answer. */
export interface CannedResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON. */
  readonly body?: unknown;
  /** Wait this long before answering, in milliseconds. */
  readonly delayMs?: number;
}

/** A request the fake received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** The raw query string (without `?`). */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The fake upstream. */
export interface FakeUpstream {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The LWA token URL on the same server. */
  readonly tokenUrl: string;
  /** SP-API requests received, in order. */
  readonly requests: RecordedRequest[];
  /** Token requests received, in order. */
  readonly tokenRequests: RecordedRequest[];
  /** Answer for the next SP-API requests (kept until replaced). */
  respond(response: CannedResponse): void;
  /** Answer for the next token requests (default: a fresh access token each time). */
  respondToken(response: CannedResponse | undefined): void;
  close(): Promise<void>;
}

const FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive']);

/** Path of the fake LWA token endpoint. */
export const TOKEN_PATH = '/auth/o2/token';

/**
 * Starts the fake upstream.
 *
 * @returns it, listening on an OS-chosen port.
 */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const tokenRequests: RecordedRequest[] = [];
  let next: CannedResponse = { status: 200, body: {} };
  let token: CannedResponse | undefined;
  let issued = 0;

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = request.url ?? '/';
      const cut = raw.indexOf('?');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: cut === -1 ? raw : raw.slice(0, cut),
        rawQuery: cut === -1 ? '' : raw.slice(cut + 1),
        query: new URLSearchParams(cut === -1 ? '' : raw.slice(cut + 1)),
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      let answer: CannedResponse;
      if (recorded.path === TOKEN_PATH) {
        tokenRequests.push(recorded);
        issued += 1;
        answer = token ?? { status: 200, headers: { 'content-type': 'application/json' }, body: { access_token: `Atza|fake-access-token-${issued}`, token_type: 'bearer', expires_in: 3600 } };
      } else {
        requests.push(recorded);
        answer = next;
      }
      const send = (): void => {
        const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        // framing headers are Node's to set: a recorded Content-Length rarely matches our body
        const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([name]) => !FRAMING_HEADERS.has(name.toLowerCase())));
        response.writeHead(answer.status, headers);
        response.end(body);
      };
      if (answer.delayMs === undefined) send();
      else setTimeout(send, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUrl: `${url}${TOKEN_PATH}`,
    requests,
    tokenRequests,
    respond: (response) => {
      next = response;
    },
    respondToken: (response) => {
      token = response;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}
