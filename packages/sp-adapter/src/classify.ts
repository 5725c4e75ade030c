/**
 * The SP classifier: every failure an SP-API tool can meet -> the envelope's kind, code,
 * retryability, summary, details and hints. Classification is by HTTP status through core's
 * shared table, with rate limits of any status as the HTTP kit reads them (never by
 * `x-amzn-ErrorType` or the body's `code`, which SP-API sets inconsistently: posted 403s carry
 * `InvalidInput`); the body only feeds details and hints.
 * Every verdict on a failure of an upstream names it: `sp-api` (the API the server fronts) or
 * `openbridge` (its identity service). Implements CONTRACT.md "error_kind", "Canonical error
 * codes", "Upstream HTTP codes", "The upstream field" and the SP appendix.
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from 'node:http';

import { classifyAmazonCredentialFailure, classifyLwaError, LwaError } from '@mcp-envelope/amazon';
import { isRecord } from '@mcp-envelope/contract';
import type { ErrorKind } from '@mcp-envelope/contract';
import { capText, classifyClientFailure, classifyRestStatus, requestPath } from '@mcp-envelope/core/adapter';
import type {
  ClassifiableFailure,
  ClassifiedError,
  ClassifyContext,
  FailedRequest,
  UpstreamHttpFailure,
} from '@mcp-envelope/core';
import type { ClientFailureFamily, NonHttpFailure, UpstreamFamily } from '@mcp-envelope/core/adapter';

import { parseSpErrorBody } from './error-body.js';
import type { SpErrorBody } from './error-body.js';
import { SP_MARKETPLACE_ALIASES, SP_MARKETPLACE_ID_PROPERTIES } from './hint-tables.js';
import { redactSpText } from './redaction.js';
import { SP_MARKETPLACES } from './regions.js';
import type { SpRegion } from './regions.js';
import { parseSpResponseMeta, spRequestId } from './response-meta.js';

/** The `upstream` of SP-API's own answers and failures: the API the server fronts. */
export const SP_API_UPSTREAM = 'sp-api';

/** The `upstream` of the identity service's answers and failures (SP's internal service). */
export const OPENBRIDGE_UPSTREAM = 'openbridge';

/**
 * Every `upstream` an SP envelope can name, the fronted API first. Both had a contract version 1
 * spelling (`sp_api_*`, `SP_API_HTTP_` / `OPENBRIDGE_HTTP_`), so the SP server answers readers of
 * v1 as well. Implements CONTRACT.md "The upstream field".
 */
export const SP_UPSTREAMS = Object.freeze([SP_API_UPSTREAM, OPENBRIDGE_UPSTREAM] as const);

/** SP-API's family for core's status table: `UPSTREAM_HTTP_<status>` with `upstream: "sp-api"`. */
export const SP_UPSTREAM_FAMILY = Object.freeze({ upstream: SP_API_UPSTREAM } as const satisfies UpstreamFamily);

/**
 * The identity service's family: the same kinds and codes as SP-API's answers, told apart by
 * `upstream: "openbridge"` (and by `service: "identity"` on each detail).
 */
export const OPENBRIDGE_UPSTREAM_FAMILY = Object.freeze({
  upstream: OPENBRIDGE_UPSTREAM,
} as const satisfies UpstreamFamily);

/** Every kind {@link classifySpFailure} can return (contract version 2 kinds). */
export const SP_ERROR_KINDS = Object.freeze([
  'upstream_http',
  'upstream_client',
  'auth_error',
  'rate_limited',
] as const satisfies readonly ErrorKind[]);

/** The longest summary, in characters. */
export const SP_SUMMARY_LIMIT = 300;

/** Why SP-API refused credentials, as read from a 401/403 body. */
export type SpAuthCause =
  | 'expired'
  | 'revoked'
  | 'invalid_token'
  | 'invalid_signature'
  | 'invalid_security_token'
  | 'missing_token'
  | 'access_denied';

/**
 * 401/403 causes told apart by the body's text (message, details, code), with the hint for each.
 * Checked in order; every matching cause contributes its hint.
 */
export const SP_AUTH_CAUSES: readonly {
  readonly cause: SpAuthCause;
  readonly pattern: RegExp;
  readonly hint: string;
}[] = [
  {
    cause: 'expired',
    pattern: /\bexpired?\b/i,
    hint: 'The LWA access token (or a signed request) has expired: get a fresh access token from the refresh token and send the call again; check the machine clock if it keeps happening.',
  },
  {
    cause: 'revoked',
    pattern: /\brevoked\b/i,
    hint: 'The authorization was revoked (the seller removed the app, or the refresh token was replaced): have the selling partner authorize the application again and use the new LWA_REFRESH_TOKEN.',
  },
  {
    cause: 'invalid_token',
    pattern: /\baccess token\b[^.]*\b(?:malformed|invalid)\b/i,
    hint: 'The x-amz-access-token value is not a valid LWA access token (Atza|...): send the access_token returned by the LWA token endpoint, not the refresh token or client secret.',
  },
  {
    cause: 'invalid_signature',
    pattern: /\bsignature\b/i,
    hint: 'The AWS SigV4 signature was rejected: SP-API no longer needs SigV4, so drop custom signing; if a gateway still requires it, check the AWS keys, the signing region and the clock.',
  },
  {
    cause: 'invalid_security_token',
    pattern: /\bsecurity token\b/i,
    hint: 'The AWS security token sent with the call is invalid or expired: refresh the IAM role credentials, or stop sending x-amz-security-token when the app does not sign requests.',
  },
  {
    cause: 'missing_token',
    pattern:
      /missing authentication token|\b(?:no|missing)\b[^.]*\baccess token\b|\baccess token\b[^.]*\b(?:missing|required)\b/i,
    hint: 'No access token reached SP-API: send the LWA access token in x-amz-access-token. API Gateway gives the same answer for a path or method that does not exist, so check the operation path too.',
  },
  {
    cause: 'access_denied',
    pattern: /access to requested resource is denied|\bunauthori[sz]ed\b|\bnot authori[sz]ed\b|\baccess ?denied\b/i,
    hint: 'The application or the selling partner has no access to this operation: check that the app has the role the API needs, that the seller authorized the app after the role was added, and that the call goes to the region of the seller account (set_region).',
  },
];

/** The hint when a 401/403 body names no known cause. */
export const SP_AUTH_FALLBACK_HINT =
  'Fix the credentials rather than retrying: refresh the LWA access token, and re-authorize the application if the refresh token is no longer valid.';

/** Hints by HTTP status for upstream failures that are not credential problems. */
export const SP_STATUS_HINTS: Readonly<Record<number, readonly string[]>> = {
  400: [
    'Check the arguments against the operation: v0 operations take PascalCase parameters (MarketplaceIds, CreatedAfter), newer versions camelCase; dates are ISO 8601 and lists are comma-separated.',
  ],
  404: [
    'Check the identifier (order id, ASIN, report id) and the marketplace; the resource may also belong to another region, whose endpoint differs (set_region).',
  ],
  409: [
    'The resource already exists or is in a conflicting state: read its current state (the matching get or list operation) instead of creating it again.',
  ],
  413: [
    'The request is too large: send fewer items per call, or upload large content through a feed or upload document.',
  ],
  415: [
    'Send the body as JSON with Content-Type application/json; for feed and upload documents use the content type given when the document was created.',
  ],
  408: ['SP-API timed out: retry with exponential backoff.'],
};

/** The hint for any 5xx status. */
export const SP_SERVER_ERROR_HINT =
  'SP-API failed on its side: retry with exponential backoff (for example 1 s, 2 s, 4 s); if it persists, check the SP-API status page.';

/** The hint for 429. */
export const SP_RATE_LIMIT_HINT =
  'SP-API limits each operation per selling partner and application: slow down, and send the next call after the wait given in _meta.retry_after_seconds, or after at least 1 / x-amzn-RateLimit-Limit seconds.';

/** Re-authorization hints added to core's LWA hints, by OAuth error code. */
export const SP_LWA_HINTS: Readonly<Record<string, string>> = {
  invalid_grant:
    "For SP-API, the selling partner authorizes again from Seller Central or Vendor Central (Apps and Services > Manage Your Apps) or through the app's OAuth authorization flow.",
  invalid_client:
    "LWA_CLIENT_ID and LWA_CLIENT_SECRET come from the app's LWA credentials in Developer Central (Seller Central > Apps and Services > Develop Apps).",
};

function requestLabel(request: FailedRequest | undefined): string {
  return request === undefined ? '' : ` to ${request.method} ${requestPath(request.url)}`;
}

function statusText(status: number): string {
  const text = STATUS_CODES[status];
  return text === undefined ? `HTTP ${status}` : `HTTP ${status} ${text}`;
}

function oneLine(text: string): string {
  return capText(redactSpText(text), SP_SUMMARY_LIMIT);
}

/** All the text a body gave about its errors, for cause matching. */
function bodyText(body: SpErrorBody): string {
  return [
    ...body.errors.flatMap((error) => [error.code ?? '', error.message, error.details ?? '']),
    body.text ?? '',
  ].join(' \n ');
}

/**
 * The causes and hints of a 401/403 from its body.
 *
 * @param body - the parsed error body.
 * @returns the matching causes (in {@link SP_AUTH_CAUSES} order) and one hint per cause, or the
 *   fallback hint when none matched.
 */
export function spAuthHints(body: SpErrorBody): {
  readonly causes: readonly SpAuthCause[];
  readonly hints: readonly string[];
} {
  const text = bodyText(body);
  const matched = SP_AUTH_CAUSES.filter((entry) => entry.pattern.test(text));
  return matched.length === 0
    ? { causes: [], hints: [SP_AUTH_FALLBACK_HINT] }
    : { causes: matched.map((entry) => entry.cause), hints: matched.map((entry) => entry.hint) };
}

const REGION_OF_HOST = /sellingpartnerapi-(na|eu|fe)\./i;

/**
 * Hints about the marketplace ids a failed request sent: a country code or name where an id
 * belongs (`Did you mean ATVPDKIKX0DER? Got US.`), and a marketplace served by another region's
 * endpoint than the one called.
 *
 * @param request - the failed request (its query string is read, never echoed).
 * @param endpointRegion - the region of the endpoint called, when its host does not tell
 *   (`--upstream` points elsewhere).
 * @returns the hints, possibly none.
 */
export function spMarketplaceHints(request: FailedRequest | undefined, endpointRegion?: SpRegion): string[] {
  if (request === undefined) return [];
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return [];
  }
  const calledRegion =
    (REGION_OF_HOST.exec(url.hostname)?.[1]?.toLowerCase() as SpRegion | undefined) ?? endpointRegion;
  const names = new Set<string>(SP_MARKETPLACE_ID_PROPERTIES.map((name) => name.toLowerCase()));
  const hints: string[] = [];
  for (const [name, raw] of url.searchParams) {
    if (!names.has(name.toLowerCase())) continue;
    for (const value of raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')) {
      const alias = Object.hasOwn(SP_MARKETPLACE_ALIASES, value.toLowerCase())
        ? SP_MARKETPLACE_ALIASES[value.toLowerCase()]
        : undefined;
      if (alias !== undefined && alias !== value) {
        hints.push(`Did you mean ${alias}? Got ${capText(value, 40)}.`);
        continue;
      }
      const marketplace = Object.values(SP_MARKETPLACES).find((entry) => entry.marketplaceId === value);
      if (marketplace !== undefined && calledRegion !== undefined && marketplace.region !== calledRegion) {
        hints.push(
          `Marketplace ${value} (${marketplace.country}) is served by the ${marketplace.region} endpoint, not ${calledRegion}: call set_region with ${marketplace.region}.`,
        );
      }
    }
  }
  return [...new Set(hints)];
}

/**
 * Whether a failed HTTP call was a request to the LWA token endpoint (its path, or an OAuth
 * error body with an `error` code and no SP-API error list on a 400 or 401, the statuses LWA
 * rejects credentials with).
 *
 * @param failure - the HTTP failure.
 * @param body - its parsed body.
 * @returns true for LWA token failures.
 */
export function isLwaTokenFailure(failure: UpstreamHttpFailure, body: SpErrorBody): boolean {
  // The status still decides for SP-API itself: an OAuth-shaped body on a 429 or 5xx from an
  // SP-API path is that status, not a credential problem.
  return (
    /\/auth\/o2\/token$/.test(requestPath(failure.request.url)) ||
    (body.shape === 'oauth_error' && (failure.status === 400 || failure.status === 401))
  );
}

/**
 * Classifies an LWA token failure (`LwaError` from core's token client) for SP: core's
 * `auth_error` / `AUTHENTICATION_ERROR` envelope parts (naming missing variables when
 * credentials are not configured) plus SP's re-authorization hints.
 *
 * @param error - the LWA failure.
 * @returns the classified error.
 */
export function classifySpLwaFailure(error: LwaError): ClassifiedError {
  return classifyLwaError(error, SP_LWA_HINTS);
}

function classifyLwaHttp(failure: UpstreamHttpFailure, body: SpErrorBody): ClassifiedError {
  const oauthError = body.errors[0]?.code;
  const description = body.errors[0]?.message;
  const error =
    failure.status >= 500
      ? new LwaError('token_endpoint_unavailable', `the LWA token endpoint answered HTTP ${failure.status}`, {
          status: failure.status,
        })
      : new LwaError(
          'token_rejected',
          `the LWA token endpoint rejected the refresh (${oauthError ?? `HTTP ${failure.status}`})${description === undefined || description === '' ? '' : `: ${description}`}`,
          { ...(oauthError === undefined ? {} : { oauthError }), status: failure.status },
        );
  return classifySpLwaFailure(error);
}

/** What the classifier may know about the server beyond the failure itself. */
export interface SpClassifySettings {
  /** The region whose endpoint is called, for marketplace hints when the host does not tell. */
  readonly region?: SpRegion | undefined;
  /** The identity service's base URL, when the server uses one. */
  readonly identityServiceUrl?: string | undefined;
}

/** Whether a failed request went to the identity service (same origin, under its base path). */
export function isIdentityServiceRequest(
  request: FailedRequest | undefined,
  identityServiceUrl: string | undefined,
): boolean {
  if (request === undefined || identityServiceUrl === undefined) return false;
  return (
    request.url === identityServiceUrl ||
    request.url.startsWith(`${identityServiceUrl}/`) ||
    request.url.startsWith(`${identityServiceUrl}?`)
  );
}

/** Hints for identity service failures, by kind. */
export const OPENBRIDGE_HINTS = {
  // worded without "bearer" before a word: the redactor would take that word for a credential
  auth: "The identity service refused the server's credentials: check SP_IDENTITY_SERVICE_TOKEN (the server sends it in the Authorization header) and that it may read identities.",
  rateLimited:
    'The identity service is rate-limiting this server: wait the time given in _meta.retry_after_seconds, then retry.',
  server: 'The identity service failed on its side: retry with exponential backoff; SP-API itself was not called.',
  other: 'Check the identity id (list_identities) and SP_IDENTITY_SERVICE_URL; SP-API itself was not called.',
} as const;

function classifyOpenbridgeHttp(
  failure: UpstreamHttpFailure,
  body: SpErrorBody,
  context: ClassifyContext,
): ClassifiedError {
  const headers = isRecord(failure.headers) ? failure.headers : {};
  const status = classifyRestStatus(failure, context.now, OPENBRIDGE_UPSTREAM_FAMILY);
  const label = requestLabel(failure.request);
  const retryAfter = status.signal.limited
    ? (parseSpResponseMeta(headers, context.now).retry_after_seconds ?? status.signal.retryAfterSeconds)
    : undefined;
  const hint =
    status.error_kind === 'auth_error'
      ? OPENBRIDGE_HINTS.auth
      : status.error_kind === 'rate_limited'
        ? OPENBRIDGE_HINTS.rateLimited
        : failure.status >= 500
          ? OPENBRIDGE_HINTS.server
          : OPENBRIDGE_HINTS.other;
  return {
    error_kind: status.error_kind,
    error_code: status.error_code,
    retryable: status.retryable,
    upstream: status.upstream,
    summary: oneLine(
      `The identity service answered ${statusText(failure.status)}${label}${retryAfter === undefined ? '' : `; retry after ${retryAfter} s`}.`,
    ),
    // each detail says which boundary failed, so a 429 (code RATE_LIMITED) still names the service
    details: body.details.map((detail) => ({ ...detail, service: 'identity' })),
    hints: [hint],
    // not SP-API's answer: a 429 here never had the v1 kind `sp_api_http`, so no v1 legacy kind
    condition: 'identity_service_http',
    // a wait read from a reset time is in no header core reads, so the verdict carries it
    ...(retryAfter === undefined ? {} : { meta: { retry_after_seconds: retryAfter } }),
  };
}

function classifyHttp(
  failure: UpstreamHttpFailure,
  context: ClassifyContext,
  settings: SpClassifySettings,
): ClassifiedError {
  const headers = isRecord(failure.headers) ? failure.headers : {};
  const requestId = spRequestId(headers);
  const body = parseSpErrorBody(failure.body, {
    status: failure.status,
    requestId,
    contentType: headers['content-type'],
  });
  if (isIdentityServiceRequest(failure.request, settings.identityServiceUrl))
    return classifyOpenbridgeHttp(failure, body, context);
  if (isLwaTokenFailure(failure, body)) return classifyLwaHttp(failure, body);

  const status = classifyRestStatus(failure, context.now, SP_UPSTREAM_FAMILY);
  const first = body.errors[0];
  const codeLabel = first?.code === undefined ? '' : ` (${first.code})`;
  // HTML, text and empty bodies: the status text, never the page
  const message = first !== undefined && first.message !== '' ? `: ${first.message}` : '';
  const label = requestLabel(failure.request);
  const hints: string[] = [];
  let summary: string;
  let retryAfter: number | undefined;

  if (status.error_kind === 'rate_limited') {
    retryAfter = parseSpResponseMeta(headers, context.now).retry_after_seconds ?? status.signal.retryAfterSeconds;
    summary = `SP-API rate limit exceeded${label} (HTTP ${failure.status}${first?.code === undefined ? '' : ` ${first.code}`})${retryAfter === undefined ? '' : `; retry after ${retryAfter} s`}.`;
    hints.push(
      retryAfter === undefined
        ? SP_RATE_LIMIT_HINT
        : `Wait ${retryAfter} s before sending this call again. ${SP_RATE_LIMIT_HINT}`,
    );
  } else if (status.error_kind === 'auth_error') {
    summary = `SP-API refused the credentials${label} (${statusText(failure.status)}${codeLabel})${message}`;
    hints.push(...spAuthHints(body).hints);
    hints.push(...spMarketplaceHints(failure.request, settings.region));
  } else {
    summary = `SP-API answered ${statusText(failure.status)}${label}${codeLabel}${message}`;
    if (failure.status >= 500) hints.push(SP_SERVER_ERROR_HINT);
    hints.push(...(SP_STATUS_HINTS[failure.status] ?? []));
    if (failure.status >= 400 && failure.status < 500)
      hints.push(...spMarketplaceHints(failure.request, settings.region));
  }
  return {
    error_kind: status.error_kind,
    error_code: status.error_code,
    retryable: status.retryable,
    upstream: status.upstream,
    summary: oneLine(summary),
    details: body.details,
    hints: [...new Set(hints)],
    // a wait read from a reset time is in no header core reads, so the verdict carries it
    ...(retryAfter === undefined ? {} : { meta: { retry_after_seconds: retryAfter } }),
  };
}

/** What SP says about failures without an HTTP status; core's `classifyClientFailure` does the rest. */
export const SP_CLIENT_FAILURES: ClientFailureFamily = {
  upstream: SP_API_UPSTREAM,
  upstreamLabel: 'SP-API',
  hints: {
    network:
      'Retry after a short wait; if it keeps failing, check the network path to the SP-API endpoint (proxy, DNS, firewall) and the --upstream URL.',
    timeout: 'Retry after a short wait; for large results, ask for fewer items per page.',
    bodyCoercion:
      'Send the body as a JSON object rather than a string, or fix the JSON text (double quotes around keys and strings, no trailing commas).',
  },
};

/**
 * What the identity service's failures without an HTTP status say: the same kind as SP-API's
 * (`upstream_client`) with `upstream: "openbridge"`, and hints that point at the service's
 * settings instead of the SP-API endpoint.
 */
export const IDENTITY_SERVICE_CLIENT_FAILURES: ClientFailureFamily = {
  ...SP_CLIENT_FAILURES,
  upstream: OPENBRIDGE_UPSTREAM,
  upstreamLabel: 'the identity service',
  hints: {
    network:
      'Retry after a short wait; if it keeps failing, check that the identity service at SP_IDENTITY_SERVICE_URL is up and reachable from this server. SP-API itself was not called.',
    timeout:
      'Retry after a short wait; the identity service did not answer within SP_API_TIMEOUT_MS. SP-API itself was not called.',
    bodyCoercion: SP_CLIENT_FAILURES.hints.bodyCoercion,
    tooLarge:
      'The identity service answered more than MCP_MAX_UPSTREAM_BODY_BYTES: check SP_IDENTITY_SERVICE_URL, or raise the limit if the list of identities is that long.',
  },
};

function classifyIdentityServiceClientFailure(failure: NonHttpFailure): ClassifiedError {
  const classified = classifyClientFailure(failure, IDENTITY_SERVICE_CLIENT_FAILURES);
  return { ...classified, details: classified.details.map((detail) => ({ ...detail, service: 'identity' })) };
}

/**
 * Classifies any failure of an SP-API tool call. Pure and total: never throws.
 *
 * - HTTP failures: the status decides through core's table (429, or a 403 the HTTP kit reads as a
 *   rate limit, -> `rate_limited` / `RATE_LIMITED`; 401/403 -> `auth_error` / `UPSTREAM_HTTP_40x`; other statuses ->
 *   `upstream_http` / `UPSTREAM_HTTP_<status>`, retryable for 408 and 5xx), each with
 *   `upstream: "sp-api"`, or `"openbridge"` for the identity service's answers; details come from the
 *   body (see `parseSpErrorBody`); hints tell the 401/403 causes apart and add status- and
 *   marketplace-specific advice. Calls to the LWA token endpoint become `auth_error` /
 *   `AUTHENTICATION_ERROR` with re-authorization hints.
 * - Network failures and timeouts -> `upstream_client` / `TOOL_EXECUTION_FAILED`, retryable,
 *   naming the upstream called (`sp-api`, or `openbridge` for the identity service).
 * - A body argument that looks like JSON but does not parse -> `upstream_client` /
 *   `BODY_COERCION_INVALID_JSON`, `upstream: "sp-api"` (nothing was sent to it).
 *
 * @param failure - what went wrong.
 * @param context - the tool and the time.
 * @param settings - what the server knows besides (see {@link SpClassifySettings}).
 * @returns the classified error (core adds `tool`, `_meta` from the headers, bounds, redaction).
 */
export function classifySpFailure(
  failure: ClassifiableFailure,
  context: ClassifyContext,
  settings: SpClassifySettings = {},
): ClassifiedError {
  if (failure.type === 'upstream_http') return classifyHttp(failure, context, settings);
  if (failure.type === 'credential') return classifyAmazonCredentialFailure(failure, SP_LWA_HINTS);
  if ('request' in failure && isIdentityServiceRequest(failure.request, settings.identityServiceUrl))
    return classifyIdentityServiceClientFailure(failure);
  return classifyClientFailure(failure, SP_CLIENT_FAILURES);
}
