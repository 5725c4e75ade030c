/**
 * The tool registry of an envelope server: checks the tool list, compiles every input schema once,
 * widens output schemas so that error results validate, and answers `tools/list` pages.
 *
 * @packageDocumentation
 */
import { isRecord, NORMALIZED_KINDS } from '@mcp-envelope/contract';
import type { NormalizedEventKind } from '@mcp-envelope/contract';
import type { ListToolsResult, Tool } from '@modelcontextprotocol/server';

import { compileTool } from './arguments/index.js';
import type { ArgumentPipelineOptions, CompiledTool } from './arguments/index.js';
import type { EnvelopeLogger } from './logger.js';
import { createOutputChecker, hasObjectRoot, widenOutputSchema } from './output-schema.js';
import { admitTools } from './tool-admission.js';
import { decodeCursor, encodeCursor, toolSetFingerprint } from './pagination.js';
import type { EnvelopeTool, ProtocolEra } from './types.js';

/** One registered tool: its definition, compiled input checks, output check and listing. */
export interface ToolEntry {
  readonly tool: EnvelopeTool;
  readonly compiled: CompiledTool;
  /** Checks success results against the published output schema; present exactly when the tool has an `outputSchema`. */
  readonly outputChecker: ReturnType<typeof createOutputChecker> | undefined;
  /** The root of the tool's own `outputSchema`: `object`, `other` (any other root), or `undefined` (none). */
  readonly outputRoot: 'object' | 'other' | undefined;
  /** The `tools/list` entry for 2026-07-28 clients. */
  readonly listed: Tool;
  /**
   * The entry for 2025-11-25 and older clients, whose `outputSchema` must have an object root:
   * without `outputSchema` when the tool's has another root (its results then go out as text).
   */
  readonly legacyListed: Tool;
}

/** What {@link createToolRegistry} needs. */
export interface ToolRegistryInput {
  readonly tools: readonly EnvelopeTool[];
  /** The pipeline options every tool shares (normalization, strictness, hints). */
  readonly pipeline: ArgumentPipelineOptions;
  readonly pageSize: number;
  readonly logger: EnvelopeLogger;
  /**
   * The tools `tools/list` shows, when not all of them (Code Mode lists only its meta tools);
   * the others stay callable by name.
   */
  readonly listOnly?: ReadonlySet<string>;
}

/** The registered tools of one server. */
export interface ToolRegistry {
  /** The tool of this name, or `undefined`. */
  get(name: string): ToolEntry | undefined;
  /** Every tool name, in registration order. */
  readonly names: readonly string[];
  /** The normalization kinds some tool's schema can lead to under these switches. */
  normalizedKinds(): NormalizedEventKind[];
  /**
   * One `tools/list` page, as the clients of `era` (default `legacy`) see it.
   *
   * @returns the page, or `undefined` when `cursor` was not issued by this server for this tool list.
   */
  list(cursor: string | undefined, era?: ProtocolEra): ListToolsResult | undefined;
}

/**
 * Refuses a tool list a server cannot serve.
 *
 * @throws TypeError on a tool without a name or handler, or a name registered twice.
 */
export function validateTools(tools: readonly EnvelopeTool[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || tool.name === '') {
      throw new TypeError('every tool needs a non-empty string name');
    }
    if (typeof tool.handler !== 'function') throw new TypeError(`tool "${tool.name}" has no handler function`);
    if (seen.has(tool.name)) throw new TypeError(`tool name "${tool.name}" is registered twice`);
    seen.add(tool.name);
  }
}

/**
 * One options object per combination of a tool's schema switches, shared by the tools that use it
 * (`compileTool` files its per-options caches under it).
 */
function optionsPerVariant(pipeline: ArgumentPipelineOptions): (tool: EnvelopeTool) => ArgumentPipelineOptions {
  const variants = new Map<string, ArgumentPipelineOptions>();
  return (tool) => {
    const compile = tool.inputSchemaCheck === 'first-call' ? ('deferred' as const) : undefined;
    const schemaOwnership = tool.inputSchemaOwnership === 'transfer' ? ('transfer' as const) : undefined;
    const variant = `${compile ?? 'lazy'} ${schemaOwnership ?? 'copy'}`;
    let options = variants.get(variant);
    if (options === undefined) {
      options = {
        ...pipeline,
        ...(compile === undefined ? {} : { compile }),
        ...(schemaOwnership === undefined ? {} : { schemaOwnership }),
      };
      variants.set(variant, options);
    }
    return options;
  };
}

function publishedOutputSchema(tool: EnvelopeTool): Tool['outputSchema'] {
  if (tool.outputSchema === undefined) return undefined;
  try {
    return widenOutputSchema(tool.outputSchema);
  } catch (error) {
    throw new TypeError(`tool "${tool.name}": ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

function withoutOutputSchema(listed: Tool): Tool {
  const copy = { ...listed };
  delete copy.outputSchema;
  return copy;
}

function registerTool(tool: EnvelopeTool, options: ArgumentPipelineOptions, logger: EnvelopeLogger): ToolEntry {
  const compiled = compileTool(tool.name, tool.inputSchema, options);
  const outputSchema = publishedOutputSchema(tool);
  const listed: Tool = {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: compiled.publishedInputSchema as Tool['inputSchema'],
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
  const outputChecker =
    outputSchema === undefined
      ? undefined
      : createOutputChecker(
          outputSchema,
          (reason) => {
            logger.warn(
              { tool: tool.name, reason },
              'the outputSchema of this tool does not compile, so its results are not checked against it',
            );
          },
          options.caches?.compiler,
        );
  const outputRoot =
    tool.outputSchema === undefined ? undefined : hasObjectRoot(tool.outputSchema) ? 'object' : 'other';
  const legacyListed = outputRoot === 'other' ? withoutOutputSchema(listed) : listed;
  return { tool, compiled, outputChecker, outputRoot, listed, legacyListed };
}

/**
 * Registers `input.tools` (validated first, see {@link validateTools}).
 *
 * @returns the registry.
 * @throws TypeError from {@link validateTools}, from `compileTool` on an invalid `inputSchema`, or
 *   on an `outputSchema` that cannot be widened.
 */
export function createToolRegistry(input: ToolRegistryInput): ToolRegistry {
  validateTools(input.tools);
  const optionsFor = optionsPerVariant(input.pipeline);
  const entries = new Map<string, ToolEntry>();
  // a tool whose x-mcp-header annotations break a rule is left out with one log line
  for (const tool of admitTools(input.tools, input.logger))
    entries.set(tool.name, registerTool(tool, optionsFor(tool), input.logger));
  const names = [...entries.keys()];
  const { listOnly } = input;
  const shown = [...entries.values()].filter((entry) => listOnly === undefined || listOnly.has(entry.tool.name));
  const eraLists: Readonly<Record<ProtocolEra, Tool[]>> = {
    modern: shown.map((entry) => entry.listed),
    legacy: shown.map((entry) => entry.legacyListed),
  };
  const fingerprint = toolSetFingerprint(shown.map((entry) => entry.tool.name));
  const { pageSize } = input;
  return {
    get: (name) => entries.get(name),
    names,
    normalizedKinds: () =>
      NORMALIZED_KINDS.filter((kind) =>
        [...entries.values()].some((entry) => entry.compiled.normalizedKinds.has(kind)),
      ),
    list: (cursor, era = 'legacy') => {
      const listed = eraLists[era];
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = decodeCursor(cursor, fingerprint, listed.length);
        if (decoded === undefined) return undefined;
        offset = decoded;
      }
      const end = offset + pageSize;
      const page = offset === 0 && end >= listed.length ? listed : listed.slice(offset, end);
      return end < listed.length ? { tools: page, nextCursor: encodeCursor(end, fingerprint) } : { tools: page };
    },
  };
}

/** A registry whose tool set can be replaced while the server runs (see {@link replaceableRegistry}). */
export interface ReplaceableRegistry {
  /** Answers from the current tool set; a caller that already holds a {@link ToolEntry} keeps it. */
  readonly registry: ToolRegistry;
  /** Makes `next` the current tool set. */
  replace(next: ToolRegistry): void;
}

/**
 * A registry that forwards to the one set last. A call in flight took its {@link ToolEntry} when it
 * started, so it finishes on the tool it started with; cursors of the old list no longer match the
 * new list's fingerprint and are refused.
 *
 * @param initial - the tool set the server starts with.
 */
export function replaceableRegistry(initial: ToolRegistry): ReplaceableRegistry {
  const state = { current: initial };
  return {
    registry: {
      get: (name) => state.current.get(name),
      get names() {
        return state.current.names;
      },
      normalizedKinds: () => state.current.normalizedKinds(),
      list: (cursor, era) => state.current.list(cursor, era),
    },
    replace: (next) => {
      state.current = next;
    },
  };
}
