/**
 * `upstreamFetch`: global `fetch` (undici) with the envelope runtime's bookkeeping. Records each
 * response's telemetry (`rate_limit`, `retry_after_seconds`, `warnings`) in the current call's
 * context, and turns failures into errors the adapter can classify. Implements DESIGN 3
 * ("tool handler -> upstream HTTP").
 *
 * @packageDocumentation
 */
import type { FailedRequest, HeaderRecord } from './adapter.js';
import { currentCallContext, recordResponseMetaInto } from './context.js';
import type { CallContext } from './context.js';
import { UpstreamClientError, UpstreamHttpError } from './errors.js';

/** How many bytes of a failed response's body are read at most (64 KiB). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** `fetch` options plus a timeout. */
export interface UpstreamFetchInit extends RequestInit {
  /** Abandon the request after this many milliseconds (headers and, for failures, the body). */
  readonly timeoutMs?: number;
}

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
  const looksJson = (contentType ?? '').toLowerCase().includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (!looksJson || trimmed === '') return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

function isTimeoutReason(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
}

/**
 * Fetches `url` and returns the response when its status is 2xx (the body is left unread).
 *
 * Inside a tool call, the response headers of every answer (success or failure) go through the
 * adapter's `parseResponseMeta` and are recorded in the call's context, so `_meta` of the result
 * carries them.
 *
 * @param url - the absolute URL.
 * @param init - `fetch` options; `timeoutMs` adds a timeout, combined with `init.signal` and the
 *   call's cancellation signal.
 * @returns the 2xx response.
 * @throws UpstreamHttpError on any other status, with the body read once (at most
 *   {@link MAX_ERROR_BODY_BYTES} bytes; parsed as JSON when it is JSON).
 * @throws UpstreamClientError with a `timeout` failure when `timeoutMs` expires, or a `network`
 *   failure when no HTTP answer arrived (connection refused, DNS, TLS, reset).
 * @throws the abort reason, unchanged, when `init.signal` or the call is cancelled.
 */
export async function upstreamFetch(url: string | URL, init: UpstreamFetchInit = {}): Promise<Response> {
  return fetchInCallContext(currentCallContext(), url, init);
}

/**
 * {@link upstreamFetch} for an explicit call context (what `context.fetch` of a tool handler
 * calls, so it works whether or not the implicit AsyncLocalStorage context is on).
 *
 * @param context - the call to record telemetry into; `undefined` records nothing.
 * @returns and throws as {@link upstreamFetch}.
 */
export async function fetchInCallContext(context: CallContext | undefined, url: string | URL, init: UpstreamFetchInit = {}): Promise<Response> {
  const { timeoutMs, ...requestInit } = init;
  const signals: AbortSignal[] = [];
  if (requestInit.signal !== undefined && requestInit.signal !== null) signals.push(requestInit.signal);
  if (context !== undefined) signals.push(context.signal);
  const timeoutSignal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  if (timeoutSignal !== undefined) signals.push(timeoutSignal);
  const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  const request: FailedRequest = { method: (requestInit.method ?? 'GET').toUpperCase(), url: String(url) };

  let response: Response;
  try {
    response = await fetch(url, signal === undefined ? requestInit : { ...requestInit, signal });
  } catch (error) {
    throw fetchFailure(error, request, timeoutSignal, timeoutMs);
  }

  const headers = headerRecord(response.headers);
  if (context !== undefined) recordResponseMetaInto(context, context.adapter.parseResponseMeta(headers, new Date()));
  if (response.ok) return response;

  let text: string;
  try {
    text = await readCappedText(response, MAX_ERROR_BODY_BYTES);
  } catch (error) {
    throw fetchFailure(error, request, timeoutSignal, timeoutMs);
  }
  throw new UpstreamHttpError({ status: response.status, headers, body: parseBody(text, headers['content-type']), request });
}

function fetchFailure(error: unknown, request: FailedRequest, timeoutSignal: AbortSignal | undefined, timeoutMs: number | undefined): unknown {
  if (timeoutSignal?.aborted === true && timeoutMs !== undefined && (isTimeoutReason(error) || isTimeoutReason(timeoutSignal.reason))) {
    return new UpstreamClientError({ type: 'timeout', timeoutMs, request });
  }
  if (typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError') return error;
  return new UpstreamClientError({ type: 'network', cause: error, request });
}

/**
 * Reads a successful upstream body that `upstreamFetch` returned unread: the parsed JSON when it
 * parses, else the raw text; an empty body gives `{}` so the tool result is an object that can
 * carry `_meta`.
 *
 * @param response - a 2xx `Response` whose body has not been read.
 * @returns the parsed JSON value, the text, or `{}`.
 */
export async function readSuccessBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
