/**
 * Partial success: a call where some items worked and some failed is a success, not an error.
 * Its data goes back as usual, with one `partial_results` warning in `_meta.warnings` whose
 * `details` name each failed item. An agent keeps what worked and retries only the failed items,
 * where an error would have made it throw the whole answer away.
 * Implements CONTRACT.md "Warnings" (`partial_results`).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeWarning } from '@mcp-envelope/contract';

const PARTIAL_SUCCESS_BRAND = Symbol.for('@mcp-envelope/core/PartialSuccess');

/**
 * One item that failed, as a detail of the `partial_results` warning. Extra keys (an upstream
 * status, the item's id) go into the detail as they are.
 */
export interface ItemFailure {
  /** Where the item is, as a JSON pointer without the leading slash (`items/3`, `orders/0/sku`). */
  readonly path: string;
  /** What went wrong with it, in a sentence. */
  readonly issue: string;
  /** The condition's code, as an envelope would name it (`UPSTREAM_HTTP_409`). */
  readonly error_code?: string;
  /** Whether the same item may work when sent again. */
  readonly retryable?: boolean;
  /** The item's own keys (its id, an upstream status), sent in the detail as they are. */
  readonly [extra: string]: unknown;
}

/** Wording of the warning; both parts have defaults. */
export interface PartialSuccessOptions {
  /** How many items the call had, so the summary can say "2 of 5". */
  readonly total?: number;
  /** The warning's summary (default: how many items failed, of how many). */
  readonly summary?: string;
  /** The warning's hints (default: retry only the failed items). */
  readonly hints?: readonly string[];
}

/** What {@link partialSuccess} returns, for a handler to return: the data and its warning. */
export interface PartialSuccess<Data extends Record<string, unknown> = Record<string, unknown>> {
  /** What worked: the result's data, sent as the object a handler returns. */
  readonly data: Data;
  /** The `partial_results` warning; `undefined` when no item failed. */
  readonly warning: EnvelopeWarning | undefined;
}

function summaryOf(failed: number, total: number | undefined): string {
  const items = failed === 1 ? 'item' : 'items';
  return total === undefined
    ? `${failed} ${items} failed; the others succeeded and are in the result.`
    : `${failed} of ${total} items failed; the other ${total - failed} succeeded and are in the result.`;
}

/**
 * Builds the answer of a call where some items failed: a success whose `_meta.warnings` holds one
 * `partial_results` warning with a detail per failed item (`path`, `issue`, `received_type:
 * "object"`, and the item's own keys). With no failure, the call is a plain success.
 *
 * @param data - the result's data: a JSON object (only an object result carries `_meta`).
 * @param failures - the items that failed.
 * @param options - the item count and the warning's wording.
 * @returns the value for the handler to return.
 * @throws TypeError when `data` is not a plain object, or `total` is smaller than the failures.
 */
export function partialSuccess<Data extends Record<string, unknown>>(
  data: Data,
  failures: readonly ItemFailure[],
  options: PartialSuccessOptions = {},
): PartialSuccess<Data> {
  if (!isRecord(data))
    throw new TypeError('partialSuccess needs a JSON object as data: only an object result carries _meta');
  const { total } = options;
  if (total !== undefined && (!Number.isSafeInteger(total) || total < failures.length))
    throw new TypeError(
      `partialSuccess: total (${String(total)}) must be an integer of at least the ${failures.length} failures`,
    );
  const warning: EnvelopeWarning | undefined =
    failures.length === 0
      ? undefined
      : {
          kind: 'partial_results',
          summary: options.summary ?? summaryOf(failures.length, total),
          details: failures.map((failure) => ({ received_type: 'object', ...failure })),
          hints: options.hints ?? [
            'Keep the items that succeeded; send again only the failed ones (details[].path), those with retryable: true first.',
          ],
        };
  const result = { data, warning };
  Object.defineProperty(result, PARTIAL_SUCCESS_BRAND, { value: true, enumerable: false });
  return result;
}

/**
 * Whether a handler's value was made by {@link partialSuccess} (by this or another copy of this package).
 *
 * @param value - anything a handler returned.
 * @returns `true` only for a marked value.
 */
export function isPartialSuccess(value: unknown): value is PartialSuccess {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PARTIAL_SUCCESS_BRAND] === true
  );
}
