/**
 * PENDING CORE: generic, not Ads-specific. Turns a converted API operation (core's
 * `ConvertedOperation` facts: method, path template, parameters with their wire location and
 * array format, body property and media type) plus validated tool arguments into the HTTP request
 * to send. Every server that generates tools from API descriptions needs exactly this; it belongs
 * in core's `src/openapi` next to the converter. It lives here until the lead moves it, and the SP
 * adapter must not write its own copy.
 *
 * @packageDocumentation
 */
import type { CollectionFormat, OperationBody, OperationParameter } from '../server/core-openapi.js';

/** The facts of an operation this builder reads (a subset of core's `ConvertedOperation`). */
export interface OperationWireShape {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path template with `{name}` placeholders, e.g. `/reporting/reports/{reportId}`. */
  readonly path: string;
  readonly parameters: readonly OperationParameter[];
  readonly body?: OperationBody;
}

/** The request to send. */
export interface OperationRequest {
  readonly method: string;
  /** Absolute URL: base + path with placeholders filled + query string. */
  readonly url: string;
  /** Header parameters and, when a body is sent, `content-type`; names as the operation spells them. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text of the body argument, when the operation has one and it was given. */
  readonly body?: string;
}

const SEPARATORS: Readonly<Record<Exclude<CollectionFormat, 'multi'>, string>> = { csv: ',', ssv: ' ', tsv: '\t', pipes: '|' };

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  return JSON.stringify(value) ?? '';
}

function arrayTexts(value: unknown): string[] {
  return Array.isArray(value) ? value.map(scalarText) : [scalarText(value)];
}

/**
 * Builds the HTTP request for one operation call.
 *
 * - path parameters are percent-encoded into their `{name}` placeholder;
 * - query parameters are appended in parameter order; arrays follow the parameter's
 *   `collectionFormat` (`multi` repeats the key, the others join with their separator); objects
 *   are sent as JSON text;
 * - header parameters become headers (arrays joined with `,`);
 * - the body argument is sent as JSON with the operation's media type;
 * - arguments that are `undefined` are left out.
 *
 * @param baseUrl - scheme and host, optionally with a base path (`https://host/base`); a trailing
 *   slash is ignored.
 * @param operation - the operation's wire facts.
 * @param args - validated arguments keyed by input property.
 * @returns the request.
 * @throws TypeError when a path parameter has no value (validation should have caught it).
 */
export function buildOperationRequest(baseUrl: string, operation: OperationWireShape, args: Readonly<Record<string, unknown>>): OperationRequest {
  const byName = new Map(operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => [parameter.name, parameter]));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const parameter = byName.get(name);
    const value = parameter === undefined ? undefined : args[parameter.property];
    if (value === undefined || value === null || value === '') throw new TypeError(`path parameter "${name}" has no value`);
    return encodeURIComponent(arrayTexts(value).join(','));
  });
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    const value = args[parameter.property];
    if (value === undefined || parameter.in === 'path') continue;
    const texts = arrayTexts(value);
    if (parameter.in === 'query') {
      if (Array.isArray(value) && parameter.collectionFormat === 'multi') {
        for (const text of texts) query.append(parameter.name, text);
      } else {
        query.append(parameter.name, texts.join(Array.isArray(value) ? SEPARATORS[parameter.collectionFormat === 'multi' ? 'csv' : parameter.collectionFormat] : ''));
      }
    } else if (parameter.in === 'header') {
      headers[parameter.name] = texts.join(',');
    }
  }
  const search = query.toString();
  const url = `${baseUrl.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
  const bodyValue = operation.body === undefined ? undefined : args[operation.body.property];
  if (operation.body === undefined || bodyValue === undefined) return { method: operation.method, url, headers };
  return { method: operation.method, url, headers: { ...headers, 'content-type': operation.body.mediaType }, body: JSON.stringify(bodyValue) };
}
