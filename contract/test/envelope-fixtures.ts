/**
 * Hand-written envelopes shared by the contract's tests. The values are this project's own
 * (tool names, summaries, ids); only the field names and vocabularies come from the contract.
 */

/** The smallest envelope the v2 schema accepts: the nine required fields and nothing else. */
export const MINIMAL_ENVELOPE = {
  error_kind: 'mcp_input_validation',
  tool: 'search_catalog_items',
  summary: 'keywords is required and was not sent.',
  details: [],
  hints: [],
  examples: [],
  error_code: 'SCHEMA_REQUIRED',
  retryable: false,
  _envelope_version: 2,
} as const;

/**
 * An envelope with every optional part the contract defines: `upstream`, `legacy_error_kind`, all five
 * normalized event kinds, `rate_limit`, `retry_after_seconds`, `warnings`, `correlation_id`, plus
 * keys the contract does not know at the top level, in `_meta` and on a detail.
 */
export const FULL_ENVELOPE = {
  error_kind: 'rate_limited',
  tool: 'get_inventory_summaries',
  summary: 'The inventory API is throttling this seller; wait before calling again.',
  details: [
    {
      path: '',
      issue: 'Upstream answered HTTP 429 (QuotaExceeded).',
      received_type: 'object',
      http_status: 429,
      request_id: 'req-71c2',
    },
    { path: 'sellerSkus/2', issue: 'Ignored while throttled.', received_type: 'string' },
  ],
  hints: ['Wait for retry_after_seconds, then send the same call again.', 'Ask for fewer SKUs per call.'],
  examples: [{ granularityType: 'Marketplace', sellerSkus: ['KB-0041'] }],
  error_code: 'RATE_LIMITED',
  retryable: true,
  _envelope_version: 2,
  upstream: 'sp-api',
  legacy_error_kind: 'sp_api_http',
  _meta: {
    normalized: [
      { kind: 'renamed', from: 'SellerSkus', to: 'sellerSkus', reason: 'schema_canonical_key' },
      { kind: 'dropped_alias', from: 'sku_list', canonical: 'sellerSkus' },
      { kind: 'coerced', field: 'marketplaceIds', from_type: 'string', to_type: 'array' },
      { kind: 'unknown_field_passed_through', field: 'debugLevel' },
      { kind: 'unknown_field_rejected', field: 'pageSizee' },
    ],
    rate_limit: { limit_per_second: 2, remaining: '0', reset_at: 'Tue, 04 Mar 2025 09:15:00 GMT' },
    retry_after_seconds: 1.5,
    warnings: [
      { kind: 'upstream_warning', summary: '110 - "Response is Stale"', details: [], hints: [], source: 'header' },
    ],
    correlation_id: 'corr-5d0a9e',
    trace_sampled: true,
  },
  served_by: 'inventory-edge-3',
} as const;

/** A schema-failure envelope with keyword parameters on its detail. */
export const MAX_ITEMS_ENVELOPE = {
  error_kind: 'mcp_input_validation',
  tool: 'list_orders',
  summary: 'marketplaceIds holds 7 items; at most 5 are allowed.',
  details: [{ path: 'marketplaceIds', issue: 'too many items', received_type: 'array', limit: 5, actual: 7 }],
  hints: ['Send no more than 5 items in marketplaceIds; split the call if you need more.'],
  examples: [],
  error_code: 'SCHEMA_MAX_ITEMS',
  retryable: false,
  _envelope_version: 2,
} as const;

/** An upstream throttling envelope from the Ads side. */
export const ADS_RATE_LIMITED_ENVELOPE = {
  error_kind: 'rate_limited',
  tool: 'list_campaigns',
  summary: 'The Ads API is throttling this profile.',
  details: [{ path: '', issue: 'HTTP 429', received_type: 'object', http_status: 429 }],
  hints: ['Retry after the delay in _meta.retry_after_seconds.'],
  examples: [],
  error_code: 'RATE_LIMITED',
  retryable: true,
  _envelope_version: 2,
  _meta: { retry_after_seconds: 3, rate_limit: { remaining: 0 } },
} as const;

/** An unknown-tool envelope. */
export const TOOL_NOT_FOUND_ENVELOPE = {
  error_kind: 'tool_not_found',
  tool: 'list_ordrs',
  summary: 'No tool named list_ordrs is registered.',
  details: [{ path: '', issue: 'unknown tool name', received_type: 'string' }],
  hints: ['Did you mean list_orders?'],
  examples: [],
  error_code: 'TOOL_NOT_FOUND',
  retryable: false,
  _envelope_version: 2,
} as const;

/** An upstream 404 from SP-API as a v2 reader gets it, during the window that moves `sp_api_http` to `upstream_http`. */
export const SP_NOT_FOUND_ENVELOPE = {
  error_kind: 'upstream_http',
  tool: 'get_order',
  summary: 'SP-API answered HTTP 404: the order does not exist for this seller.',
  details: [{ path: 'orderId', issue: 'not found upstream', received_type: 'string', http_status: 404 }],
  hints: ['Check the order id; list_orders returns the ids this seller can read.'],
  examples: [],
  error_code: 'UPSTREAM_HTTP_404',
  retryable: false,
  _envelope_version: 2,
  upstream: 'sp-api',
  legacy_error_kind: 'sp_api_http',
  _meta: { rate_limit: { limit: 0.5, window_seconds: 1, limit_per_second: 0.5, remaining: 3, reset_after_seconds: 2 } },
} as const;

/**
 * The same envelope as the v1 form `value` (`_envelope_version: 1`), for tests of readers of v1;
 * only for envelopes whose kind and code exist in v1 unchanged.
 *
 * @param value - a v2 envelope without `upstream` and with a v1 `_meta`.
 * @returns the copy.
 */
export function asV1<Value extends object>(value: Value): Omit<Value, '_envelope_version'> & { _envelope_version: 1 } {
  return { ...value, _envelope_version: 1 };
}

/**
 * A copy of `value` without `key`, typed loosely: the tests feed it to validators on purpose.
 *
 * @param value - the object to copy.
 * @param key - the key to leave out.
 * @returns the copy.
 */
export function without(value: object, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([name]) => name !== key));
}
