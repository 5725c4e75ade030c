/**
 * Comparing two lockfiles: which changes break a client written against the older one, and
 * whether a checked-in lockfile still describes the server's tools. Implements CONTRACT.md "Tool
 * contracts and the lockfile".
 *
 * @packageDocumentation
 */
import { parseSurfaceLine } from './lockfile.js';
import { hasOwnKey, ownValue } from './own.js';
import type { SurfaceProperty, ToolsLock } from './lockfile.js';

/** The ways a tool's contract can break its callers. */
export const BREAKING_CHANGE_KINDS = [
  'removed_tool',
  'removed_property',
  'newly_required',
  'narrowed_type',
  'narrowed_enum',
] as const;

/** One of {@link BREAKING_CHANGE_KINDS}. */
export type BreakingChangeKind = (typeof BREAKING_CHANGE_KINDS)[number];

/** One breaking change of one tool. */
export interface BreakingChange {
  readonly tool: string;
  readonly kind: BreakingChangeKind;
  /** The property path (`''` for `removed_tool`). */
  readonly path: string;
  /** What changed, in one sentence. */
  readonly message: string;
}

/** Whether a property of `after`'s types takes every value of type `type`. */
function covers(after: readonly string[], type: string): boolean {
  return after.includes('any') || after.includes(type) || (type === 'integer' && after.includes('number'));
}

function propertyChanges(
  tool: string,
  path: string,
  before: SurfaceProperty,
  after: SurfaceProperty,
): BreakingChange[] {
  const changes: BreakingChange[] = [];
  if (after.required && !before.required)
    changes.push({ tool, kind: 'newly_required', path, message: `${tool}: ${path} is now required` });
  const lost = before.types.filter((type) => !covers(after.types, type));
  if (lost.length > 0)
    changes.push({
      tool,
      kind: 'narrowed_type',
      path,
      message: `${tool}: ${path} no longer takes ${lost.join(', ')} (was ${before.types.join('|')}, is ${after.types.join('|')})`,
    });
  if (after.values !== undefined) {
    const dropped = before.values === undefined ? undefined : before.values.filter((v) => !after.values?.includes(v));
    if (dropped === undefined)
      changes.push({
        tool,
        kind: 'narrowed_enum',
        path,
        message: `${tool}: ${path} now allows only ${after.values.join(', ')}`,
      });
    else if (dropped.length > 0)
      changes.push({
        tool,
        kind: 'narrowed_enum',
        path,
        message: `${tool}: ${path} no longer allows ${dropped.join(', ')}`,
      });
  }
  return changes;
}

/**
 * Whether the object holding `path` was already there: a new required property of an object a
 * caller could send before breaks that caller, one inside a new object does not.
 */
function hadParent(before: Readonly<Record<string, string>>, path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot === -1) return true;
  return hasOwnKey(before, path.slice(0, dot));
}

/**
 * The changes from `before` to `after` that break a caller of `before`: a removed tool, a removed
 * property, a property that became required (a new required one included), a type or an enum that
 * takes fewer values. New tools, new optional properties, widened types and enums are additive.
 *
 * @param before - the older lockfile (e.g. the last release's).
 * @param after - the newer lockfile.
 * @returns the breaking changes, by tool name then path.
 */
export function breakingChanges(before: ToolsLock, after: ToolsLock): BreakingChange[] {
  const changes: BreakingChange[] = [];
  for (const tool of Object.keys(before.tools).sort()) {
    const old = ownValue(before.tools, tool);
    const now = ownValue(after.tools, tool);
    if (old === undefined) continue;
    if (now === undefined) {
      changes.push({ tool, kind: 'removed_tool', path: '', message: `${tool} was removed` });
      continue;
    }
    for (const [path, line] of Object.entries(old.input)) {
      const current = ownValue(now.input, path);
      if (current === undefined) {
        const renamed = after.history.find((entry) => entry.tool === tool && entry.old === path && entry.new !== null);
        const to = renamed === undefined ? '' : ` (renamed to ${String(renamed.new)})`;
        changes.push({ tool, kind: 'removed_property', path, message: `${tool}: ${path} was removed${to}` });
        continue;
      }
      changes.push(...propertyChanges(tool, path, parseSurfaceLine(line), parseSurfaceLine(current)));
    }
    for (const [path, line] of Object.entries(now.input)) {
      if (!hasOwnKey(old.input, path) && parseSurfaceLine(line).required && hadParent(old.input, path))
        changes.push({ tool, kind: 'newly_required', path, message: `${tool}: new property ${path} is required` });
    }
  }
  return changes;
}

/**
 * How a checked-in lockfile differs from the one the server's tools give now (history aside: it is
 * the author's record).
 *
 * @param checkedIn - the lockfile in the checkout.
 * @param current - the lockfile of the tools the server lists now.
 * @returns one line per tool added, removed or changed; `[]` when the lockfile is up to date.
 */
export function lockDrift(checkedIn: ToolsLock, current: ToolsLock): string[] {
  const names = [...new Set([...Object.keys(checkedIn.tools), ...Object.keys(current.tools)])].sort();
  return names.flatMap((name) => {
    const locked = ownValue(checkedIn.tools, name);
    const now = ownValue(current.tools, name);
    if (locked === undefined) return [`${name} is served but not in the lockfile`];
    if (now === undefined) return [`${name} is in the lockfile but no longer served`];
    const same = locked.hash === now.hash && JSON.stringify(locked.input) === JSON.stringify(now.input);
    return same ? [] : [`${name} changed (hash ${locked.hash} -> ${now.hash})`];
  });
}

/**
 * History entries that name a property the tool does not have: a rename must lead to a property the
 * server takes, or the stale-call envelope would send the agent to another wrong name.
 *
 * @param lock - a lockfile.
 * @returns one line per bad entry.
 */
export function historyProblems(lock: ToolsLock): string[] {
  return lock.history.flatMap((entry) => {
    const tool = ownValue(lock.tools, entry.tool);
    if (tool === undefined) return [];
    if (hasOwnKey(tool.input, entry.old))
      return [`${entry.tool}: ${entry.old} is in the history but the tool still has it`];
    if (entry.new !== null && !hasOwnKey(tool.input, entry.new))
      return [`${entry.tool}: ${entry.old} is renamed to ${entry.new}, which the tool does not have`];
    return [];
  });
}
