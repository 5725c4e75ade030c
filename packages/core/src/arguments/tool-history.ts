/**
 * Stale calls: a call that uses a property its tool renamed or removed in an earlier release gets
 * a validation envelope that names the change, so an agent with an old `tools/list` recovers in
 * one retry. The history comes from the server's tool-contract lockfile. Implements CONTRACT.md
 * "Tool contracts and the lockfile".
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';

import { CONTRACT_VERSION, isRecord } from '@mcp-envelope/contract';
import type { EnvelopeDetail, ErrorEnvelope } from '@mcp-envelope/contract';

import { jsonTypeOf } from './json-type.js';

/**
 * One renamed or removed property of a tool, as the lockfile's `history` records it.
 *
 * `old` is the property path that tool no longer has, `new` the path that replaced it (`null`:
 * removed without a replacement), `since` the release version that made the change.
 */
export interface ToolHistoryEntry {
  /** The tool's name. */
  readonly tool: string;
  /** The property path the tool no longer has (`marketplaceIds`, or `filter.state` for a nested one). */
  readonly old: string;
  /** The path that replaced it; `null` when it was removed without a replacement. */
  readonly new: string | null;
  /** The version of the release that made the change (`0.2.0`). */
  readonly since: string;
}

/** Per tool, its old top-level property names and what became of each. */
export type StaleProperties = ReadonlyMap<string, ReadonlyMap<string, ToolHistoryEntry>>;

/**
 * Indexes a history for the arguments step. Only top-level names are kept: a call's arguments are
 * matched by their keys; a nested path is a change the schema's own validation reports. A later
 * entry for the same tool and name wins (a property renamed twice leads to the newest name).
 *
 * @param entries - the history, oldest first.
 * @returns tool -> old name -> entry.
 */
export function indexToolHistory(entries: readonly ToolHistoryEntry[]): StaleProperties {
  const index = new Map<string, Map<string, ToolHistoryEntry>>();
  for (const entry of entries) {
    if (entry.old.includes('.') || entry.old.includes('[]')) continue;
    const tool = index.get(entry.tool) ?? new Map<string, ToolHistoryEntry>();
    tool.set(entry.old, entry);
    index.set(entry.tool, tool);
  }
  return index;
}

function staleDetail(entry: ToolHistoryEntry, value: unknown): EnvelopeDetail {
  const change = entry.new === null ? `${entry.old} was removed` : `${entry.old} -> ${entry.new}`;
  return {
    path: '',
    issue: `${entry.new === null ? 'removed' : 'renamed'} since ${entry.since}: ${change}`,
    // the value is not echoed: a value sent under an old name may be a secret
    received_type: jsonTypeOf(value),
    field: '',
    extra: entry.old,
    expected: 'only the keys the schema declares',
    ...(entry.new === null ? {} : { did_you_mean: entry.new }),
    renamed_since: entry.since,
  };
}

function staleHint(entry: ToolHistoryEntry): string {
  return entry.new === null
    ? `Drop ${entry.old}: the tool no longer takes it since ${entry.since}; list the tools again for its current schema.`
    : `Send ${entry.new} instead of ${entry.old} (renamed in ${entry.since}); list the tools again for its current schema.`;
}

/**
 * The envelope of a call that uses old property names of its tool, or `undefined` when it uses
 * none. A key the tool declares today is never stale (a name can come back).
 *
 * @param tool - the tool called.
 * @param args - the arguments as sent.
 * @param stale - the tool's old names (from {@link indexToolHistory}).
 * @param declared - the top-level property names the tool's schema declares now.
 * @returns a `mcp_input_validation` envelope with code `SCHEMA_ADDITIONAL_PROPERTIES`, one detail
 *   per old name (`issue` "renamed since <version>: old -> new", `did_you_mean` the new name).
 */
export function staleCallEnvelope(
  tool: string,
  args: unknown,
  stale: ReadonlyMap<string, ToolHistoryEntry> | undefined,
  declared: ReadonlySet<string>,
): ErrorEnvelope | undefined {
  if (stale === undefined || !isRecord(args)) return undefined;
  const used = Object.keys(args)
    .filter((key) => !declared.has(key))
    .flatMap((key) => {
      const entry = stale.get(key);
      return entry === undefined ? [] : [entry];
    });
  const [first] = used;
  if (first === undefined) return undefined;
  const more = used.length > 1 ? ` (and ${used.length - 1} more)` : '';
  const summary =
    first.new === null
      ? `arguments uses ${first.old}, which the tool no longer takes since ${first.since}${more}. Drop it and call again.`
      : `arguments uses ${first.old}, which was renamed to ${first.new} in ${first.since}${more}. Call again with ${first.new}.`;
  return {
    error_kind: 'mcp_input_validation',
    tool,
    summary,
    details: used.map((entry) => staleDetail(entry, args[entry.old])),
    hints: used.map(staleHint),
    examples: [],
    error_code: 'SCHEMA_ADDITIONAL_PROPERTIES',
    retryable: false,
    _envelope_version: CONTRACT_VERSION,
  };
}

function isHistoryEntry(value: unknown): value is ToolHistoryEntry {
  return (
    isRecord(value) &&
    typeof value['tool'] === 'string' &&
    typeof value['old'] === 'string' &&
    (typeof value['new'] === 'string' || value['new'] === null) &&
    typeof value['since'] === 'string'
  );
}

/**
 * Reads the `history` of a tool-contract lockfile (`tools.lock.json`, written by
 * `mcp-envelope-conformance tools-lock --write`), for the `toolHistory` server option.
 *
 * @param file - the lockfile's path or file URL.
 * @returns its entries; `[]` when the file does not exist (a server installed without one).
 * @throws Error naming the file when it exists but is not JSON, or its `history` is not a list of entries.
 */
export function readToolHistory(file: string | URL): ToolHistoryEntry[] {
  if (!existsSync(file)) return [];
  let lock: unknown;
  try {
    lock = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    // the server fails at start: the operator needs the file, not only the parser's position
    throw new Error(`${String(file)} is not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const history = isRecord(lock) ? lock['history'] : undefined;
  if (!Array.isArray(history) || !history.every(isHistoryEntry))
    throw new Error(`${String(file)}: history must be a list of { tool, old, new, since }`);
  return history;
}
