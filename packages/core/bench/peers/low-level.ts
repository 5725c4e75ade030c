/**
 * Peer: the SDK v2 low-level `Server` with an Ajv validator compiled once per tool, over stdio.
 * What a user writes who wants validation without a framework.
 */
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Ajv } from 'ajv';

import { benchValue, fetchOrdersResult, TOOL_SCHEMA } from './tool.js';

const ajv = new Ajv({ allErrors: true });
const validate = ajv.compile(TOOL_SCHEMA);

function lowLevelServer(): Server {
  const server = new Server({ name: 'peer-low-level', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: ['bench', 'fetch_orders'].map((name) => ({ name, inputSchema: TOOL_SCHEMA })),
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name } = request.params;
    if (name !== 'bench' && name !== 'fetch_orders')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${name}`);
    const args = request.params.arguments ?? {};
    if (!validate(args))
      return {
        content: [{ type: 'text', text: `Invalid arguments: ${ajv.errorsText(validate.errors)}` }],
        isError: true,
      };
    if (name === 'fetch_orders') return fetchOrdersResult(args);
    const value = benchValue(args);
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  return server;
}

serveStdio(() => lowLevelServer());
