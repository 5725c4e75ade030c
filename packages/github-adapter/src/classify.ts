/**
 * The GitHub classifier: a failed call -> the envelope fields that depend on GitHub. Statuses
 * follow core's table; what is GitHub's own is here: a 403 that is a rate limit (primary: no
 * requests left until `X-RateLimit-Reset`; secondary: `Retry-After`, or the documented text), the
 * error body's `errors[]` as details pointing into the tool's arguments, the hints for a token
 * that lacks a permission and for the 404 GitHub gives a token that may not see a resource. Every
 * verdict names `upstream: "github"`. Implements CONTRACT.md "error_kind", "Upstream HTTP codes"
 * and "The upstream field".
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import type { EnvelopeMeta, ErrorKind } from '@mcp-envelope/contract';
import {
  classifyClientFailure,
  classifyUpstreamStatus,
  headerValue,
  lowerCaseHeaders,
  requestPath,
} from '@mcp-envelope/core/adapter';
import type { ClassifiableFailure, ClassifiedError, ClassifyContext, UpstreamHttpFailure } from '@mcp-envelope/core';
import type { ClientFailureFamily } from '@mcp-envelope/core/adapter';

import { parseGithubErrorBody } from './error-body.js';
import type { GithubErrorBody } from './error-body.js';
import { GITHUB_REQUEST_ID_HEADER, parseGithubResponseMeta } from './response-meta.js';

/** The `upstream` of every GitHub verdict. */
export const GITHUB_UPSTREAM = 'github';

/** Every `upstream` a GitHub envelope can name. No version 1 spelling: the server speaks v2 only. */
export const GITHUB_UPSTREAMS = deepFrozen([GITHUB_UPSTREAM] as const);

/** Every `error_kind` the classifier returns (core adds its own). */
export const GITHUB_ERROR_KINDS = deepFrozen([
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
] as const satisfies readonly ErrorKind[]);

/**
 * How GitHub words a rate limit in a 403 or 429 body ("API rate limit exceeded for ...",
 * "You have exceeded a secondary rate limit ...").
 */
export const GITHUB_RATE_LIMIT_TEXT = /\b(?:api rate limit exceeded|secondary rate limit|abuse detection)/i;

/** GitHub's advice for a secondary rate limit that names no time: wait at least a minute. */
export const SECONDARY_RATE_LIMIT_WAIT_SECONDS = 60;

/** The hints, by situation. */
export const GITHUB_HINTS = deepFrozen({
  primaryRateLimit:
    'The token used up its GitHub rate limit for this resource: wait until _meta.rate_limit.reset_at (retry_after_seconds), then call again.',
  secondaryRateLimit:
    'GitHub applied a secondary rate limit (too many calls at once or too fast, or too much CPU): wait retry_after_seconds, then make calls one at a time and more slowly.',
  tokenRefused:
    'GitHub refused GITHUB_TOKEN (wrong, expired or revoked): create a new token and restart the server with it.',
  forbidden:
    'The token is valid but not allowed this call: give it the permission or scope the call needs, or ask an owner of the resource for access.',
  notFound:
    'GitHub answers 404 also when the token may not see a private resource: check the owner, repository and ids, and that the token has access.',
  conflict:
    'The resource changed meanwhile or is in a state that forbids this call (a merge conflict, a branch moved): read it again, then decide.',
  unprocessable:
    'GitHub refused the values: each detail names the argument (path) and the problem (upstream_code: missing, missing_field, invalid, already_exists, unprocessable, custom). Fix them and call again.',
  badRequest: 'GitHub could not read the request: check the arguments against get_tool_schema.',
  serverError: 'GitHub failed on its side: try again in a moment; if it persists, check githubstatus.com.',
  network: 'Could not reach GitHub: check the network (or the --upstream URL), then try again.',
  timeout: 'GitHub did not answer in time: try again; for a large listing ask for fewer items (per_page).',
  bodyCoercion: 'The request body was text that is not JSON: send it as a JSON object.',
} as const);

/** Which rate limit a failure is, if any. */
export type GithubRateLimitKind = 'primary' | 'secondary';

/**
 * Whether a 403 or 429 is a rate limit, and which: `primary` when no request is left
 * (`X-RateLimit-Remaining: 0`), `secondary` when `Retry-After` is set or the body says so (or the
 * status is 429).
 *
 * @param failure - the failed answer.
 * @returns the kind, or `undefined` for any other failure.
 */
export function githubRateLimitKind(failure: UpstreamHttpFailure): GithubRateLimitKind | undefined {
  if (failure.status !== 403 && failure.status !== 429) return undefined;
  const headers = lowerCaseHeaders(failure.headers);
  const message = typeof failure.body === 'string' ? failure.body : JSON.stringify(failure.body ?? '');
  if (headerValue(headers, 'x-ratelimit-remaining')?.trim() === '0' && !headers.has('retry-after')) return 'primary';
  if (headers.has('retry-after') || GITHUB_RATE_LIMIT_TEXT.test(message) || failure.status === 429) return 'secondary';
  return undefined;
}

function permissionHint(headers: ReadonlyMap<string, string>): string {
  const accepted = headerValue(headers, 'x-accepted-github-permissions')?.trim();
  if (accepted !== undefined && accepted !== '')
    return `The token lacks a permission this call needs; GitHub accepts any of: ${accepted.slice(0, 200)}.`;
  const scopes = headerValue(headers, 'x-accepted-oauth-scopes')?.trim();
  const has = headerValue(headers, 'x-oauth-scopes')?.trim();
  if (scopes !== undefined && scopes !== '')
    return `The token lacks a scope this call needs: GitHub accepts ${scopes.slice(0, 200)}; the token has ${has === undefined || has === '' ? 'none' : has.slice(0, 200)}.`;
  return GITHUB_HINTS.forbidden;
}

function statusHints(status: number, headers: ReadonlyMap<string, string>): string[] {
  if (status === 401) return [GITHUB_HINTS.tokenRefused];
  if (status === 403) return [permissionHint(headers)];
  if (status === 404) return [GITHUB_HINTS.notFound];
  if (status === 409) return [GITHUB_HINTS.conflict];
  if (status === 422) return [GITHUB_HINTS.unprocessable];
  if (status >= 500) return [GITHUB_HINTS.serverError];
  return [GITHUB_HINTS.badRequest];
}

function summaryOf(
  failure: UpstreamHttpFailure,
  body: GithubErrorBody,
  limited: GithubRateLimitKind | undefined,
): string {
  const where = `${failure.request.method.toUpperCase()} ${requestPath(failure.request.url)}`;
  const lead =
    limited === undefined
      ? `GitHub answered ${where} with HTTP ${failure.status}`
      : `GitHub refused ${where} with a ${limited} rate limit (HTTP ${failure.status})`;
  return `${lead}: ${body.headline}`;
}

/** `_meta` of a rate-limit verdict: the wait GitHub asks for, as its documentation says to read it. */
function rateLimitWait(kind: GithubRateLimitKind, meta: Partial<EnvelopeMeta>): number {
  if (meta.retry_after_seconds !== undefined) return meta.retry_after_seconds;
  const reset = meta.rate_limit?.['reset_after_seconds'];
  if (kind === 'primary' && typeof reset === 'number') return reset;
  return typeof reset === 'number' && meta.rate_limit?.['remaining'] === 0 ? reset : SECONDARY_RATE_LIMIT_WAIT_SECONDS;
}

/** What a body parse and a verdict need to know about the tool. */
export interface GithubClassifyOptions {
  /** The request body property of a tool (`body`), for detail pointers; `undefined` when it takes none. */
  readonly bodyProperty?: (tool: string) => string | undefined;
}

/**
 * Classifies a GitHub HTTP failure (any non-2xx status). Pure; never throws on any body or header.
 *
 * - a rate limit ({@link githubRateLimitKind}), by 403 or 429 -> `rate_limited` / `RATE_LIMITED`,
 *   retryable, `_meta.retry_after_seconds` from `Retry-After`, else the primary limit's reset, else
 *   GitHub's documented minute for a secondary limit;
 * - 401/403 -> `auth_error` / `UPSTREAM_HTTP_401|403`, not retryable, with a hint naming the
 *   permission or scope GitHub accepts when it says;
 * - anything else -> `upstream_http` / `UPSTREAM_HTTP_<status>`, retryable for 408, 5xx.
 *
 * @param failure - the failed answer.
 * @param context - the tool and the clock.
 * @param options - see {@link GithubClassifyOptions}.
 * @returns the verdict; `details` one per `errors[]` entry, each with `http_status` and `request_id`.
 */
export function classifyGithubHttpFailure(
  failure: UpstreamHttpFailure,
  context: ClassifyContext,
  options: GithubClassifyOptions = {},
): ClassifiedError {
  const headers = lowerCaseHeaders(failure.headers);
  const requestId = headerValue(headers, GITHUB_REQUEST_ID_HEADER)?.trim();
  const bodyProperty = options.bodyProperty?.(context.tool);
  const body = parseGithubErrorBody(
    failure.body,
    {
      status: failure.status,
      ...(requestId === undefined || requestId === '' ? {} : { requestId: requestId.slice(0, 200) }),
      ...(bodyProperty === undefined ? {} : { bodyProperty }),
    },
    headerValue(headers, 'content-type'),
  );
  const limited = githubRateLimitKind(failure);
  const read: Partial<EnvelopeMeta> = { ...parseGithubResponseMeta(headers, context.now) };
  const base =
    limited === undefined
      ? classifyUpstreamStatus(failure.status, { upstream: GITHUB_UPSTREAM })
      : ({
          error_kind: 'rate_limited',
          error_code: 'RATE_LIMITED',
          retryable: true,
          upstream: GITHUB_UPSTREAM,
        } as const);
  const meta: Partial<EnvelopeMeta> =
    limited === undefined ? read : { ...read, retry_after_seconds: rateLimitWait(limited, read) };
  const hints =
    limited === undefined
      ? statusHints(failure.status, headers)
      : [limited === 'primary' ? GITHUB_HINTS.primaryRateLimit : GITHUB_HINTS.secondaryRateLimit];
  if (body.documentationUrl !== undefined)
    hints.push(`GitHub's documentation for this answer: ${body.documentationUrl}`);
  return {
    ...base,
    summary: summaryOf(failure, body, limited),
    details: body.details,
    hints,
    ...(Object.keys(meta).length === 0 ? {} : { meta }),
  };
}

/** What GitHub says about failures without an HTTP status; core's `classifyClientFailure` does the rest. */
export const GITHUB_CLIENT_FAILURES: ClientFailureFamily = deepFrozen({
  upstream: GITHUB_UPSTREAM,
  upstreamLabel: 'the GitHub API',
  hints: { network: GITHUB_HINTS.network, timeout: GITHUB_HINTS.timeout, bodyCoercion: GITHUB_HINTS.bodyCoercion },
});

/**
 * Classifies any failure core hands over: HTTP failures through {@link classifyGithubHttpFailure};
 * network failures, timeouts, oversized or redirected answers and broken JSON bodies through core's
 * `classifyClientFailure` (`upstream_client`, `upstream: "github"`). The server has no credential
 * client (the token is a setting), so a credential failure is an `auth_error`. Pure; never throws.
 *
 * @param failure - the failure.
 * @param context - the tool and the clock.
 * @param options - see {@link GithubClassifyOptions}.
 * @returns the verdict.
 */
export function classifyGithubFailure(
  failure: ClassifiableFailure,
  context: ClassifyContext,
  options: GithubClassifyOptions = {},
): ClassifiedError {
  switch (failure.type) {
    case 'upstream_http':
      return classifyGithubHttpFailure(failure, context, options);
    case 'credential':
      return {
        error_kind: 'auth_error',
        error_code: 'AUTHENTICATION_ERROR',
        retryable: false,
        summary: 'The GitHub token could not be used.',
        details: [{ path: '', issue: 'no usable GITHUB_TOKEN', received_type: 'undefined' }],
        hints: [GITHUB_HINTS.tokenRefused],
      };
    default:
      return classifyClientFailure(failure, GITHUB_CLIENT_FAILURES);
  }
}
