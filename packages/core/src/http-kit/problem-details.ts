/**
 * RFC 9457 problem details (`application/problem+json`): the error body format many REST APIs
 * share. Implements CONTRACT.md "details" (the body's facts become detail keys).
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';

/**
 * A problem details object. Members of the wrong type are dropped, as RFC 9457 asks; every
 * member that is not one of the five standard ones is kept in `extensions`.
 */
export interface ProblemDetails {
  /** A URI naming the problem type (`about:blank` when the upstream left it out). */
  type?: string;
  /** A short summary of the problem type. */
  title?: string;
  /** The HTTP status the upstream meant (100-599). */
  status?: number;
  /** What went wrong with this request, for humans. */
  detail?: string;
  /** A URI naming this occurrence. */
  instance?: string;
  /** Extension members (`errors`, `balance`, ...), as sent. */
  extensions: Record<string, unknown>;
}

const STANDARD_MEMBERS: ReadonlySet<string> = new Set(['type', 'title', 'status', 'detail', 'instance']);

function isProblemContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*application\/problem\+json\s*(?:;|$)/i.test(contentType);
}

function jsonObject(body: unknown): Record<string, unknown> | undefined {
  if (isRecord(body)) return body;
  if (typeof body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function stringMember(object: Record<string, unknown>, name: string): string | undefined {
  const value = object[name];
  return typeof value === 'string' ? value : undefined;
}

function statusMember(object: Record<string, unknown>): number | undefined {
  const value = object['status'];
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/**
 * Whether an object without the problem content type still reads as one: it has a string
 * `type` or `title` (the members that say "this is a problem document"), and none of the five
 * standard members has a wrong type. A body like `{ "message": "...", "status": "404" }` is not one.
 */
function looksLikeProblem(object: Record<string, unknown>): boolean {
  if (stringMember(object, 'type') === undefined && stringMember(object, 'title') === undefined) return false;
  const wrong = (name: string): boolean => Object.hasOwn(object, name) && stringMember(object, name) === undefined;
  const wrongStatus = Object.hasOwn(object, 'status') && statusMember(object) === undefined;
  return !wrong('type') && !wrong('title') && !wrong('detail') && !wrong('instance') && !wrongStatus;
}

/**
 * Reads an RFC 9457 problem details body.
 *
 * @param body - the body as the upstream sent it: parsed JSON, or its text.
 * @param contentType - the response's `Content-Type`; `application/problem+json` makes any JSON
 *   object a problem document, without it the object must look like one (a string `type` or
 *   `title`, and standard members of the right types).
 * @returns the problem details, or `undefined` when the body is not one. Never throws.
 */
export function parseProblemDetails(body: unknown, contentType?: string): ProblemDetails | undefined {
  const object = jsonObject(body);
  if (object === undefined) return undefined;
  if (!isProblemContentType(contentType) && !looksLikeProblem(object)) return undefined;
  // fromEntries defines own properties, so a member named `__proto__` stays data
  const extensions = Object.fromEntries(Object.entries(object).filter(([name]) => !STANDARD_MEMBERS.has(name)));
  const type = stringMember(object, 'type');
  const title = stringMember(object, 'title');
  const status = statusMember(object);
  const detail = stringMember(object, 'detail');
  const instance = stringMember(object, 'instance');
  return {
    ...(type === undefined ? {} : { type }),
    ...(title === undefined ? {} : { title }),
    ...(status === undefined ? {} : { status }),
    ...(detail === undefined ? {} : { detail }),
    ...(instance === undefined ? {} : { instance }),
    extensions,
  };
}
