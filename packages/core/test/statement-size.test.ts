/**
 * The statement of the contract in every result's `_meta` counts toward `MCP_MAX_RESULT_BYTES`:
 * a result that fits the limit before the statement still fits it on the wire, where the limit
 * keeps a client under the size it accepts.
 */
import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import { afterEach, describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import type { Connected } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { testAdapter } from './fixtures/test-adapter.js';

// room for the too-large envelope itself, which for a tool that is not idempotent also says the
// effect is unknown, so that the check below is about the statement alone
const LIMIT = 8000;
const open: Connected[] = [];
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

describe('a result near MCP_MAX_RESULT_BYTES', () => {
  it.each([1, 10, 40, 80])(
    'never passes the limit on the wire with the statement (%i bytes under it before)',
    async (under) => {
      // the text a result {"content":[{"type":"text","text":"..."}]} needs to be `under` bytes below the limit
      const empty = JSON.stringify({ content: [{ type: 'text', text: '' }] }).length;
      const text = 'x'.repeat(LIMIT - under - empty);
      const server = createEnvelopeServer({
        info: { name: 'statement-size-test', version: '0.0.1' },
        adapter: testAdapter,
        tools: [{ name: 'near_limit', inputSchema: { type: 'object' }, handler: () => text }],
        options: { env: { MCP_RATE_LIMIT: 'off' }, logger: captureLog().logger, migrations: [], maxResultBytes: LIMIT },
      });
      const connected = await connectInMemory(server);
      open.push(connected);
      const result = (await connected.client.callTool({ name: 'near_limit', arguments: {} })) as Record<
        string,
        unknown
      >;
      expect((result['_meta'] as Record<string, unknown>)[ENVELOPE_EXTENSION_ID]).toEqual({ contract_version: 1 });
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(LIMIT);
    },
  );
});
