/**
 * Tool arguments -> the HTTP request an operation converted from an API description expects:
 * path parameters substituted (percent-encoded), query parameters with lists written the way the
 * description says (comma-separated by default, with a literal comma, as the reference servers' APIs read
 * them), header parameters, and the JSON body (JSON text in a body argument is parsed first).
 * Shared by every server that generates tools from OpenAPI / Swagger documents.
 *
 * @packageDocumentation
 */
import type { BodyCoercionFailure } from '../adapter.js';
import { UpstreamClientError } from '../errors.js';
import type { CollectionFormat, ConvertedOperation } from './operations.js';

/** The facts of an operation the request builder reads (a subset of {@link ConvertedOperation}). */
export type OperationWireShape = Pick<ConvertedOperation, 'method' | 'path' | 'parameters' | 'body'>;

/** A request ready for `fetch`. */
export interface OperationRequest {
  readonly method: string;
  /** Absolute URL with the query string. */
  readonly url: string;
  /** Header parameters and `content-type` for a body; the access token is added by the caller. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the body, when the operation has one and it was given. */
  readonly body?: string;
}

const SEPARATORS: Readonly<Record<Exclude<CollectionFormat, 'multi'>, string>> = {
  csv: ',',
  ssv: ' ',
  tsv: '\t',
  pipes: '|',
};

/** Percent-encodes a query component (RFC 3986 unreserved characters stay as they are). */
function encodeComponent(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * The encoded values to write for one argument: one entry per query pair (`multi`), else one
 * text with the items encoded one by one and joined by the separator (a literal comma for `csv`,
 * as OpenAPI 2 `collectionFormat: csv` lists are written: `ids=A1,B2`).
 */
function wireValues(value: unknown, format: CollectionFormat): string[] {
  if (!Array.isArray(value)) return [encodeComponent(scalarText(value))];
  const items = value.map((item) => encodeComponent(scalarText(item)));
  return format === 'multi' ? items : [items.join(format === 'csv' ? ',' : encodeComponent(SEPARATORS[format]))];
}

/** Whether a string body argument is meant as JSON text (an object or array written out). */
function looksLikeJson(text: string): boolean {
  // `[` or `{` after white space, escaped: a bare brace in the class misleads brace-counting tools
  return /^\s*[\x5B\x7B]/.test(text);
}

/**
 * The body to send: an object or array as JSON; a string that looks like JSON is parsed first
 * (agents often send nested objects as text), so a broken one fails here, before any upstream
 * call.
 *
 * @param value - the body argument.
 * @param property - its argument name (for the failure's path).
 * @returns the parsed value.
 * @throws UpstreamClientError with a `body_coercion` failure when a JSON-looking string does not parse.
 */
export function coerceJsonBody(value: unknown, property: string): unknown {
  if (typeof value !== 'string' || !looksLikeJson(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    const failure: BodyCoercionFailure = { type: 'body_coercion', path: property, received: value };
    throw new UpstreamClientError(failure);
  }
}

/**
 * The query pairs of the arguments the operation does not describe: the top-level arguments of a
 * converted operation are its parameters (its JSON body is one argument of its own), so a key
 * none of them names is a parameter the packaged description does not list yet, and it travels
 * as one, written like a `csv` query parameter. Strict validation refuses such keys before this
 * point; they only arrive with `MCP_STRICT_UNKNOWN_FIELDS=false` (CONTRACT.md "Strict unknown
 * fields") or where the tool's schema admits extra keys.
 */
function undeclaredQuery(operation: OperationWireShape, args: Readonly<Record<string, unknown>>): string[] {
  const declared = new Set(operation.parameters.map((parameter) => parameter.property));
  if (operation.body !== undefined) declared.add(operation.body.property);
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (declared.has(key) || value === undefined || value === null) continue;
    for (const text of wireValues(value, 'csv')) pairs.push(`${encodeComponent(key)}=${text}`);
  }
  return pairs;
}

/**
 * Builds the HTTP request of an operation call. An argument the operation does not describe
 * (strict validation rejects them before this point unless strict mode is off) is passed through
 * as a query parameter of its own name, after the described ones.
 *
 * @param operation - the converted operation.
 * @param args - the validated arguments, by input property.
 * @param baseUrl - the endpoint, e.g. `https://api.example.com` (a path prefix is kept; a trailing slash is ignored).
 * @returns method, URL, headers and body text.
 * @throws UpstreamClientError (`body_coercion`) when the body is JSON-looking text that does not parse.
 * @throws TypeError when a path parameter has no value (validation should have caught it).
 */
export function buildOperationRequest(
  operation: OperationWireShape,
  args: Readonly<Record<string, unknown>>,
  baseUrl: string,
): OperationRequest {
  let path = operation.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    if (!Object.hasOwn(args, parameter.property)) continue;
    const value = args[parameter.property];
    if (value === undefined || value === null) continue;
    if (parameter.in === 'path') {
      const items = Array.isArray(value) ? value.map(scalarText) : [scalarText(value)];
      path = path.split(`{${parameter.name}}`).join(items.map(encodeComponent).join(','));
    } else if (parameter.in === 'query') {
      for (const text of wireValues(value, parameter.collectionFormat))
        query.push(`${encodeComponent(parameter.name)}=${text}`);
    } else if (parameter.in === 'header') {
      headers[parameter.name.toLowerCase()] = Array.isArray(value)
        ? value.map(scalarText).join(',')
        : scalarText(value);
    }
  }
  let body: string | undefined;
  if (
    operation.body !== undefined &&
    Object.hasOwn(args, operation.body.property) &&
    args[operation.body.property] !== undefined
  ) {
    const value = coerceJsonBody(args[operation.body.property], operation.body.property);
    body = typeof value === 'string' && !/json/i.test(operation.body.mediaType) ? value : JSON.stringify(value);
    headers['content-type'] = operation.body.mediaType;
  }
  query.push(...undeclaredQuery(operation, args));
  const unfilled = /\{([^}]+)\}/.exec(path);
  if (unfilled !== null) throw new TypeError(`path parameter "${unfilled[1] ?? ''}" has no value`);
  const search = query.join('&');
  const url = `${baseUrl.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
  return { method: operation.method, url, headers, ...(body === undefined ? {} : { body }) };
}
