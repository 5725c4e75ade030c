/**
 * Seeing the upstream requests a wrapped tool makes with Node's global `fetch`, without changing
 * `fetch`. Node's `fetch` is undici, which announces every request on `node:diagnostics_channel`
 * (`undici:request:create`, `undici:request:headers`, `undici:request:error`); a subscriber only
 * listens. The request is created in the async context of the code that called `fetch`, so an
 * `AsyncLocalStorage` set around one tool call finds that call's list of exchanges.
 *
 * Why not replace `globalThis.fetch` or the global dispatcher: a replacement is process state
 * that every other server and library in the process then runs through, and a replacement that
 * calls a fetch of its own (as core's `upstreamFetch` calls the global one) recurses. A listener
 * changes nothing that runs, sees requests of libraries that kept a reference to the original
 * `fetch`, and each wrapped server has its own storage, so servers never see each other's calls.
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

import type { FailedRequest, HeaderRecord } from '../adapter.js';

/** One upstream request a wrapped tool made, as far as it got. */
export interface UpstreamExchange {
  readonly request: FailedRequest;
  /** When the request was created (milliseconds of `performance.now()`). */
  readonly startedAt: number;
  /** The answer's status and headers (lower-case names), once they arrived. */
  answer?: { readonly status: number; readonly headers: HeaderRecord; readonly at: Date };
  /** What broke the exchange (connection, abort, body), and when. */
  failure?: { readonly error: unknown; readonly endedAt: number };
}

/** Watches the undici requests made inside {@link UpstreamWatch.run}. */
export interface UpstreamWatch {
  /** Runs `work`, recording each request it makes through undici (and so Node's `fetch`) into `exchanges`. */
  run<T>(exchanges: UpstreamExchange[], work: () => Promise<T>): Promise<T>;
  /** Stops listening. */
  close(): void;
}

/** The parts of undici's request object the channels hand over that are read here. */
interface UndiciRequest {
  readonly method?: unknown;
  readonly origin?: unknown;
  readonly path?: unknown;
}

/** undici's raw headers (`[name, value, name, value, ...]`, buffers or strings) as a record. */
function headersOf(raw: unknown): HeaderRecord {
  const record: Record<string, string> = {};
  if (!Array.isArray(raw)) return record;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = String(raw[index]).toLowerCase();
    const value = String(raw[index + 1]);
    record[name] = record[name] === undefined ? value : `${record[name]}, ${value}`;
  }
  return record;
}

function requestOf(request: UndiciRequest): FailedRequest {
  return {
    method: typeof request.method === 'string' ? request.method.toUpperCase() : 'GET',
    url: `${String(request.origin)}${typeof request.path === 'string' ? request.path : ''}`,
  };
}

/**
 * Starts listening to undici's request channels for one wrapped server.
 *
 * @returns see {@link UpstreamWatch}; call `close` when the server closes.
 */
export function createUpstreamWatch(): UpstreamWatch {
  const calls = new AsyncLocalStorage<UpstreamExchange[]>();
  // keyed by undici's own request object, which the later channels hand over again
  const open = new WeakMap<object, UpstreamExchange>();
  const onCreate = (message: unknown): void => {
    const exchanges = calls.getStore();
    const request = (message as { request?: UndiciRequest }).request;
    if (exchanges === undefined || typeof request !== 'object' || request === null) return;
    const exchange: UpstreamExchange = { request: requestOf(request), startedAt: performance.now() };
    exchanges.push(exchange);
    open.set(request, exchange);
  };
  const onHeaders = (message: unknown): void => {
    const { request, response } = message as {
      request: object;
      response?: { statusCode?: unknown; headers?: unknown };
    };
    const exchange = open.get(request);
    if (exchange === undefined || typeof response?.statusCode !== 'number') return;
    exchange.answer = { status: response.statusCode, headers: headersOf(response.headers), at: new Date() };
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: object; error?: unknown };
    const exchange = open.get(request);
    if (exchange !== undefined) exchange.failure = { error, endedAt: performance.now() };
  };
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);
  return {
    run: (exchanges, work) => calls.run(exchanges, work),
    close: () => {
      unsubscribe('undici:request:create', onCreate);
      unsubscribe('undici:request:headers', onHeaders);
      unsubscribe('undici:request:error', onError);
    },
  };
}
