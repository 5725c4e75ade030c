/**
 * Code Mode for an envelope server: when `CODE_MODE` is on, `tools/list` shows the meta tools
 * (`search_tools`, `get_tool_schema`, `execute_code`) beside `get_envelope_contract`, every other
 * tool stays callable by name, and the server can emit `sandbox_runtime`. Implements CONTRACT.md
 * "Code Mode".
 *
 * @packageDocumentation
 */
import type { ContractVersion, ErrorKind } from '@mcp-envelope/contract';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

import type { CallTool, EnvelopeTool } from '../types.js';
import { createMetaTools, META_TOOL_NAMES } from './meta-tools.js';
import type { SandboxRunner } from './runner.js';
import type { CodeModeSettings } from './settings.js';

export { CODE_MODE_DEFAULTS, resolveCodeModeSettings } from './settings.js';
export type { CodeModeOptions, CodeModeSettings } from './settings.js';
export { EXECUTE_CODE_TOOL_NAME } from './inner-call.js';
export { GET_TOOL_SCHEMA_TOOL_NAME, META_TOOL_NAMES, SEARCH_TOOLS_TOOL_NAME } from './meta-tools.js';
export type { SandboxRunner } from './runner.js';

/** What a server needs to know of its tools for Code Mode, bound once the registry and pipeline exist. */
export interface CodeModeBindings {
  listing(name: string): Tool | undefined;
  names(): readonly string[];
  readonly callTool: CallTool;
  /** An inner call's result in the contract version the outer `execute_code` client reads. */
  inVersion(result: CallToolResult, version: ContractVersion): CallToolResult;
}

/** Code Mode's part of one server. */
export interface CodeModePlan {
  /** The meta tools to register (none when Code Mode is off). */
  readonly tools: readonly EnvelopeTool[];
  /** The tools `tools/list` shows, or `undefined` for all of them (Code Mode off). */
  listOnly(alwaysListed: readonly string[]): ReadonlySet<string> | undefined;
  /** The kinds Code Mode adds to the server's advertised kinds. */
  readonly errorKinds: readonly ErrorKind[];
  /** Hands the meta tools the registry and pipeline. @throws Error when called twice. */
  bind(bindings: CodeModeBindings): void;
}

/**
 * Plans Code Mode for one server.
 *
 * @param settings - the resolved settings; nothing is added when `CODE_MODE` is off.
 * @param runSandboxed - runs code in the sandbox.
 * @returns the plan; {@link CodeModePlan.bind} must be called before the first `tools/call`.
 */
export function planCodeMode(settings: CodeModeSettings, runSandboxed: SandboxRunner): CodeModePlan {
  const state: { bindings: CodeModeBindings | undefined } = { bindings: undefined };
  const bound = (): CodeModeBindings => {
    if (state.bindings === undefined) throw new Error('Code Mode was used before its server bound it');
    return state.bindings;
  };
  const on = settings.CODE_MODE;
  return {
    tools: on
      ? createMetaTools({
          settings,
          listing: (name) => bound().listing(name),
          names: () => bound().names(),
          callTool: () => bound().callTool,
          inVersion: (result, version) => bound().inVersion(result, version),
          runSandboxed,
        })
      : [],
    listOnly: (alwaysListed) => (on ? new Set([...alwaysListed, ...META_TOOL_NAMES]) : undefined),
    errorKinds: on ? ['sandbox_runtime'] : [],
    bind: (bindings) => {
      if (state.bindings !== undefined) throw new Error('Code Mode is already bound');
      state.bindings = bindings;
    },
  };
}
