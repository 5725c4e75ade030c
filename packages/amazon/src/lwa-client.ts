/**
 * Login with Amazon (LWA) refresh-token client, shared by every server that fronts an Amazon API
 * (SP-API and Amazon Ads use the same token endpoint and grant).
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail } from '@mcp-envelope/contract';
import {
  capText,
  displayLocation,
  endpointUrlProblem,
  locationUrl,
  retryAfterSeconds,
} from '@mcp-envelope/core/adapter';
import type { ClassifiedError, CredentialFailure, Redactor } from '@mcp-envelope/core';

import { AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS } from './headers.js';
import { AMAZON_REGIONS } from './regions.js';

/** What a caller that stops waiting for a token request is told. */
const GIVEN_UP = 'the call stopped waiting for the LWA token request (it was cancelled, or the server is closing)';

/** Why a token request got no answer: its own timeout, every caller giving it up, or the network. */
function unreachedReason(signal: AbortSignal): string {
  if (!signal.aborted) return 'the LWA token endpoint could not be reached';
  const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
  return timedOut ? 'the LWA token endpoint did not answer in time' : GIVEN_UP;
}

/** One token request and the callers waiting for it. */
interface TokenRequest {
  readonly answer: Promise<string>;
  /** Aborts the exchange. */
  readonly controller: AbortController;
  /** Callers waiting with a signal that has not aborted. */
  waiting: number;
  /** Whether a caller without a signal waits: nobody can then give the request up. */
  kept: boolean;
}

/**
 * `request.answer` for a caller whose `signal` may abort first: that caller then settles at once,
 * and when nobody else waits for the request, it is aborted.
 */
function waitFor(request: TokenRequest, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    request.waiting += 1;
    const giveUp = (): void => {
      request.waiting -= 1;
      if (request.waiting === 0 && !request.kept) request.controller.abort(signal.reason);
      reject(new LwaError('token_endpoint_unavailable', GIVEN_UP));
    };
    signal.addEventListener('abort', giveUp, { once: true });
    void request.answer.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', giveUp);
    });
  });
}

/** Amazon's LWA token endpoint, used unless `LWA_TOKEN_URL` or `tokenUrl` says otherwise. */
export const DEFAULT_LWA_TOKEN_URL: string = AMAZON_REGIONS.na.lwaTokenUrl;

/** The env variables the refresh flow reads. */
export const LWA_ENV_VARIABLES = Object.freeze(['LWA_CLIENT_ID', 'LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN'] as const);

/** Why getting an access token failed. */
export type LwaFailureReason =
  /** One or more of the env variables are unset or empty. */
  | 'missing_credentials'
  /** The token endpoint answered with an OAuth error (`invalid_grant`, `invalid_client`, ...). */
  | 'token_rejected'
  /** The token endpoint could not be reached, timed out, or answered 5xx / unreadable JSON. */
  | 'token_endpoint_unavailable'
  /** The token endpoint answered with a redirect, which is never followed (it would carry the credentials). */
  | 'token_endpoint_redirected';

const LWA_ERROR_BRAND = Symbol.for('@mcp-envelope/amazon/LwaError');

/**
 * A failed LWA token request. Carries only safe facts: never the refresh token, client secret or
 * any access token.
 */
export class LwaError extends Error {
  readonly reason: LwaFailureReason;
  /** The OAuth `error` code from the endpoint (`invalid_grant`, ...), when there was one. */
  readonly oauthError: string | undefined;
  /** The endpoint's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** The env variables that were missing, for `missing_credentials`. */
  readonly missing: readonly string[];
  /** Where a redirect pointed (origin and path only), for `token_endpoint_redirected`. */
  readonly location: string | undefined;
  /** The endpoint's request id (see {@link LWA_REQUEST_ID_HEADERS}), when it answered with one. */
  readonly requestId: string | undefined;
  /** The wait the endpoint asked for (`Retry-After`, `x-amz-retry-after`) on a 429 or 5xx, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  private readonly [LWA_ERROR_BRAND] = true;

  constructor(
    reason: LwaFailureReason,
    message: string,
    facts: {
      oauthError?: string;
      status?: number;
      missing?: readonly string[];
      location?: string;
      requestId?: string;
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'LwaError';
    this.reason = reason;
    this.oauthError = facts.oauthError;
    this.status = facts.status;
    this.missing = facts.missing ?? [];
    this.location = facts.location;
    this.requestId = facts.requestId;
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }

  /**
   * Brand check that survives duplicate copies of this package.
   *
   * @param value - anything.
   * @returns whether `value` is an `LwaError`.
   */
  static isInstance(value: unknown): value is LwaError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[LWA_ERROR_BRAND] === true;
  }
}

/** Credentials and settings for {@link LwaTokenClient}. */
export interface LwaSettings {
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly refreshToken?: string | undefined;
  /** Defaults to {@link DEFAULT_LWA_TOKEN_URL}. */
  readonly tokenUrl?: string | undefined;
  /** One deadline for the token exchange, headers and body, in milliseconds (default 10000). */
  readonly timeoutMs?: number;
  /** Seconds before expiry at which a cached token is refreshed (default 60). */
  readonly refreshSkewSeconds?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
  /** fetch implementation, for tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

/**
 * A Login with Amazon setting that cannot be used, found when the settings are read (at a server's
 * start). The message names the variable and never quotes its value, which may hold a secret.
 */
export class LwaSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LwaSettingsError';
  }
}

/**
 * Checks `LWA_TOKEN_URL`. Without this, a malformed value would only show at the first call, as
 * an unreachable token endpoint that a client retries in vain.
 *
 * @param value - the variable's value; unset, empty or blank means the default endpoint.
 * @returns the trimmed URL, or `undefined` for the default.
 * @throws LwaSettingsError naming the variable when the value is not an absolute http(s) URL, or
 *   carries user info, a query string, a fragment, or a blank or line break inside it.
 */
function checkedTokenUrl(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return undefined;
  const problem = endpointUrlProblem(trimmed);
  if (problem === undefined) return trimmed;
  throw new LwaSettingsError(
    `LWA_TOKEN_URL ${problem}: set it to the token endpoint itself, e.g. ${DEFAULT_LWA_TOKEN_URL} (its value is not shown, as it may hold a secret)`,
  );
}

/**
 * Reads {@link LwaSettings} from env variables `LWA_CLIENT_ID`, `LWA_CLIENT_SECRET`,
 * `LWA_REFRESH_TOKEN` and `LWA_TOKEN_URL`.
 *
 * @param env - defaults to `process.env`.
 * @returns the settings (the credentials may be undefined: the client reports what is missing at
 *   the first call; `tokenUrl` is undefined when `LWA_TOKEN_URL` is unset or blank).
 * @throws LwaSettingsError naming `LWA_TOKEN_URL` when it is set but not an absolute http(s) URL,
 *   or carries a user name, password, query string, fragment, or a blank or line break inside it.
 */
export function lwaSettingsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): LwaSettings {
  return {
    clientId: env['LWA_CLIENT_ID'],
    clientSecret: env['LWA_CLIENT_SECRET'],
    refreshToken: env['LWA_REFRESH_TOKEN'],
    tokenUrl: checkedTokenUrl(env['LWA_TOKEN_URL']),
  };
}

/** The response headers that may name the token endpoint's request id, in the order they are read. */
export const LWA_REQUEST_ID_HEADERS = Object.freeze(['x-amzn-requestid', 'x-amz-rid', 'x-amz-request-id'] as const);

/** The request id of a token-endpoint answer: the first {@link LWA_REQUEST_ID_HEADERS} header, else the body's `request_id`. */
function requestIdOf(response: Response, record: Readonly<Record<string, unknown>>): string | undefined {
  for (const name of LWA_REQUEST_ID_HEADERS) {
    const value = response.headers.get(name)?.trim();
    if (value !== undefined && value !== '') return capText(value, 200);
  }
  const fromBody = record['request_id'];
  return typeof fromBody === 'string' && fromBody.trim() !== '' ? capText(fromBody.trim(), 200) : undefined;
}

/** The largest token-endpoint answer read, in bytes; a real one is well under 4 KiB. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Reads at most `limit` bytes of a body as UTF-8; `undefined` when it is larger (then cancelled). */
async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return undefined; // leaving the loop cancels the stream
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface CachedToken {
  readonly accessToken: string;
  /** Epoch milliseconds after which the token must be refreshed. */
  readonly refreshAt: number;
}

/**
 * The server's redactor, as a credential client uses it: it registers the secret values it holds,
 * and redacts what an endpoint's answer echoes before it goes into an error message.
 */
export type SecretRegistry = Pick<Redactor, 'registerSecret' | 'string'>;

/**
 * Exchanges a refresh token for access tokens and caches each until shortly before it expires.
 * Concurrent callers share one in-flight request.
 */
export class LwaTokenClient {
  private readonly settings: LwaSettings;
  private readonly secrets: SecretRegistry;
  private cached: CachedToken | undefined;
  private inFlight: TokenRequest | undefined;

  /**
   * @param settings - credentials and options; see {@link lwaSettingsFromEnv}.
   * @param secrets - the redactor of the server this client works for: the client secret, the
   *   refresh token and every access token obtained are registered with it (and only with it).
   */
  constructor(settings: LwaSettings, secrets: SecretRegistry) {
    this.settings = settings;
    this.secrets = secrets;
    // Upstreams and the token endpoint can echo these verbatim; the server's redactor replaces them.
    secrets.registerSecret(settings.clientSecret);
    secrets.registerSecret(settings.refreshToken);
  }

  /** The env variables that are missing or empty, in {@link LWA_ENV_VARIABLES} order. */
  missingCredentials(): string[] {
    const values: Record<(typeof LWA_ENV_VARIABLES)[number], string | undefined> = {
      LWA_CLIENT_ID: this.settings.clientId,
      LWA_CLIENT_SECRET: this.settings.clientSecret,
      LWA_REFRESH_TOKEN: this.settings.refreshToken,
    };
    return LWA_ENV_VARIABLES.filter((name) => (values[name] ?? '').trim() === '');
  }

  /**
   * Returns a valid access token, refreshing it when the cached one is missing or close to expiry.
   *
   * Concurrent callers share one token request.
   *
   * @param signal - when it aborts (a cancelled call, a closing server), this caller stops waiting
   *   at once, with a `token_endpoint_unavailable` error. The request itself is given up only
   *   when every caller waiting for it has stopped, so a caller without a signal keeps it going.
   * @returns the access token (to send as `x-amz-access-token` or `Authorization: Bearer`).
   * @throws LwaError with reason `missing_credentials`, `token_rejected` or `token_endpoint_unavailable`.
   */
  async accessToken(signal?: AbortSignal): Promise<string> {
    const now = (this.settings.now ?? Date.now)();
    if (this.cached !== undefined && now < this.cached.refreshAt) return this.cached.accessToken;
    if (signal?.aborted === true) throw new LwaError('token_endpoint_unavailable', GIVEN_UP);
    // a request every caller gave up stays in flight until its fetch ends, but is no use to anyone
    if (this.inFlight === undefined || this.inFlight.controller.signal.aborted) this.inFlight = this.startRequest();
    const request = this.inFlight;
    if (signal !== undefined) return waitFor(request, signal);
    request.kept = true;
    return request.answer;
  }

  private startRequest(): TokenRequest {
    const controller = new AbortController();
    const request: TokenRequest = {
      controller,
      waiting: 0,
      kept: false,
      answer: this.refresh(controller).finally(() => {
        if (this.inFlight === request) this.inFlight = undefined;
      }),
    };
    return request;
  }

  /** Drops the cached token, e.g. after the upstream answered 401 with it. */
  invalidate(): void {
    this.cached = undefined;
  }

  private async refresh(controller: AbortController): Promise<string> {
    const missing = this.missingCredentials();
    if (missing.length > 0) {
      throw new LwaError('missing_credentials', `LWA credentials are not configured: set ${missing.join(', ')}`, {
        missing,
      });
    }
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: this.settings.refreshToken ?? '',
      client_id: this.settings.clientId ?? '',
      client_secret: this.settings.clientSecret ?? '',
    });
    // One timer for the whole exchange: it holds its controller, so it fires while the body is
    // still arriving (a timeout signal nobody references can be collected before it fires).
    const timer = setTimeout(() => {
      controller.abort(new DOMException('the LWA token exchange took too long', 'TimeoutError'));
    }, this.settings.timeoutMs ?? 10_000);
    try {
      return await this.exchange(body, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange(body: URLSearchParams, signal: AbortSignal): Promise<string> {
    const doFetch = this.settings.fetch ?? fetch;
    const tokenUrl = this.settings.tokenUrl ?? DEFAULT_LWA_TOKEN_URL;
    let response: Response;
    try {
      // never follow a redirect: the form carries the client secret and the refresh token
      response = await doFetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', accept: 'application/json' },
        body,
        redirect: 'manual',
        signal,
      });
    } catch {
      throw new LwaError('token_endpoint_unavailable', unreachedReason(signal));
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const target = locationUrl(response.headers.get('location') ?? '', tokenUrl);
      const location = target === undefined ? '(an unreadable Location)' : displayLocation(target);
      throw new LwaError(
        'token_endpoint_redirected',
        `the LWA token endpoint answered HTTP ${response.status}, a redirect to ${location}, which is not followed`,
        { status: response.status, location },
      );
    }
    let payload: unknown;
    try {
      const text = await readCapped(response, MAX_TOKEN_RESPONSE_BYTES);
      payload = text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      if (signal.aborted)
        throw new LwaError('token_endpoint_unavailable', unreachedReason(signal), { status: response.status });
      payload = undefined;
    }
    const record = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
    if (response.ok && typeof record['access_token'] === 'string' && record['access_token'] !== '') {
      const expiresIn =
        typeof record['expires_in'] === 'number' && record['expires_in'] > 0 ? record['expires_in'] : 3600;
      const skew = this.settings.refreshSkewSeconds ?? 60;
      const now = (this.settings.now ?? Date.now)();
      // an access token is short-lived: kept until it expires, so rotations cannot crowd out the credentials
      this.secrets.registerSecret(record['access_token'], { expiresInSeconds: expiresIn });
      this.cached = { accessToken: record['access_token'], refreshAt: now + Math.max(0, expiresIn - skew) * 1000 };
      return record['access_token'];
    }
    const oauthError = typeof record['error'] === 'string' ? record['error'] : undefined;
    const echoedId = requestIdOf(response, record);
    const requestId = echoedId === undefined ? undefined : this.secrets.string(echoedId);
    const answered = { status: response.status, ...(requestId === undefined ? {} : { requestId }) };
    // 429 and 5xx: the endpoint is busy or broken, not the credentials; a retry may succeed.
    if (response.status >= 500 || response.status === 429 || (oauthError === undefined && response.ok)) {
      // The wait a busy endpoint names is telemetry like an API's Retry-After: the caller needs it.
      const wait = retryAfterSeconds(
        new Map(response.headers),
        new Date((this.settings.now ?? Date.now)()),
        AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS,
      );
      throw new LwaError('token_endpoint_unavailable', `the LWA token endpoint answered HTTP ${response.status}`, {
        ...answered,
        ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
      });
    }
    // an endpoint may echo the form it was sent: the refresh token and the client secret
    const description =
      typeof record['error_description'] === 'string'
        ? `: ${capText(this.secrets.string(record['error_description']), 200)}`
        : '';
    throw new LwaError(
      'token_rejected',
      `the LWA token endpoint rejected the refresh (${oauthError ?? `HTTP ${response.status}`})${description}`,
      {
        ...(oauthError === undefined ? {} : { oauthError }),
        ...answered,
      },
    );
  }
}

/** The envelope parts for an LWA failure (`error_kind: auth_error`, `AUTHENTICATION_ERROR`). */
export interface LwaFailureClassification {
  readonly error_kind: 'auth_error';
  readonly error_code: 'AUTHENTICATION_ERROR';
  readonly retryable: boolean;
  readonly summary: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
}

const OAUTH_HINTS: Readonly<Record<string, string>> = {
  invalid_grant:
    'The refresh token is expired, revoked, or was issued to another application: authorize the application again to get a new LWA_REFRESH_TOKEN.',
  invalid_client:
    "LWA_CLIENT_ID or LWA_CLIENT_SECRET is wrong, or the secret was rotated: copy both again from the application's LWA credentials.",
  unauthorized_client: "This application may not use the refresh_token grant: check the application's LWA settings.",
  invalid_request:
    'The token request was malformed: check that LWA_CLIENT_ID, LWA_CLIENT_SECRET and LWA_REFRESH_TOKEN hold no stray quotes or spaces.',
  invalid_scope: 'The requested scope is not granted to this application.',
  server_error: 'The LWA service failed; try again shortly.',
};

/** The `request_id` detail key every upstream failure carries, when the endpoint sent one. */
function requestIdDetail(error: LwaError): { readonly request_id?: string } {
  return error.requestId === undefined ? {} : { request_id: error.requestId };
}

/**
 * Classifies an {@link LwaError} as the contract's `auth_error` / `AUTHENTICATION_ERROR` with
 * hints that say how to recover. Implements CONTRACT.md "error_kind" (`auth_error`).
 *
 * @param error - the failure.
 * @returns the envelope parts; `retryable` is true only when the endpoint was unavailable.
 */
export function classifyLwaFailure(error: LwaError): LwaFailureClassification {
  if (error.reason === 'missing_credentials') {
    return {
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      summary: `No LWA credentials: ${error.missing.join(', ')} ${error.missing.length === 1 ? 'is' : 'are'} not set.`,
      details: error.missing.map((name) => ({ path: name, issue: `${name} is not set`, received_type: 'undefined' })),
      hints: [`Set ${error.missing.join(', ')} in the server's environment and restart it.`],
    };
  }
  if (error.reason === 'token_endpoint_redirected') {
    return {
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      summary: `Could not get an access token: the LWA token endpoint redirected to ${error.location ?? 'another address'}, and the credentials are not sent there.`,
      details: [
        {
          path: '',
          issue: error.message,
          received_type: 'null',
          ...(error.status === undefined ? {} : { http_status: error.status }),
          ...(error.location === undefined ? {} : { location: error.location }),
        },
      ],
      hints: [
        "Set LWA_TOKEN_URL to the token endpoint itself (https://api.amazon.com/auth/o2/token, or the region's), not to an address that redirects.",
      ],
    };
  }
  if (error.reason === 'token_endpoint_unavailable') {
    return {
      error_kind: 'auth_error',
      error_code: 'AUTHENTICATION_ERROR',
      retryable: true,
      summary: 'Could not get an access token: the LWA token endpoint is unavailable.',
      details: [
        {
          path: '',
          issue: error.message,
          received_type: 'null',
          ...(error.status === undefined ? {} : { http_status: error.status }),
          ...requestIdDetail(error),
        },
      ],
      hints: ['Retry after a short wait; if it persists, check LWA_TOKEN_URL and the network path to it.'],
    };
  }
  const hint =
    (error.oauthError !== undefined && Object.hasOwn(OAUTH_HINTS, error.oauthError)
      ? OAUTH_HINTS[error.oauthError]
      : undefined) ?? 'Check the LWA credentials and authorize the application again.';
  return {
    error_kind: 'auth_error',
    error_code: 'AUTHENTICATION_ERROR',
    retryable: false,
    summary: `The LWA token endpoint rejected the credentials${error.oauthError === undefined ? '' : ` (${error.oauthError})`}.`,
    details: [
      {
        path: '',
        issue: error.message,
        received_type: 'object',
        ...(error.oauthError === undefined ? {} : { upstream_code: error.oauthError }),
        ...(error.status === undefined ? {} : { http_status: error.status }),
        ...requestIdDetail(error),
      },
    ],
    hints: [hint],
  };
}

/** Hints a server adds to an LWA failure, by OAuth error code (`invalid_grant`, ...), after the client's own. */
export type LwaHints = Readonly<Record<string, string>>;

/**
 * The envelope fields for an LWA failure as an adapter returns them: {@link classifyLwaFailure},
 * with each detail's `issue` capped at 300 characters, the server's extra hint for the OAuth
 * error code, and `_meta.retry_after_seconds` when a busy token endpoint named a wait.
 *
 * @param error - the failure.
 * @param extraHints - the server's hints by OAuth error code.
 * @returns the classified error (`auth_error` / `AUTHENTICATION_ERROR`). Never throws.
 */
export function classifyLwaError(error: LwaError, extraHints: LwaHints = {}): ClassifiedError {
  const base = classifyLwaFailure(error);
  const extra =
    error.oauthError !== undefined && Object.hasOwn(extraHints, error.oauthError)
      ? extraHints[error.oauthError]
      : undefined;
  const wait = error.retryAfterSeconds;
  return {
    ...base,
    details: base.details.map((detail) => ({ ...detail, issue: capText(detail.issue, 300) })),
    hints: extra === undefined ? base.hints : [...base.hints, extra],
    ...(wait === undefined ? {} : { meta: { retry_after_seconds: wait } }),
  };
}

/**
 * Whether a thrown value is one of this package's credential failures, for an adapter's
 * `isCredentialError`: core then hands it back to the adapter as a `credential` failure.
 *
 * @param error - anything a handler threw.
 * @returns whether `error` is an {@link LwaError}.
 */
export function isAmazonCredentialError(error: unknown): error is LwaError {
  return LwaError.isInstance(error);
}

/**
 * Classifies core's `credential` failure for an Amazon adapter: an {@link LwaError} through
 * {@link classifyLwaError}; anything else an adapter's `isCredentialError` let through as a
 * non-retryable `auth_error` / `AUTHENTICATION_ERROR` that names no value.
 *
 * @param failure - the failure core handed to the adapter.
 * @param extraHints - the server's hints by OAuth error code.
 * @returns the classified error. Never throws.
 */
export function classifyAmazonCredentialFailure(
  failure: CredentialFailure,
  extraHints: LwaHints = {},
): ClassifiedError {
  if (LwaError.isInstance(failure.error)) return classifyLwaError(failure.error, extraHints);
  return {
    error_kind: 'auth_error',
    error_code: 'AUTHENTICATION_ERROR',
    retryable: false,
    summary: 'Could not get an access token.',
    details: [{ path: '', issue: 'the credential client failed', received_type: 'null' }],
    hints: ['Check the LWA credentials and authorize the application again.'],
  };
}
