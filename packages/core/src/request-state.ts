/**
 * The `requestState` of multi round-trip tool calls (protocol revision 2026-07-28): state a tool
 * hands the client with an input-required result and reads back when the client calls again. It
 * travels through the client, so it is signed (the SDK's HMAC codec, checked before the handler
 * runs: a changed or expired state is refused with -32602) and bound to the tool that minted it.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

import { createRequestStateCodec } from '@modelcontextprotocol/server';
import type { ServerContext } from '@modelcontextprotocol/server';

/** What a minted state carries: the tool it belongs to and the tool's own value. */
interface SealedState {
  readonly tool: string;
  readonly value: unknown;
}

/** One server's `requestState` signer. */
export interface ToolRequestState {
  /** The SDK's `requestState.verify` hook: resolves with the sealed payload, throws on a bad state. */
  readonly verify: (state: string, context: ServerContext) => Promise<unknown>;
  /** Seals `value` for `tool`. */
  readonly mint: (tool: string, value: unknown) => Promise<string>;
  /** The value the verified state of this request carries for `tool`, or `undefined`. */
  readonly read: (tool: string, request: ServerContext) => unknown;
}

function isSealed(value: unknown): value is SealedState {
  return typeof value === 'object' && value !== null && typeof (value as { tool?: unknown }).tool === 'string';
}

/**
 * Creates the signer of one server.
 *
 * @param key - the HMAC key (at least 32 bytes); default a random one, so every round of a flow
 *   must reach this process.
 * @returns the signer.
 * @throws RangeError when `key` is shorter than 32 bytes (from the SDK's codec).
 */
export function createToolRequestState(key: Uint8Array | string = randomBytes(32)): ToolRequestState {
  const codec = createRequestStateCodec<SealedState>({ key });
  return {
    verify: (state, context) => codec.verify(state, context),
    mint: (tool, value) => codec.mint({ tool, value }),
    read: (tool, request) => {
      // the SDK hands the verified payload to the handler; a state minted for another tool is not this tool's
      const sealed: unknown = request.mcpReq.requestState();
      return isSealed(sealed) && sealed.tool === tool ? sealed.value : undefined;
    },
  };
}
