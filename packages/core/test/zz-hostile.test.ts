import { ENVELOPE_EXTENSION_ID } from '@mcp-envelope/contract';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamableHttpHandle } from '../src/index.js';
import { createTestServer } from './fixtures/test-server.js';

let handle: StreamableHttpHandle;
const clients: ClientV2[] = [];
beforeAll(async () => { handle = await createTestServer().serveStreamableHttp(); });
afterAll(async () => { for (const c of clients) await c.close(); await handle.close(); });

async function client(era: string, capabilities: Record<string, unknown> = {}) {
  const c = new ClientV2({ name: 'h', version: '0' }, { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) });
  await c.connect(new StreamableHTTPClientTransport(handle.url));
  clients.push(c);
  return c;
}
const values: [string, unknown][] = [
  ['string', '[1,2]'], ['null', null], ['array', [2]], ['nested', { contract_versions: [[2]] }], ['arraylike', { contract_versions: { 0: 2, length: 1 } }],
  ['huge', { contract_versions: [...Array(200000).fill(3), 2] }], ['proto', JSON.parse('{"__proto__": {"contract_versions": [2]}}')],
  ['floats', { contract_versions: [2.0000000001] }], ['bigstring', { contract_versions: ['2'] }], ['neg', {contract_versions: [-1, 0]}],
];
describe.each(['legacy', 'modern'])('%s', (era) => {
  it.each(values)('per request %s', async (_l, value) => {
    const c = await client(era);
    try {
      const r = await c.callTool({ name: 'report_summary', arguments: { fail: true }, _meta: { [ENVELOPE_EXTENSION_ID]: value } });
      console.log(era, _l, (r.structuredContent as any)?._envelope_version, (r.structuredContent as any)?.error_kind);
    } catch (e) { console.log(era, _l, 'THROWS', String(e).slice(0, 300)); }
  });
  it.each([
    ['ext junk', { extensions: { [ENVELOPE_EXTENSION_ID]: 'junk' } }],
    ['ext empty + experimental', { extensions: { [ENVELOPE_EXTENSION_ID]: {} }, experimental: { openbridge_envelope: { contract_versions: [1, 2] } } }],
    ['experimental junk', { experimental: { openbridge_envelope: [2] } }],
    ['experimental string', { experimental: { openbridge_envelope: 'x' } }],
    ['ext proto', { extensions: JSON.parse('{"__proto__": {"io.github.mcp-envelope/envelope": {"contract_versions": [2]}}}') }],
  ])('capability %s', async (_l, caps) => {
    try {
      const c = await client(era, caps as Record<string, unknown>);
      const r = await c.callTool({ name: 'report_summary', arguments: { fail: true } });
      console.log(era, _l, (r.structuredContent as any)?._envelope_version);
    } catch (e) { console.log(era, _l, 'THROWS', String(e).slice(0, 300)); }
  });
});
