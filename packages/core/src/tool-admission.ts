/**
 * Tool-descriptor admission: the checks a tool's schemas pass before the tool is registered.
 * Today they cover the `x-mcp-header` annotation of MCP 2026-07-28, which asks a Streamable HTTP
 * client to mirror an argument into an `Mcp-Param-{name}` request header so that gateways can
 * route without reading the body. A header is seen by every intermediary, so the rules fail
 * closed: an annotation anywhere but where the specification allows it, a malformed or repeated
 * header name, a type with no exact header form, or a name that looks like a credential refuses
 * the whole tool. A refused tool is left out (with one log line); the other tools still load.
 *
 * @packageDocumentation
 */

import type { JsonSchemaObject } from './arguments/types.js';
import { walkSchemaTree } from './json-references.js';
import type { EnvelopeLogger } from './logger.js';

/** The schema annotation that mirrors a tool argument into an `Mcp-Param-{name}` request header. */
export const MCP_HEADER_KEYWORD = 'x-mcp-header';

/** The prefix a client puts before the annotated name to build the request header name. */
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

/**
 * The rule a descriptor broke:
 * - `header_location`: `x-mcp-header` on anything but a direct member of `inputSchema.properties`
 *   (a nested property, an `items`/`oneOf`/`anyOf`/`allOf` branch, a `$defs` entry, the root, any
 *   part of `outputSchema`);
 * - `header_name_syntax`: the annotation is not a non-empty HTTP token (RFC 9110 `tchar`s);
 * - `header_name_duplicate`: two annotations of one tool name the same header, ignoring case;
 * - `header_property_type`: the annotated property's `type` is not `"string"`, `"integer"` or
 *   `"boolean"` (a number, a union, a missing `type`);
 * - `header_sensitive_name`: the property or header name looks like a credential (password,
 *   secret, token, api_key, authorization and their spellings).
 */
export type AdmissionRule =
  'header_location' | 'header_name_syntax' | 'header_name_duplicate' | 'header_property_type' | 'header_sensitive_name';

/** Which of a tool's schemas an annotation was found in. */
export type ToolSchemaName = 'inputSchema' | 'outputSchema';

/**
 * One broken rule. Carries names and locations only, never a value from the schema (no
 * `default`, `const`, `enum` or `examples`), so it can be logged as is.
 */
export interface AdmissionRefusal {
  readonly rule: AdmissionRule;
  readonly schema: ToolSchemaName;
  /** JSON pointer (RFC 6901) of the annotated schema object inside {@link AdmissionRefusal.schema}, `""` for its root. */
  readonly pointer: string;
  /** The request header the annotation asks for (`Mcp-Param-Region`); absent when the annotation is not a string. */
  readonly header?: string;
  /** One sentence saying what is wrong. */
  readonly message: string;
}

/** A header a tool declares: which argument it mirrors and under which request header. */
export interface AdmittedHeader {
  /** The `inputSchema.properties` member mirrored. */
  readonly property: string;
  /** The full request header name, e.g. `Mcp-Param-Region`. */
  readonly header: string;
}

/** The admission verdict for one tool: admitted with its headers, or refused with every broken rule. */
export type ToolAdmission =
  | { readonly admitted: true; readonly headers: readonly AdmittedHeader[] }
  | { readonly admitted: false; readonly refusals: readonly [AdmissionRefusal, ...AdmissionRefusal[]] };

/** What admission reads from a tool: its name and schemas (an `EnvelopeTool` is one). */
export interface AdmissibleTool {
  readonly name: string;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema?: JsonSchemaObject;
}

/** An `x-mcp-header` annotation as found in a schema tree. */
export interface HeaderAnnotation {
  readonly schema: ToolSchemaName;
  readonly pointer: string;
  /** The annotation value as written (a header name when well formed). */
  readonly value: unknown;
  /** The annotated schema object. */
  readonly annotated: JsonSchemaObject;
  /** The `inputSchema.properties` key, present exactly when the annotation sits on a direct member of it. */
  readonly property?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Substrings that mark a credential once a name is lower-cased and stripped of separators. */
const SENSITIVE_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'authorization',
  'credential',
  'cookie',
  'privatekey',
  'accesskey',
  'bearer',
  'sessionid',
];

/** Whole names that mark a credential but are too short to look for inside other words. */
const SENSITIVE_NAMES = ['auth', 'pwd', 'pass', 'key'];

const HEADER_TYPES = ['string', 'integer', 'boolean'];

/**
 * Whether `name` is an HTTP token (RFC 9110 section 5.6.2: one or more `tchar`s), the syntax of a
 * field name.
 *
 * @param name - the candidate, e.g. `Region`.
 */
export function isHttpToken(name: unknown): name is string {
  return typeof name === 'string' && TOKEN.test(name);
}

/**
 * Whether a property or header name looks like a credential: lower-cased with `-`, `_`, `.` and
 * spaces removed, it contains one of password, passwd, passphrase, secret, token, apikey,
 * authorization, credential, cookie, privatekey, accesskey, bearer, sessionid, or is exactly auth,
 * pwd, pass or key. So `api_key`, `X-Api-Key`, `clientSecret`, `refresh_token`, `Authorization`
 * all match; a pagination `nextToken` matches too, on purpose (fail closed).
 *
 * @param name - a property name or an `x-mcp-header` value.
 */
export function isSensitiveName(name: string): boolean {
  const folded = name.toLowerCase().replace(/[-_.\s]/g, '');
  return SENSITIVE_NAMES.includes(folded) || SENSITIVE_PARTS.some((part) => folded.includes(part));
}

/**
 * Finds every `x-mcp-header` annotation in one schema tree, with `walkSchemaTree` (`json-schema-traverse` over all
 * keys: nested `properties`, `items`, `oneOf`/`anyOf`/`allOf`, `$defs` and `definitions` (so any
 * local `$ref` target), `not`/`if`/`then`/`else` and unknown keywords holding schemas. The walk
 * never reads `default`, `const` or `enum` values. `prefixItems` (an array the library does not
 * know) is walked too).
 *
 * @param schema - the root schema.
 * @param which - whether it is the tool's `inputSchema` (whose direct properties may carry the annotation) or `outputSchema`.
 * @returns the annotations in document order.
 */
export function findHeaderAnnotations(schema: JsonSchemaObject, which: ToolSchemaName): HeaderAnnotation[] {
  const found: HeaderAnnotation[] = [];
  walkSchemaTree(schema, (node, pointer, parentPointer, parentKeyword, key) => {
    if (!Object.hasOwn(node, MCP_HEADER_KEYWORD)) return;
    const direct =
      which === 'inputSchema' && parentPointer === '' && parentKeyword === 'properties' && typeof key === 'string';
    found.push({
      schema: which,
      pointer,
      value: node[MCP_HEADER_KEYWORD],
      annotated: node,
      ...(direct ? { property: key } : {}),
    });
  });
  return found;
}

function refusal(rule: AdmissionRule, annotation: HeaderAnnotation, message: string): AdmissionRefusal {
  const header = typeof annotation.value === 'string' ? { header: MCP_PARAM_HEADER_PREFIX + annotation.value } : {};
  return { rule, schema: annotation.schema, pointer: annotation.pointer, ...header, message };
}

/**
 * Checks one annotation on its own (location, name syntax, property type, sensitive names).
 *
 * @returns the broken rules, empty when the annotation is acceptable.
 */
export function checkHeaderAnnotation(annotation: HeaderAnnotation): AdmissionRefusal[] {
  if (annotation.property === undefined) {
    const where = `${annotation.schema} ${annotation.pointer === '' ? 'root' : annotation.pointer}`;
    return [
      refusal(
        'header_location',
        annotation,
        `${MCP_HEADER_KEYWORD} is allowed only on a direct member of inputSchema.properties, found at ${where}`,
      ),
    ];
  }
  const refusals: AdmissionRefusal[] = [];
  const { value, property } = annotation;
  if (!isHttpToken(value)) {
    refusals.push(
      refusal(
        'header_name_syntax',
        annotation,
        `${MCP_HEADER_KEYWORD} must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_\`|~), got ${typeof value === 'string' ? 'a string with other characters' : `a ${value === null ? 'null' : typeof value}`}`,
      ),
    );
  }
  const type = annotation.annotated['type'];
  if (typeof type !== 'string' || !HEADER_TYPES.includes(type)) {
    refusals.push(
      refusal(
        'header_property_type',
        annotation,
        `a property mirrored into a header must have type "string", "integer" or "boolean", "${property}" has ${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}`,
      ),
    );
  }
  const sensitive = isSensitiveName(property)
    ? property
    : typeof value === 'string' && isSensitiveName(value)
      ? value
      : undefined;
  if (sensitive !== undefined) {
    refusals.push(
      refusal(
        'header_sensitive_name',
        annotation,
        `"${sensitive}" looks like a credential, which must not travel in a request header`,
      ),
    );
  }
  return refusals;
}

/** Refusals for every annotation naming a header an earlier one of the same tool already named, ignoring case. */
function duplicateRefusals(annotations: readonly HeaderAnnotation[]): AdmissionRefusal[] {
  const first = new Map<string, HeaderAnnotation>();
  const refusals: AdmissionRefusal[] = [];
  for (const annotation of annotations) {
    if (annotation.property === undefined || typeof annotation.value !== 'string') continue;
    const folded = annotation.value.toLowerCase();
    const earlier = first.get(folded);
    if (earlier === undefined) first.set(folded, annotation);
    else
      refusals.push(
        refusal(
          'header_name_duplicate',
          annotation,
          `header names are unique ignoring case, and the property at ${earlier.pointer} already names this one`,
        ),
      );
  }
  return refusals;
}

/**
 * Decides whether one tool descriptor may be registered: walks its whole `inputSchema` and
 * `outputSchema` for `x-mcp-header` annotations and applies every {@link AdmissionRule}.
 * Pure: reads the descriptor, changes nothing.
 *
 * @param tool - the descriptor (name and schemas).
 * @returns the verdict; a refusal lists every broken rule, in document order per check.
 */
export function admitTool(tool: AdmissibleTool): ToolAdmission {
  const annotations = [
    ...findHeaderAnnotations(tool.inputSchema, 'inputSchema'),
    ...(tool.outputSchema === undefined ? [] : findHeaderAnnotations(tool.outputSchema, 'outputSchema')),
  ];
  const refusals = [...annotations.flatMap(checkHeaderAnnotation), ...duplicateRefusals(annotations)];
  const [head, ...rest] = refusals;
  if (head !== undefined) return { admitted: false, refusals: [head, ...rest] };
  const headers = annotations.flatMap((annotation) =>
    annotation.property === undefined
      ? []
      : [{ property: annotation.property, header: MCP_PARAM_HEADER_PREFIX + String(annotation.value) }],
  );
  return { admitted: true, headers };
}

/**
 * Admits a tool list at registration: keeps the tools {@link admitTool} admits, in order, and
 * logs one warning per refused tool with `tool`, `rule` (the first broken rule), `header`,
 * `pointer` and every `refusals` entry. Lines carry header names and schema locations, never a
 * value.
 *
 * @param tools - the descriptors to register.
 * @param logger - where the refusal lines go.
 * @returns the admitted tools (the same objects).
 */
export function admitTools<T extends AdmissibleTool>(tools: readonly T[], logger: EnvelopeLogger): T[] {
  return tools.filter((tool) => {
    const verdict = admitTool(tool);
    if (verdict.admitted) return true;
    const [first] = verdict.refusals;
    logger.warn(
      {
        tool: tool.name,
        rule: first.rule,
        ...(first.header === undefined ? {} : { header: first.header }),
        schema: first.schema,
        pointer: first.pointer,
        refusals: verdict.refusals,
      },
      `tool "${tool.name}" is left out: its ${MCP_HEADER_KEYWORD} annotation breaks the ${first.rule} rule (${first.message})`,
    );
    return false;
  });
}
