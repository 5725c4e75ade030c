/**
 * The per-call context: which tool is running and the upstream telemetry its HTTP calls have
 * recorded. Lives in AsyncLocalStorage so that concurrent calls never see each other's meta.
 * Implements DESIGN 3 (success `_meta`) and CONTRACT.md "_meta".
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { EnvelopeWarning, NormalizedEvent, RateLimitMeta } from '@mcp-envelope/contract';

import type { EnvelopeAdapter, ResponseMeta } from './adapter.js';

/** The mutable record of one `tools/call`. */
export interface CallContext {
  /** The tool being run. */
  readonly tool: string;
  /** The adapter whose `parseResponseMeta` reads upstream headers. */
  readonly adapter: EnvelopeAdapter;
  /** Normalization events of this call's arguments. */
  readonly normalized: readonly NormalizedEvent[];
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** Most recent upstream `rate_limit` seen in this call. */
  rateLimit: RateLimitMeta | undefined;
  /** Most recent upstream `retry_after_seconds` seen in this call. */
  retryAfterSeconds: number | undefined;
  /** Every upstream warning seen in this call, in arrival order. */
  warnings: EnvelopeWarning[] | undefined;
}

const storage = new AsyncLocalStorage<CallContext>();

let callsInFlight = 0;

/**
 * Runs `body` with `context` as the current call context and waits for it.
 *
 * On Node 20, an enabled AsyncLocalStorage makes every promise of the process pay an async hook.
 * The storage is therefore disabled again whenever no call is in flight, so code outside tool
 * handlers (the SDK's transport and protocol work between calls) runs without the hook.
 * Consequence: work a handler leaves running after its call has finished (fire and forget) no
 * longer sees the call's context and records nothing.
 *
 * @returns what `body` returns (awaited).
 */
export async function runInCallContext<Result>(context: CallContext, body: () => Result): Promise<Awaited<Result>> {
  callsInFlight += 1;
  try {
    return await storage.run(context, body);
  } finally {
    callsInFlight -= 1;
    if (callsInFlight === 0) storage.disable();
  }
}

/**
 * The context of the `tools/call` being served, when code runs inside a tool handler.
 *
 * @returns the context, or `undefined` outside a call.
 */
export function currentCallContext(): CallContext | undefined {
  return storage.getStore();
}

/**
 * Records upstream telemetry in the current call's context: `rate_limit` and
 * `retry_after_seconds` keep the most recent value, `warnings` accumulate. Outside a call this
 * does nothing. Tool handlers that do their own HTTP can call it with their adapter's parse.
 *
 * @param meta - the parsed response meta.
 */
export function recordResponseMeta(meta: ResponseMeta): void {
  recordResponseMetaInto(storage.getStore(), meta);
}

/**
 * Records upstream telemetry in a given call context (the explicit form of
 * {@link recordResponseMeta}, used by the context object handed to tool handlers).
 *
 * @param context - the call's context; `undefined` does nothing.
 * @param meta - the parsed response meta.
 */
export function recordResponseMetaInto(context: CallContext | undefined, meta: ResponseMeta): void {
  if (context === undefined) return;
  if (meta.rate_limit !== undefined) context.rateLimit = meta.rate_limit;
  if (meta.retry_after_seconds !== undefined) context.retryAfterSeconds = meta.retry_after_seconds;
  if (meta.warnings !== undefined && meta.warnings.length > 0) {
    context.warnings = [...(context.warnings ?? []), ...meta.warnings];
  }
}
