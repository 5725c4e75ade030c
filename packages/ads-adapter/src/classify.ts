/**
 * The Amazon Ads API classifier: turns a failed upstream call into the envelope fields that
 * depend on the upstream (kind, code, retryable, summary, details, hints, `_meta`). Statuses go
 * through the HTTP kit's `classifyRestStatus` (core's table, and rate limits of any status);
 * what is Ads-specific here is the throttling flag, the
 * credential and scope diagnosis for 401/403, the profile-scope reading of 400s, the media-type
 * hint for 415 and the hint wording. Every verdict on a failure of the Ads API names it
 * (`upstream: "ads-api"`). Implements CONTRACT.md "error_kind", "Upstream HTTP codes" and
 * "The upstream field".
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import type { EnvelopeMeta, EnvelopeWarning, ErrorKind } from '@mcp-envelope/contract';
import { classifyAmazonCredentialFailure } from '@mcp-envelope/amazon';
import { classifyClientFailure, classifyRestStatus, lowerCaseHeaders, requestPath } from '@mcp-envelope/core/adapter';
import type {
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  ResponseMeta,
  UpstreamHttpFailure,
} from '@mcp-envelope/core';
import type { ClientFailureFamily, UpstreamFamily } from '@mcp-envelope/core/adapter';

import { parseAdsErrorBody } from './error-body.js';
import type { AdsErrorBody } from './error-body.js';
import { ADS_AUTH_DIAGNOSES, ADS_HINTS, ADS_PROFILE_SCOPE_PATTERN, ADS_STATUS_REASONS } from './hint-tables.js';
import { expectedMediaType } from './media-types.js';
import { isThrottledResponse, parseAdsResponseMeta } from './response-meta.js';

/** The `upstream` of the Ads API's answers and failures: the API the server fronts. */
export const ADS_API_UPSTREAM = 'ads-api';

/**
 * Every `upstream` an Ads envelope can name. It had a contract version 1 spelling (`ads_api_*`,
 * `ADS_API_HTTP_`), so the Ads server answers readers of v1 as well. Implements CONTRACT.md
 * "The upstream field".
 */
export const ADS_UPSTREAMS = deepFrozen([ADS_API_UPSTREAM] as const);

/** The Ads API's family for core's status table: `UPSTREAM_HTTP_<status>` with `upstream: "ads-api"`. */
export const ADS_UPSTREAM_FAMILY = deepFrozen({ upstream: ADS_API_UPSTREAM } as const satisfies UpstreamFamily);

/**
 * Every `error_kind` the Ads classifier can return. Core adds its own (`mcp_input_validation`,
 * `tool_not_found`, `internal_error`) when it builds the capability.
 */
export const ADS_ERROR_KINDS = deepFrozen([
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
] as const satisfies readonly ErrorKind[]);

/** One diagnosis id from {@link ADS_AUTH_DIAGNOSES}. */
export type AdsAuthDiagnosis = (typeof ADS_AUTH_DIAGNOSES)[number]['id'];

/**
 * Which credential or scope problem a 401/403 body describes.
 *
 * @param body - the parsed error body.
 * @returns the first matching diagnosis, or `undefined` when the messages say nothing specific.
 */
export function diagnoseAuthFailure(body: AdsErrorBody): AdsAuthDiagnosis | undefined {
  const said = body.errors.flatMap((error) => [error.code ?? '', error.message ?? '']).join('\n') || body.headline;
  return ADS_AUTH_DIAGNOSES.find((diagnosis) => diagnosis.pattern.test(said))?.id;
}

/**
 * Whether a 400 is really a profile or scope problem ("advertiser id cannot be decrypted",
 * invalid advertiser or marketplace id, `UNSUPPORTED_MARKETPLACE`).
 *
 * @param status - the HTTP status.
 * @param body - the parsed error body.
 * @returns true only for status 400 with a matching message or code.
 */
export function isProfileScopeProblem(status: number, body: AdsErrorBody): boolean {
  if (status !== 400) return false;
  return body.errors.some(
    (error) => ADS_PROFILE_SCOPE_PATTERN.test(error.message ?? '') || ADS_PROFILE_SCOPE_PATTERN.test(error.code ?? ''),
  );
}

function mediaTypeHint(method: string, url: string): string | undefined {
  const expected = expectedMediaType(method, url);
  return expected === undefined
    ? undefined
    : `${method.toUpperCase()} ${requestPath(url)} expects Content-Type and Accept: ${expected}.`;
}

function saidAnywhere(body: AdsErrorBody, pattern: RegExp): boolean {
  return (
    pattern.test(body.headline) ||
    body.errors.some((error) => pattern.test(error.message ?? '') || pattern.test(error.code ?? ''))
  );
}

function statusHints(failure: UpstreamHttpFailure, body: AdsErrorBody): string[] {
  const { status, request } = failure;
  const mediaType = mediaTypeHint(request.method, request.url);
  if (status === 415) return [mediaType ?? ADS_HINTS.mediaTypeUnknown];
  if (status === 406) return [ADS_HINTS.notAcceptable, mediaType ?? ADS_HINTS.mediaTypeUnknown];
  if (status === 404) return mediaType === undefined ? [ADS_HINTS.notFound] : [ADS_HINTS.notFound, mediaType];
  if (status === 425 || (status === 400 && saidAnywhere(body, /duplicate of/i))) return [ADS_HINTS.reportDuplicate];
  if (status === 409) return [ADS_HINTS.conflict];
  if (status === 413) return [ADS_HINTS.contentTooLarge];
  if (status === 422) return [ADS_HINTS.unprocessable];
  if (status === 504 || (status >= 500 && saidAnywhere(body, /timed out|timeout/i))) return [ADS_HINTS.gatewayTimeout];
  if (status >= 500) return [ADS_HINTS.serverError];
  return [ADS_HINTS.badRequest];
}

function authHints(body: AdsErrorBody): string[] {
  const diagnosis = diagnoseAuthFailure(body);
  const found = ADS_AUTH_DIAGNOSES.find((entry) => entry.id === diagnosis);
  return found === undefined ? [...ADS_HINTS.authFallback] : [found.hint];
}

function composeMeta(meta: ResponseMeta, extraWarnings: readonly EnvelopeWarning[]): Partial<EnvelopeMeta> | undefined {
  const warnings = [...(meta.warnings ?? []), ...extraWarnings];
  const result: Partial<EnvelopeMeta> = {
    ...(meta.rate_limit === undefined ? {} : { rate_limit: meta.rate_limit }),
    ...(meta.retry_after_seconds === undefined ? {} : { retry_after_seconds: meta.retry_after_seconds }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
  return Object.keys(result).length === 0 ? undefined : result;
}

function upstreamSummary(failure: UpstreamHttpFailure, body: AdsErrorBody, throttled: boolean): string {
  const reason = ADS_STATUS_REASONS[failure.status];
  const status = `HTTP ${failure.status}${reason === undefined ? '' : ` ${reason}`}`;
  const where = `${failure.request.method.toUpperCase()} ${requestPath(failure.request.url)}`;
  const lead = throttled
    ? `The Amazon Ads API throttled ${where} (${status})`
    : `The Amazon Ads API answered ${where} with ${status}`;
  return `${lead}: ${body.headline}`;
}

/**
 * Classifies an Ads API HTTP failure (any non-2xx status). Pure; never throws on any body or
 * header content.
 *
 * - `amazon-advertising-api-throttled: true` (on any 4xx/5xx), a 429, or a 403 the HTTP kit reads
 *   as a rate limit (`Retry-After`, remaining 0 with a reset, a message that says so) ->
 *   `rate_limited` / `RATE_LIMITED`, retryable, whatever `x-amzn-ErrorType` says;
 * - 401/403 -> `auth_error` / `UPSTREAM_HTTP_401|403`, with a hint for the diagnosed cause
 *   (missing scope header, scope not authorized, expired token, rejected client id, malformed
 *   Authorization header, resource permission);
 * - 400 that is a profile/scope problem -> `upstream_http` / `UPSTREAM_HTTP_400`, a profile-scope
 *   hint and a `_meta.warnings` entry of kind `profile_scope_warning`;
 * - 415 (and 406, 404) -> a hint naming the vendor media type the endpoint expects;
 * - anything else -> `upstream_http` / `UPSTREAM_HTTP_<status>`, retryable for 408 and 5xx.
 *
 * Every verdict carries `upstream: "ads-api"`.
 *
 * @param failure - the failed response (status, headers, body, request).
 * @param now - when it arrived (for HTTP-date `Retry-After`).
 * @returns the classified fields, with `meta` holding the response's rate limit, retry-after and
 *   warnings (the upstream `Warning` headers first, then any `profile_scope_warning`).
 */
export function classifyAdsHttpFailure(failure: UpstreamHttpFailure, now: Date): ClassifiedError {
  const headers = lowerCaseHeaders(failure.headers);
  const body = parseAdsErrorBody(failure.body, failure.status, headers);
  const throttled = failure.status >= 400 && isThrottledResponse(headers);
  const base = throttled
    ? ({ error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true, upstream: ADS_API_UPSTREAM } as const)
    : classifyRestStatus(failure, now, ADS_UPSTREAM_FAMILY);
  // a wait read from a reset time is in no header the meta parser reads; a Retry-After still wins
  const wait = 'signal' in base ? base.signal.retryAfterSeconds : undefined;
  const meta = { ...(wait === undefined ? {} : { retry_after_seconds: wait }), ...parseAdsResponseMeta(headers, now) };
  const extraWarnings: EnvelopeWarning[] = [];
  let hints: string[];
  if (base.error_kind === 'rate_limited') {
    hints = [ADS_HINTS.rateLimited];
    if (throttled && (failure.status !== 429 || headers.has('x-amzn-errortype'))) hints.push(ADS_HINTS.throttledHeader);
  } else if (base.error_kind === 'auth_error') {
    hints = authHints(body);
  } else if (isProfileScopeProblem(failure.status, body)) {
    hints = [ADS_HINTS.profileScope];
    extraWarnings.push({
      kind: 'profile_scope_warning',
      summary: `The active profile does not fit ${failure.request.method.toUpperCase()} ${requestPath(failure.request.url)}: ${body.headline}`,
      details: body.details,
      hints: [ADS_HINTS.profileScope],
    });
  } else {
    hints = statusHints(failure, body);
  }
  const composed = composeMeta(meta, extraWarnings);
  return {
    error_kind: base.error_kind,
    error_code: base.error_code,
    retryable: base.retryable,
    upstream: base.upstream,
    summary: upstreamSummary(failure, body, base.error_kind === 'rate_limited'),
    details: body.details,
    hints,
    ...(composed === undefined ? {} : { meta: composed }),
  };
}

/** What Ads says about failures without an HTTP status; core's `classifyClientFailure` does the rest. */
export const ADS_CLIENT_FAILURES: ClientFailureFamily = {
  upstream: ADS_API_UPSTREAM,
  upstreamLabel: 'the Amazon Ads API',
  hints: { network: ADS_HINTS.network, timeout: ADS_HINTS.timeout, bodyCoercion: ADS_HINTS.bodyCoercion },
};

/**
 * Classifies any failure core hands over: HTTP failures through
 * {@link classifyAdsHttpFailure}; network failures and timeouts as `upstream_client` /
 * `TOOL_EXECUTION_FAILED`, retryable (the contract reserves that kind for exactly this); a request
 * body that holds broken JSON as `upstream_client` / `BODY_COERCION_INVALID_JSON`; each with
 * `upstream: "ads-api"`. Pure; never throws.
 *
 * @param failure - the failure.
 * @param context - the tool and the clock.
 * @returns the classified envelope fields.
 */
export function classifyAdsFailure(failure: ClassifiableFailure, context: ClassifyContext): ClassifiedError {
  switch (failure.type) {
    case 'upstream_http':
      return classifyAdsHttpFailure(failure, context.now);
    case 'network':
    case 'timeout':
    case 'body_coercion':
    case 'response_too_large':
    case 'redirect':
      return classifyClientFailure(failure, ADS_CLIENT_FAILURES);
    case 'credential':
      return classifyAmazonCredentialFailure(failure);
  }
}
