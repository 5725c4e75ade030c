/**
 * `tsx bench/snapshot.ts OUT.json [MODELS_DIR]`: writes what a client sees of the reference SP
 * server, to compare two builds byte for byte (start-up work must not change behaviour):
 * - `tools/list`, every page, as received;
 * - for every operation tool, the answers to a few invalid calls: no arguments, every top-level
 *   property given a wrong-typed value, a case-mangled property name, and a JSON-text body that
 *   breaks the body schema. No LWA variables are set, so a call that passes validation ends in
 *   the same `auth_error` envelope without any network traffic.
 * Without `MODELS_DIR` it snapshots the built-in catalog.
 */
import { writeFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import { createSpServer, loadBuiltInCatalog, loadSpModels } from '../src/index.js';

const [output, modelsDirectory] = process.argv.slice(2);
if (output === undefined) throw new Error('usage: tsx bench/snapshot.ts OUT.json [MODELS_DIR]');

const silentLogger = { error: (): void => undefined, warn: (): void => undefined };
const models = modelsDirectory === undefined ? await loadBuiltInCatalog() : await loadSpModels(modelsDirectory);
const server = createSpServer({ models, env: {}, envelope: { logger: silentLogger } });
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.envelope.connect(serverTransport);
const client = new Client({ name: 'sp-snapshot', version: '0.0.0' });
await client.connect(clientTransport);

const pages: unknown[] = [];
const tools: Tool[] = [];
let cursor: string | undefined;
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor });
  pages.push(page);
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor !== undefined);

function invalidCalls(tool: Tool, operationBody: string | undefined): Record<string, unknown>[] {
  const properties = Object.keys(tool.inputSchema.properties ?? {});
  const calls: Record<string, unknown>[] = [{}];
  if (properties.length > 0) {
    calls.push(
      Object.fromEntries(properties.map((name, index) => [name, index % 2 === 0 ? 12345 : { nested: [true] }])),
    );
    const first = properties[0] as string;
    const mangled = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
    calls.push({ [mangled]: 'x', zz_unknown_key: 1 });
  }
  if (operationBody !== undefined)
    calls.push({ [operationBody]: '{"zz_unknown":[1,2],"marketplaceId":7}' }, { [operationBody]: '[1,"two",{}]' });
  return calls;
}

const calls: unknown[] = [];
for (const tool of tools) {
  const operation = server.operations.get(tool.name);
  if (operation === undefined) continue;
  for (const args of invalidCalls(tool, operation.body?.property)) {
    calls.push({ tool: tool.name, args, result: await client.callTool({ name: tool.name, arguments: args }) });
  }
}
await client.close();
await server.envelope.close();
writeFileSync(output, `${JSON.stringify({ pages, calls }, null, 1)}\n`);
console.log(`${output}: ${tools.length} tools, ${calls.length} calls`);
