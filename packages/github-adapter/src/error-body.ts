/**
 * GitHub's `errors[]` -> envelope details that point into the tool's arguments. GitHub's
 * "Validation Error" body is `{ message, documentation_url, errors: [{ resource, field, code,
 * message?, index?, value? }] }`; its `field` names a member of the request body, which the tool
 * takes under its body property, so `field: "title"` is the detail path `body/title` and
 * `commits[0].sha` is `body/commits/0/sha`. The rest of a body (its message, problem details,
 * HTML, text) is read by the HTTP kit. Implements CONTRACT.md "details[]" (`path`, `issue`,
 * `received_type`, plus `http_status`, `upstream_code`, `resource`, `field`).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail } from '@mcp-envelope/contract';
import { capText, jsonTypeOf, MAX_REST_ERROR_DETAILS } from '@mcp-envelope/core/adapter';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? capText(value.trim()) : undefined;
}

/**
 * A GitHub field name as a detail path: `commits[0].sha` -> `commits/0/sha`, under the body
 * property when the tool takes a body.
 *
 * @param field - GitHub's `field`.
 * @param bodyProperty - the tool's body property (`body`), or `undefined` when it takes none.
 * @returns the path, without a leading slash.
 */
export function fieldPointer(field: string, bodyProperty: string | undefined): string {
  const segments = field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
  return [...(bodyProperty === undefined ? [] : [bodyProperty]), ...segments].join('/');
}

function entryDetail(
  entry: Readonly<Record<string, unknown>>,
  status: number,
  bodyProperty: string | undefined,
): EnvelopeDetail {
  const field = text(entry['field']);
  const resource = text(entry['resource']);
  const code = text(entry['code']);
  const where = [resource, field].filter((part) => part !== undefined).join('.');
  return {
    path: field === undefined ? '' : fieldPointer(field, bodyProperty),
    issue: text(entry['message']) ?? (code === undefined ? 'invalid' : `${code}${where === '' ? '' : ` (${where})`}`),
    // the type of the value GitHub echoes; most answers echo none, and nothing is claimed then
    received_type: Object.hasOwn(entry, 'value') ? jsonTypeOf(entry['value']) : 'undefined',
    http_status: status,
    ...(code === undefined ? {} : { upstream_code: code }),
    ...(resource === undefined ? {} : { resource }),
    ...(field === undefined ? {} : { field }),
    ...(typeof entry['index'] === 'number' ? { index: entry['index'] } : {}),
  };
}

/**
 * The details of a GitHub body's `errors[]` objects.
 *
 * @param body - the failure's body (parsed JSON, text, or `''`).
 * @param status - the HTTP status, copied into every detail as `http_status`.
 * @param bodyProperty - the tool's body property, or `undefined` when it takes none.
 * @returns one detail per object entry (at most the kit's `MAX_REST_ERROR_DETAILS`); `[]` when the
 *   body has no such entries. Never throws.
 */
export function githubErrorDetails(body: unknown, status: number, bodyProperty: string | undefined): EnvelopeDetail[] {
  const errors = isRecord(body) ? body['errors'] : undefined;
  if (!Array.isArray(errors)) return [];
  return errors
    .slice(0, MAX_REST_ERROR_DETAILS)
    .filter((entry): entry is Record<string, unknown> => isRecord(entry))
    .map((entry) => entryDetail(entry, status, bodyProperty));
}
