/**
 * API operations -> tool input schemas. A Swagger 2.0 operation (path, query, header, formData
 * and body parameters) or an OpenAPI 3.x operation (parameters plus a JSON `requestBody`) becomes
 * one JSON Schema 2020-12 object whose top-level properties are the parameters by name and the
 * body under one property, together with the facts needed to send the call (where each argument
 * goes, how arrays are serialized, which media type the body uses).
 *
 * References are resolved through the caller's resolver (see {@link ReferenceResolver}); core
 * itself parses nothing and depends on no reference library.
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import { capText } from '../upstream-body/parse.js';
import type { JsonSchema } from '../output-schema.js';
import type { RateLimitPlan } from '../rate-limit/store.js';
import { rateLimitPlanFromDescription } from './rate-limit-plan.js';
import { SchemaConverter } from './schema.js';
import type { ReferenceMode, ReferenceResolver } from './schema.js';
import { lowerCamelIdentifier } from './tool-name.js';

/** HTTP methods that carry operations, in the order operations are listed. */
export const OPERATION_METHODS = Object.freeze([
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const);

/** One HTTP method of {@link OPERATION_METHODS}. */
export type OperationMethod = (typeof OPERATION_METHODS)[number];

/** Which API description format a document is in. */
export type ApiDescriptionFormat = 'swagger2' | 'openapi3';

/** Where a non-body argument goes on the wire. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'formData';

/**
 * How an array value is written on the wire, in Swagger 2.0 terms (OpenAPI 3 `style`/`explode`
 * are mapped onto them): `csv` `a,b`; `ssv` `a b`; `tsv` tab; `pipes` `a|b`; `multi` one
 * `name=value` pair per item.
 */
export type CollectionFormat = 'csv' | 'ssv' | 'tsv' | 'pipes' | 'multi';

/** One non-body argument. */
export interface OperationParameter {
  /** The name on the wire (query key, header name, path placeholder). */
  readonly name: string;
  /** The input property that carries it (the wire name unless two locations share a name). */
  readonly property: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** For array values. */
  readonly collectionFormat: CollectionFormat;
  /** OpenAPI 3 parameters declared with `content` instead of `schema`: the media type the value is written in (e.g. `application/json`). */
  readonly mediaType?: string;
}

/** The request body argument. */
export interface OperationBody {
  /** The input property that carries it (Swagger: the body parameter's name; OpenAPI 3: `body`). */
  readonly property: string;
  /** The media type to send, e.g. `application/json` or `application/vnd.spCampaign.v3+json`. */
  readonly mediaType: string;
  readonly required: boolean;
}

/** One operation, ready to become a tool. */
export interface ConvertedOperation {
  /** The operation's `operationId`, or one derived from method and path when it has none. */
  readonly operationId: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path template, e.g. `/orders/v0/orders/{orderId}`. */
  readonly path: string;
  /** `summary`, capped; absent when the operation has none. */
  readonly summary?: string;
  /** `description`, capped; absent when the operation has none. */
  readonly description?: string;
  readonly deprecated: boolean;
  /** The usage plan the full `description` states (see `rateLimitPlanFromDescription`); absent when it states none. */
  readonly rateLimit?: RateLimitPlan;
  readonly parameters: readonly OperationParameter[];
  readonly body?: OperationBody;
  /**
   * `{ type: 'object', properties, required?, $defs? }` (`$defs` only in `defs` reference mode).
   * Top-level `additionalProperties` is left unset so the server's strict-unknown-fields switch
   * decides. Shared subtrees: treat as read-only.
   */
  readonly inputSchema: JsonSchema;
}

/** Options of the operation conversion. */
export interface OperationConversionOptions {
  /** Follows `$ref`s (schemas, parameters, request bodies). Required unless the document is dereferenced. */
  readonly resolveReference?: ReferenceResolver;
  /** Longest schema `description` kept, in characters (default 300). */
  readonly descriptionLimit?: number;
  /** Longest operation `summary`/`description` kept, in characters (default `OPERATION_DESCRIPTION_LIMIT`). */
  readonly operationDescriptionLimit?: number;
  /** Header parameters the server sets itself (compared case-insensitively); left out of the input. */
  readonly omitHeaders?: readonly string[];
  /** The input property for an OpenAPI 3 request body (default `body`). */
  readonly bodyProperty?: string;
  /** How resolved references appear (see {@link ReferenceMode}); default `inline`. */
  readonly referenceMode?: ReferenceMode;
}

/** Default cap of an operation's summary and description, in characters. */
export const OPERATION_DESCRIPTION_LIMIT = 1000;

type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * Which format a parsed document is in.
 *
 * @param document - a parsed API description.
 * @returns `swagger2` for `swagger: "2.0"`, `openapi3` for `openapi: "3.x.y"`.
 * @throws TypeError for anything else.
 */
export function apiDescriptionFormat(document: unknown): ApiDescriptionFormat {
  if (isRecord(document)) {
    if (typeof document['swagger'] === 'string' && document['swagger'].startsWith('2.')) return 'swagger2';
    if (typeof document['openapi'] === 'string' && document['openapi'].startsWith('3.')) return 'openapi3';
  }
  throw new TypeError('not a Swagger 2.0 or OpenAPI 3.x document (no "swagger: 2.0" or "openapi: 3.x" field)');
}

/**
 * The base URLs a document declares: Swagger 2.0 `schemes` x `host` + `basePath`; OpenAPI 3
 * `servers[].url` with `{variables}` replaced by their defaults.
 *
 * @param document - a parsed API description.
 * @returns absolute or relative URLs without a trailing slash, in document order; `[]` when none.
 */
export function documentBaseUrls(document: unknown): string[] {
  if (!isRecord(document)) return [];
  if (typeof document['host'] === 'string') {
    const basePath = typeof document['basePath'] === 'string' ? document['basePath'].replace(/\/$/, '') : '';
    const schemes = Array.isArray(document['schemes'])
      ? document['schemes'].filter((scheme): scheme is string => typeof scheme === 'string')
      : [];
    return (schemes.length > 0 ? schemes : ['https']).map(
      (scheme) => `${scheme}://${String(document['host'])}${basePath}`,
    );
  }
  if (!Array.isArray(document['servers'])) return [];
  const urls: string[] = [];
  for (const server of document['servers'] as readonly unknown[]) {
    if (!isRecord(server) || typeof server['url'] !== 'string') continue;
    const variables = isRecord(server['variables']) ? server['variables'] : {};
    const url = server['url'].replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isRecord(variable) && typeof variable['default'] === 'string' ? variable['default'] : whole;
    });
    urls.push(url.replace(/\/$/, ''));
  }
  return urls;
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]*\+)?json(?:\s*;.*)?$/i;

/** The media type to send: `application/json`, else any `...+json`/vendor JSON type, else the first listed. */
function chooseMediaType(mediaTypes: readonly string[]): string | undefined {
  return (
    mediaTypes.find((type) => /^application\/json\b/i.test(type)) ??
    mediaTypes.find((type) => JSON_MEDIA_TYPE.test(type) || /json/i.test(type)) ??
    mediaTypes[0]
  );
}

function deriveOperationId(method: string, path: string): string {
  return lowerCamelIdentifier(`${method} ${path.replace(/[{}]/g, '')}`) || method;
}

function openApiCollectionFormat(location: ParameterLocation, parameter: JsonRecord): CollectionFormat {
  const style =
    typeof parameter['style'] === 'string'
      ? parameter['style']
      : location === 'query' || location === 'cookie'
        ? 'form'
        : 'simple';
  const explode = typeof parameter['explode'] === 'boolean' ? parameter['explode'] : style === 'form';
  if (style === 'form') return explode ? 'multi' : 'csv';
  if (style === 'spaceDelimited') return explode ? 'multi' : 'ssv';
  if (style === 'pipeDelimited') return explode ? 'multi' : 'pipes';
  return 'csv';
}

function swaggerCollectionFormat(parameter: JsonRecord): CollectionFormat {
  const format = parameter['collectionFormat'];
  return format === 'ssv' || format === 'tsv' || format === 'pipes' || format === 'multi' ? format : 'csv';
}

const LOCATIONS: ReadonlySet<string> = new Set(['path', 'query', 'header', 'cookie', 'formData']);

/** Keeps the builder state of one operation's input schema. */
class InputBuilder {
  readonly properties: Record<string, unknown> = {};
  readonly required: string[] = [];
  readonly parameters: OperationParameter[] = [];
  body: OperationBody | undefined;

  /** A property name for `name` not yet used (`name`, else `<location><Name>`, else numbered). */
  propertyFor(name: string, location: string): string {
    if (!Object.hasOwn(this.properties, name)) return name;
    const prefixed = `${location}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    if (!Object.hasOwn(this.properties, prefixed)) return prefixed;
    let index = 2;
    while (Object.hasOwn(this.properties, `${prefixed}${index}`)) index += 1;
    return `${prefixed}${index}`;
  }

  add(property: string, schema: unknown, required: boolean): void {
    // plain assignment except for `__proto__`, which would set the prototype
    if (property === '__proto__')
      Object.defineProperty(this.properties, property, {
        value: schema,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else this.properties[property] = schema;
    if (required) this.required.push(property);
  }

  schema(definitions?: Record<string, unknown>): JsonSchema {
    const schema: Record<string, unknown> = { type: 'object', properties: this.properties };
    if (this.required.length > 0) schema['required'] = this.required;
    if (definitions !== undefined) schema['$defs'] = definitions;
    return schema;
  }
}

/**
 * Converts the operations of one Swagger 2.0 or OpenAPI 3.x document. One converter (and one
 * memo of converted definitions) serves every operation of the document.
 */
export class OperationConverter {
  readonly format: ApiDescriptionFormat;
  private readonly document: JsonRecord;
  private readonly options: OperationConversionOptions;
  private readonly schemas: SchemaConverter;
  private readonly omittedHeaders: ReadonlySet<string>;

  /**
   * @param document - the parsed description (refs in place, or dereferenced).
   * @param options - see {@link OperationConversionOptions}.
   * @throws TypeError when `document` is neither Swagger 2.0 nor OpenAPI 3.x.
   */
  constructor(document: unknown, options: OperationConversionOptions = {}) {
    this.format = apiDescriptionFormat(document);
    this.document = document as JsonRecord;
    this.options = options;
    this.schemas = new SchemaConverter({
      resolveReference: options.resolveReference,
      descriptionLimit: options.descriptionLimit,
      referenceMode: options.referenceMode,
    });
    this.omittedHeaders = new Set((options.omitHeaders ?? []).map((name) => name.toLowerCase()));
  }

  /**
   * Every operation of the document, in path order then {@link OPERATION_METHODS} order.
   *
   * @returns the converted operations.
   */
  operations(): ConvertedOperation[] {
    const paths = this.document['paths'];
    if (!isRecord(paths)) return [];
    const result: ConvertedOperation[] = [];
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.dereference(rawItem);
      if (!isRecord(item)) continue;
      for (const method of OPERATION_METHODS) {
        if (isRecord(item[method])) result.push(this.convertOperation(path, method, item, item[method]));
      }
    }
    return result;
  }

  /**
   * One operation.
   *
   * @param path - the path template as written in `paths`.
   * @param method - the HTTP method (any case).
   * @returns the converted operation.
   * @throws RangeError when the document has no such operation.
   */
  operation(path: string, method: string): ConvertedOperation {
    const paths = this.document['paths'];
    const item = isRecord(paths) ? this.dereference(paths[path]) : undefined;
    const key = method.toLowerCase();
    const operation = isRecord(item) ? item[key] : undefined;
    if (!isRecord(item) || !isRecord(operation))
      throw new RangeError(`no operation ${method.toUpperCase()} ${path} in the document`);
    return this.convertOperation(path, key, item, operation);
  }

  /** Follows `$ref` chains on parameters, request bodies and path items (at most 32 hops). */
  private dereference(value: unknown): unknown {
    let current = value;
    for (let hops = 0; hops < 32 && isRecord(current) && typeof current['$ref'] === 'string'; hops += 1) {
      current = this.schemas.resolve(current['$ref']);
    }
    return current;
  }

  private convertOperation(path: string, method: string, item: JsonRecord, operation: JsonRecord): ConvertedOperation {
    const builder = new InputBuilder();
    // path-level parameters first, overridden by operation-level ones with the same name and location
    const merged = new Map<string, JsonRecord>();
    for (const list of [item['parameters'], operation['parameters']]) {
      if (!Array.isArray(list)) continue;
      for (const raw of list as readonly unknown[]) {
        const parameter = this.dereference(raw);
        if (!isRecord(parameter) || typeof parameter['name'] !== 'string' || typeof parameter['in'] !== 'string')
          continue;
        merged.set(`${parameter['in']}:${parameter['name']}`, parameter);
      }
    }
    for (const parameter of merged.values()) this.addParameter(builder, parameter, operation);
    if (this.format === 'openapi3') this.addRequestBody(builder, operation);

    const limit = this.options.operationDescriptionLimit ?? OPERATION_DESCRIPTION_LIMIT;
    const summary = typeof operation['summary'] === 'string' ? capText(operation['summary'], limit) : '';
    const description = typeof operation['description'] === 'string' ? capText(operation['description'], limit) : '';
    // built key by key (same order as ever) rather than by conditional spreads, which cost more
    // than the rest of this method in the unoptimized code start-up runs
    const converted: { -readonly [Key in keyof ConvertedOperation]?: ConvertedOperation[Key] } = {
      operationId:
        typeof operation['operationId'] === 'string' && operation['operationId'].trim() !== ''
          ? operation['operationId'].trim()
          : deriveOperationId(method, path),
      method: method.toUpperCase(),
      path,
    };
    if (summary !== '') converted.summary = summary;
    if (description !== '') converted.description = description;
    converted.deprecated = operation['deprecated'] === true;
    // read from the whole text: capping may cut the table off
    const plan = rateLimitPlanFromDescription(
      typeof operation['description'] === 'string' ? operation['description'] : undefined,
    );
    if (plan !== undefined) converted.rateLimit = plan;
    converted.parameters = builder.parameters;
    if (builder.body !== undefined) converted.body = builder.body;
    converted.inputSchema = builder.schema(this.schemas.definitionsFor(builder.properties));
    return converted as ConvertedOperation;
  }

  private addParameter(builder: InputBuilder, parameter: JsonRecord, operation: JsonRecord): void {
    const name = parameter['name'] as string;
    const location = parameter['in'] as string;
    if (location === 'body') {
      const property = builder.propertyFor(name, 'body');
      const schema = this.schemas.convertToObject(parameter['schema']);
      const description = this.schemas.description(parameter['description']);
      builder.add(
        property,
        description !== undefined && schema['description'] === undefined ? { ...schema, description } : schema,
        parameter['required'] === true,
      );
      const consumes = Array.isArray(operation['consumes'])
        ? operation['consumes']
        : Array.isArray(this.document['consumes'])
          ? this.document['consumes']
          : [];
      const mediaType =
        chooseMediaType(consumes.filter((type): type is string => typeof type === 'string')) ?? 'application/json';
      builder.body = { property, mediaType, required: parameter['required'] === true };
      return;
    }
    if (!LOCATIONS.has(location)) return;
    const where = location as ParameterLocation;
    if (where === 'header' && this.omittedHeaders.has(name.toLowerCase())) return;
    const required = where === 'path' || parameter['required'] === true;
    const property = builder.propertyFor(name, where);
    let schema: JsonSchema;
    let mediaType: string | undefined;
    if (this.format === 'swagger2') {
      // a Swagger 2.0 non-body parameter carries its schema keywords itself
      schema = this.schemas.convertToObject(parameter);
    } else {
      const content = parameter['content'];
      mediaType = isRecord(content) ? chooseMediaType(Object.keys(content)) : undefined;
      const media = isRecord(content) && mediaType !== undefined ? content[mediaType] : undefined;
      const fromContent = isRecord(media) ? media['schema'] : undefined;
      const converted = this.schemas.convertToObject(parameter['schema'] ?? fromContent);
      const description = this.schemas.description(parameter['description']);
      const deprecated = parameter['deprecated'] === true;
      schema = {
        ...converted,
        ...(description === undefined ? {} : { description }),
        ...(deprecated ? { deprecated: true } : {}),
        ...(Object.hasOwn(parameter, 'example') && converted['examples'] === undefined
          ? { examples: [parameter['example']] }
          : {}),
      };
    }
    builder.add(property, schema, required);
    builder.parameters.push({
      name,
      property,
      in: where,
      required,
      collectionFormat:
        this.format === 'swagger2' ? swaggerCollectionFormat(parameter) : openApiCollectionFormat(where, parameter),
      ...(mediaType === undefined ? {} : { mediaType }),
    });
  }

  private addRequestBody(builder: InputBuilder, operation: JsonRecord): void {
    const requestBody = this.dereference(operation['requestBody']);
    if (!isRecord(requestBody) || !isRecord(requestBody['content'])) return;
    const content = requestBody['content'];
    const mediaType = chooseMediaType(Object.keys(content));
    if (mediaType === undefined) return;
    const media = content[mediaType];
    const schema = this.schemas.convertToObject(isRecord(media) ? media['schema'] : undefined);
    const description = this.schemas.description(requestBody['description']);
    const property = builder.propertyFor(this.options.bodyProperty ?? 'body', 'request');
    const required = requestBody['required'] === true;
    builder.add(
      property,
      description !== undefined && schema['description'] === undefined ? { ...schema, description } : schema,
      required,
    );
    builder.body = { property, mediaType, required };
  }
}

/**
 * Converts every operation of a document. Shorthand for `new OperationConverter(document,
 * options).operations()`.
 *
 * @param document - a parsed Swagger 2.0 or OpenAPI 3.x description.
 * @param options - see {@link OperationConversionOptions}.
 * @returns the operations, in path order then method order.
 * @throws TypeError when `document` is neither Swagger 2.0 nor OpenAPI 3.x.
 */
export function convertOperations(document: unknown, options: OperationConversionOptions = {}): ConvertedOperation[] {
  return new OperationConverter(document, options).operations();
}
