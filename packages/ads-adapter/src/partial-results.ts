/**
 * Successful Ads API answers that still report failed items: a batch call (create, update,
 * delete) answers 207 Multi-Status, or 200, with per-item errors beside the successes. The call
 * succeeded, so there is no envelope; the failed items become one `_meta.warnings` entry of kind
 * `partial_results`. Implements CONTRACT.md "_meta.warnings" (reserved kind `partial_results`).
 *
 * @packageDocumentation
 */
import type { EnvelopeWarning } from '@mcp-envelope/contract';
import type { HeaderSource } from '@mcp-envelope/core/adapter';

import { parseAdsErrorBody } from './error-body.js';

/**
 * The `partial_results` warning for a 2xx Ads answer whose body lists failed items.
 *
 * @param status - the HTTP status (2xx).
 * @param body - the parsed body.
 * @param headers - the response headers (for the request id), any casing.
 * @returns the warning, or `undefined` when no item failed (or the body is not JSON).
 */
export function adsPartialResultsWarning(
  status: number,
  body: unknown,
  headers?: HeaderSource,
): EnvelopeWarning | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const parsed = parseAdsErrorBody(body, status, headers);
  if (parsed.shape !== 'item_errors') return undefined;
  const items = new Set(parsed.errors.map((error) => error.index));
  return {
    kind: 'partial_results',
    summary: `${items.size} item${items.size === 1 ? '' : 's'} of the batch failed (HTTP ${status}); the others succeeded.`,
    details: parsed.details,
    hints: [
      'Fix the failed items named by item_index in details[] and send only those again; the items that succeeded must not be sent twice.',
    ],
  };
}
