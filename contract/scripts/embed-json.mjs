// Writes the contract's JSON documents into TypeScript modules under src/data, so the main entry
// holds its data without reading files (browsers and edge runtimes have no node:fs). The JSON files
// stay the documents people edit and the package ships; the build runs this script first, and
// `--check` (a contract test does the same) fails when a module no longer matches its file.
import { readFileSync, writeFileSync } from 'node:fs';

const EMBEDDED = [
  {
    json: 'schemas/error-envelope.schema.json',
    module: 'src/data/error-envelope-v1-schema.ts',
    name: 'errorEnvelopeSchemaV1Document',
  },
  {
    json: 'schemas/error-envelope-v2.schema.json',
    module: 'src/data/error-envelope-v2-schema.ts',
    name: 'errorEnvelopeSchemaV2Document',
  },
  {
    json: 'schemas/jsonschema-error-codes.json',
    module: 'src/data/jsonschema-error-codes.ts',
    name: 'schemaCodeTableDocument',
  },
  { json: 'migrations.json', module: 'src/data/migrations-table.ts', name: 'migrationsDocument' },
];

const packageRoot = new URL('../', import.meta.url);

function moduleText({ json, name }) {
  const data = JSON.parse(readFileSync(new URL(json, packageRoot), 'utf8'));
  return (
    `// Generated from ${json} by scripts/embed-json.mjs (run by the build); edit the JSON file.\n` +
    `/** The parsed \`${json}\`. */\nexport const ${name}: unknown = ${JSON.stringify(data, null, 2)};\n`
  );
}

const check = process.argv.includes('--check');
const stale = [];
for (const entry of EMBEDDED) {
  const target = new URL(entry.module, packageRoot);
  const text = moduleText(entry);
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = '';
  }
  if (current === text) continue;
  if (check) stale.push(entry.module);
  else writeFileSync(target, text);
}
if (stale.length > 0) {
  console.error(
    `Out of date with their JSON files: ${stale.join(', ')}. Run \`pnpm --filter @mcp-envelope/contract run build\`.`,
  );
  process.exit(1);
}
