/**
 * GitHub's error bodies -> envelope details. GitHub answers a failed call with
 * `{ message, documentation_url, status?, errors?: [{ resource, field, code, message?, index?, value? }] }`
 * (its "Basic Error" and "Validation Error" schemas), some newer endpoints with RFC 9457 problem
 * details (`application/problem+json`: `type`, `title`, `detail`), and a proxy in front of it with
 * HTML. Each `errors[]` entry becomes one detail whose `path` is a JSON pointer into the tool's
 * arguments: a field of the request body is `body/<field>`. Implements CONTRACT.md "details[]"
 * (`path`, `issue`, `received_type`, plus `http_status`, `upstream_code`, `request_id`).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail } from '@mcp-envelope/contract';
import { capText, jsonTypeOf, parseUpstreamBody } from '@mcp-envelope/core/adapter';

import { redactGithubText } from './redaction.js';

/** What a GitHub error body says, read defensively. */
export interface GithubErrorBody {
  /** The top-level message (`message`, a problem's `detail` or `title`, an HTML page's title), redacted and capped. */
  readonly headline: string;
  /** `documentation_url`, or a problem's `type` when it is a URL. */
  readonly documentationUrl?: string;
  /** One detail per `errors[]` entry, else one for the whole answer (at least one). */
  readonly details: readonly EnvelopeDetail[];
}

/** Where a body field lives, for the pointer of a detail. */
export interface GithubDetailContext {
  /** The HTTP status (copied into every detail as `http_status`). */
  readonly status: number;
  /** `X-GitHub-Request-Id`, copied into every detail as `request_id`. */
  readonly requestId?: string;
  /** The tool's request body property (`body`), when the operation takes a body. */
  readonly bodyProperty?: string;
}

const TEXT_LIMIT = 500;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== ''
    ? capText(redactGithubText(value.trim()), TEXT_LIMIT)
    : undefined;
}

/**
 * A GitHub field name as pointer segments: `commits[0].sha` -> `commits/0/sha`; a body field sits
 * under the body property.
 */
export function fieldPointer(field: string, bodyProperty: string | undefined): string {
  const segments = field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
  return [...(bodyProperty === undefined ? [] : [bodyProperty]), ...segments].join('/');
}

function entryDetail(entry: unknown, context: GithubDetailContext): EnvelopeDetail {
  const common = {
    http_status: context.status,
    ...(context.requestId === undefined ? {} : { request_id: context.requestId }),
  };
  if (!isRecord(entry))
    return {
      path: '',
      issue: text(entry) ?? 'GitHub named an error without details',
      received_type: 'undefined',
      ...common,
    };
  const field = text(entry['field']);
  const resource = text(entry['resource']);
  const code = text(entry['code']);
  const where = [resource, field].filter((part) => part !== undefined).join('.');
  const issue =
    text(entry['message']) ?? (code === undefined ? 'invalid' : `${code}${where === '' ? '' : ` (${where})`}`);
  return {
    path: field === undefined ? '' : fieldPointer(field, context.bodyProperty),
    issue,
    // the type of the value GitHub echoes; most answers echo none, and nothing is claimed then
    received_type: Object.hasOwn(entry, 'value') ? jsonTypeOf(entry['value']) : 'undefined',
    ...common,
    ...(code === undefined ? {} : { upstream_code: code }),
    ...(resource === undefined ? {} : { resource }),
    ...(field === undefined ? {} : { field }),
    ...(typeof entry['index'] === 'number' ? { index: entry['index'] } : {}),
  };
}

function wholeAnswerDetail(issue: string, context: GithubDetailContext, code?: string): EnvelopeDetail {
  return {
    path: '',
    issue,
    received_type: 'undefined',
    http_status: context.status,
    ...(context.requestId === undefined ? {} : { request_id: context.requestId }),
    ...(code === undefined ? {} : { upstream_code: code }),
  };
}

function jsonBody(value: Readonly<Record<string, unknown>>, context: GithubDetailContext): GithubErrorBody {
  const problemType = text(value['type']);
  const headline =
    text(value['message']) ??
    text(value['detail']) ??
    text(value['title']) ??
    `HTTP ${context.status} without a message`;
  const documentationUrl =
    text(value['documentation_url']) ??
    (problemType !== undefined && /^https?:/.test(problemType) ? problemType : undefined);
  const errors = Array.isArray(value['errors']) ? value['errors'].slice(0, 50) : [];
  const details =
    errors.length > 0
      ? errors.map((entry) => entryDetail(entry, context))
      : [
          wholeAnswerDetail(
            headline,
            context,
            problemType === undefined || /^https?:/.test(problemType) ? undefined : problemType,
          ),
        ];
  return { headline, ...(documentationUrl === undefined ? {} : { documentationUrl }), details };
}

/**
 * Reads a GitHub error body.
 *
 * @param body - the failure's body: parsed JSON, text (at most what core read) or `''`.
 * @param context - status, request id and the tool's body property.
 * @param contentType - the answer's `Content-Type`, when sent.
 * @returns the headline, the documentation URL and the details; never throws.
 */
export function parseGithubErrorBody(
  body: unknown,
  context: GithubDetailContext,
  contentType?: string,
): GithubErrorBody {
  const parsed = parseUpstreamBody(body, contentType);
  switch (parsed.kind) {
    case 'json':
      if (isRecord(parsed.value)) return jsonBody(parsed.value, context);
      return {
        headline: `HTTP ${context.status} with a JSON body that is not an object`,
        details: [wholeAnswerDetail('the body is not an error object', context)],
      };
    case 'html':
      return {
        headline: text(parsed.summary) ?? 'an HTML page',
        details: [wholeAnswerDetail(`an HTML page: ${text(parsed.summary) ?? ''}`, context)],
      };
    case 'invalid_json':
    case 'text': {
      const said = text(parsed.text) ?? '';
      return { headline: said, details: [wholeAnswerDetail(said, context)] };
    }
    case 'empty':
      return {
        headline: `HTTP ${context.status} with an empty body`,
        details: [wholeAnswerDetail('the body is empty', context)],
      };
  }
}
