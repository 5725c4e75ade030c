/**
 * `upstreamFetch`: global `fetch` (undici) with the envelope runtime's bookkeeping. Records each
 * response's telemetry (`rate_limit`, `retry_after_seconds`, `warnings`) in the current call's
 * context, and turns failures into errors the adapter can classify.
 *
 * @packageDocumentation
 */
import type { FailedRequest, HeaderRecord } from './adapter.js';
import { recordResponseMetaInto } from './context.js';
import type { CallRecord, UpstreamFetchInit } from './types.js';
import { UpstreamClientError, UpstreamHttpError } from './errors.js';
import { displayLocation, locationUrl } from './upstream-body/request.js';
import type { UpstreamAnswer } from './rate-limit/upstream-answer.js';
import { endUpstreamSpan, startUpstreamSpan } from './telemetry/upstream-span.js';

export type { UpstreamFetchInit } from './types.js';

/** How many bytes of a failed response's body are read at most (64 KiB). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The default limit on a successful upstream body, declared or decompressed (4 MiB). */
export const DEFAULT_MAX_UPSTREAM_BODY_BYTES = 4 * 1024 * 1024;

/** The env variable (and `get_envelope_contract` setting) that holds the upstream body limit. */
export const MAX_UPSTREAM_BODY_SETTING = 'MCP_MAX_UPSTREAM_BODY_BYTES';

/** How many same-origin redirects one exchange follows at most. */
export const MAX_UPSTREAM_REDIRECTS = 5;

/**
 * Copies response headers into a plain record with lower-case names.
 *
 * @param headers - WHATWG headers.
 * @returns name -> value; repeated headers are joined with `", "` by `Headers` already.
 */
export function headerRecord(headers: Headers): HeaderRecord {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

async function readCappedText(response: Response, limit: number): Promise<string> {
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit - total;
      const chunk = value.byteLength > room ? value.subarray(0, room) : value;
      chunks.push(chunk);
      total += chunk.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function parseBody(text: string, contentType: string | undefined): unknown {
  const trimmed = text.trim();
  const looksJson =
    (contentType ?? '').toLowerCase().includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (!looksJson || trimmed === '') return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

/**
 * One upstream exchange: a single controller that the deadline, the caller's signal and the call's
 * cancellation all abort. The deadline's timer holds the controller, so it fires however long the
 * body takes and whatever the garbage collector does; {@link Exchange.finish} clears it.
 */
interface Exchange {
  readonly signal: AbortSignal;
  readonly request: FailedRequest;
  readonly timeoutMs: number | undefined;
  readonly maxBodyBytes: number;
  /** Whether the deadline fired. */
  timedOut(): boolean;
  /** Clears the timer and the listeners; idempotent. */
  finish(): void;
}

function startExchange(
  sources: readonly AbortSignal[],
  timeoutMs: number | undefined,
  request: FailedRequest,
  maxBodyBytes: number,
): Exchange {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = (event: Event): void => {
    controller.abort((event.target as AbortSignal).reason);
  };
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException(`upstream exchange exceeded ${timeoutMs} ms`, 'TimeoutError'));
        }, timeoutMs);
  for (const source of sources) {
    if (source.aborted) controller.abort(source.reason);
    else source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    request,
    timeoutMs,
    maxBodyBytes,
    timedOut: () => timedOut,
    finish: () => {
      if (timer !== undefined) clearTimeout(timer);
      for (const source of sources) source.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * What a failed `fetch` or body read becomes: a `timeout` failure when the deadline fired, the
 * caller's abort reason unchanged when the caller or the call cancelled, else a `network` failure.
 */
function exchangeFailure(error: unknown, exchange: Exchange, phase: 'headers' | 'body'): unknown {
  if (UpstreamClientError.isInstance(error)) return error;
  const where = phase === 'body' ? { phase: 'body' as const } : {};
  if (exchange.timedOut() && exchange.timeoutMs !== undefined)
    return new UpstreamClientError({
      type: 'timeout',
      timeoutMs: exchange.timeoutMs,
      request: exchange.request,
      ...where,
    });
  if (exchange.signal.aborted) return exchange.signal.reason ?? error;
  return new UpstreamClientError({ type: 'network', cause: error, request: exchange.request, ...where });
}

function tooLarge(exchange: Exchange): UpstreamClientError {
  return new UpstreamClientError({
    type: 'response_too_large',
    subject: 'upstream_body',
    limitBytes: exchange.maxBodyBytes,
    setting: MAX_UPSTREAM_BODY_SETTING,
    request: exchange.request,
  });
}

/**
 * The 2xx body as a stream that stays under the exchange's deadline and limit: it errors with an
 * `UpstreamClientError` (timeout, network with `phase: 'body'`, or `response_too_large`) and
 * finishes the exchange when the body ends, fails or is cancelled.
 */
function guardedBody(source: ReadableStream<Uint8Array>, exchange: Exchange): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let total = 0;
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown): void => {
    exchange.finish();
    reader.cancel().catch(() => undefined);
    controller.error(error);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          stop(controller, exchangeFailure(error, exchange, 'body'));
          return;
        }
        if (chunk.done) {
          exchange.finish();
          controller.close();
          return;
        }
        total += chunk.value.byteLength;
        if (total > exchange.maxBodyBytes) stop(controller, tooLarge(exchange));
        else controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        exchange.finish();
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The statuses whose `Location` a client follows. */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The request a same-origin redirect leads to (a 303, or a 301/302 after a POST, becomes a GET without body, as `fetch` does). */
function redirectedInit(init: RequestInit, status: number): RequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
    const rest: RequestInit = { ...init, method: 'GET' };
    delete rest.body;
    return rest;
  }
  return init;
}

/**
 * Why a redirect from `current` to `next` is not followed, or `undefined` when it is: another
 * origin would receive the request's credentials; user info in the target would make `fetch`
 * refuse it (and would send credentials the upstream chose); more than
 * `MAX_UPSTREAM_REDIRECTS` hops is a loop.
 */
function redirectRefusal(current: URL, next: URL, hop: number): 'cross_origin' | 'user_info' | 'too_many' | undefined {
  if (next.origin !== current.origin) return 'cross_origin';
  if (next.username !== '' || next.password !== '') return 'user_info';
  return hop >= MAX_UPSTREAM_REDIRECTS ? 'too_many' : undefined;
}

/**
 * Sends the request and follows redirects by hand, within one origin only: a redirect to another
 * origin would carry the request's credentials (`Authorization`, an API's own token header) there.
 *
 * @throws UpstreamClientError with a `redirect` failure for a cross-origin redirect or too many hops.
 */
async function fetchWithinOrigin(url: string | URL, init: RequestInit, exchange: Exchange): Promise<Response> {
  let current = new URL(url);
  let currentInit = init;
  for (let hop = 0; ; hop += 1) {
    const response = await fetch(current, { ...currentInit, redirect: 'manual', signal: exchange.signal });
    const location = response.headers.get('location');
    const next =
      REDIRECT_STATUSES.has(response.status) && location !== null ? locationUrl(location, current) : undefined;
    if (next === undefined) return response;
    await response.body?.cancel().catch(() => undefined);
    const reason = redirectRefusal(current, next, hop);
    if (reason !== undefined)
      throw new UpstreamClientError({
        type: 'redirect',
        status: response.status,
        location: displayLocation(next),
        reason,
        request: exchange.request,
      });
    current = next;
    currentInit = redirectedInit(currentInit, response.status);
  }
}

/**
 * Fetches `url` and returns the response when its status is 2xx, its body unread but guarded: the
 * exchange's deadline (`timeoutMs`) and body limit apply while it is read.
 *
 * This free form records no telemetry: inside a tool call, use the handler's `context.fetch`
 * (which calls `fetchInCallRecord`), whose response headers go through the adapter's
 * `parseResponseMeta` into the call's `_meta`. Redirects are followed by hand within the request's origin only (at most
 * `MAX_UPSTREAM_REDIRECTS`); `init.redirect` is ignored.
 *
 * @param url - the absolute URL.
 * @param init - `fetch` options; `timeoutMs` is one deadline for the whole exchange, combined with
 *   `init.signal` and the call's cancellation signal; `maxBodyBytes` caps a 2xx body.
 * @returns the 2xx response. Reading its body rejects with an `UpstreamClientError` when the
 *   deadline passes (`timeout`, `phase: 'body'`), the body breaks off (`network`, `phase: 'body'`)
 *   or grows past the limit (`response_too_large`).
 * @throws UpstreamHttpError on any other status, with the body read once (at most
 *   `MAX_ERROR_BODY_BYTES` bytes; parsed as JSON when it is JSON).
 * @throws UpstreamClientError with a `timeout` failure when `timeoutMs` expires, a `network`
 *   failure when no HTTP answer arrived (connection refused, DNS, TLS, reset), a
 *   `response_too_large` failure when `Content-Length` declares more than the limit, or a
 *   `redirect` failure for a redirect to another origin or one hop too many.
 * @throws the abort reason, unchanged, when `init.signal` or the call is cancelled.
 */
export async function upstreamFetch(url: string | URL, init: UpstreamFetchInit = {}): Promise<Response> {
  return fetchInCallRecord(undefined, url, init);
}

/**
 * {@link upstreamFetch} for an explicit call context (what `context.fetch` of a tool handler
 * calls): the response headers of every answer (success or failure) are recorded in that call.
 * The exchange is an OpenTelemetry CLIENT span under the active one (the call's), unless the
 * call's server has telemetry off (telemetry/upstream-span.ts).
 *
 * @param context - the call to record telemetry into and whose body limit applies; `undefined`
 *   records nothing.
 * @returns and throws as {@link upstreamFetch}.
 */
export async function fetchInCallRecord(
  context: CallRecord | undefined,
  url: string | URL,
  init: UpstreamFetchInit = {},
): Promise<Response> {
  if (context?.traced === false) return exchangeInCall(context, url, init);
  const span = startUpstreamSpan((init.method ?? 'GET').toUpperCase(), url, context?.redactText ?? keepText);
  try {
    const response = await exchangeInCall(context, url, init);
    endUpstreamSpan(span, { status: response.status });
    return response;
  } catch (error) {
    endUpstreamSpan(span, { error });
    throw error;
  }
}

/** No redaction: an exchange outside any call has no server whose secrets it could know. */
function keepText(text: string): string {
  return text;
}

/** One exchange of {@link fetchInCallRecord}, inside its span. */
async function exchangeInCall(
  context: CallRecord | undefined,
  url: string | URL,
  init: UpstreamFetchInit,
): Promise<Response> {
  const { timeoutMs, maxBodyBytes, lookup, ...requestInit } = init;
  const sources: AbortSignal[] = [];
  if (requestInit.signal !== undefined && requestInit.signal !== null) sources.push(requestInit.signal);
  if (context !== undefined) sources.push(context.signal);
  const lookupFirst = lookup === true && context?.changeStarted !== true;
  const request: FailedRequest = {
    method: (requestInit.method ?? 'GET').toUpperCase(),
    url: String(url),
    ...(lookupFirst ? { lookupFirst } : {}),
  };
  const exchange = startExchange(
    sources,
    timeoutMs,
    request,
    maxBodyBytes ?? context?.maxUpstreamBodyBytes ?? DEFAULT_MAX_UPSTREAM_BODY_BYTES,
  );

  let response: Response;
  if (context !== undefined) context.upstreamStarted = true;
  if (context !== undefined && lookup !== true) context.changeStarted = true;
  try {
    response = await fetchWithinOrigin(url, requestInit, exchange);
  } catch (error) {
    exchange.finish();
    throw exchangeFailure(error, exchange, 'headers');
  }

  const headers = headerRecord(response.headers);
  const arrived = new Date();
  const meta = context?.adapter.parseResponseMeta(headers, arrived) ?? {};
  if (context !== undefined) context.upstreamStatus = response.status;
  if (context !== undefined) recordResponseMetaInto(context, meta);
  const answer = { status: response.status, headers, request, meta };
  if (response.ok) {
    recordLimitState(context, { ...answer, body: undefined }, arrived);
    return guardedResponse(response, exchange);
  }

  let text: string;
  try {
    text = await readCappedText(response, MAX_ERROR_BODY_BYTES);
  } catch (error) {
    throw exchangeFailure(error, exchange, 'body');
  } finally {
    exchange.finish();
  }
  const body = parseBody(text, headers['content-type']);
  recordLimitState(context, { ...answer, body }, arrived);
  throw new UpstreamHttpError({ status: response.status, headers, body, request });
}

/**
 * Keeps the answer in the call for the limiter, which reads it after the handler only when it is
 * on, so a server without a limiter pays nothing for it on each upstream answer.
 */
function recordLimitState(context: CallRecord | undefined, answer: UpstreamAnswer, arrived: Date): void {
  if (context !== undefined) context.lastAnswer = { answer, arrived };
}

/** Statuses whose responses have no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

function guardedResponse(response: Response, exchange: Exchange): Response {
  const declared = Number(response.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > exchange.maxBodyBytes) {
    exchange.finish();
    response.body?.cancel().catch(() => undefined);
    throw tooLarge(exchange);
  }
  if (response.body === null || NULL_BODY_STATUSES.has(response.status)) {
    exchange.finish();
    return response;
  }
  return new Response(guardedBody(response.body as ReadableStream<Uint8Array>, exchange), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Reads a successful upstream body that `upstreamFetch` returned unread: the parsed JSON when it
 * parses, else the raw text; an empty body gives `{}` so the tool result is an object that can
 * carry `_meta`. The body is data: whatever its shape, it becomes the tool's value (see
 * `toolResult` for how a handler returns a `CallToolResult` of its own). Inside a tool call,
 * `context.readBody` reads the same way and also applies the adapter's `inBandFailure`, so a
 * 2xx body that reports a failure ends the call as that failure.
 *
 * @param response - a 2xx `Response` whose body has not been read.
 * @returns the parsed JSON value, the text, or `{}`.
 * @throws UpstreamClientError from a response of `upstreamFetch`: `timeout` or `network` (with
 *   `phase: 'body'`) when the body stalls past the deadline or breaks off, `response_too_large`
 *   past the body limit.
 */
export async function readSuccessBody(response: Response): Promise<unknown> {
  const text = await readBodyText(response);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The whole body as UTF-8; a guarded body's own error (an `UpstreamClientError`) propagates as is. */
async function readBodyText(response: Response): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  // TextDecoder drops a leading byte order mark, as `response.text()` does
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}
