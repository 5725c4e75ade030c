/**
 * The contract's client helpers fed with what real client libraries produce: the LangChain MCP
 * adapters (a thrown `ToolException`), a LangGraph `ToolNode` (an error `ToolMessage`) and the
 * AI SDK MCP client (the `execute` result and the model output built from it), each driving the
 * reference Ads server over stdio, with the upstream replay server answering HTTP 429.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import type { MCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import {
  ToolEnvelopeError,
  callOrThrow,
  envelopeFromJsonRpcError,
  isEnvelope,
  parseEnvelopeText,
  unwrapOrThrow,
  unwrapToolResult,
} from '@mcp-envelope/contract';
import type { ReceivedEnvelope } from '@mcp-envelope/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { binArgs, mainEnv, prepareGatedModels } from './helpers/gate-servers.js';

const TOOL = 'list_sb_campaigns';

/** The upstream answer every failing call gets: a throttle with a four-second Retry-After. */
const THROTTLED = {
  status: 429,
  headers: { 'Retry-After': '4', 'x-amz-rid': 'CLIENTLIB429' },
  body: { code: 'THROTTLED', details: 'Too Many Requests' },
} as const;

let replay: UpstreamReplay;
let removeModels: () => void;
let server: { command: string; args: string[]; env: Record<string, string> };
let langchain: MultiServerMCPClient;
let langchainTools: StructuredToolInterface[];
/** The envelope as the plain MCP SDK client reads it from `structuredContent`. */
let reference: ReceivedEnvelope;

/** Makes the next upstream request the throttle, dropping anything an earlier test left queued. */
function throttleNext(): void {
  replay.reset();
  replay.enqueue(THROTTLED);
}

function langchainTool(name: string): StructuredToolInterface {
  const found = langchainTools.find((tool) => tool.name === name);
  if (found === undefined) throw new Error(`the Ads server offers no ${name}`);
  return found;
}

beforeAll(async () => {
  replay = await startAmazonReplay();
  const models = prepareGatedModels();
  removeModels = models.remove;
  server = {
    command: process.execPath,
    args: binArgs('ads', replay.url, models.folders['ads'] ?? ''),
    env: { PATH: process.env['PATH'] ?? '', ...mainEnv('ads', replay) },
  };
  langchain = new MultiServerMCPClient({ mcpServers: { ads: { transport: 'stdio', stderr: 'ignore', ...server } } });
  langchainTools = await langchain.getTools();
  throttleNext();
  const raw = await (await langchain.getClient('ads'))?.callTool({ name: TOOL, arguments: {} });
  expect(raw?.isError).toBe(true);
  const structured = raw?.structuredContent;
  if (!isEnvelope(structured)) throw new Error(`the reference server sent no v1 envelope: ${JSON.stringify(raw)}`);
  reference = structured;
}, 60_000);

afterAll(async () => {
  await langchain.close();
  await replay.close();
  removeModels();
});

describe('the reference envelope', () => {
  it('is the rate_limited envelope with the upstream wait', () => {
    expect([
      reference.tool,
      reference.error_kind,
      reference.error_code,
      reference.retryable,
      reference._meta?.['retry_after_seconds'],
    ]).toEqual([TOOL, 'rate_limited', 'RATE_LIMITED', true, 4]);
  });
});

describe('LangChain MCP adapters', () => {
  /** Invokes the LangChain tool against a throttled upstream and returns what it threw. */
  async function invokeThrottled(): Promise<unknown> {
    throttleNext();
    return langchainTool(TOOL)
      .invoke({})
      .then(
        () => undefined,
        (error: unknown) => error,
      );
  }

  it('the ToolException message has a prefix; parseEnvelopeText and envelopeFromJsonRpcError read the envelope behind it', async () => {
    const thrown = await invokeThrottled();
    expect(thrown).toBeInstanceOf(Error);
    const message = (thrown as Error).message;
    expect(message.startsWith(`MCP tool '${TOOL}' on server 'ads' returned an error: {`)).toBe(true);
    expect(parseEnvelopeText(message)).toEqual(reference);
    expect(envelopeFromJsonRpcError(thrown)).toEqual(reference);
  });

  it('a ToolEnvelopeError built from that envelope carries what a retry decision needs', async () => {
    const thrown = await invokeThrottled();
    const envelope = envelopeFromJsonRpcError(thrown);
    if (envelope === undefined) throw new Error('no envelope in the ToolException');
    const typed = new ToolEnvelopeError(envelope, 'is_error');
    expect([typed.error_kind, typed.error_code, typed.retryable, typed.retry_after_seconds, typed.hints]).toEqual([
      'rate_limited',
      'RATE_LIMITED',
      true,
      4,
      reference.hints,
    ]);
  });

  it("callOrThrow on the adapters' own MCP SDK client throws a ToolEnvelopeError with the wait", async () => {
    const client = await langchain.getClient('ads');
    if (client === undefined) throw new Error('no MCP client for the ads server');
    throttleNext();
    const thrown = await callOrThrow(client, TOOL, {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ToolEnvelopeError.isInstance(thrown)).toBe(true);
    const typed = thrown as ToolEnvelopeError;
    // callOrThrow states that it reads versions 1 and 2, so it gets the v2 form of the raw (v1) call's envelope
    const v1: Record<string, unknown> = { ...reference };
    delete v1['legacy_error_kind'];
    expect([
      typed.channel,
      typed.error_kind,
      typed.retry_after_seconds,
      typed.envelope_version,
      typed.envelope,
    ]).toEqual(['is_error', 'rate_limited', 4, 2, { ...v1, _envelope_version: 2, upstream: 'ads-api' }]);
  });
});

describe('LangGraph ToolNode', () => {
  it('the error ToolMessage wraps the envelope in prose; unwrapToolResult reads it from the message itself', async () => {
    throttleNext();
    const node = new ToolNode(langchainTools);
    const call = new AIMessage({
      content: '',
      tool_calls: [{ name: TOOL, args: {}, id: 'call_throttled', type: 'tool_call' }],
    });
    const output = (await node.invoke({ messages: [call] })) as { messages: unknown[] };
    const message = output.messages[0];
    expect(message).toBeInstanceOf(ToolMessage);
    const toolMessage = message as ToolMessage;
    expect(toolMessage.status).toBe('error');
    expect(typeof toolMessage.content).toBe('string');
    const content = toolMessage.content as string;
    expect(content.startsWith(`Error: MCP tool '${TOOL}' on server 'ads' returned an error: {`)).toBe(true);
    expect(content.endsWith('}\n Please fix your mistakes.')).toBe(true);
    expect(parseEnvelopeText(content)).toEqual(reference);
    expect(unwrapToolResult(toolMessage)).toEqual({ ok: false, envelope: reference, channel: 'is_error' });
  });
});

describe('AI SDK MCP client', () => {
  let client: MCPClient;

  beforeAll(async () => {
    client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ ...server, stderr: 'ignore' }) });
  });

  afterAll(async () => {
    await client.close();
  });

  async function executeTool(args: Record<string, unknown>): Promise<{ output: unknown; modelOutput: unknown }> {
    const tools = await client.tools();
    const tool = tools[TOOL];
    if (tool?.execute === undefined) throw new Error(`the AI SDK sees no executable ${TOOL}`);
    const options = { toolCallId: 'call_ai_sdk', messages: [] };
    const output = await tool.execute(args, options);
    if (Symbol.asyncIterator in output) throw new Error('an MCP tool answers once, it does not stream');
    const modelOutput: unknown = await tool.toModelOutput?.({ toolCallId: options.toolCallId, input: args, output });
    return { output, modelOutput };
  }

  it('the execute result keeps isError: unwrapToolResult and unwrapOrThrow read the envelope', async () => {
    throttleNext();
    const { output } = await executeTool({});
    expect(unwrapToolResult(output)).toEqual({ ok: false, envelope: reference, channel: 'is_error' });
    let thrown: unknown;
    try {
      unwrapOrThrow(output, TOOL);
    } catch (error) {
      thrown = error;
    }
    expect(
      ToolEnvelopeError.isInstance(thrown) ? [thrown.error_kind, thrown.retry_after_seconds, thrown.channel] : thrown,
    ).toEqual(['rate_limited', 4, 'is_error']);
  });

  it('the model output drops isError; unwrapToolResult still reads the envelope from its text', async () => {
    throttleNext();
    const { modelOutput } = await executeTool({});
    expect(modelOutput).toMatchObject({ type: 'content', value: [{ type: 'text' }] });
    expect(JSON.stringify(modelOutput)).not.toContain('isError');
    expect(unwrapToolResult(modelOutput)).toEqual({ ok: false, envelope: reference, channel: 'in_band' });
  });

  it('a success stays a success, through the execute result and the model output', async () => {
    replay.reset();
    replay.enqueue({
      status: 200,
      body: { campaigns: [{ campaignId: '7001', name: 'Brand defense' }], totalResults: 1 },
    });
    const { output, modelOutput } = await executeTool({});
    const unwrapped = unwrapToolResult(output);
    expect(unwrapped.ok).toBe(true);
    expect(unwrapToolResult(modelOutput).ok).toBe(true);
    expect(JSON.stringify(unwrapped.ok ? unwrapped.value : null)).toContain('Brand defense');
  });
});
