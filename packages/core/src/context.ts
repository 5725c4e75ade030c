/**
 * Recording upstream telemetry into a call's {@link CallRecord} (its shape lives in types.ts).
 * Implements CONTRACT.md "_meta".
 *
 * @packageDocumentation
 */
import type { ResponseMeta } from './adapter.js';
import { capRateLimitReset, capRetryAfter } from './http-meta/rate-limit.js';
import type { CallRecord } from './types.js';

/**
 * Records upstream telemetry in a call's record: `rate_limit` and `retry_after_seconds` keep the
 * most recent value (`retry_after_seconds` and `rate_limit.reset_after_seconds` at most
 * `MAX_RETRY_AFTER_SECONDS`), `warnings`
 * accumulate. Tool handlers reach it as
 * `context.recordResponseMeta`.
 *
 * @param context - the call's record; `undefined` (outside a call) does nothing.
 * @param meta - the parsed response meta.
 */
export function recordResponseMetaInto(context: CallRecord | undefined, meta: ResponseMeta): void {
  if (context === undefined) return;
  // telemetry comes from an upstream answer, so a request went out
  context.upstreamStarted = true;
  // a wait an adapter parsed itself or a handler recorded reaches object results too: bound it here
  if (meta.rate_limit !== undefined) context.rateLimit = capRateLimitReset(meta.rate_limit);
  if (meta.retry_after_seconds !== undefined) context.retryAfterSeconds = capRetryAfter(meta.retry_after_seconds);
  if (meta.warnings !== undefined && meta.warnings.length > 0) {
    context.warnings = [...(context.warnings ?? []), ...meta.warnings];
  }
}
