/**
 * GitHub response headers -> `_meta` telemetry. The header dialects are the HTTP kit's
 * (`restResponseMeta`: `X-RateLimit-Limit/-Remaining/-Used/-Reset/-Resource`, `Retry-After`,
 * `Warning`); what is GitHub's own is the window each budget counts over, which GitHub documents
 * but does not send, and measuring against GitHub's `Date`. Implements CONTRACT.md
 * "_meta.rate_limit", "_meta.retry_after_seconds" and "_meta.warnings".
 *
 * @packageDocumentation
 */
import type { ResponseMeta } from '@mcp-envelope/core';
import { headerValue, lowerCaseHeaders, restResponseMeta } from '@mcp-envelope/core/adapter';
import type { HeaderSource } from '@mcp-envelope/core/adapter';

/** Where GitHub's request id is. */
export const GITHUB_REQUEST_ID_HEADER = 'x-github-request-id';

/**
 * The window of each budget (`X-RateLimit-Resource`) as GitHub documents it, in seconds: the
 * search budgets count per minute, the others per hour. A resource not named here gets no
 * `window_seconds`.
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
  code_scanning_autofix: 3600,
  actions_runner_registration: 3600,
  scim: 3600,
  source_import: 60,
  audit_log: 3600,
  audit_log_streaming: 3600,
});

/**
 * The clock GitHub's answer is measured on: its `Date` header when it sent a readable one, else
 * `now`. A reset is an instant on GitHub's clock, so the wait until it is counted from GitHub's
 * own time of answering; a skewed local clock would otherwise stretch or cut it.
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the answer arrived here.
 * @returns the instant to measure from.
 */
export function githubClock(headers: HeaderSource | undefined, now: Date): Date {
  const date = Date.parse(headerValue(lowerCaseHeaders(headers), 'date') ?? '');
  return Number.isFinite(date) ? new Date(date) : now;
}

/**
 * The `_meta` telemetry of a GitHub answer (success or failure): the kit's `restResponseMeta`
 * measured on {@link githubClock}, with `window_seconds` added from
 * {@link GITHUB_RATE_LIMIT_WINDOWS} when GitHub named the resource and stated a limit. So a
 * `core` answer reads `{ limit: 5000, window_seconds: 3600, remaining, reset_at (the epoch text
 * GitHub sent), reset_after_seconds, used, resource: "core" }`. Never throws.
 *
 * @param headers - response headers in any container and casing.
 * @param now - when the answer arrived.
 * @returns `{ rate_limit?, retry_after_seconds?, warnings? }`.
 */
export function parseGithubResponseMeta(headers: HeaderSource | undefined, now: Date): ResponseMeta {
  const meta = restResponseMeta(headers, githubClock(headers, now));
  const rateLimit = meta.rate_limit;
  const resource = rateLimit?.['resource'];
  const window = typeof resource === 'string' ? GITHUB_RATE_LIMIT_WINDOWS[resource] : undefined;
  if (
    rateLimit === undefined ||
    window === undefined ||
    rateLimit.limit === undefined ||
    rateLimit.window_seconds !== undefined
  )
    return meta;
  return { ...meta, rate_limit: { ...rateLimit, window_seconds: window } };
}
