import { createEnvelopeServer } from '@mcp-envelope/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OFFICIAL_SUITE_TOOL_NAMES, officialSuiteTools } from '../src/official-suite-tools.js';
import { captureLog, fixtureAdapter } from './support/server.js';

let client: Client;
const log = captureLog();
const elicitations: ElicitRequest[] = [];

beforeAll(async () => {
  const server = createEnvelopeServer({
    info: { name: 'suite-tools', version: '1.0.0' },
    adapter: fixtureAdapter,
    tools: officialSuiteTools(),
    options: { logger: log.logger, env: {} },
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  client = new Client(
    { name: 'suite-tools-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const content = request.params.messages[0]?.content as { text?: string };
    return {
      role: 'assistant',
      content: { type: 'text', text: `echo: ${content.text ?? ''}` },
      model: 'test-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request);
    return { action: 'accept', content: { username: 'ada' } };
  });
  await client.connect(clientTransport);
});

afterAll(async () => {
  await client.close();
});

async function call(
  name: string,
  args: Record<string, unknown> = {},
  progress?: (value: number) => void,
): Promise<CallToolResult> {
  return (await client.callTool(
    { name, arguments: args },
    undefined,
    progress === undefined
      ? {}
      : {
          onprogress: (notification) => {
            progress(notification.progress);
          },
        },
  )) as CallToolResult;
}

describe('the official suite fixture tools', () => {
  it('are listed with descriptions, and the 2020-12 tool keeps $schema, $defs and additionalProperties', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...OFFICIAL_SUITE_TOOL_NAMES, 'get_envelope_contract']);
    expect(tools.every((tool) => typeof tool.description === 'string' && tool.description !== '')).toBe(true);
    const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')?.inputSchema as Record<
      string,
      unknown
    >;
    expect([schema['$schema'], Object.keys(schema['$defs'] as object), schema['additionalProperties']]).toEqual([
      'https://json-schema.org/draft/2020-12/schema',
      ['address'],
      false,
    ]);
    expect([schema['allOf'], schema['if'], schema['then'], schema['else']]).toEqual([
      [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      { required: ['phone'] },
      { required: ['email'] },
    ]);
  });

  it('return text, image, audio, resource and mixed content', async () => {
    expect((await call('test_simple_text')).content).toEqual([
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]);
    expect((await call('test_image_content')).content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const audio = (await call('test_audio_content')).content[0] as { type: string; data: string; mimeType: string };
    expect([audio.type, audio.mimeType, Buffer.from(audio.data, 'base64').subarray(0, 4).toString('ascii')]).toEqual([
      'audio',
      'audio/wav',
      'RIFF',
    ]);
    expect((await call('test_embedded_resource')).content[0]).toEqual({
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    });
    expect((await call('test_multiple_content_types')).content.map((block) => block.type)).toEqual([
      'text',
      'image',
      'resource',
    ]);
  });

  it('test_error_handling becomes an internal_error envelope', async () => {
    const result = await call('test_error_handling');
    expect(result.isError).toBe(true);
    const envelope = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
    expect([envelope['error_kind'], envelope['error_code'], envelope['retryable'], envelope['tool']]).toEqual([
      'internal_error',
      'INTERNAL_ERROR',
      false,
      'test_error_handling',
    ]);
    expect(JSON.stringify(envelope)).not.toContain('intentionally');
    const logged = log.lines.find(
      (line) => line['correlation_id'] === (envelope['_meta'] as Record<string, unknown>)['correlation_id'],
    );
    expect((logged?.['error'] as Record<string, unknown> | undefined)?.['message']).toBe(
      'This tool intentionally returns an error for testing',
    );
  });

  it('test_tool_with_progress reports 0, 50 and 100', async () => {
    const seen: number[] = [];
    await call('test_tool_with_progress', {}, (value) => seen.push(value));
    expect(seen).toEqual([0, 50, 100]);
  });

  it('test_tool_with_logging still answers when the session has no logging capability', async () => {
    expect((await call('test_tool_with_logging')).content).toEqual([
      { type: 'text', text: 'Tool with logging executed successfully' },
    ]);
  });

  it('test_sampling asks the client to sample and returns its reply', async () => {
    expect((await call('test_sampling', { prompt: 'hello' })).content).toEqual([
      { type: 'text', text: 'LLM response: echo: hello' },
    ]);
  });

  it('the elicitation tools send the schemas the suite checks', async () => {
    expect((await call('test_elicitation', { message: 'Who are you?' })).content).toEqual([
      { type: 'text', text: 'Elicitation completed: action=accept, content={"username":"ada"}' },
    ]);
    await call('test_elicitation_sep1034_defaults');
    await call('test_elicitation_sep1330_enums');
    const [basic, defaults, enums] = elicitations.map(
      (request) =>
        request.params as { message: string; requestedSchema: { properties: Record<string, Record<string, unknown>> } },
    );
    expect(basic?.message).toBe('Who are you?');
    expect(
      Object.fromEntries(
        Object.entries(defaults?.requestedSchema.properties ?? {}).map(([name, schema]) => [name, schema['default']]),
      ),
    ).toEqual({ name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true });
    expect(Object.keys(enums?.requestedSchema.properties ?? {})).toEqual([
      'untitledSingle',
      'titledSingle',
      'legacyEnum',
      'untitledMulti',
      'titledMulti',
    ]);
  });
});
