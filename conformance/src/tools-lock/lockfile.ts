/**
 * The tool-contract lockfile, `tools.lock.json` beside a server's package.json: per tool a hash of
 * its contract and a compact "surface" of its input (one line per property path), plus the
 * history of renamed or removed properties the server reads at run time. Implements CONTRACT.md
 * "Tool contracts and the lockfile".
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { isRecord } from '@mcp-envelope/contract';
import type { ToolHistoryEntry } from '@mcp-envelope/core';

import { jsonTypeOf } from '../json-schema.js';
import { hasOwnKey, ownValue } from './own.js';

/** The file name of a lockfile inside its package folder. */
export const TOOLS_LOCK_FILE = 'tools.lock.json';

/** The format version a lockfile states in `lockfile_version`. */
export const TOOLS_LOCK_FORMAT = 1;

/** How deep {@link inputSurface} follows nested objects and arrays: deeper properties are not listed. */
export const SURFACE_DEPTH = 6;

/**
 * One tool as the lockfile keeps it.
 *
 * `hash`: the first 16 hex digits of the SHA-256 of the canonical JSON (keys sorted) of
 * `{ inputSchema, outputSchema, annotations }` (absent ones as `null`), so any change of the
 * contract, the output schema included, changes it. `input`: property path -> surface line (see
 * {@link inputSurface}).
 */
export interface LockedTool {
  readonly hash: string;
  readonly input: Readonly<Record<string, string>>;
}

/** A lockfile as written and read. */
export interface ToolsLock {
  readonly lockfile_version: number;
  /** The gate id of the server (its descriptor's `id`). */
  readonly server: string;
  /** The package that ships the server. */
  readonly package: string;
  /** Tool name -> its contract, sorted by name. */
  readonly tools: Readonly<Record<string, LockedTool>>;
  /**
   * Renamed or removed properties, oldest first: written by `tools-lock --write` as a removal
   * (`new: null`) when a property disappears, turned into a rename by the author who sets `new`.
   */
  readonly history: readonly ToolHistoryEntry[];
}

/** A tool as `tools/list` lists it (the fields the lockfile reads). */
export interface ListedTool {
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** The value with every object's keys sorted, so that equal contracts serialize alike. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}

/**
 * The contract hash of a tool (see {@link LockedTool}).
 *
 * @param tool - the listed tool.
 * @returns 16 lower-case hex digits.
 */
export function contractHash(tool: ListedTool): string {
  const canonical = JSON.stringify(
    sortedKeys({
      inputSchema: tool.inputSchema ?? null,
      outputSchema: tool.outputSchema ?? null,
      annotations: tool.annotations ?? null,
    }),
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** The JSON types a schema accepts; `any` when it does not say (or says it through a `$ref`). */
function typesOf(schema: Record<string, unknown>): string[] {
  const declared = schema['type'];
  let types: string[];
  if (typeof declared === 'string') types = [declared];
  else if (Array.isArray(declared)) types = declared.filter((entry): entry is string => typeof entry === 'string');
  else if (Array.isArray(schema['enum'])) types = schema['enum'].map(jsonTypeOf);
  else if ('const' in schema) types = [jsonTypeOf(schema['const'])];
  else if (isRecord(schema['properties'])) types = ['object'];
  else {
    const branches = [schema['anyOf'], schema['oneOf']].find(Array.isArray) as unknown[] | undefined;
    types = branches?.flatMap((branch) => (isRecord(branch) ? typesOf(branch) : ['any'])) ?? ['any'];
  }
  if (schema['nullable'] === true) types.push('null');
  const unique = [...new Set(types)].sort();
  return unique.includes('any') ? ['any'] : unique;
}

/** The values a schema allows, when it lists them (`enum`, or `const` as a list of one). */
function enumOf(schema: Record<string, unknown>): unknown[] | undefined {
  const values: unknown = schema['enum'];
  if (Array.isArray(values)) return values as unknown[];
  return 'const' in schema ? [schema['const']] : undefined;
}

/** One surface line: `<types joined by |>[ required][ enum <JSON list>]`. */
function surfaceLine(schema: Record<string, unknown>, required: boolean): string {
  const values = enumOf(schema);
  return [
    typesOf(schema).join('|'),
    ...(required ? ['required'] : []),
    ...(values === undefined ? [] : [`enum ${JSON.stringify(values)}`]),
  ].join(' ');
}

function addProperties(
  schema: Record<string, unknown>,
  prefix: string,
  depth: number,
  into: Record<string, string>,
): void {
  if (depth > SURFACE_DEPTH) return;
  const properties = schema['properties'];
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  if (isRecord(properties)) {
    for (const name of Object.keys(properties).sort()) {
      const property = properties[name];
      if (!isRecord(property)) continue;
      const path = prefix === '' ? name : `${prefix}.${name}`;
      into[path] = surfaceLine(property, required.includes(name));
      addProperties(property, path, depth + 1, into);
    }
  }
  const items = schema['items'];
  if (isRecord(items) && prefix !== '') {
    into[`${prefix}[]`] = surfaceLine(items, false);
    addProperties(items, `${prefix}[]`, depth + 1, into);
  }
}

/**
 * The input surface of a tool: each property path (`a`, `a.b`, `list[]`, `list[].name`) with the
 * JSON types it takes, whether its object requires it, and its allowed values. A line reads e.g.
 * `string required enum ["open","closed"]`; `any` when the schema does not state a type.
 *
 * @param inputSchema - the tool's input schema as listed.
 * @returns path -> line, in schema order with names sorted per object.
 */
export function inputSurface(inputSchema: unknown): Record<string, string> {
  const surface: Record<string, string> = {};
  if (isRecord(inputSchema)) addProperties(inputSchema, '', 0, surface);
  return surface;
}

/** A parsed surface line. */
export interface SurfaceProperty {
  readonly types: readonly string[];
  readonly required: boolean;
  /** The allowed values as JSON texts, when the schema lists them. */
  readonly values?: readonly string[];
}

/**
 * Reads a surface line back.
 *
 * @param line - a line {@link inputSurface} wrote.
 * @returns its parts.
 * @throws Error when the line is not in that form.
 */
export function parseSurfaceLine(line: string): SurfaceProperty {
  const match = /^(\S+)( required)?(?: enum (\[.*\]))?$/.exec(line);
  if (match === null) throw new Error(`not a surface line: ${line}`);
  const [, types = '', required, values] = match;
  return {
    types: types.split('|'),
    required: required !== undefined,
    ...(values === undefined
      ? {}
      : { values: (JSON.parse(values) as unknown[]).map((value) => JSON.stringify(value)) }),
  };
}

/**
 * The lock entry of one tool.
 *
 * @param tool - the listed tool.
 * @returns its hash and input surface.
 */
export function lockTool(tool: ListedTool): LockedTool {
  return { hash: contractHash(tool), input: inputSurface(tool.inputSchema) };
}

/**
 * The lockfile of a server's current tools, keeping the history of the previous lockfile and
 * adding a removal entry (`new: null`, `since` the package version) for each property of a tool
 * that is still there but lost the property, unless the history already names it.
 *
 * @param server - the server id and package, and the version the change ships in.
 * @param tools - the tools as listed.
 * @param previous - the checked-in lockfile, if any.
 * @returns the new lockfile.
 */
export function buildToolsLock(
  server: { readonly id: string; readonly packageName: string; readonly version: string },
  tools: readonly ListedTool[],
  previous: ToolsLock | undefined,
): ToolsLock {
  const locked = Object.fromEntries(
    [...tools]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((tool) => [tool.name, lockTool(tool)]),
  );
  const history = [...(previous?.history ?? [])];
  for (const [name, before] of Object.entries(previous?.tools ?? {})) {
    const after = ownValue(locked, name);
    if (after === undefined) continue;
    for (const path of Object.keys(before.input)) {
      if (hasOwnKey(after.input, path) || history.some((entry) => entry.tool === name && entry.old === path)) continue;
      history.push({ tool: name, old: path, new: null, since: server.version });
    }
  }
  return {
    lockfile_version: TOOLS_LOCK_FORMAT,
    server: server.id,
    package: server.packageName,
    tools: locked,
    history,
  };
}

/**
 * The text of a lockfile: two-space JSON, one property per line, so a diff shows each change.
 *
 * @param lock - the lockfile.
 * @returns the text, ending with a newline.
 */
export function serializeToolsLock(lock: ToolsLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/**
 * Parses a lockfile's text.
 *
 * @param text - the file's text.
 * @param file - its path, named in errors.
 * @returns the lockfile.
 * @throws Error naming the file when it is not JSON or not a lockfile of this format.
 */
export function parseToolsLock(text: string, file: string): ToolsLock {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // a hand-edited lockfile: the parser's message alone does not say which of the servers' files it is
    throw new Error(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (
    !isRecord(value) ||
    value['lockfile_version'] !== TOOLS_LOCK_FORMAT ||
    typeof value['server'] !== 'string' ||
    !isRecord(value['tools']) ||
    !Array.isArray(value['history'])
  )
    throw new Error(`${file} is not a tools lockfile of format ${TOOLS_LOCK_FORMAT}`);
  return value as unknown as ToolsLock;
}

/**
 * Reads the lockfile of a package folder.
 *
 * @param packageFolder - the package's folder.
 * @returns the lockfile, or `undefined` when the package has none.
 * @throws Error when the file is there but is not a lockfile.
 */
export function readToolsLock(packageFolder: string): ToolsLock | undefined {
  const file = join(packageFolder, TOOLS_LOCK_FILE);
  return existsSync(file) ? parseToolsLock(readFileSync(file, 'utf8'), file) : undefined;
}
