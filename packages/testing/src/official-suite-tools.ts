/**
 * The fixture tools the official MCP conformance suite (`@modelcontextprotocol/conformance`)
 * calls in its server scenarios, as envelope-server tools. A reference server exposes them only
 * behind its `--conformance-fixtures` switch, so that the suite can run its scenarios against the
 * same runtime (core) that serves the real tools.
 *
 * Each tool does what the suite's scenario asks of it; `test_error_handling` throws, and core
 * answers with its `internal_error` envelope (an `isError` result whose text is the envelope).
 *
 * @packageDocumentation
 */
import { toolResult } from '@mcp-envelope/core';
import type { EnvelopeTool, ToolHandlerContext } from '@mcp-envelope/core';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/server';

import { INPUT_REQUIRED_TOOL_NAMES, inputRequiredTools } from './input-required-tools.js';

/** The names of {@link officialSuiteTools}, in listing order. */
export const OFFICIAL_SUITE_TOOL_NAMES = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_custom_header',
  ...INPUT_REQUIRED_TOOL_NAMES,
] as const;

/** One of `OFFICIAL_SUITE_TOOL_NAMES`. */
export type OfficialSuiteToolName = (typeof OFFICIAL_SUITE_TOOL_NAMES)[number];

/** The message `test_error_handling` throws (core turns it into an `internal_error` envelope). */
export const OFFICIAL_SUITE_ERROR_MESSAGE = 'This tool intentionally returns an error for testing';

/** A 1x1 red PNG, base64. */
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A mono 8 kHz 16-bit WAV of 8 silent samples, base64. */
function silentWav(): string {
  const samples = 8;
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(data, 40);
  return wav.toString('base64');
}

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function text(value: string): CallToolResult {
  return toolResult({ content: [{ type: 'text', text: value }] });
}

async function notify(context: ToolHandlerContext, notification: ServerNotification): Promise<void> {
  try {
    await context.request.mcpReq.notify(notification);
  } catch {
    // A notification the session cannot carry (e.g. logging without the logging capability) is dropped.
  }
}

async function elicit(
  context: ToolHandlerContext,
  message: string,
  requestedSchema: Record<string, unknown>,
): Promise<string> {
  const result = await context.request.mcpReq.send({
    method: 'elicitation/create',
    params: { message, requestedSchema },
  });
  return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}

/** The fixtures returning each kind of content block. */
function contentTools(wav: string): EnvelopeTool[] {
  return [
    {
      name: 'test_simple_text',
      description: 'Conformance fixture: returns one text block.',
      inputSchema: NO_ARGUMENTS,
      handler: () => text('This is a simple text response for testing.'),
    },
    {
      name: 'test_image_content',
      description: 'Conformance fixture: returns a 1x1 PNG image.',
      inputSchema: NO_ARGUMENTS,
      handler: () => toolResult({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
    },
    {
      name: 'test_audio_content',
      description: 'Conformance fixture: returns a short silent WAV clip.',
      inputSchema: NO_ARGUMENTS,
      handler: () => toolResult({ content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }] }),
    },
    {
      name: 'test_embedded_resource',
      description: 'Conformance fixture: returns an embedded text resource.',
      inputSchema: NO_ARGUMENTS,
      handler: () =>
        toolResult({
          content: [
            {
              type: 'resource',
              resource: {
                uri: 'test://embedded-resource',
                mimeType: 'text/plain',
                text: 'This is an embedded resource content.',
              },
            },
          ],
        }),
    },
    {
      name: 'test_multiple_content_types',
      description: 'Conformance fixture: returns text, image and resource blocks.',
      inputSchema: NO_ARGUMENTS,
      handler: () =>
        toolResult({
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: {
                uri: 'test://mixed-content-resource',
                mimeType: 'application/json',
                text: '{"test":"data","value":123}',
              },
            },
          ],
        }),
    },
  ];
}

/** The fixtures that notify while they run, fail, or close their stream mid-call. */
function runtimeTools(): EnvelopeTool[] {
  return [
    {
      name: 'test_tool_with_logging',
      description: 'Conformance fixture: sends three log notifications while it runs.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        for (const [index, message] of [
          'Tool execution started',
          'Tool processing data',
          'Tool execution completed',
        ].entries()) {
          if (index > 0) await pause(50, context.signal);
          await notify(context, { method: 'notifications/message', params: { level: 'info', data: message } });
        }
        return text('Tool with logging executed successfully');
      },
    },
    {
      name: 'test_tool_with_progress',
      description: 'Conformance fixture: reports progress 0, 50 and 100 of 100.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        const progressToken = context.request.mcpReq._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await pause(50, context.signal);
          if (progressToken !== undefined)
            await notify(context, {
              method: 'notifications/progress',
              params: { progressToken, progress, total: 100 },
            });
        }
        return text(`Progress reported for token ${JSON.stringify(progressToken ?? null)}`);
      },
    },
    {
      name: 'test_error_handling',
      description: 'Conformance fixture: always fails (the server answers with an internal_error envelope).',
      inputSchema: NO_ARGUMENTS,
      handler: () => {
        throw new Error(OFFICIAL_SUITE_ERROR_MESSAGE);
      },
    },
    {
      name: 'test_reconnection',
      description: 'Conformance fixture: closes its SSE stream mid-call, so the client resumes it with Last-Event-ID.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => {
        // Present only on a Streamable HTTP session with an event store (resumable streams).
        context.request.http?.closeSSE?.();
        await pause(100, context.signal);
        return text('Reconnection test completed');
      },
    },
  ];
}

/** The five enum forms the suite checks in an elicitation schema. */
const SEP1330_ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** The fixtures that send a sampling or elicitation request to the client. */
function clientRequestTools(): EnvelopeTool[] {
  return [
    {
      name: 'test_sampling',
      description: 'Conformance fixture: asks the client to sample a reply to the prompt.',
      inputSchema: {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'The prompt to send.' } },
        required: ['prompt'],
      },
      handler: async (args, context) => {
        const result = await context.request.mcpReq.send({
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: String(args['prompt']) } }],
            maxTokens: 100,
          },
        });
        const content = result.content as { type?: unknown; text?: unknown };
        return text(
          `LLM response: ${typeof content.text === 'string' ? content.text : JSON.stringify(result.content)}`,
        );
      },
    },
    {
      name: 'test_elicitation',
      description: 'Conformance fixture: asks the client for a user name and email.',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'The message to show the user.' } },
        required: ['message'],
      },
      handler: async (args, context) =>
        text(
          await elicit(context, String(args['message']), {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          }),
        ),
    },
    {
      name: 'test_elicitation_sep1034_defaults',
      description: 'Conformance fixture: elicitation whose fields carry default values.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) =>
        text(
          await elicit(context, 'Please review the defaults', {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: {
                type: 'string',
                description: 'User status',
                enum: ['active', 'inactive', 'pending'],
                default: 'active',
              },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
          }),
        ),
    },
    {
      name: 'test_elicitation_sep1330_enums',
      description: 'Conformance fixture: elicitation with the five enum schema forms.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, context) => text(await elicit(context, 'Please pick options', SEP1330_ENUMS_SCHEMA)),
    },
  ];
}

/** The fixture whose input schema uses draft 2020-12 features. */
function schemaTools(): EnvelopeTool[] {
  return [
    {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        // composition and conditional keywords, which a 2026-07-28 server must publish unchanged
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
      handler: (args) => text(`Received ${JSON.stringify(args)}`),
    },
    {
      name: 'test_custom_header',
      description: 'Conformance fixture: a parameter the client also sends as the Mcp-Param-Region header.',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region', description: 'Any region name.' } },
        required: ['region'],
      },
      handler: (args) => text(`region: ${String(args['region'])}`),
    },
  ];
}

/**
 * The official suite's fixture tools (see `OFFICIAL_SUITE_TOOL_NAMES`): text, image, audio,
 * embedded resource and mixed content results; logging and progress notifications; an error; a
 * call that closes its SSE stream mid-call (resumability); a
 * sampling and three elicitation requests to the client; a tool whose input schema uses
 * draft 2020-12 `$schema`, `$defs` (with an `$anchor`), `allOf`/`anyOf`, `if`/`then`/`else` and
 * `additionalProperties: false`; one whose parameter travels in an `Mcp-Param-*` header; and the
 * multi round-trip tools of protocol revision 2026-07-28 (input-required results).
 *
 * @returns fresh tool definitions for `createEnvelopeServer`.
 */
export function officialSuiteTools(): EnvelopeTool[] {
  return [
    ...contentTools(silentWav()),
    ...runtimeTools(),
    ...clientRequestTools(),
    ...schemaTools(),
    ...inputRequiredTools(),
  ];
}
