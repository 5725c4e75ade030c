/**
 * The `details[]` of a REST error body of a common shape: RFC 9457 problem details (with an
 * `errors` extension of `{ detail, pointer }`), and JSON bodies with `message`, `error` or
 * `errors[]` (strings, or objects with `message`, `field`, `code`, `resource`), such as GitHub's.
 * Implements CONTRACT.md "details" (`path` a JSON pointer without its leading slash).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail } from '@mcp-envelope/contract';

import { jsonTypeOf } from '../arguments/json-type.js';
import { capText, parseUpstreamBody } from '../upstream-body/parse.js';
import { parseProblemDetails } from './problem-details.js';

/** The most details read from one body. */
export const MAX_REST_ERROR_DETAILS = 50;

/** What a REST error body said: its details (at least one) and a one-line message for the summary. */
export interface RestErrorBody {
  readonly details: readonly EnvelopeDetail[];
  /** The body's first message (problem `detail` or `title`, `message`, `error`), capped; `undefined` when it had none. */
  readonly message: string | undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const capped = capText(value);
  return capped === '' ? undefined : capped;
}

/**
 * A JSON pointer (`/items/0/name`, `#/items/0/name`) or a field name as a detail's `path`:
 * without the `#` and the leading slash, `~1` and `~0` unescaped.
 */
export function pointerPath(pointer: string): string {
  const withoutFragment = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  const withoutSlash = withoutFragment.startsWith('/') ? withoutFragment.slice(1) : withoutFragment;
  return withoutSlash
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('/')
    .slice(0, 300);
}

/** One entry of an `errors[]` array (a string, or an object naming its field and code) as a detail. */
function entryDetail(entry: unknown, status: number): EnvelopeDetail | undefined {
  if (typeof entry === 'string') {
    const issue = text(entry);
    return issue === undefined ? undefined : { path: '', issue, received_type: 'string', http_status: status };
  }
  if (!isRecord(entry)) return undefined;
  const where = [entry['pointer'], entry['field'], entry['path'], entry['param']].find((v) => typeof v === 'string');
  const code = text(entry['code']);
  const resource = text(entry['resource']);
  const issue =
    text(entry['message']) ??
    text(entry['detail']) ??
    (code === undefined ? undefined : `${code}${resource === undefined ? '' : ` (${resource})`}`);
  return {
    path: typeof where === 'string' ? pointerPath(where) : '',
    issue: issue ?? 'the upstream reported an error without a message',
    received_type: 'object',
    http_status: status,
    ...(code === undefined ? {} : { upstream_code: code }),
    ...(resource === undefined ? {} : { resource }),
  };
}

function errorsArray(object: Record<string, unknown>, status: number): EnvelopeDetail[] {
  const errors = object['errors'];
  if (!Array.isArray(errors)) return [];
  return errors
    .slice(0, MAX_REST_ERROR_DETAILS)
    .map((entry) => entryDetail(entry, status))
    .filter((detail): detail is EnvelopeDetail => detail !== undefined);
}

function objectMessage(object: Record<string, unknown>): string | undefined {
  const error = object['error'];
  return (
    text(object['detail']) ??
    text(object['message']) ??
    text(error) ??
    (isRecord(error) ? text(error['message']) : undefined) ??
    text(object['title']) ??
    text(object['error_description'])
  );
}

/** A JSON object body: problem details or a common error object. */
function objectBody(object: Record<string, unknown>, status: number, contentType: string | undefined): RestErrorBody {
  const problem = parseProblemDetails(object, contentType);
  const message = objectMessage(object);
  const head: EnvelopeDetail = {
    path: '',
    issue: message ?? `HTTP ${status}`,
    received_type: 'object',
    http_status: status,
    ...(problem?.type === undefined ? {} : { problem_type: capText(problem.type, 300) }),
    ...(problem?.title === undefined ? {} : { title: capText(problem.title) }),
    ...(problem?.instance === undefined ? {} : { instance: capText(problem.instance, 300) }),
  };
  const entries = errorsArray(object, status);
  return { details: message === undefined && entries.length > 0 ? entries : [head, ...entries], message };
}

/**
 * Reads a REST error body into details. Never throws.
 *
 * @param body - the body as received (parsed JSON or text; `''` when empty).
 * @param status - the HTTP status (every detail carries it as `http_status`).
 * @param contentType - the response's `Content-Type`.
 * @returns at least one detail: the body's message at path `""` (with `problem_type`, `title`,
 *   `instance` for problem details), then one per `errors[]` entry at its field or pointer.
 */
export function restErrorDetails(body: unknown, status: number, contentType: string | undefined): RestErrorBody {
  const parsed = parseUpstreamBody(body, contentType);
  switch (parsed.kind) {
    case 'empty':
      return {
        details: [{ path: '', issue: `HTTP ${status} with an empty body`, received_type: 'null', http_status: status }],
        message: undefined,
      };
    case 'html':
      return {
        details: [
          { path: '', issue: `HTML error page: ${parsed.summary}`, received_type: 'string', http_status: status },
        ],
        message: undefined,
      };
    case 'text':
    case 'invalid_json':
      return {
        details: [{ path: '', issue: parsed.text, received_type: 'string', http_status: status }],
        message: parsed.text,
      };
    case 'json':
      if (isRecord(parsed.value)) return objectBody(parsed.value, status, contentType);
      if (Array.isArray(parsed.value)) {
        const details = errorsArray({ errors: parsed.value }, status);
        if (details.length > 0) return { details, message: details[0]?.issue };
      }
      return {
        details: [{ path: '', issue: `HTTP ${status}`, received_type: jsonTypeOf(parsed.value), http_status: status }],
        message: undefined,
      };
  }
}
