/**
 * MCP tool annotations of a tool that is one HTTP operation, read from its method alone: a client
 * (and core's classification of a failed call) learns from them whether calling again is safe.
 *
 * @packageDocumentation
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';

/** The four behaviour hints of an MCP tool, all set (no `title`). */
export type MethodToolAnnotations = Required<
  Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>
>;

const READ_ONLY: MethodToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
});

const REPLACES: MethodToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
});

const CREATES: MethodToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
});

const MODIFIES: MethodToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

/** The annotations by upper-case method; a method not listed gets {@link MODIFIES}, the MCP defaults. */
const BY_METHOD: Readonly<Record<string, MethodToolAnnotations>> = Object.freeze({
  GET: READ_ONLY,
  HEAD: READ_ONLY,
  OPTIONS: READ_ONLY,
  TRACE: READ_ONLY,
  PUT: REPLACES,
  DELETE: REPLACES,
  POST: CREATES,
  PATCH: MODIFIES,
});

/** Verbs that open an operation id of a POST that removes or changes what exists, rather than adding. */
const CHANGING_VERBS: ReadonlySet<string> = new Set([
  'cancel',
  'delete',
  'dismiss',
  'remove',
  'rename',
  'replace',
  'reset',
  'revoke',
  'set',
  'transfer',
  'update',
]);

/** Words that may come before such a verb: `bulk-remove`, `forceCancelWorkflowRun`. */
const VERB_PREFIXES: ReadonlySet<string> = new Set(['batch', 'bulk', 'force']);

/**
 * Whether an operation id (`orgs/delete-attestations-bulk`, `cancelShipment`) names a change
 * to what exists: its first word after the last `/`, or the second after `bulk`, `force` or
 * `batch`, is a verb of {@link CHANGING_VERBS}.
 */
function namesChange(operationId: string): boolean {
  const name = operationId.slice(operationId.lastIndexOf('/') + 1);
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  const [first = '', second = ''] = words;
  return CHANGING_VERBS.has(first) || (VERB_PREFIXES.has(first) && CHANGING_VERBS.has(second));
}

/**
 * The MCP tool annotations of a tool that sends one HTTP request of `method`, after the meanings
 * the MCP specification gives the hints (schema `ToolAnnotations`: `readOnlyHint` "does not modify
 * its environment"; `destructiveHint` "may perform destructive updates", false meaning "only
 * additive updates"; `idempotentHint` "calling the tool repeatedly with the same arguments will have
 * no additional effect") and the method semantics of RFC 9110 section 9.2:
 *
 * | method | readOnlyHint | destructiveHint | idempotentHint |
 * |---|---|---|---|
 * | GET, HEAD, OPTIONS, TRACE | true | false | true |
 * | PUT (replaces), DELETE | false | true | true |
 * | POST (creates: an additive update) | false | false | false |
 * | PATCH (changes what exists), any other | false | true | false |
 *
 * A POST whose `operationId` opens with a verb that removes or changes what exists (`delete`,
 * `remove`, `revoke`, `cancel`, `update`, `set`, `replace`, `transfer`, `rename`, `dismiss`,
 * `reset`, also after `bulk`, `force` or `batch`) gets the hints of a PATCH: many APIs delete or
 * update with POST, and `destructiveHint: false` would tell a client it only adds.
 *
 * `openWorldHint` is always true: the tool reaches an upstream API. A tool whose operation does
 * otherwise (a POST that only searches) overrides the result with its own object. Core reads
 * `readOnlyHint` / `idempotentHint` to decide whether a failure whose effect is unknown is
 * retryable (CONTRACT.md "Safe retries").
 *
 * @param method - the HTTP method, any case (`get`, `POST`).
 * @param operationId - the operation's id (`orgs/delete-attestations-bulk`, `cancelShipment`), if known.
 * @returns a frozen annotations object; never throws.
 */
export function toolAnnotationsForMethod(method: string, operationId?: string): MethodToolAnnotations {
  const upper = method.toUpperCase();
  if (upper === 'POST' && operationId !== undefined && namesChange(operationId)) return MODIFIES;
  return BY_METHOD[upper] ?? MODIFIES;
}
