/**
 * `toolError`: a small fluent builder for the envelope of a domain failure (a conflict, an item
 * the upstream does not have), so a handler states kind, code, details, hints and retry in one
 * expression and returns (or throws) the result. The types refuse a code the contract pairs with
 * another kind; `build()` checks the rest against the contract's schema, so a broken envelope
 * fails where it is written, not at the client. Implements CONTRACT.md "The envelope" and
 * "Canonical error codes".
 *
 * @packageDocumentation
 */
import {
  CANONICAL_ERROR_CODES,
  ERROR_KINDS,
  RESERVED_ERROR_CODES,
  SCHEMA_ERROR_CODES,
  validateEnvelopeVersion,
} from '@mcp-envelope/contract';
import type {
  CanonicalErrorCode,
  EnvelopeDetail,
  EnvelopeMeta,
  ErrorKind,
  ReservedErrorCode,
  SchemaErrorCode,
} from '@mcp-envelope/contract';

import { EnvelopeError } from './errors.js';

/**
 * The kind the contract pairs `Code` with: a canonical code's own kind, `mcp_input_validation`
 * for a `SCHEMA_*` code, none for a reserved code, and any kind for every other code.
 */
export type KindOfCode<Code extends string> = Code extends CanonicalErrorCode
  ? (typeof CANONICAL_ERROR_CODES)[Code]
  : Code extends SchemaErrorCode
    ? 'mcp_input_validation'
    : Code extends ReservedErrorCode
      ? never
      : ErrorKind;

/** `Code` when the contract lets it go with `Kind`, else `never` (a type error at the call). */
export type CodeFor<Kind extends ErrorKind, Code extends string> = [Kind] extends [KindOfCode<Code>] ? Code : never;

/** A detail of the envelope: `path` defaults to `""` (the call as a whole), `received_type` to `"object"`. */
export interface ToolErrorDetail {
  /** A JSON pointer without the leading slash (`items/3`), `""` for the call as a whole. */
  readonly path?: string;
  /** What is wrong there, in a sentence. */
  readonly issue: string;
  /** The JSON type of the value received at `path`. */
  readonly received_type?: string;
  /** More keys an agent can act on (a status, an id, an allowed value), sent as they are. */
  readonly [extra: string]: unknown;
}

/** The fluent builder; each method returns a new builder, so a partly built one can be shared. */
export interface ToolErrorBuilder<Kind extends ErrorKind> {
  /** The `error_code`; kinds with a canonical code default to it (`upstream_http` has none). */
  code<const Code extends string>(code: Code & CodeFor<Kind, Code>): ToolErrorBuilder<Kind>;
  /** The `summary`: one sentence an agent reads first. Required. */
  summary(text: string): ToolErrorBuilder<Kind>;
  /** Adds a detail (see {@link ToolErrorDetail}). */
  detail(detail: ToolErrorDetail): ToolErrorBuilder<Kind>;
  /** Adds a hint: what the caller can do next. */
  hint(text: string): ToolErrorBuilder<Kind>;
  /** Adds an example of a call that works. */
  example(value: unknown): ToolErrorBuilder<Kind>;
  /** Whether the same call may succeed later (default `false`). */
  retryable(value: boolean): ToolErrorBuilder<Kind>;
  /** Retryable after `seconds` (≥ 0, fractions allowed): sets `retryable` and `_meta.retry_after_seconds`. */
  retryAfter(seconds: number): ToolErrorBuilder<Kind>;
  /** The `upstream` the failure came from (default: core names the server's first upstream where one is required). */
  upstream(name: string): ToolErrorBuilder<Kind>;
  /**
   * The error, to return or throw from a handler; core fills `tool` and answers it as an envelope.
   *
   * @throws TypeError when the summary or (for `upstream_http`) the code is missing, the code is
   *   not UPPER_SNAKE_CASE, is reserved or pairs with another kind, or the envelope breaks the
   *   contract's version 2 schema (the message names the first violation).
   */
  build(): EnvelopeError;
}

interface BuilderState {
  readonly code?: string;
  readonly summary?: string;
  readonly details: readonly EnvelopeDetail[];
  readonly hints: readonly string[];
  readonly examples: readonly unknown[];
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  readonly upstream?: string;
}

/** The first canonical code of `kind`, when it has one. */
function defaultCode(kind: ErrorKind): string | undefined {
  return Object.entries(CANONICAL_ERROR_CODES).find(([, paired]) => paired === kind)?.[0];
}

/** The runtime side of {@link CodeFor}, for callers without the types (JavaScript, a code read at run time). */
function codeProblem(kind: ErrorKind, code: string): string | undefined {
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) return `error_code "${code}" is not UPPER_SNAKE_CASE`;
  if ((RESERVED_ERROR_CODES as readonly string[]).includes(code)) return `error_code ${code} is reserved`;
  const paired = Object.hasOwn(CANONICAL_ERROR_CODES, code)
    ? CANONICAL_ERROR_CODES[code as CanonicalErrorCode]
    : (SCHEMA_ERROR_CODES as readonly string[]).includes(code)
      ? 'mcp_input_validation'
      : undefined;
  return paired === undefined || paired === kind ? undefined : `error_code ${code} goes with ${paired}, not ${kind}`;
}

function build(kind: ErrorKind, state: BuilderState): EnvelopeError {
  const code = state.code ?? defaultCode(kind);
  if (code === undefined) throw new TypeError(`toolError('${kind}') needs a code (e.g. UPSTREAM_HTTP_409)`);
  if (state.summary === undefined) throw new TypeError(`toolError('${kind}') needs a summary`);
  const problem = codeProblem(kind, code);
  if (problem !== undefined) throw new TypeError(`toolError: ${problem}`);
  const meta: EnvelopeMeta | undefined =
    state.retryAfterSeconds === undefined ? undefined : { retry_after_seconds: state.retryAfterSeconds };
  const error = new EnvelopeError({
    error_kind: kind,
    error_code: code,
    summary: state.summary,
    details: state.details,
    hints: state.hints,
    examples: state.examples,
    retryable: state.retryable,
    ...(state.upstream === undefined ? {} : { upstream: state.upstream }),
    ...(meta === undefined ? {} : { _meta: meta }),
  });
  // an upstream kind without its upstream is valid once core names the server's; checked with a stand-in
  const checked = error.envelope.upstream === undefined ? { ...error.envelope, upstream: 'upstream' } : error.envelope;
  const validation = validateEnvelopeVersion(checked, 2);
  const first = validation.valid ? undefined : validation.errors[0];
  if (first !== undefined)
    throw new TypeError(`toolError: the envelope breaks the contract at ${first.path}: ${first.message}`);
  return error;
}

function builder<Kind extends ErrorKind>(kind: Kind, state: BuilderState): ToolErrorBuilder<Kind> {
  const next = (change: Partial<BuilderState>): ToolErrorBuilder<Kind> => builder(kind, { ...state, ...change });
  return {
    code: (code) => next({ code }),
    summary: (text) => next({ summary: text }),
    detail: (detail) => next({ details: [...state.details, { path: '', received_type: 'object', ...detail }] }),
    hint: (text) => next({ hints: [...state.hints, text] }),
    example: (value) => next({ examples: [...state.examples, value] }),
    retryable: (value) => next({ retryable: value }),
    retryAfter: (seconds) => {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new TypeError(`toolError: retryAfter needs a number of seconds ≥ 0, got ${String(seconds)}`);
      return next({ retryable: true, retryAfterSeconds: seconds });
    },
    upstream: (name) => next({ upstream: name }),
    build: () => build(kind, state),
  };
}

/**
 * Starts the envelope of a domain failure of `kind`, e.g.
 * `toolError('upstream_http').code('UPSTREAM_HTTP_409').summary('The order changed meanwhile.')
 *   .detail({ path: 'orderId', issue: 'the order was updated by another call' })
 *   .hint('Read the order again, then retry.').build()`.
 * A handler returns or throws the built error; both end the call the same way.
 *
 * @param kind - one of the contract's version 2 kinds.
 * @returns the builder (not retryable, no details, hints or examples yet).
 * @throws TypeError when `kind` is not a version 2 kind.
 */
export function toolError<const Kind extends ErrorKind>(kind: Kind): ToolErrorBuilder<Kind> {
  if (!(ERROR_KINDS as readonly string[]).includes(kind))
    throw new TypeError(`toolError: "${kind}" is not an error_kind of contract version 2`);
  return builder(kind, { details: [], hints: [], examples: [], retryable: false });
}
