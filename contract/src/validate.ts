/**
 * The envelope validator: Ajv (draft 2020-12) over the contract's JSON Schema, compiled once.
 * Every check reads a value's own properties only, as its JSON has them.
 *
 * @packageDocumentation
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

import { isRecord } from './shapes.js';
import type { AnyErrorEnvelope, EnvelopeMeta, EnvelopeMetaV1, ErrorEnvelope, ErrorEnvelopeV1 } from './envelope.js';
import { ERROR_ENVELOPE_SCHEMA_V1, ERROR_ENVELOPE_SCHEMA_V2 } from './schemas.js';
import type { ContractVersion } from './taxonomy.js';

/**
 * One reason a value is not a valid envelope.
 */
export interface EnvelopeViolation {
  /** JSON pointer (RFC 6901, with the leading slash) of the offending value; `''` for the root. */
  readonly path: string;
  /** The JSON Schema keyword that failed, e.g. `required`, `enum`, `additionalProperties`. */
  readonly keyword: string;
  /** A readable reason, naming the missing or extra key or the allowed values where it can. */
  readonly message: string;
}

/** The result of {@link validateEnvelope}: on success, which contract version the envelope is. */
export type EnvelopeValidation =
  | { readonly valid: true; readonly version: ContractVersion }
  | { readonly valid: false; readonly version?: ContractVersion; readonly errors: readonly EnvelopeViolation[] };

/** The result of {@link validateMeta}. */
export type MetaValidation =
  { readonly valid: true } | { readonly valid: false; readonly errors: readonly EnvelopeViolation[] };

/**
 * The envelope and `_meta` validators, compiled on first use and never changed afterwards.
 * Compiling when the module loads would slow every import and break runtimes that forbid code
 * generation, where the rest of this package (the client helpers) must still work.
 */
const validators = once(compileValidators);

/** Calls `make` the first time the returned function is called and returns that value ever after. */
function once<Value>(make: () => Value): () => Value {
  let made: { readonly value: Value } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** One contract version's compiled checks. */
interface VersionValidators {
  readonly envelope: ValidateFunction;
  readonly meta: ValidateFunction;
}

function compileValidators(): { readonly 1: VersionValidators; readonly 2: VersionValidators } {
  // `validateSchema: false`: checking the contract's own constant schemas against the 2020-12
  // meta-schema would compile that meta-schema first, which costs more than the rest; the tests
  // check the schemas against it once instead. `ownProperties`: an envelope is what its JSON
  // says, so a field only inherited from a prototype does not count (JSON.stringify drops it).
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateSchema: false,
    ownProperties: true,
  });
  const compileVersion = (schema: Readonly<Record<string, unknown>>): VersionValidators => {
    const id = schema['$id'] as string;
    ajv.addSchema(schema, id);
    return {
      envelope: ajv.getSchema(id) as ValidateFunction,
      meta: ajv.compile({ $ref: `${id}#/$defs/meta` }),
    };
  };
  return { 1: compileVersion(ERROR_ENVELOPE_SCHEMA_V1), 2: compileVersion(ERROR_ENVELOPE_SCHEMA_V2) };
}

function describe(error: ErrorObject): EnvelopeViolation {
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') message = `missing required property "${String(params['missingProperty'])}"`;
  else if (error.keyword === 'additionalProperties')
    message = `unexpected property "${String(params['additionalProperty'])}"`;
  else if (error.keyword === 'enum') message = `must be one of ${JSON.stringify(params['allowedValues'])}`;
  else if (error.keyword === 'const') message = `must be ${JSON.stringify(params['allowedValue'])}`;
  return { path: error.instancePath, keyword: error.keyword, message };
}

function collect(validate: ValidateFunction, value: unknown): MetaValidation {
  if (validate(value)) return { valid: true };
  // if/then failures repeat the inner `required` error; keep the specific one. Two rules that
  // require the same key (`upstream` for a kind and for a code) report it once.
  const seen = new Set<string>();
  const errors = (validate.errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map(describe)
    .filter((violation) => {
      const key = `${violation.path}\u0000${violation.keyword}\u0000${violation.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { valid: false, errors };
}

/** The contract version a value claims by its own `_envelope_version` (the JSON integer 1 or 2), else `undefined`. */
function claimedVersion(value: unknown): ContractVersion | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, '_envelope_version')) return undefined;
  const version: unknown = (value as Record<string, unknown>)['_envelope_version'];
  return version === 1 || version === 2 ? version : undefined;
}

/**
 * Checks a value against the envelope schema of the version it claims: `_envelope_version` 1
 * against `schemas/error-envelope.schema.json`, 2 against `schemas/error-envelope-v2.schema.json`.
 * Implements CONTRACT.md "Conformance" rule 1 and "Versioning". The schemas are compiled on first
 * use, then reused. Only a value's own properties count, as in its JSON: a field inherited from a
 * prototype is missing (an object of any class may carry an envelope, e.g. an `Error`).
 *
 * @param value - any JSON value (typically a parsed tool error payload).
 * @returns `{ valid: true, version }`, or `{ valid: false, version?, errors }` listing every
 *   violation; without a `_envelope_version` of 1 or 2 the only violation is that one (no version).
 */
export function validateEnvelope(value: unknown): EnvelopeValidation {
  const version = claimedVersion(value);
  if (version === undefined) {
    const isObject = isRecord(value);
    const violation: EnvelopeViolation = isObject
      ? { path: '/_envelope_version', keyword: 'enum', message: 'must be the integer 1 or 2' }
      : { path: '', keyword: 'type', message: 'must be object' };
    return { valid: false, errors: [violation] };
  }
  const result = collect(validators()[version].envelope, value);
  return result.valid ? { valid: true, version } : { valid: false, version, errors: result.errors };
}

/**
 * Checks a value against one version's envelope schema only.
 *
 * @param value - any JSON value.
 * @param version - the contract version to check against.
 * @returns `{ valid: true, version }` or `{ valid: false, version, errors }`.
 */
export function validateEnvelopeVersion(value: unknown, version: ContractVersion): EnvelopeValidation {
  const result = collect(validators()[version].envelope, value);
  return result.valid ? { valid: true, version } : { valid: false, version, errors: result.errors };
}

/**
 * Type guard: true when `value` is a schema-valid envelope of version 1 or 2.
 *
 * @param value - any value.
 * @returns whether {@link validateEnvelope} accepts it.
 */
export function isEnvelope(value: unknown): value is AnyErrorEnvelope {
  const version = claimedVersion(value);
  return version !== undefined && validators()[version].envelope(value);
}

/**
 * Type guard: true when `value` is a schema-valid contract version 2 envelope.
 *
 * @param value - any value.
 * @returns whether it passes `schemas/error-envelope-v2.schema.json`.
 */
export function isEnvelopeV2(value: unknown): value is ErrorEnvelope {
  return validators()[2].envelope(value);
}

/**
 * Type guard: true when `value` is a schema-valid contract version 1 envelope.
 *
 * @param value - any value.
 * @returns whether it passes `schemas/error-envelope.schema.json` (v1).
 */
export function isEnvelopeV1(value: unknown): value is ErrorEnvelopeV1 {
  return validators()[1].envelope(value);
}

/**
 * Checks the `_meta` object of a success result (or of an envelope) against one version's
 * `_meta` rules: `normalized[]` events, `rate_limit` (closed in v1, open in v2), a non-negative
 * `retry_after_seconds`, `warnings[]` and `correlation_id`.
 *
 * @param value - the `_meta` value.
 * @param version - the contract version the result was sent in; defaults to 2.
 * @returns `{ valid: true }` or `{ valid: false, errors }` with paths relative to `_meta`.
 */
export function validateMeta(value: unknown, version: ContractVersion = 2): MetaValidation {
  return collect(validators()[version].meta, value);
}

/**
 * Type guard: true when `value` is a valid `_meta` object of contract version 2 (or of `version`).
 *
 * @param value - any value.
 * @param version - defaults to 2.
 * @returns whether {@link validateMeta} accepts it.
 */
export function isEnvelopeMeta(value: unknown, version: ContractVersion = 2): value is EnvelopeMeta | EnvelopeMetaV1 {
  return validators()[version].meta(value);
}
