/**
 * The `Mcp-Param-*` request check of MCP 2026-07-28: a `tools/call` over Streamable HTTP whose tool
 * mirrors arguments into headers (`x-mcp-header` on a direct member of `inputSchema.properties`)
 * must carry each mirrored value, once, in the same form as the body, so a gateway routing on the
 * header and the tool running on the body see one value. A refusal is HTTP 400 with JSON-RPC error
 * -32020; neither the answer nor the log line quotes a value.
 *
 * @packageDocumentation
 */
import { isRecord } from '@mcp-envelope/contract';
import { foldKey } from './arguments/index.js';

/** The JSON-RPC error code of a header/body disagreement (`HeaderMismatch` in the MCP SDK). */
export const HEADER_MISMATCH_CODE = -32020;

const PARAM_HEADER_PREFIX = 'Mcp-Param-';
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
// canonical base64 only, as the SDK's client writes it and its server accepts it
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/** One argument a tool mirrors into a header. */
export interface ParamHeaderDeclaration {
  /** The `inputSchema.properties` member. */
  readonly property: string;
  /** The full header name as declared, e.g. `Mcp-Param-Region`. */
  readonly header: string;
  /** The property's JSON Schema `type` (`string`, `integer`, `number` or `boolean`). */
  readonly type: string;
}

/** Why a request's headers and body disagree. */
export type ParamHeaderRule =
  | 'param-header-missing'
  | 'param-header-duplicated'
  | 'param-header-invalid-encoding'
  | 'param-header-mismatch'
  | 'param-header-alias'
  | 'param-header-unsafe-integer';

/** A refused request: the rule and the header name, never a value. */
export interface ParamHeaderRefusal {
  readonly rule: ParamHeaderRule;
  readonly header: string;
  /** A sentence naming the property and the header, without their values. */
  readonly reason: string;
}

/**
 * The header declarations of a tool's published input schema, in property order. Admission has
 * already refused a tool whose annotations sit anywhere but on a direct property.
 *
 * @param inputSchema - the tool's `inputSchema` as `tools/list` publishes it.
 * @returns the declarations; empty when the tool mirrors nothing.
 */
export function paramHeaderDeclarations(inputSchema: unknown): ParamHeaderDeclaration[] {
  const properties = isRecord(inputSchema) ? inputSchema['properties'] : undefined;
  if (!isRecord(properties)) return [];
  const declarations: ParamHeaderDeclaration[] = [];
  for (const [property, schema] of Object.entries(properties)) {
    if (!isRecord(schema) || typeof schema['x-mcp-header'] !== 'string') continue;
    declarations.push({ property, header: `${PARAM_HEADER_PREFIX}${schema['x-mcp-header']}`, type: typeOf(schema) });
  }
  return declarations;
}

/**
 * The type a mirrored property's value is compared as: its `type`, or for a list of types
 * (`["integer", "null"]`) the first numeric one, else `string`.
 */
function typeOf(schema: Record<string, unknown>): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (!Array.isArray(type)) return 'string';
  return ['integer', 'number'].find((numeric) => type.includes(numeric)) ?? 'string';
}

/** A body value as its header must spell it, or `undefined` when no header is expected. */
function headerForm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
}

/** An integer-valued number outside ±(2^53 - 1): JSON text for it may have been rounded on the way in. */
function isUnsafeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}

/** A header value decoded from the `=?base64?...?=` form, or as sent; `undefined` when that form is broken. */
function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const encoded = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!CANONICAL_BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * Whether a header names the body's value. A number is compared by its text once a fraction of
 * zeros is dropped (`42.0` and `42` are one number): comparing parsed numbers would let
 * `9007199254740990.5`, `01` or `0.1000000000000000001` pass for a value a gateway reading the
 * header text would take for another.
 */
function sameValue(declaration: ParamHeaderDeclaration, decoded: string, body: unknown, bodyForm: string): boolean {
  const numeric = declaration.type === 'integer' || declaration.type === 'number';
  if (numeric && typeof body === 'number' && CANONICAL_DECIMAL.test(decoded))
    return decoded.replace(/\.0+$/, '') === bodyForm && Number(decoded) === body;
  return decoded === bodyForm;
}

/** A body key that normalization would rename to a mirrored property, which no header then covers. */
function aliasOf(declaration: ParamHeaderDeclaration, args: Record<string, unknown>): string | undefined {
  const folded = foldKey(declaration.property);
  return Object.keys(args).find((key) => key !== declaration.property && foldKey(key) === folded);
}

function checkOne(
  declaration: ParamHeaderDeclaration,
  args: Record<string, unknown>,
  headers: Readonly<Record<string, readonly string[] | undefined>>,
): ParamHeaderRefusal | undefined {
  const { property, header } = declaration;
  const alias = aliasOf(declaration, args);
  if (alias !== undefined) {
    return {
      rule: 'param-header-alias',
      header,
      reason: `the body names the mirrored property ${property} as ${JSON.stringify(alias)}; send it as ${property} with its ${header} header`,
    };
  }
  const body = args[property];
  // past 2^53 a JSON number is rounded: the body and the header would name one value and the tool
  // act for another, whatever the schema says the property is (a type list, anyOf, number)
  if (isUnsafeInteger(body))
    return {
      rule: 'param-header-unsafe-integer',
      header,
      reason: `the body's ${property} is an integer beyond ±(2^53 - 1), which JSON numbers cannot carry exactly`,
    };
  const bodyForm = body === undefined || body === null ? undefined : headerForm(body);
  // with no value in the body, no header is expected (one that is sent is ignored)
  if (bodyForm === undefined) return undefined;
  const sent = headers[header.toLowerCase()] ?? [];
  if (sent.length === 0)
    return {
      rule: 'param-header-missing',
      header,
      reason: `the body carries ${property} but the ${header} header is absent`,
    };
  if (sent.length > 1)
    return { rule: 'param-header-duplicated', header, reason: `the ${header} header is sent ${sent.length} times` };
  const decoded = decodeHeaderValue(sent[0] as string);
  if (decoded === undefined)
    return {
      rule: 'param-header-invalid-encoding',
      header,
      reason: `the ${header} header carries a malformed =?base64?...?= value`,
    };
  if (typeof body === 'number' && CANONICAL_DECIMAL.test(decoded) && isUnsafeInteger(Number(decoded)))
    return {
      rule: 'param-header-unsafe-integer',
      header,
      reason: `the ${header} header carries an integer beyond ±(2^53 - 1), which cannot be compared exactly`,
    };
  if (!sameValue(declaration, decoded, body, bodyForm))
    return { rule: 'param-header-mismatch', header, reason: `the ${header} header and the body's ${property} differ` };
  return undefined;
}

/**
 * Checks a `tools/call`'s `Mcp-Param-*` headers against its arguments, with the MCP SDK's
 * semantics: names compared ignoring case, a `=?base64?...?=` value decoded (canonical base64,
 * UTF-8) before comparing, numbers compared numerically, booleans as `true`/`false`, a null or
 * absent body value expecting no header. Stricter than the SDK on two points: a header sent more
 * than once is refused as `param-header-duplicated`, and a body key that key normalization would
 * rename to a mirrored property (`Region` for `region`) is refused as `param-header-alias`; and
 * a body number, or the header of one, that is an integer outside ±(2^53 - 1) is refused as
 * `param-header-unsafe-integer` whatever the property's schema (`integer`, `number`, a type list,
 * `anyOf`): JSON parsing rounds such a number, so `9007199254740993` in the body would otherwise be
 * checked, and acted on, as `9007199254740992`.
 *
 * @param declarations - from {@link paramHeaderDeclarations}.
 * @param args - the call's `arguments` (anything else than an object is left to the call pipeline).
 * @param headers - the request's headers, each with every value sent (node's `headersDistinct`).
 * @returns the first refusal, or `undefined` when the headers and body agree.
 */
export function checkParamHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  headers: Readonly<Record<string, readonly string[] | undefined>>,
): ParamHeaderRefusal | undefined {
  if (declarations.length === 0 || !isRecord(args)) return undefined;
  for (const declaration of declarations) {
    const refusal = checkOne(declaration, args, headers);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}
