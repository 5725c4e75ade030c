/**
 * The GitHub classifier: the HTTP kit's default REST classification (`classifyRestFailure`: the
 * status table, rate limits by 403 or 429, problem+json and common error bodies, failures without
 * a status), and on top of it only what GitHub does its own way:
 *
 * - a secondary rate limit that names no wait: GitHub documents "wait at least one minute" unless
 *   no request is left (then until `X-RateLimit-Reset`);
 * - `errors[]` details pointing into the tool's body argument, each with GitHub's request id;
 * - hints: the permission or scope a 403 lacks (`X-Accepted-GitHub-Permissions`,
 *   `X-Accepted-OAuth-Scopes`), the 404 GitHub gives a token that may not see a resource, merge
 *   conflicts, validation codes, and the answer's `documentation_url`.
 *
 * Every verdict names `upstream: "github"`. Implements CONTRACT.md "error_kind", "Upstream HTTP
 * codes" and "The upstream field".
 *
 * @packageDocumentation
 */
import { deepFrozen, isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail, EnvelopeMeta, ErrorKind } from '@mcp-envelope/contract';
import { classifyRestFailure, headerValue, lowerCaseHeaders, rateLimitSignal } from '@mcp-envelope/core/adapter';
import type { ClassifiableFailure, ClassifiedError, ClassifyContext, UpstreamHttpFailure } from '@mcp-envelope/core';
import type { RestClassificationOptions } from '@mcp-envelope/core/adapter';

import { githubErrorDetails } from './error-body.js';
import { GITHUB_REQUEST_ID_HEADER, githubClock } from './response-meta.js';

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

/** GitHub's advice for a secondary rate limit that names no wait while requests are left: at least a minute. */
export const SECONDARY_RATE_LIMIT_WAIT_SECONDS = 60;

/** The hints, by situation (the kit's wording is used where GitHub has nothing to add). */
export const GITHUB_HINTS = deepFrozen({
  primaryRateLimit:
    'The token used up its GitHub rate limit for this resource: wait retry_after_seconds (until _meta.rate_limit.reset_at), then call again.',
  secondaryRateLimit:
    'GitHub applied a secondary rate limit (too many calls at once or too fast): wait retry_after_seconds, then make calls one at a time and more slowly.',
  tokenRefused:
    'GitHub refused GITHUB_TOKEN (wrong, expired or revoked): create a new token and restart the server with it.',
  forbidden:
    'The token is valid but not allowed this call: give it the permission or scope the call needs, or ask an owner of the resource for access.',
  notFound:
    'GitHub answers 404 also when the token may not see a private resource: check the owner, repository and ids, and that the token has access.',
  conflict:
    'The resource changed meanwhile or is in a state that forbids this call (a merge conflict, a moved branch): read it again, then decide.',
  unprocessable:
    'GitHub refused the values: each detail names the argument (path) and the problem (upstream_code: missing, missing_field, invalid, already_exists, unprocessable, custom). Fix them and call again.',
  server: 'GitHub failed on its side: try again in a moment, with backoff (1 s, 2 s, 4 s).',
  network: 'Could not reach GitHub: check the network (or the --upstream URL), then try again.',
  timeout:
    'GitHub did not answer in time (GITHUB_TIMEOUT_MS): try again; for a large listing ask for fewer items (per_page).',
} as const);

/** The kit's REST classification for GitHub: its upstream name and the kit's hints in GitHub's words. */
const REST_OPTIONS: RestClassificationOptions = {
  upstream: GITHUB_UPSTREAM,
  apiName: 'GitHub API',
  hints: {
    notFound: GITHUB_HINTS.notFound,
    server: GITHUB_HINTS.server,
    network: GITHUB_HINTS.network,
    timeout: GITHUB_HINTS.timeout,
  },
};

/** What the classifier needs to know about the tools. */
export interface GithubClassifyOptions {
  /** The request body property of a tool (`body`), for detail paths; `undefined` when it takes none. */
  readonly bodyProperty?: (tool: string) => string | undefined;
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

function firstHint(
  verdict: ClassifiedError,
  failure: UpstreamHttpFailure,
  headers: ReadonlyMap<string, string>,
): string {
  if (verdict.error_kind === 'rate_limited') {
    const remaining = headerValue(headers, 'x-ratelimit-remaining')?.trim();
    return remaining === '0' ? GITHUB_HINTS.primaryRateLimit : GITHUB_HINTS.secondaryRateLimit;
  }
  if (failure.status === 401) return GITHUB_HINTS.tokenRefused;
  if (failure.status === 403) return permissionHint(headers);
  if (failure.status === 409) return GITHUB_HINTS.conflict;
  if (failure.status === 422) return GITHUB_HINTS.unprocessable;
  return verdict.hints[0] ?? GITHUB_HINTS.server;
}

/**
 * The wait of a rate-limit verdict, by GitHub's documented rule: `Retry-After` when sent; else,
 * when no request is left, until the reset (the kit's wait); else at least one minute.
 */
function rateLimitWait(headers: ReadonlyMap<string, string>, kitWait: number | undefined): number {
  const exhausted = headerValue(headers, 'x-ratelimit-remaining')?.trim() === '0';
  if (kitWait !== undefined && (headers.has('retry-after') || exhausted)) return kitWait;
  return SECONDARY_RATE_LIMIT_WAIT_SECONDS;
}

/** The kit's details with GitHub's `errors[]` entries pointing into the arguments, each with the request id. */
function githubDetails(
  verdict: ClassifiedError,
  failure: UpstreamHttpFailure,
  bodyProperty: string | undefined,
  requestId: string | undefined,
): EnvelopeDetail[] {
  const entries = githubErrorDetails(failure.body, failure.status, bodyProperty);
  const hasMessage = isRecord(failure.body) && typeof failure.body['message'] === 'string';
  const head = verdict.details[0];
  const details =
    entries.length === 0 ? [...verdict.details] : [...(hasMessage && head !== undefined ? [head] : []), ...entries];
  return requestId === undefined ? details : details.map((detail) => ({ ...detail, request_id: requestId }));
}

/**
 * Classifies a GitHub HTTP failure (any non-2xx status). Pure; never throws on any body or header.
 *
 * - a rate limit (the kit's `rateLimitSignal`: 429; 403 with `Retry-After`, with
 *   `X-RateLimit-Remaining: 0`, or whose message says so) -> `rate_limited` / `RATE_LIMITED`,
 *   retryable, `_meta.retry_after_seconds` from `Retry-After`, else the reset when no request is
 *   left, else GitHub's documented minute;
 * - 401/403 -> `auth_error` / `UPSTREAM_HTTP_401|403`, with a hint naming the permission or scope
 *   GitHub accepts when it says;
 * - anything else -> `upstream_http` / `UPSTREAM_HTTP_<status>`, retryable for 408 and 5xx.
 *
 * Times are measured on GitHub's `Date` when it sent one.
 *
 * @param failure - the failed answer.
 * @param context - the tool and the clock.
 * @param options - see {@link GithubClassifyOptions}.
 * @returns the verdict; one detail for the message, then one per `errors[]` entry, each with
 *   `http_status` and `request_id` (`X-GitHub-Request-Id`).
 */
export function classifyGithubHttpFailure(
  failure: UpstreamHttpFailure,
  context: ClassifyContext,
  options: GithubClassifyOptions = {},
): ClassifiedError {
  const headers = lowerCaseHeaders(failure.headers);
  const clock = { ...context, now: githubClock(failure.headers, context.now) };
  const verdict = classifyRestFailure(failure, clock, REST_OPTIONS);
  const requestId = headerValue(headers, GITHUB_REQUEST_ID_HEADER)?.trim().slice(0, 200);
  const documentation = isRecord(failure.body) ? failure.body['documentation_url'] : undefined;
  const hints = [
    firstHint(verdict, failure, headers),
    ...(typeof documentation === 'string' && /^https:\/\//.test(documentation)
      ? [`GitHub's documentation for this answer: ${documentation.slice(0, 300)}`]
      : []),
  ];
  const signal =
    verdict.error_kind === 'rate_limited'
      ? rateLimitSignal(failure.status, failure.headers, failure.body, clock.now)
      : undefined;
  const meta: Partial<EnvelopeMeta> | undefined =
    signal === undefined
      ? verdict.meta
      : { ...verdict.meta, retry_after_seconds: rateLimitWait(headers, signal.retryAfterSeconds) };
  return {
    ...verdict,
    details: githubDetails(
      verdict,
      failure,
      options.bodyProperty?.(context.tool),
      requestId === '' ? undefined : requestId,
    ),
    hints,
    ...(meta === undefined ? {} : { meta }),
  };
}

/**
 * Classifies any failure core hands over: HTTP failures through
 * {@link classifyGithubHttpFailure}; the rest (network failures, timeouts, oversized or
 * redirected answers, broken JSON bodies) through the kit's `classifyRestFailure`, as
 * `upstream_client` with `upstream: "github"`. Pure; never throws.
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
  if (failure.type === 'upstream_http') return classifyGithubHttpFailure(failure, context, options);
  return classifyRestFailure(failure, context, REST_OPTIONS);
}
