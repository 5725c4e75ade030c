/**
 * Reading Amazon Ads API error bodies of every shape into `details[]`:
 *
 * - legacy `{code, details, requestId}` and its variant `{code, detail}` (reporting v3), where
 *   `code` may be a number-like string (`"400"`) or a word (`"UNAUTHORIZED"`);
 * - `{requestId, message}` and the gateway's bare `{message}` (also `{Message}`);
 * - the unified v1 `{code: <UPPER_SNAKE>, message}`;
 * - per-item errors of batch calls: v1 multi-status `{success, partialSuccess, error: [{index,
 *   errors: [{code, message, fieldLocation, marketplace}]}]}`, v3/v4 `{campaigns: {error: [{index,
 *   errors: [{errorType, errorValue: {<type>: {reason, message, cause: {location}}}}]}]}}`, and v2
 *   lists `[{code, description, campaignId}]` and budget-rule `{responses: [{code, details}]}`
 *   (items whose code is `SUCCESS`, `Ok` or a 2xx status are skipped);
 * - HTML pages (a short text summary), empty bodies, invalid JSON and plain text, through core's
 *   `parseUpstreamBody`.
 *
 * Implements CONTRACT.md "details" (`path`, `issue`, `received_type`, plus the
 * extra keys `upstream_code`, `request_id`, `http_status`).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail } from '@mcp-envelope/contract';
import { capText, jsonTypeOf, lowerCaseHeaders, parseUpstreamBody } from '@mcp-envelope/core/adapter';
import type { HeaderSource } from '@mcp-envelope/core/adapter';

import { redactAdsText } from './redaction.js';
import { adsRequestId } from './response-meta.js';

/** The most per-item errors read from one body. */
export const MAX_ADS_ERROR_DETAILS = 50;

/** Which shape the body had. */
export type AdsErrorBodyShape =
  'error_object' | 'item_errors' | 'json_without_error' | 'html' | 'empty' | 'invalid_json' | 'text';

/** One error the upstream reported, before it becomes a detail. */
export interface AdsUpstreamError {
  /** `code`, `reason` or `errorType`, as a string (`"400"`, `"UNAUTHORIZED"`). */
  readonly code?: string;
  /** The human message, redacted and capped. */
  readonly message?: string;
  /** Where in the request the upstream located the problem, as a JSON-pointer path. */
  readonly location?: string;
  /** The batch item the error belongs to (`index` of a multi-status entry, or list position). */
  readonly index?: number;
  /** A marketplace the error is limited to (unified v1 `marketplace`). */
  readonly marketplace?: string;
}

/** What {@link parseAdsErrorBody} found. */
export interface AdsErrorBody {
  readonly shape: AdsErrorBodyShape;
  /** Every error found, in body order, at most `MAX_ADS_ERROR_DETAILS`. */
  readonly errors: readonly AdsUpstreamError[];
  /** The request id from the body, else from the headers. */
  readonly requestId?: string;
  /** One detail per error (at least one): `path`, `issue`, `received_type`, `http_status`, ... */
  readonly details: readonly EnvelopeDetail[];
  /** A one-line description of the body for the summary (first message, page title, ...). */
  readonly headline: string;
}

type JsonObject = Readonly<Record<string, unknown>>;

/** Reads a key case-insensitively (`message` / `Message`). */
function field(object: JsonObject, ...names: readonly string[]): unknown {
  for (const name of names) {
    if (Object.hasOwn(object, name)) return object[name];
  }
  const lower = new Set(names.map((name) => name.toLowerCase()));
  for (const [key, value] of Object.entries(object)) {
    if (lower.has(key.toLowerCase())) return value;
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const cleaned = capText(redactAdsText(value));
    return cleaned === '' ? undefined : cleaned;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (isRecord(value) || Array.isArray(value)) {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      json = undefined;
    }
    return json === undefined ? undefined : text(json);
  }
  return undefined;
}

function codeText(value: unknown): string | undefined {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    const code = capText(redactAdsText(String(value)), 100);
    return code === '' ? undefined : code;
  }
  return undefined;
}

/**
 * `campaigns[0].budget.value`, `$[0].name` or `/campaigns/0` -> `campaigns/0/budget/value`.
 *
 * @param location - a field location as the upstream wrote it.
 * @returns a JSON-pointer path without the leading slash.
 */
export function locationToPath(location: string): string {
  return location
    .trim()
    .replace(/^\$\.?/, '')
    .replace(
      /\[(?:'([^']*)'|"([^"]*)"|([^\]]*))\]/g,
      (_whole, single: string | undefined, double: string | undefined, bare: string | undefined) =>
        `/${single ?? double ?? bare ?? ''}`,
    )
    .replace(/\./g, '/')
    .replace(/^\/+/, '')
    .replace(/\/{2,}/g, '/');
}

function integer(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  return undefined;
}

/** The v3/v4 `errorValue: {<errorType>: {reason, message, cause: {location}}}` wrapper. */
function innerErrorValue(object: JsonObject): JsonObject | undefined {
  const errorValue = field(object, 'errorValue');
  if (!isRecord(errorValue)) return undefined;
  const first = Object.values(errorValue).find(isRecord);
  return first;
}

function readError(object: JsonObject, index: number | undefined): AdsUpstreamError | undefined {
  const inner = innerErrorValue(object);
  const source = inner ?? object;
  const code =
    codeText(field(source, 'code', 'reason', 'errorCode')) ??
    codeText(field(object, 'code', 'errorType', 'errorCode', 'error'));
  const details = field(source, 'details', 'detail');
  const message =
    text(field(source, 'message', 'errorMessage', 'description', 'error_description')) ??
    (typeof details === 'string' || typeof details === 'number' ? text(details) : undefined);
  if (code === undefined && message === undefined) return undefined;
  // v2 batch lists and budget-rule `responses` report every item, successes included.
  if (code !== undefined && /^(?:success|ok|2\d\d)$/i.test(code)) return undefined;
  const cause = field(source, 'cause');
  const rawLocation =
    field(source, 'fieldLocation', 'location', 'field') ?? (isRecord(cause) ? field(cause, 'location') : undefined);
  const location =
    typeof rawLocation === 'string' && rawLocation.trim() !== ''
      ? locationToPath(capText(rawLocation, 200))
      : undefined;
  const marketplace = codeText(field(source, 'marketplace'));
  return {
    ...(code === undefined ? {} : { code }),
    ...(message === undefined ? {} : { message }),
    ...(location === undefined || location === '' ? {} : { location }),
    ...(index === undefined ? {} : { index }),
    ...(marketplace === undefined ? {} : { marketplace }),
  };
}

const NESTED_ERROR_KEYS = ['errors', 'error', 'partialSuccess'] as const;

function collect(
  value: unknown,
  index: number | undefined,
  depth: number,
  found: AdsUpstreamError[],
  topLevelList: boolean,
): void {
  if (depth > 6 || found.length >= MAX_ADS_ERROR_DETAILS) return;
  if (Array.isArray(value)) {
    value.forEach((item, position) => {
      const itemIndex = isRecord(item) ? (integer(field(item, 'index')) ?? (topLevelList ? position : index)) : index;
      collect(item, itemIndex, depth + 1, found, false);
    });
    return;
  }
  if (!isRecord(value)) return;
  const before = found.length;
  const ownIndex = integer(field(value, 'index')) ?? index;
  for (const key of NESTED_ERROR_KEYS) {
    const nested = field(value, key);
    if (Array.isArray(nested)) collect(nested, ownIndex, depth + 1, found, false);
  }
  // Budget-rule batches answer {responses: [{code, details, ruleId}]}, one entry per item in order.
  const responses = field(value, 'responses');
  if (Array.isArray(responses)) collect(responses, ownIndex, depth + 1, found, true);
  // v3/v4 batch bodies wrap the multi-status lists in a resource key: {campaigns: {error: [...]}}.
  for (const [key, nested] of Object.entries(value)) {
    if ((NESTED_ERROR_KEYS as readonly string[]).includes(key) || !isRecord(nested)) continue;
    if (NESTED_ERROR_KEYS.some((name) => Array.isArray(field(nested, name))))
      collect(nested, ownIndex, depth + 1, found, false);
  }
  if (found.length > before) return;
  const error = readError(value, ownIndex);
  if (error !== undefined) found.push(error);
}

/**
 * Finds every error an Ads JSON body reports, whatever its shape. Never throws.
 *
 * @param value - a parsed JSON body.
 * @returns the errors in body order (at most `MAX_ADS_ERROR_DETAILS`); `[]` when the body
 *   names none (for example a 207 whose items all succeeded).
 */
export function adsErrorsOf(value: unknown): AdsUpstreamError[] {
  const found: AdsUpstreamError[] = [];
  try {
    collect(value, undefined, 0, found, true);
  } catch {
    // A hostile body (getters, proxies) must not break classification; keep what was read.
  }
  return found.slice(0, MAX_ADS_ERROR_DETAILS);
}

function errorDetail(error: AdsUpstreamError, status: number, requestId: string | undefined): EnvelopeDetail {
  const issue =
    error.message ??
    (error.code === undefined
      ? 'The Ads API reported an error without a message.'
      : `The Ads API reported ${error.code}.`);
  return {
    path: error.location ?? '',
    issue,
    received_type: 'object',
    ...(error.code === undefined ? {} : { upstream_code: error.code }),
    ...(requestId === undefined ? {} : { request_id: requestId }),
    http_status: status,
    ...(error.index === undefined ? {} : { item_index: error.index }),
    ...(error.marketplace === undefined ? {} : { marketplace: error.marketplace }),
  };
}

function bodyDetail(
  issue: string,
  receivedType: string,
  status: number,
  requestId: string | undefined,
): EnvelopeDetail {
  return {
    path: '',
    issue,
    received_type: receivedType,
    ...(requestId === undefined ? {} : { request_id: requestId }),
    http_status: status,
  };
}

/**
 * Parses an Ads API error response body into errors and `details[]`. Never throws.
 *
 * @param body - the body as received: parsed JSON, a string, bytes, or `undefined`/`''` (empty).
 * @param status - the HTTP status (copied into every detail as `http_status`).
 * @param headers - the response headers (for `Content-Type` and the request id), any casing.
 * @returns see {@link AdsErrorBody}; `details` always has at least one entry.
 */
export function parseAdsErrorBody(body: unknown, status: number, headers?: HeaderSource): AdsErrorBody {
  const lower = lowerCaseHeaders(headers);
  const parsed = parseUpstreamBody(body, lower.get('content-type'));
  switch (parsed.kind) {
    case 'empty': {
      const requestId = adsRequestId(lower);
      return {
        shape: 'empty',
        errors: [],
        ...(requestId === undefined ? {} : { requestId }),
        details: [bodyDetail('The response body was empty.', 'null', status, requestId)],
        headline: 'empty response body',
      };
    }
    case 'html': {
      const requestId = adsRequestId(lower);
      const summary = capText(redactAdsText(parsed.summary), 200);
      return {
        shape: 'html',
        errors: [],
        ...(requestId === undefined ? {} : { requestId }),
        details: [bodyDetail(`The response was an HTML page: ${summary}`, 'string', status, requestId)],
        headline: summary,
      };
    }
    case 'invalid_json':
    case 'text': {
      const requestId = adsRequestId(lower);
      const content = capText(redactAdsText(parsed.text));
      const issue = parsed.kind === 'invalid_json' ? `The response body is not valid JSON: ${content}` : content;
      return {
        shape: parsed.kind,
        errors: [],
        ...(requestId === undefined ? {} : { requestId }),
        details: [bodyDetail(issue, 'string', status, requestId)],
        headline: capText(content, 200),
      };
    }
    case 'json': {
      const requestId = adsRequestId(lower, parsed.value);
      const errors = adsErrorsOf(parsed.value);
      if (errors.length === 0) {
        const issue = `The response body (${jsonTypeOf(parsed.value)}) names no error.`;
        return {
          shape: 'json_without_error',
          errors,
          ...(requestId === undefined ? {} : { requestId }),
          details: [bodyDetail(issue, jsonTypeOf(parsed.value), status, requestId)],
          headline: 'no error message in the body',
        };
      }
      const itemErrors = errors.some((error) => error.index !== undefined);
      const first = errors[0];
      const headline = first?.message ?? first?.code ?? 'error';
      return {
        shape: itemErrors ? 'item_errors' : 'error_object',
        errors,
        ...(requestId === undefined ? {} : { requestId }),
        details: errors.map((error) => errorDetail(error, status, requestId)),
        headline: capText(headline, 200),
      };
    }
  }
}
