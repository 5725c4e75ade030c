/**
 * The main entry as a browser or edge runtime gets it: one esbuild bundle for `platform: 'browser'`,
 * run in a fresh `vm` context that has no `require`, no `process` and no file system.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';

import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

import { ERROR_ENVELOPE_SCHEMA, ERROR_ENVELOPE_SCHEMA_V1, MIGRATIONS } from '../src/index.js';
import { SCHEMA_CODE_TABLE } from '../src/schemas.js';
import { ADS_RATE_LIMITED_ENVELOPE, MAX_ITEMS_ENVELOPE } from './envelope-fixtures.js';

const packageRoot = new URL('../', import.meta.url);

function packageJson(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, packageRoot), 'utf8')) as unknown;
}

/** Records every `node:` (or bare Node built-in) import instead of letting esbuild resolve it. */
function recordNodeImports(found: string[]): Plugin {
  return {
    name: 'record-node-imports',
    setup(plugin) {
      plugin.onResolve({ filter: /^(node:|fs$|path$|url$|module$|crypto$|os$)/ }, (args) => {
        found.push(`${args.path} (from ${args.importer})`);
        return { path: args.path, external: true };
      });
    },
  };
}

interface Bundle {
  readonly code: string;
  readonly nodeImports: readonly string[];
}

async function bundleMainEntry(): Promise<Bundle> {
  const nodeImports: string[] = [];
  const result = await build({
    entryPoints: [new URL('src/index.ts', packageRoot).pathname],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'contract',
    logLevel: 'silent',
    plugins: [recordNodeImports(nodeImports)],
  });
  return { code: result.outputFiles[0]?.text ?? '', nodeImports };
}

/**
 * Runs `script` after the bundle in a new context and returns what it returns, through JSON so no
 * object crosses realms. `allowCodeStrings: false` refuses `eval` and `new Function`, as
 * Cloudflare Workers and similar edge runtimes do.
 */
function runInFreshContext(code: string, script: string, allowCodeStrings: boolean): unknown {
  const text = runInNewContext(
    `${code}\nJSON.stringify((() => { ${script} })());`,
    {},
    { contextCodeGeneration: { strings: allowCodeStrings, wasm: false } },
  ) as string;
  return JSON.parse(text) as unknown;
}

describe('the main entry in a browser bundle', () => {
  let bundle: Bundle;
  beforeAll(async () => {
    bundle = await bundleMainEntry();
  });

  it('imports no node: module', () => {
    expect(bundle.nodeImports).toEqual([]);
    expect(bundle.code.length).toBeGreaterThan(10_000);
  });

  it('runs the client helpers where there is no require, no process and no eval', () => {
    const isErrorResult = {
      isError: true,
      content: [{ type: 'text', text: `MCP error -32602: ${JSON.stringify(MAX_ITEMS_ENVELOPE)}` }],
    };
    const script = `
      const result = ${JSON.stringify(isErrorResult)};
      const unwrapped = contract.unwrapToolResult(result);
      return {
        globals: [typeof require, typeof process, typeof contract.ERROR_ENVELOPE_SCHEMA],
        unwrapped: { ok: unwrapped.ok, channel: unwrapped.channel, error_code: unwrapped.envelope.error_code, tool: unwrapped.envelope.tool },
        success: contract.unwrapToolResult({ content: [{ type: 'text', text: 'done' }], structuredContent: { count: 2 } }),
        retryAfter: contract.retryAfterSecondsOf(${JSON.stringify(ADS_RATE_LIMITED_ENVELOPE)}),
        recognised: contract.isReceivedEnvelope(${JSON.stringify(MAX_ITEMS_ENVELOPE)}),
        migrations: contract.MIGRATIONS.map((entry) => entry.id),
      };`;
    expect(runInFreshContext(bundle.code, script, false)).toEqual({
      globals: ['undefined', 'undefined', 'object'],
      unwrapped: { ok: false, channel: 'is_error', error_code: 'SCHEMA_MAX_ITEMS', tool: 'list_orders' },
      success: { ok: true, value: { count: 2 } },
      retryAfter: 3,
      recognised: true,
      migrations: MIGRATIONS.map((entry) => entry.id),
    });
  });

  it('validates an envelope against the embedded schema where code strings are allowed (browsers)', () => {
    const v1 = { ...MAX_ITEMS_ENVELOPE, _envelope_version: 1 };
    const script = `return [contract.isEnvelope(${JSON.stringify(MAX_ITEMS_ENVELOPE)}), contract.validateEnvelope(${JSON.stringify(v1)}), contract.validateEnvelope({ error_kind: 'auth_error' }).valid];`;
    expect(runInFreshContext(bundle.code, script, true)).toEqual([true, { valid: true, version: 1 }, false]);
  });
});

describe('the embedded JSON documents', () => {
  it('hold exactly what the shipped JSON files hold', () => {
    expect(ERROR_ENVELOPE_SCHEMA).toEqual(packageJson('schemas/error-envelope-v2.schema.json'));
    expect(ERROR_ENVELOPE_SCHEMA_V1).toEqual(packageJson('schemas/error-envelope.schema.json'));
    expect(SCHEMA_CODE_TABLE).toEqual(packageJson('schemas/jsonschema-error-codes.json'));
    expect({ migrations: MIGRATIONS }).toEqual({
      migrations: (packageJson('migrations.json') as { migrations: unknown }).migrations,
    });
  });

  it('are what scripts/embed-json.mjs writes from them today', () => {
    expect(() =>
      execFileSync(process.execPath, [new URL('scripts/embed-json.mjs', packageRoot).pathname, '--check'], {
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });
});
