/**
 * The per-call context: which tool is running and the upstream telemetry its HTTP calls have
 * recorded. Each `tools/call` gets its own object, handed to the handler through
 * `ToolHandlerContext`, so concurrent calls never see each other's meta and nothing is shared
 * between the servers of one process. Implements CONTRACT.md "_meta".
 *
 * @packageDocumentation
 */
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
  /** The limit on a successful upstream body in this call (`MCP_MAX_UPSTREAM_BODY_BYTES`); absent: the default. */
  readonly maxUpstreamBodyBytes?: number;
  /** Most recent upstream `rate_limit` seen in this call. */
  rateLimit: RateLimitMeta | undefined;
  /** Most recent upstream `retry_after_seconds` seen in this call. */
  retryAfterSeconds: number | undefined;
  /** Every upstream warning seen in this call, in arrival order. */
  warnings: EnvelopeWarning[] | undefined;
  /** Whether an upstream request was started in this call (a cancelled call that sent none gives its rate limit token back). */
  upstreamStarted?: boolean;
  /** The HTTP status of the last upstream answer in this call (a 429 drains the limiter's bucket). */
  upstreamStatus?: number;
}

/**
 * Records upstream telemetry in a call context: `rate_limit` and `retry_after_seconds` keep the
 * most recent value, `warnings` accumulate. Tool handlers reach it as
 * `context.recordResponseMeta`.
 *
 * @param context - the call's context; `undefined` (outside a call) does nothing.
 * @param meta - the parsed response meta.
 */
export function recordResponseMetaInto(context: CallContext | undefined, meta: ResponseMeta): void {
  if (context === undefined) return;
  // telemetry comes from an upstream answer, so a request went out
  context.upstreamStarted = true;
  if (meta.rate_limit !== undefined) context.rateLimit = meta.rate_limit;
  if (meta.retry_after_seconds !== undefined) context.retryAfterSeconds = meta.retry_after_seconds;
  if (meta.warnings !== undefined && meta.warnings.length > 0) {
    context.warnings = [...(context.warnings ?? []), ...meta.warnings];
  }
}
