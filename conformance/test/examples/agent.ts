// An agent calls a tool of any conforming server and branches on the envelope, never on prose.
// Run: node --import tsx agent.ts <command that starts the server>,
// e.g. node --import tsx agent.ts node --import tsx server.ts http://127.0.0.1:8080
import { callWithEnvelope, retryAfterSecondsOf } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command = 'node', ...args] = process.argv.slice(2);
const client = new Client({ name: 'weather-agent', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args }));

for (const city of ['Lisbon', 'Atlantis', '']) {
  const [forecast, envelope] = await callWithEnvelope(client, 'get_forecast', { city });
  if (envelope === null) console.log(city, forecast);
  else if (envelope.retryable) console.log(`${city}: retry in ${Math.ceil(retryAfterSecondsOf(envelope) ?? 1)} s`);
  else console.log(`${city}: ${envelope.error_kind} ${envelope.error_code} ${envelope.hints.join(' ')}`);
}
await client.close();
