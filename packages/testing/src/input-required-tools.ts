/**
 * The official suite's fixture tools for multi round-trip requests (protocol revision
 * 2026-07-28): tools that answer with an input-required result (elicitation, sampling, roots),
 * read the client's `inputResponses` and a signed `requestState` when called again, and a tool
 * that needs a client capability the suite does not declare.
 *
 * @packageDocumentation
 */
import { inputRequiredResult, toolResult } from '@mcp-envelope/core';
import type { EnvelopeTool, ToolHandlerContext } from '@mcp-envelope/core';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequest, InputRequiredResult } from '@modelcontextprotocol/server';

/** The names of {@link inputRequiredTools}, in listing order. */
export const INPUT_REQUIRED_TOOL_NAMES = [
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'test_streaming_elicitation',
  'test_missing_capability',
] as const;

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

function text(value: string): CallToolResult {
  return toolResult({ content: [{ type: 'text', text: value }] });
}

function responses(context: ToolHandlerContext): Record<string, unknown> | undefined {
  return context.request.mcpReq.inputResponses;
}

/** A form elicitation asking for one string or boolean field. */
function ask(message: string, field: string, type: 'string' | 'boolean' = 'string'): InputRequest {
  const property = type === 'string' ? { type: 'string' as const } : { type: 'boolean' as const };
  return inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] },
  });
}

/** The client capabilities a 2026-07-28 request declared in its `_meta` (none on a 2025-11-25 request). */
function declaredCapabilities(context: ToolHandlerContext): Record<string, unknown> {
  // the SDK types the lifted envelope as an empty object; its keys are the `_meta` keys
  const envelope: Record<string, unknown> = context.request.mcpReq.envelope ?? {};
  const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
  return typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : {};
}

function sample(question: string, maxTokens: number): InputRequest {
  return inputRequired.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: question } }],
    maxTokens,
  });
}

/** The text of a sampling response, or `undefined` when `key` holds none. */
function sampledText(context: ToolHandlerContext, key: string): string | undefined {
  const view = inputResponse(responses(context), key);
  if (view.kind !== 'sampling') return undefined;
  const content = view.result.content as { type?: unknown; text?: unknown };
  return typeof content.text === 'string' ? content.text : JSON.stringify(view.result.content);
}

/** The roots of a roots response, or `undefined` when `key` holds none. */
function rootUris(context: ToolHandlerContext, key: string): string[] | undefined {
  const view = inputResponse(responses(context), key);
  return view.kind === 'roots' ? view.roots.map((root) => root.uri) : undefined;
}

/** A string field of an accepted elicitation, or `undefined` (missing, declined, another kind, wrong type). */
function acceptedString(context: ToolHandlerContext, key: string, field: string): string | undefined {
  const value = acceptedContent(responses(context), key)?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** Greets the name the client gave, or asks for it: a missing, wrong or invalid answer asks again, as the spec advises. */
function greetOrAsk(context: ToolHandlerContext): CallToolResult | InputRequiredResult {
  const name = acceptedString(context, 'user_name', 'name');
  if (name !== undefined) return text(`Hello, ${name}!`);
  return inputRequiredResult({ inputRequests: { user_name: ask('What is your name?', 'name') } });
}

/** The three single-request fixtures: one elicitation, one sampling, one roots listing. */
function singleRequestTools(): EnvelopeTool[] {
  return [
    {
      name: 'test_input_required_result_elicitation',
      description: 'Conformance fixture: asks the client for a name, then greets it.',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => greetOrAsk(context),
    },
    {
      name: 'test_input_required_result_sampling',
      description: 'Conformance fixture: asks the client to sample an answer, then returns it.',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => {
        const answer = sampledText(context, 'capital_question');
        if (answer !== undefined) return text(`The model answered: ${answer}`);
        return inputRequiredResult({
          inputRequests: { capital_question: sample('What is the capital of France?', 100) },
        });
      },
    },
    {
      name: 'test_input_required_result_list_roots',
      description: "Conformance fixture: asks for the client's roots, then lists them.",
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => {
        const roots = rootUris(context, 'client_roots');
        if (roots !== undefined) return text(`The client has ${roots.length} root(s): ${roots.join(', ')}`);
        return inputRequiredResult({ inputRequests: { client_roots: inputRequired.listRoots() } });
      },
    },
  ];
}

/** The fixtures whose rounds carry a signed `requestState`. */
function statefulTools(): EnvelopeTool[] {
  return [
    {
      name: 'test_input_required_result_request_state',
      description: 'Conformance fixture: asks for a confirmation and checks the state it handed out.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        const state = context.requestState();
        if (state === 'awaiting-confirmation' && acceptedContent(responses(context), 'confirm') !== undefined)
          return text('state-ok: the request state came back intact');
        return inputRequiredResult({
          inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
          requestState: await context.mintRequestState('awaiting-confirmation'),
        });
      },
    },
    {
      name: 'test_input_required_result_multiple_inputs',
      description: 'Conformance fixture: asks for a name, a sampled greeting and the roots at once.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        const name = acceptedString(context, 'user_name', 'name');
        const greeting = sampledText(context, 'greeting');
        const roots = rootUris(context, 'client_roots');
        if (context.requestState() === 'three-inputs' && name !== undefined && greeting !== undefined && roots)
          return text(`${greeting} ${name} (${roots.length} root(s))`);
        return inputRequiredResult({
          inputRequests: {
            user_name: ask('What is your name?', 'name'),
            greeting: sample('Generate a greeting', 50),
            client_roots: inputRequired.listRoots(),
          },
          requestState: await context.mintRequestState('three-inputs'),
        });
      },
    },
    multiRoundTool(),
    {
      name: 'test_input_required_result_tampered_state',
      description: 'Conformance fixture: hands out a signed state; a changed one is refused before the tool runs.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        if (context.requestState() === 'signed' && acceptedContent(responses(context), 'confirm') !== undefined)
          return text('the signed state came back unchanged');
        return inputRequiredResult({
          inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
          requestState: await context.mintRequestState('signed'),
        });
      },
    },
  ];
}

/** Three rounds: a name, then a colour (the state says which round), then the answer. */
function multiRoundTool(): EnvelopeTool {
  return {
    name: 'test_input_required_result_multi_round',
    description: 'Conformance fixture: asks for a name, then a favourite colour, then answers.',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, context) => {
      const state = context.requestState();
      const round = typeof state === 'object' && state !== null ? (state as { round?: unknown; name?: unknown }) : {};
      if (round.round === 2 && typeof round.name === 'string') {
        const color = acceptedString(context, 'step2', 'color');
        if (color !== undefined) return text(`${round.name} likes ${color}.`);
      }
      const name = round.round === 1 ? acceptedString(context, 'step1', 'name') : undefined;
      if (name !== undefined)
        return inputRequiredResult({
          inputRequests: { step2: ask('Step 2: What is your favorite color?', 'color') },
          requestState: await context.mintRequestState({ round: 2, name }),
        });
      return inputRequiredResult({
        inputRequests: { step1: ask('Step 1: What is your name?', 'name') },
        requestState: await context.mintRequestState({ round: 1 }),
      });
    },
  };
}

/** The fixtures that depend on what the client declared it can do. */
function capabilityTools(): EnvelopeTool[] {
  return [
    {
      name: 'test_input_required_result_capabilities',
      description: 'Conformance fixture: asks only for the kinds of input the client declared it can give.',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => {
        const declared = declaredCapabilities(context);
        if (sampledText(context, 'question') !== undefined || acceptedContent(responses(context), 'name') !== undefined)
          return text('thanks for the input');
        const inputRequests: Record<string, InputRequest> = {
          ...(declared['sampling'] === undefined ? {} : { question: sample('What is 2 + 2?', 20) }),
          ...(declared['elicitation'] === undefined ? {} : { name: ask('What is your name?', 'name') }),
        };
        if (Object.keys(inputRequests).length === 0)
          return text('the client declared neither sampling nor elicitation');
        return inputRequiredResult({ inputRequests });
      },
    },
    {
      name: 'test_streaming_elicitation',
      description: 'Conformance fixture: asks for a name in its answer, never as a request of its own on the stream.',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => greetOrAsk(context),
    },
    {
      name: 'test_missing_capability',
      description:
        'Conformance fixture: needs sampling; a client that did not declare it is refused with -32021 by the SDK.',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, context) => {
        const answer = sampledText(context, 'sample');
        if (answer !== undefined) return text(`sampled: ${answer}`);
        return inputRequiredResult({ inputRequests: { sample: sample('Say hello', 20) } });
      },
    },
  ];
}

/**
 * The multi round-trip fixture tools (see `INPUT_REQUIRED_TOOL_NAMES`).
 *
 * @returns fresh tool definitions for `createEnvelopeServer`.
 */
export function inputRequiredTools(): EnvelopeTool[] {
  return [...singleRequestTools(), ...statefulTools(), ...capabilityTools()];
}
