/**
 * SP-API (and LWA) error bodies of every shape they come in -> `details[]` entries. Never
 * trusts the body: whatever it is, the result is a list of schema-valid details with the
 * upstream message redacted and capped. Implements CONTRACT.md "details" (`received_type`,
 * extra keys).
 *
 * Shapes read:
 * - `{ errors: [{ code, message, details }] }` (every SP-API operation's `ErrorList`);
 * - `{ payload, errors }` (v0 operations' response wrapper);
 * - a bare `{ code, message, details }`;
 * - a gateway `{ message }` / `{ Message }` (API Gateway, e.g. "Missing Authentication Token");
 * - an OAuth error `{ error, error_description }` (LWA token endpoint);
 * - a JSON array of error objects;
 * - an HTML page (only a short text summary is kept: its title), plain text, an empty body, and
 *   text that looks like JSON but does not parse.
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail } from '@mcp-envelope/contract';
import { capText, parseUpstreamBody } from '@mcp-envelope/core/adapter';

import { redactSpText } from './redaction.js';

/** The longest upstream text kept in a detail's `issue` or `upstream_details`, in characters. */
export const SP_ISSUE_LIMIT = 300;

/** The most upstream errors turned into details (core caps an envelope's details at 50). */
export const SP_MAX_UPSTREAM_ERRORS = 20;

/** Which shape an error body had. */
export type SpErrorBodyShape =
  | 'errors'
  | 'payload_errors'
  | 'bare_error'
  | 'gateway_message'
  | 'oauth_error'
  | 'error_array'
  | 'other_json'
  | 'html'
  | 'text'
  | 'invalid_json'
  | 'empty';

/** One upstream error, normalized; texts are redacted and capped. */
export interface SpUpstreamError {
  /** `code` (`InvalidInput`, `NOT_FOUND`, `QuotaExceeded`, `invalid_grant`, ...), when given. */
  readonly code?: string;
  /** The message; `''` when the upstream gave none. */
  readonly message: string;
  /** The `details` text (a string, or other JSON written as JSON); absent when empty. */
  readonly details?: string;
}

/** What {@link parseSpErrorBody} found. */
export interface SpErrorBody {
  readonly shape: SpErrorBodyShape;
  /** The upstream errors, in body order (at most {@link SP_MAX_UPSTREAM_ERRORS}). */
  readonly errors: readonly SpUpstreamError[];
  /** For `html`: the page's text summary (title); for `text`/`invalid_json`: the capped text. */
  readonly text?: string;
  /** One entry per upstream error (or one describing the body when it had none). */
  readonly details: readonly EnvelopeDetail[];
}

/** Facts about the response that go on every detail. */
export interface SpErrorBodyContext {
  /** HTTP status of the response. */
  readonly status: number;
  /** The response's request id (see `spRequestId`), if any. */
  readonly requestId?: string | undefined;
  /** The response's `Content-Type`, if any (spots HTML sent as text). */
  readonly contentType?: string | undefined;
}

type JsonRecord = Readonly<Record<string, unknown>>;

/** Redacted and capped text; `''` for nothing. */
function clean(text: string): string {
  return capText(redactSpText(text), SP_ISSUE_LIMIT);
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (isRecord(value) && Object.keys(value).length === 0) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function firstText(record: JsonRecord, ...keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const text = textOf(record[key]);
    if (text !== undefined) return text;
  }
  return undefined;
}

function toUpstreamError(value: unknown): SpUpstreamError {
  if (!isRecord(value)) {
    const text = textOf(value);
    return { message: text === undefined ? '' : clean(text) };
  }
  const code = firstText(value, 'code', 'Code', 'error', 'errorCode', '__type');
  const message = firstText(value, 'message', 'Message', 'error_description', 'errorMessage', 'description');
  const details = firstText(value, 'details', 'Details', 'detail');
  return {
    ...(code === undefined ? {} : { code: capText(redactSpText(code), 100) }),
    message: message === undefined ? '' : clean(message),
    ...(details === undefined ? {} : { details: clean(details) }),
  };
}

const ERROR_KEYS: readonly string[] = [
  'code',
  'Code',
  'message',
  'Message',
  'details',
  'error',
  'error_description',
  'errorMessage',
];

function looksLikeError(value: unknown): boolean {
  return isRecord(value) && ERROR_KEYS.some((key) => Object.hasOwn(value, key));
}

/** The error items of a JSON body (raw values, in order) and its shape. */
function classifyJson(value: unknown): { shape: SpErrorBodyShape; items: readonly unknown[] } {
  if (Array.isArray(value)) {
    const items = value.filter(looksLikeError);
    return items.length > 0 ? { shape: 'error_array', items } : { shape: 'other_json', items: [] };
  }
  if (!isRecord(value)) return { shape: 'other_json', items: [] };
  const errors = value['errors'] ?? value['Errors'];
  if (errors !== undefined && errors !== null) {
    const list = Array.isArray(errors) ? (errors as readonly unknown[]) : [errors];
    const shape: SpErrorBodyShape = Object.hasOwn(value, 'payload') ? 'payload_errors' : 'errors';
    if (list.length > 0) return { shape, items: list };
  }
  if (
    typeof value['error'] === 'string' &&
    (Object.hasOwn(value, 'error_description') || /^[a-z_]+$/.test(value['error']))
  ) {
    return { shape: 'oauth_error', items: [value] };
  }
  if (Object.hasOwn(value, 'code') || Object.hasOwn(value, 'Code')) return { shape: 'bare_error', items: [value] };
  if (Object.hasOwn(value, 'message') || Object.hasOwn(value, 'Message'))
    return { shape: 'gateway_message', items: [value] };
  return { shape: 'other_json', items: [] };
}

function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function describeOtherJson(value: unknown): string {
  if (isRecord(value)) {
    const keys = Object.keys(value).slice(0, 8);
    return keys.length === 0
      ? 'an empty JSON object with no error list'
      : `a JSON object with no error list (keys: ${keys.join(', ')})`;
  }
  if (Array.isArray(value)) return `a JSON array of ${value.length} item(s) with no error objects`;
  return `a JSON ${jsonTypeName(value)} with no error list`;
}

/**
 * Reads an SP-API or LWA error body. Never throws.
 *
 * Every detail has `path: ''` (an upstream error names no argument path), `issue` (the upstream
 * message, or a description of the body when it has none; redacted, at most
 * {@link SP_ISSUE_LIMIT} characters), `received_type` (the JSON type of what the upstream sent
 * for that error: `object` for an error object, `string` for an HTML or text body, `null` for an
 * empty body) and the extra keys `http_status`, and when known `upstream_code`, `request_id`,
 * `upstream_details` (the error's `details` text).
 *
 * @param body - the body as received: parsed JSON, text, bytes, or nothing.
 * @param context - status, request id and content type of the response.
 * @returns the shape, the normalized errors and the details.
 */
export function parseSpErrorBody(body: unknown, context: SpErrorBodyContext): SpErrorBody {
  const base = {
    http_status: context.status,
    ...(context.requestId === undefined ? {} : { request_id: context.requestId }),
  };
  const parsed = parseUpstreamBody(body, context.contentType);
  switch (parsed.kind) {
    case 'empty':
      return {
        shape: 'empty',
        errors: [],
        details: [{ path: '', issue: `HTTP ${context.status} with an empty body`, received_type: 'null', ...base }],
      };
    case 'html': {
      const summary = clean(parsed.summary);
      return {
        shape: 'html',
        errors: [],
        text: summary,
        details: [{ path: '', issue: `HTML error page: ${summary}`, received_type: 'string', ...base }],
      };
    }
    case 'text': {
      const text = clean(parsed.text);
      return {
        shape: 'text',
        errors: [],
        text,
        details: [{ path: '', issue: text, received_type: 'string', ...base }],
      };
    }
    case 'invalid_json': {
      const text = clean(parsed.text);
      return {
        shape: 'invalid_json',
        errors: [],
        text,
        details: [{ path: '', issue: `Body is not valid JSON: ${text}`, received_type: 'string', ...base }],
      };
    }
    case 'json': {
      const { shape, items } = classifyJson(parsed.value);
      if (items.length === 0) {
        return {
          shape,
          errors: [],
          details: [
            {
              path: '',
              issue: `HTTP ${context.status} with ${describeOtherJson(parsed.value)}`,
              received_type: jsonTypeName(parsed.value),
              ...base,
            },
          ],
        };
      }
      const kept = items.slice(0, SP_MAX_UPSTREAM_ERRORS);
      const errors = kept.map(toUpstreamError);
      return {
        shape,
        errors,
        details: errors.map((error, index) => ({
          path: '',
          issue:
            error.message !== ''
              ? error.message
              : (error.details ??
                (error.code === undefined
                  ? `HTTP ${context.status} error without a message`
                  : `Upstream error ${error.code}`)),
          received_type: jsonTypeName(kept[index]),
          ...(error.code === undefined ? {} : { upstream_code: error.code }),
          ...base,
          ...(error.details === undefined ? {} : { upstream_details: error.details }),
        })),
      };
    }
  }
}
