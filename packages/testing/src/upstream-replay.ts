/**
 * A loopback HTTP server that plays an upstream API and its OAuth 2.0 token endpoint from
 * recorded responses. Tests of the adapters and the conformance gate point a reference server at
 * it with `--upstream` (and its token endpoint setting at {@link UpstreamReplay.tokenUrl}); a
 * vendor's package sets the token path and token its servers expect.
 *
 * How a request is answered, first match wins:
 * 1. the token path (`POST /oauth2/token` by default): the token response;
 * 2. a route (method, path and, when the route names them, query parameters), newest route first;
 *    a route with a usage plan answers past its token bucket with the plan's throttled answer;
 * 3. the queue of scripted responses (first in, first out);
 * 4. the standing response set with {@link UpstreamReplay.respond};
 * 5. otherwise HTTP 599 with a JSON body naming the unscripted request, so a test fails visibly.
 *
 * It never reaches the network: it listens on 127.0.0.1 and only answers.
 *
 * @packageDocumentation
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded HTTP answer. */
export interface RecordedResponse {
  /** HTTP status code (100-599). */
  readonly status: number;
  /** Response headers as recorded (any casing). Framing headers (`content-length`, ...) are left to Node. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A string or bytes (a `Uint8Array`, e.g. a gzip body with its `content-encoding` recorded) are
   * sent as they are; any other value as JSON (with `content-type: application/json` unless a
   * content type is recorded).
   */
  readonly body?: unknown;
  /** Wait this long before answering, in milliseconds. */
  readonly delayMs?: number;
  /** Close the connection without any HTTP answer (after `delayMs`), as a reset or a crashed upstream does; `status` is then ignored. */
  readonly dropConnection?: boolean;
  /** Send the body one byte at a time, this many milliseconds apart (a stalled or trickling upstream). */
  readonly dripIntervalMs?: number;
  /** Send the headers and this many bytes of the body, then reset the connection (a body cut off midway). */
  readonly resetAfterBytes?: number;
}

/**
 * A token bucket a route enforces, as an upstream's usage plan does: `burst` requests at once,
 * then `ratePerSecond` on average; a request past it gets `throttled` instead of the route's
 * answer (and is recorded with `answeredBy: 'throttled'`).
 */
export interface ReplayUsagePlan {
  /** Tokens added per second (> 0). */
  readonly ratePerSecond: number;
  /** Capacity of the bucket, full at the start (>= 1). */
  readonly burst: number;
  /** A response header set to `ratePerSecond` on every answer of the route (a vendor's rate-limit header); absent: none. */
  readonly limitHeader?: string;
  /** The answer past the plan (default: HTTP 429 with a JSON `{ "message": "rate limit exceeded" }` body). */
  readonly throttled?: RecordedResponse;
}

/** A recorded answer for every request that matches. */
export interface ReplayRoute {
  /** HTTP method, any casing; absent matches every method. */
  readonly method?: string;
  /** The path without the query string, e.g. `/orders/v0/orders`. */
  readonly path: string;
  /** Query parameters the request must carry with exactly these values; others are ignored. */
  readonly query?: Readonly<Record<string, string>>;
  /** What a matching request is answered with (within the usage plan, when there is one). */
  readonly response: RecordedResponse;
  /** Enforce this usage plan on the route's requests; absent: every request gets `response`. */
  readonly usagePlan?: ReplayUsagePlan;
}

/** How a request was answered. */
export type ReplayAnswerSource = 'token' | 'route' | 'throttled' | 'queue' | 'standing' | 'unscripted';

/** One request the replay server received. */
export interface ReplayRequest {
  /** Upper-case method. */
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  /** Path without the query string. */
  readonly path: string;
  /** The raw query string without `?` (`''` when none). */
  readonly rawQuery: string;
  /** The query parameters, decoded. */
  readonly query: URLSearchParams;
  /** The request headers as Node.js received them (lower-case names). */
  readonly headers: IncomingHttpHeaders;
  /** The request body as UTF-8 text. */
  readonly body: string;
  /** Which rule answered it: the token path, a route, a route's throttled answer, the queue, the standing response, or none. */
  readonly answeredBy: ReplayAnswerSource;
}

/** Options of {@link startUpstreamReplay}. */
export interface UpstreamReplayOptions {
  /** Routes to serve from the start. */
  readonly routes?: readonly ReplayRoute[];
  /** The token endpoint's path (default {@link DEFAULT_REPLAY_TOKEN_PATH}). */
  readonly tokenPath?: string;
  /** The access token the default token response hands out (default {@link DEFAULT_REPLAY_ACCESS_TOKEN}). */
  readonly accessToken?: string;
  /** The standing response for requests nothing else answers (default: none, so HTTP 599). */
  readonly standing?: RecordedResponse;
}

/** A running replay server. */
export interface UpstreamReplay {
  /** `http://127.0.0.1:<port>`, for `--upstream`. */
  readonly url: string;
  /** The token endpoint, for the server's token endpoint setting. */
  readonly tokenUrl: string;
  /** Every request except token requests, in arrival order (throttled ones too, `answeredBy: 'throttled'`). */
  readonly requests: ReplayRequest[];
  /** Token requests (form bodies), in arrival order. */
  readonly tokenRequests: ReplayRequest[];
  /**
   * Resolves once {@link UpstreamReplay.requests} holds at least `count` requests that `matching`
   * accepts (all requests when absent), at once if it already does: a test waits for the server
   * under test to have sent its calls instead of polling the log on a timer.
   *
   * @param count - how many matching requests to wait for (>= 1).
   * @param matching - which requests count; absent: every request except token requests.
   */
  whenRequests(count: number, matching?: (request: ReplayRequest) => boolean): Promise<void>;
  /** Adds routes; a route added later wins over an earlier one for the same request. */
  route(...routes: ReplayRoute[]): void;
  /** Queues answers for the next requests no route matches (first in, first out). */
  enqueue(...responses: RecordedResponse[]): void;
  /** Sets (or with `undefined` clears) the answer for requests nothing else answers. */
  respond(response: RecordedResponse | undefined): void;
  /** Sets what the token endpoint answers; `undefined` restores the default token. */
  setTokenResponse(response: RecordedResponse | undefined): void;
  /** Drops every route (and its usage plan's bucket), queued answer, standing answer and token override (request logs are kept). */
  reset(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** The access token the default token response hands out unless `accessToken` says otherwise. */
export const DEFAULT_REPLAY_ACCESS_TOKEN = 'replay-access-token-0001';

/** The token endpoint path unless `tokenPath` says otherwise. */
export const DEFAULT_REPLAY_TOKEN_PATH = '/oauth2/token';

/** Headers Node computes itself; a recorded value would contradict the body actually sent. */
const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

/**
 * Whether a route matches a request.
 *
 * @param route - the route.
 * @param method - the request's upper-case method.
 * @param path - the request's path without query.
 * @param query - the request's query parameters.
 * @returns `true` when method (if given), path and every named query parameter match.
 */
export function routeMatches(route: ReplayRoute, method: string, path: string, query: URLSearchParams): boolean {
  if (route.method !== undefined && route.method.toUpperCase() !== method) return false;
  if (route.path !== path) return false;
  for (const [name, value] of Object.entries(route.query ?? {})) if (query.get(name) !== value) return false;
  return true;
}

/** The default answer past a usage plan. */
const DEFAULT_THROTTLED: RecordedResponse = { status: 429, body: { message: 'rate limit exceeded' } };

/** One route's bucket: whole and partial tokens, and when they were counted (ms, monotonic). */
interface PlanBucket {
  tokens: number;
  at: number;
}

/**
 * Answers a request a route matched: takes a token from the route's bucket (created full), and
 * adds the plan's limit header when it has one.
 *
 * @returns the route's answer, or the plan's throttled answer when the bucket is empty.
 */
function answerWithPlan(
  route: ReplayRoute,
  buckets: Map<ReplayRoute, PlanBucket>,
): { response: RecordedResponse; source: ReplayAnswerSource } {
  const plan = route.usagePlan;
  if (plan === undefined) return { response: route.response, source: 'route' };
  const now = performance.now();
  const bucket = buckets.get(route) ?? { tokens: plan.burst, at: now };
  bucket.tokens = Math.min(plan.burst, bucket.tokens + ((now - bucket.at) / 1000) * plan.ratePerSecond);
  bucket.at = now;
  buckets.set(route, bucket);
  const granted = bucket.tokens >= 1;
  if (granted) bucket.tokens -= 1;
  const answer = granted ? route.response : (plan.throttled ?? DEFAULT_THROTTLED);
  const headers =
    plan.limitHeader === undefined
      ? answer.headers
      : { ...answer.headers, [plan.limitHeader]: String(plan.ratePerSecond) };
  return {
    response: { ...answer, ...(headers === undefined ? {} : { headers }) },
    source: granted ? 'route' : 'throttled',
  };
}

function bodyBytes(body: unknown): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
}

/** Writes `body` one byte per `intervalMs`, stopping when the client goes away. */
function drip(response: ServerResponse, body: Buffer, intervalMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= body.length) {
      clearInterval(timer);
      response.end();
      return;
    }
    response.write(body.subarray(sent, sent + 1));
    sent += 1;
  }, intervalMs);
  response.on('close', () => {
    clearInterval(timer);
  });
}

/** Sends the recorded body: whole, dripped, or cut off after `resetAfterBytes` bytes. */
function sendBody(request: IncomingMessage, response: ServerResponse, answer: RecordedResponse): void {
  const body = bodyBytes(answer.body);
  if (answer.resetAfterBytes !== undefined) {
    response.flushHeaders();
    response.write(body.subarray(0, answer.resetAfterBytes), () => {
      setTimeout(() => request.socket.destroy(), 20);
    });
    return;
  }
  if (answer.dripIntervalMs !== undefined) {
    response.flushHeaders();
    drip(response, body, answer.dripIntervalMs);
    return;
  }
  response.end(body);
}

/** Sends one recorded answer: drops the connection, or writes its status, headers and body. */
function sendAnswer(request: IncomingMessage, response: ServerResponse, answer: RecordedResponse): void {
  if (answer.dropConnection === true) {
    request.socket.destroy();
    return;
  }
  const headers = Object.entries(answer.headers ?? {}).filter(([name]) => !FRAMING_HEADERS.has(name.toLowerCase()));
  for (const [name, value] of headers) response.setHeader(name, value);
  const hasContentType = headers.some(([name]) => name.toLowerCase() === 'content-type');
  if (
    !hasContentType &&
    answer.body !== undefined &&
    typeof answer.body !== 'string' &&
    !(answer.body instanceof Uint8Array)
  )
    response.setHeader('content-type', 'application/json');
  response.statusCode = answer.status;
  sendBody(request, response, answer);
}

/** Listens on 127.0.0.1 with an OS-chosen port; resolves with the server's base URL. */
async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Reads one request to its end, asks `answerFor` what to send, records the request and sends the
 * answer, after its `delayMs` when it has one (the timer is dropped if the client goes away).
 */
function serveReplayRequest(
  request: IncomingMessage,
  response: ServerResponse,
  answerFor: (
    method: string,
    path: string,
    query: URLSearchParams,
    url: string,
  ) => { response: RecordedResponse; source: ReplayAnswerSource },
  record: (received: ReplayRequest) => void,
): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = request.url ?? '/';
    const cut = url.indexOf('?');
    const path = cut === -1 ? url : url.slice(0, cut);
    const rawQuery = cut === -1 ? '' : url.slice(cut + 1);
    const query = new URLSearchParams(rawQuery);
    const method = (request.method ?? 'GET').toUpperCase();
    const { response: answer, source } = answerFor(method, path, query, url);
    record({
      method,
      url,
      path,
      rawQuery,
      query,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      answeredBy: source,
    });
    const send = (): void => {
      sendAnswer(request, response, answer);
    };
    if (answer.delayMs === undefined) send();
    else {
      const timer = setTimeout(send, answer.delayMs);
      response.on('close', () => {
        clearTimeout(timer);
      });
    }
  });
}

/** The waits of {@link UpstreamReplay.whenRequests}: `check` after each request settles those now met. */
function arrivalWaiters(requests: readonly ReplayRequest[]): {
  check(): void;
  when: UpstreamReplay['whenRequests'];
} {
  const waiting = new Set<() => boolean>();
  return {
    check: () => {
      for (const settled of waiting) if (settled()) waiting.delete(settled);
    },
    when: (count, matching = () => true) =>
      new Promise<void>((resolve) => {
        const settled = (): boolean => {
          if (requests.filter(matching).length < count) return false;
          resolve();
          return true;
        };
        if (!settled()) waiting.add(settled);
      }),
  };
}

/**
 * Starts a replay server on 127.0.0.1 with an OS-chosen port.
 *
 * @param options - initial routes, token path and token, standing answer.
 * @returns the running server.
 */
export async function startUpstreamReplay(options: UpstreamReplayOptions = {}): Promise<UpstreamReplay> {
  const tokenPath = options.tokenPath ?? DEFAULT_REPLAY_TOKEN_PATH;
  const defaultToken: RecordedResponse = {
    status: 200,
    body: { access_token: options.accessToken ?? DEFAULT_REPLAY_ACCESS_TOKEN, token_type: 'bearer', expires_in: 3600 },
  };
  let routes: ReplayRoute[] = [...(options.routes ?? [])];
  let queue: RecordedResponse[] = [];
  let standing: RecordedResponse | undefined = options.standing;
  let tokenResponse: RecordedResponse | undefined;
  let buckets = new Map<ReplayRoute, PlanBucket>();
  const requests: ReplayRequest[] = [];
  const tokenRequests: ReplayRequest[] = [];
  const arrivals = arrivalWaiters(requests);

  function answerFor(
    method: string,
    path: string,
    query: URLSearchParams,
    url: string,
  ): { response: RecordedResponse; source: ReplayAnswerSource } {
    if (path === tokenPath) return { response: tokenResponse ?? defaultToken, source: 'token' };
    for (let index = routes.length - 1; index >= 0; index -= 1) {
      const route = routes[index];
      if (route !== undefined && routeMatches(route, method, path, query)) return answerWithPlan(route, buckets);
    }
    const queued = queue.shift();
    if (queued !== undefined) return { response: queued, source: 'queue' };
    if (standing !== undefined) return { response: standing, source: 'standing' };
    return {
      response: { status: 599, body: { message: `unscripted request ${method} ${url}` } },
      source: 'unscripted',
    };
  }

  const server: Server = createServer((request, response) => {
    serveReplayRequest(request, response, answerFor, (received) => {
      (received.answeredBy === 'token' ? tokenRequests : requests).push(received);
      arrivals.check();
    });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    tokenUrl: `${url}${tokenPath}`,
    requests,
    tokenRequests,
    whenRequests: arrivals.when,
    route: (...added) => {
      routes.push(...added);
    },
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    respond: (response) => {
      standing = response;
    },
    setTokenResponse: (response) => {
      tokenResponse = response;
    },
    reset: () => {
      routes = [];
      buckets = new Map();
      queue = [];
      standing = undefined;
      tokenResponse = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
