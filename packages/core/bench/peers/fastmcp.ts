/**
 * Peer: FastMCP 4.20 (on the SDK v1) with the tools' schema in zod, over stdio.
 * FastMCP answers with text content (it has no `structuredContent` for a tool without an output
 * schema) and throws `UserError` for an error.
 */
import { FastMCP, UserError } from 'fastmcp';
import { z } from 'zod';

import { benchValue, fetchOrdersResult } from './tool.js';
import { zodToolShape } from './zod-shape.js';

const server = new FastMCP({ name: 'peer-fastmcp', version: '0.0.0' });
const parameters = z.object(zodToolShape());
server.addTool({ name: 'bench', parameters, execute: (args) => Promise.resolve(JSON.stringify(benchValue(args))) });
server.addTool({
  name: 'fetch_orders',
  parameters,
  execute: async (args) => {
    const result = await fetchOrdersResult(args);
    const text = result.content[0]?.text ?? '';
    if (result.isError === true) throw new UserError(text);
    return text;
  },
});

await server.start({ transportType: 'stdio' });
