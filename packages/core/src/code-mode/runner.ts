/**
 * The sandbox of one server, loaded on the first `execute_code` call: a server that never runs
 * code never loads the WebAssembly module, and its creation stays synchronous.
 *
 * @packageDocumentation
 */
import { createSandbox } from './sandbox.js';
import type { Sandbox } from './sandbox.js';

/** Runs code in the server's sandbox (see `Sandbox.run`). */
export type SandboxRunner = Sandbox['run'];

/**
 * A runner that loads the sandbox once, on its first run; a failed load is retried on the next.
 *
 * @returns the runner.
 */
export function createSandboxRunner(): SandboxRunner {
  const state: { sandbox: Promise<Sandbox> | undefined } = { sandbox: undefined };
  return async (code, callTool, limits, signal) => {
    state.sandbox ??= createSandbox();
    let sandbox: Sandbox;
    try {
      sandbox = await state.sandbox;
    } catch (error) {
      state.sandbox = undefined;
      throw error;
    }
    return sandbox.run(code, callTool, limits, signal);
  };
}
