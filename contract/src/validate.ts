/**
 * The envelope validator: Ajv (draft 2020-12) over the contract's JSON Schema, compiled once.
 *
 * @packageDocumentation
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

import type { ErrorEnvelope, EnvelopeMeta } from './envelope.js';
import { ERROR_ENVELOPE_SCHEMA, ERROR_ENVELOPE_SCHEMA_ID } from './schemas.js';

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

/** The result of {@link validateEnvelope}. */
export type EnvelopeValidation =
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

function compileValidators(): { readonly envelope: ValidateFunction; readonly meta: ValidateFunction } {
  // `validateSchema: false`: checking the contract's own constant schema against the 2020-12
  // meta-schema would compile that meta-schema first, which costs more than the rest; the tests
  // check the schema against it once instead.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateSchema: false,
  });
  ajv.addSchema(ERROR_ENVELOPE_SCHEMA, ERROR_ENVELOPE_SCHEMA_ID);
  return {
    envelope: ajv.getSchema(ERROR_ENVELOPE_SCHEMA_ID) as ValidateFunction,
    meta: ajv.compile({ $ref: `${ERROR_ENVELOPE_SCHEMA_ID}#/$defs/meta` }),
  };
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

function collect(validate: ValidateFunction, value: unknown): EnvelopeValidation {
  if (validate(value)) return { valid: true };
  // if/then failures repeat the inner `required` error; keep the specific one.
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if').map(describe);
  return { valid: false, errors };
}

/**
 * Checks a value against the v1 envelope schema (`schemas/error-envelope.schema.json`).
 * Implements CONTRACT.md "Conformance" rule 1. The schema is compiled on first use, then reused.
 *
 * @param value - any JSON value (typically a parsed tool error payload).
 * @returns `{ valid: true }`, or `{ valid: false, errors }` listing every violation found.
 */
export function validateEnvelope(value: unknown): EnvelopeValidation {
  return collect(validators().envelope, value);
}

/**
 * Type guard: true when `value` is a schema-valid v1 envelope.
 *
 * @param value - any value.
 * @returns whether {@link validateEnvelope} accepts it.
 */
export function isEnvelope(value: unknown): value is ErrorEnvelope {
  return validators().envelope(value);
}

/**
 * Checks the `_meta` object of a success result (or of an envelope) against the contract's
 * `_meta` rules: `normalized[]` events, the closed `rate_limit`, a non-negative
 * `retry_after_seconds`, `warnings[]` and `correlation_id`.
 *
 * @param value - the `_meta` value.
 * @returns `{ valid: true }` or `{ valid: false, errors }` with paths relative to `_meta`.
 */
export function validateMeta(value: unknown): EnvelopeValidation {
  return collect(validators().meta, value);
}

/**
 * Type guard: true when `value` is a valid `_meta` object.
 *
 * @param value - any value.
 * @returns whether {@link validateMeta} accepts it.
 */
export function isEnvelopeMeta(value: unknown): value is EnvelopeMeta {
  return validators().meta(value);
}
