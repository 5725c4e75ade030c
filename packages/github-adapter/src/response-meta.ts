/**
 * GitHub response headers -> `_meta` telemetry. GitHub states its primary rate limit on every
 * answer: `X-RateLimit-Limit` (requests per window), `-Remaining`, `-Used`, `-Reset` (epoch
 * seconds) and `-Resource` (which budget: `core`, `search`, `graphql`, ...). Implements
 * CONTRACT.md "_meta.rate_limit", "_meta.retry_after_seconds" and "_meta.warnings".
 *
 * @packageDocumentation
 */
import type { RateLimitMeta } from '@mcp-envelope/contract';
import type { ResponseMeta } from '@mcp-envelope/core';
import { headerValue, lowerCaseHeaders, responseMetaFromHeaders } from '@mcp-envelope/core/adapter';
import type { HeaderSource } from '@mcp-envelope/core/adapter';

/** Where GitHub's request id is. */
export const GITHUB_REQUEST_ID_HEADER = 'x-github-request-id';

/**
 * The window of each budget GitHub documents, in seconds: search counts per minute, the others
 * per hour. A resource not named here has no `window_seconds`.
 */
export const GITHUB_RATE_LIMIT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  core: 3600,
  search: 60,
  code_search: 60,
  graphql: 3600,
  integration_manifest: 3600,
  dependency_snapshots: 3600,
  dependency_sbom: 3600,
  code_scanning_upload: 3600,
  actions_runner_registration: 3600,
  scim: 3600,
  source_import: 60,
  audit_log: 3600,
  audit_log_streaming: 3600,
});

function finiteNumber(value: string | undefined): number | string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const number = Number(value.trim());
  return Number.isFinite(number) ? number : value.trim();
}

/**
 * `_meta.rate_limit` from GitHub's primary rate-limit headers: `limit`, `remaining`, `reset_at`
 * (the epoch seconds as an ISO 8601 date-time), `reset_after_seconds` (from the answer's `Date`
 * when it has one, else from `now`), `window_seconds` for a
 * documented resource, and `used`/`resource` as GitHub states them.
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the answer arrived.
 * @returns the object, or `undefined` when GitHub sent none of the headers.
 */
export function githubRateLimit(headers: HeaderSource | undefined, now: Date): RateLimitMeta | undefined {
  const lower = lowerCaseHeaders(headers);
  const limit = finiteNumber(headerValue(lower, 'x-ratelimit-limit'));
  const remaining = finiteNumber(headerValue(lower, 'x-ratelimit-remaining'));
  const used = finiteNumber(headerValue(lower, 'x-ratelimit-used'));
  const resource = headerValue(lower, 'x-ratelimit-resource')?.trim();
  const reset = Number(headerValue(lower, 'x-ratelimit-reset')?.trim() ?? Number.NaN);
  const result: Record<string, unknown> = {};
  if (limit !== undefined) result['limit'] = limit;
  const window = resource === undefined ? undefined : GITHUB_RATE_LIMIT_WINDOWS[resource];
  if (limit !== undefined && window !== undefined) result['window_seconds'] = window;
  if (remaining !== undefined) result['remaining'] = remaining;
  if (Number.isFinite(reset) && reset > 0 && reset < 1e11) {
    result['reset_at'] = new Date(reset * 1000).toISOString();
    // measured on GitHub's own clock (its Date header) when it sent one: a skewed local clock
    // would otherwise stretch or cut the wait
    const date = Date.parse(headerValue(lower, 'date') ?? '');
    const clock = Number.isFinite(date) ? date : now.getTime();
    result['reset_after_seconds'] = Math.max(0, reset - Math.floor(clock / 1000));
  }
  if (used !== undefined) result['used'] = used;
  if (resource !== undefined && resource !== '') result['resource'] = resource;
  return Object.keys(result).length === 0 ? undefined : (result as RateLimitMeta);
}

/**
 * The `_meta` telemetry of a GitHub answer (success or failure): `rate_limit` from
 * {@link githubRateLimit}, `retry_after_seconds` from `Retry-After`, one `upstream_warning` per
 * `Warning` value. Never throws.
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the answer arrived.
 * @returns `{ rate_limit?, retry_after_seconds?, warnings? }`.
 */
export function parseGithubResponseMeta(headers: HeaderSource | undefined, now: Date): ResponseMeta {
  const common = responseMetaFromHeaders(headers, now, { limit: [], remaining: [], reset: [] });
  const rateLimit = githubRateLimit(headers, now);
  return { ...common, ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }) };
}
