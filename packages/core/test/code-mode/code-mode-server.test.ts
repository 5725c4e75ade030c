import { ENVELOPE_EXTENSION_ID, validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import type { EnvelopeTool } from '../../src/index.js';
import { createChanges } from '@mcp-envelope/testing';
import type { Changes } from '@mcp-envelope/testing';
import { useTestSession } from '../fixtures/session.js';
import { TEST_TOOLS } from '../fixtures/test-server.js';

const session = useTestSession();

// Half a minute of wall time: only the wall-time test below waits for the limit, with its own value,
// so a loaded machine cannot end a program the other tests meant to finish.
const CODE_MODE_ON = { env: { CODE_MODE: 'true', CODE_MODE_WALL_TIME_MS: '30000' }, additionalErrorKinds: [] };

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  return (await session.current.client.callTool({ name, arguments: args })) as Result;
}

/** Runs code with execute_code and answers `structuredContent.result`, failing on an error result. */
async function run(code: string): Promise<unknown> {
  const result = await call('execute_code', { code });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeUndefined();
  expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(result.structuredContent);
  return result.structuredContent?.['result'];
}

function errorKinds(): unknown {
  const capability = session.current.client.getServerCapabilities()?.experimental?.['openbridge_envelope'] as
    Record<string, unknown> | undefined;
  return capability?.['error_kinds'];
}

describe('CODE_MODE off (the default)', () => {
  it('lists every tool, no meta tool, and does not advertise sandbox_runtime', async () => {
    const { client } = await session.start({ additionalErrorKinds: [] });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('list_orders');
    expect(names).not.toContain('execute_code');
    expect(errorKinds()).not.toContain('sandbox_runtime');
    expect((await call('search_tools', { query: 'orders' })).structuredContent?.['error_kind']).toBe('tool_not_found');
  });
});

describe('CODE_MODE on: listing and capability', () => {
  it('lists get_envelope_contract and the three meta tools only; the other tools stay callable by name', async () => {
    const { client } = await session.start(CODE_MODE_ON);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'get_envelope_contract',
      'search_tools',
      'get_tool_schema',
      'execute_code',
    ]);
    expect((await call('list_orders', { marketplaceIds: ['A1'] })).structuredContent?.['orders']).toEqual([]);
  });

  it('advertises sandbox_runtime, and get_envelope_contract reports the Code Mode settings', async () => {
    await session.start(CODE_MODE_ON);
    expect(errorKinds()).toContain('sandbox_runtime');
    const contract = (await call('get_envelope_contract', {})).structuredContent;
    expect(contract?.['error_kinds']).toContain('sandbox_runtime');
    expect(contract?.['settings']).toMatchObject({
      CODE_MODE: true,
      CODE_MODE_WALL_TIME_MS: 30000,
      CODE_MODE_MEMORY_MB: 64,
      CODE_MODE_OUTPUT_BYTES: 1048576,
      CODE_MODE_MAX_CALLS: 50,
      CODE_MODE_MAX_SESSION_RUNS: 8,
    });
  });
});

describe('search_tools and get_tool_schema', () => {
  it('search_tools ranks list_orders first for "orders marketplace", with its one-line description', async () => {
    await session.start(CODE_MODE_ON);
    const hits = (await call('search_tools', { query: 'orders marketplace' })).structuredContent?.['tools'];
    expect((hits as unknown[])[0]).toEqual({
      name: 'list_orders',
      description: 'Lists orders of the given marketplaces.',
    });
  });

  it('search_tools validates its own arguments: a missing query is SCHEMA_REQUIRED', async () => {
    await session.start(CODE_MODE_ON);
    const result = await call('search_tools', { limit: 3 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_REQUIRED',
      tool: 'search_tools',
    });
  });

  it('get_tool_schema answers the published schemas; an unknown name is tool_not_found with a suggestion', async () => {
    await session.start(CODE_MODE_ON);
    const schema = (await call('get_tool_schema', { name: 'report_summary' })).structuredContent;
    expect(schema).toMatchObject({ name: 'report_summary', description: '' });
    expect(schema?.['outputSchema']).toHaveProperty('anyOf');
    expect((schema?.['inputSchema'] as Record<string, unknown>)['properties']).toEqual({ fail: { type: 'boolean' } });
    const missing = await call('get_tool_schema', { name: 'list_order' });
    expect(missing.isError).toBe(true);
    expect(validateEnvelope(missing.structuredContent).valid).toBe(true);
    expect(missing.structuredContent).toMatchObject({
      error_kind: 'tool_not_found',
      error_code: 'TOOL_NOT_FOUND',
      tool: 'get_tool_schema',
      hints: ['Did you mean "list_orders"?', 'Call search_tools to find the tool you need.'],
    });
  });
});

describe('execute_code: inner calls through the pipeline', () => {
  it('returns the code value as structuredContent.result, with the inner calls aggregated in _meta', async () => {
    await session.start(CODE_MODE_ON);
    const result = await call('execute_code', {
      code: `const orders = await callTool('list_orders', { MarketplaceIds: ['A1'] });
const report = await callTool('report_summary', {});
return { status: orders.status, total: report.total };`,
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      result: { status: 'any', total: 42 },
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 4 } },
    });
    expect(validateMeta(result.structuredContent?.['_meta']).valid).toBe(true);
  });

  it('hands the code the SCHEMA_* envelope of a wrong argument as a value, in the version its client reads', async () => {
    await session.start(CODE_MODE_ON);
    const code = `const reply = await callTool('list_orders', { marketplaceIds: [] });
return { version: reply._envelope_version, branch: reply.error_kind, code: reply.error_code, valid: Array.isArray(reply.details) };`;
    // a client that states nothing reads version 1 (the test adapter fronts sp-api): so does its code
    expect(await run(code)).toEqual({
      version: 1,
      branch: 'mcp_input_validation',
      code: 'SCHEMA_MIN_ITEMS',
      valid: true,
    });
    const stated = (await session.current.client.callTool({
      name: 'execute_code',
      arguments: { code },
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
    })) as Result;
    expect(stated.structuredContent?.['result']).toEqual({
      version: 2,
      branch: 'mcp_input_validation',
      code: 'SCHEMA_MIN_ITEMS',
      valid: true,
    });
  });

  it("an inner upstream failure reaches a version 1 client's code in its version 1 spelling", async () => {
    await session.start(CODE_MODE_ON);
    const value = await run(`const reply = await callTool('throttled', {});
return [reply._envelope_version, reply.error_kind, reply.legacy_error_kind ?? null, reply.upstream ?? null];`);
    expect(value).toEqual([1, 'rate_limited', null, null]);
  });

  it('a rate_limited envelope comes back as a value, and its retry_after_seconds reaches execute_code _meta', async () => {
    await session.start(CODE_MODE_ON);
    const result = await call('execute_code', {
      code: `const reply = await callTool('throttled', {});
return { kind: reply.error_kind, retryable: reply.retryable, wait: reply._meta.retry_after_seconds };`,
    });
    expect(result.structuredContent).toEqual({
      result: { kind: 'rate_limited', retryable: true, wait: 2 },
      _meta: { rate_limit: { limit_per_second: 0.5, remaining: 0 }, retry_after_seconds: 2 },
    });
  });

  it('an unknown tool and a crashing tool are envelopes too; execute_code cannot call itself', async () => {
    await session.start(CODE_MODE_ON);
    const value = await run(`const a = await callTool('list_order', {});
const b = await callTool('explode', {});
const c = await callTool('execute_code', { code: 'return 1' });
return [a.error_kind, a.hints, b.error_kind, c.error_kind, c.error_code];`);
    // tools/list hides the tools in Code Mode, so the hint points at search_tools
    expect(value).toEqual([
      'tool_not_found',
      ['Did you mean "list_orders"?', 'Call search_tools to find the tool you need.'],
      'internal_error',
      'sandbox_runtime',
      'CODE_MODE_SANDBOX_LIMITATION',
    ]);
  });
});

describe('execute_code: every inner envelope in the outer client version', () => {
  // the recursion refusal is built by the bridge itself, and a JSON-RPC unknown-tool error is
  // thrown, not returned: neither passes through the result projection
  // a version 1 window open in this release, so the v1 form carries its legacy kind
  const UNKNOWN_TOOL_WINDOW = {
    id: 'unknown-tool-to-tool-not-found',
    error_codes: ['TOOL_NOT_FOUND'],
    servers: ['sp'],
    from_kind: 'mcp_input_validation',
    to_kind: 'tool_not_found',
    introduced_in: '0.1.0',
  } as const;
  const OPTIONS = {
    ...CODE_MODE_ON,
    unknownToolAs: 'jsonrpc',
    version: '0.1.0',
    migrations: [UNKNOWN_TOOL_WINDOW],
  } as const;
  const code = `const self = await callTool('execute_code', { code: 'return 1' });
const missing = await callTool('list_order', {});
return [self._envelope_version, self.error_kind, missing._envelope_version, missing.error_kind, missing.legacy_error_kind ?? null];`;

  it('a version 1 client (states nothing) reads both in version 1, with the v1 window legacy kind', async () => {
    await session.start(OPTIONS);
    expect(await run(code)).toEqual([1, 'sandbox_runtime', 1, 'tool_not_found', 'mcp_input_validation']);
  });

  it("an inner call's handler sees the outer client's version in its context, as a direct call's does", async () => {
    const reportVersion: EnvelopeTool = {
      name: 'report_version',
      inputSchema: { type: 'object' },
      handler: (_args, context) => ({ version: context.contractVersion }),
    };
    await session.start(CODE_MODE_ON, [...TEST_TOOLS, reportVersion]);
    const code = "return (await callTool('report_version', {})).version;";
    expect(await run(code)).toBe(1);
    const stated = (await session.current.client.callTool({
      name: 'execute_code',
      arguments: { code },
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
    })) as Result;
    expect(stated.structuredContent?.['result']).toBe(2);
  });

  it('a client stating [1, 2] reads both in version 2', async () => {
    await session.start(OPTIONS);
    const stated = (await session.current.client.callTool({
      name: 'execute_code',
      arguments: { code },
      _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [1, 2] } },
    })) as Result;
    expect(stated.structuredContent?.['result']).toEqual([2, 'sandbox_runtime', 2, 'tool_not_found', null]);
  });
});

describe('execute_code: failures of the code itself', () => {
  it('an endless loop ends with the wall_time limit envelope; the server answers another call meanwhile', async () => {
    // 3 s of wall time, counted from the code's start: time enough for the other call on a loaded machine
    const mark = { started: (): void => undefined };
    const loopStarted = new Promise<void>((resolve) => {
      mark.started = resolve;
    });
    const markStarted: EnvelopeTool = {
      name: 'mark_started',
      inputSchema: { type: 'object' },
      handler: () => {
        mark.started();
        return 'marked';
      },
    };
    await session.start({ ...CODE_MODE_ON, env: { ...CODE_MODE_ON.env, CODE_MODE_WALL_TIME_MS: '3000' } }, [
      ...TEST_TOOLS,
      markStarted,
    ]);
    const started = performance.now();
    const looping = call('execute_code', { code: "await callTool('mark_started', {});\nwhile (true) {}" }).then(
      (result) => ({ result, at: performance.now() }),
    );
    // the loop is running once its first line has called mark_started
    await loopStarted;
    const other = await call('list_orders', { marketplaceIds: ['A1'] });
    const otherAt = performance.now();
    const { result, at } = await looping;
    expect(other.structuredContent?.['orders']).toEqual([]);
    expect(otherAt).toBeLessThan(at);
    expect(result.isError).toBe(true);
    expect(validateEnvelope(result.structuredContent).valid).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      tool: 'execute_code',
      retryable: false,
      details: [{ path: 'code', reason: 'wall_time', setting: 'CODE_MODE_WALL_TIME_MS', limit: 3000 }],
    });
    expect(at - started).toBeGreaterThanOrEqual(3000);
    // a fresh worker loads QuickJS first (up to its 30 s startup limit on a loaded machine), and
    // the watchdog would stop the program 2 s past its wall time
    expect(at - started).toBeLessThan(30_000);
  });

  it('a syntax error is mcp_input_validation with line and column; a runtime error is sandbox_runtime', async () => {
    await session.start(CODE_MODE_ON);
    const syntax = await call('execute_code', { code: 'const a = 1;\nreturn a +;' });
    expect(syntax.structuredContent).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'INPUT_VALIDATION_FAILED',
      details: [{ path: 'code', reason: 'syntax_error', line: 2 }],
    });
    const runtime = await call('execute_code', { code: 'const a = null;\n\nreturn a.b;' });
    expect(runtime.structuredContent).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      details: [{ path: 'code', reason: 'runtime_error', line: 3 }],
      // this client reads version 1 (it states nothing): the hint must not promise version 2
      _envelope_version: 1,
      hints: [
        'Fix the code at that line. A failed callTool returns its envelope (result._envelope_version is set, 1 or 2 as your client reads); only a failure without an envelope throws.',
      ],
    });
    for (const result of [syntax, runtime]) expect(validateEnvelope(result.structuredContent).valid).toBe(true);
  });

  it('more inner calls than CODE_MODE_MAX_CALLS give the inner_calls limit envelope', async () => {
    await session.start({ ...CODE_MODE_ON, codeModeLimits: { CODE_MODE_MAX_CALLS: 2 } });
    const result = await call('execute_code', {
      code: "for (let i = 0; i < 3; i += 1) await callTool('get_tags', {});\nreturn 'done';",
    });
    expect(result.structuredContent).toMatchObject({
      error_kind: 'sandbox_runtime',
      details: [{ reason: 'inner_calls', setting: 'CODE_MODE_MAX_CALLS', limit: 2 }],
    });
  });

  it('execute_code validates its own arguments like any tool', async () => {
    await session.start(CODE_MODE_ON);
    const result = await call('execute_code', { code: 42 });
    expect(result.structuredContent).toMatchObject({
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_TYPE_MISMATCH',
    });
  });
});

describe('execute_code: a burst of calls', () => {
  it('10 concurrent execute_code calls run at most 4 at once, all finish, and a plain call is answered meanwhile', async () => {
    // each gate call waits for the test, so how many run at once depends on the runner, not the clock
    const gauge = { running: 0, most: 0, settled: 0 };
    const held: (() => void)[] = [];
    const { changed: wake, until } = createChanges();
    const gate: EnvelopeTool = {
      name: 'gate',
      inputSchema: { type: 'object' },
      handler: async () => {
        gauge.running += 1;
        gauge.most = Math.max(gauge.most, gauge.running);
        wake();
        await new Promise<void>((resolve) => held.push(resolve));
        gauge.running -= 1;
        return { passed: true };
      },
    };
    const env = { CODE_MODE: 'true', CODE_MODE_WALL_TIME_MS: '60000', CODE_MODE_MAX_SESSION_RUNS: '10' };
    await session.start({ env, additionalErrorKinds: [] }, [...TEST_TOOLS, gate]);
    const burst = Array.from({ length: 10 }, (_, index) =>
      call('execute_code', {
        code: `const reply = await callTool('gate', {});\nreturn [${index}, reply.passed];`,
      }).then((result) => {
        gauge.settled += 1;
        wake();
        return result;
      }),
    );
    await until(() => gauge.running === 4);
    const plain = await call('list_orders', { marketplaceIds: ['A1'] });
    expect(plain.structuredContent?.['orders']).toEqual([]);
    expect(gauge.running).toBe(4);
    while (gauge.settled < 10) {
      for (const release of held.splice(0)) release();
      await until(() => held.length > 0 || gauge.settled === 10);
    }
    const results = await Promise.all(burst);
    expect(results.map((result) => result.structuredContent?.['result'])).toEqual(
      Array.from({ length: 10 }, (_, index) => [index, true]),
    );
    expect(gauge.most).toBe(4);
  });
});

describe('execute_code: inner calls outliving their program', () => {
  /** A tool that answers after a minute unless its call's signal aborts first, recording which. */
  function slowTool(events: string[], changes: Changes): EnvelopeTool {
    return {
      name: 'slow',
      inputSchema: { type: 'object' },
      handler: (_args, context) =>
        new Promise((resolve) => {
          events.push('started');
          changes.changed();
          const timer = setTimeout(() => {
            events.push('finished');
            changes.changed();
            resolve({ late: true });
          }, 60_000);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            events.push('aborted');
            changes.changed();
            resolve({ late: false });
          });
        }),
    };
  }

  it('a callTool the code never awaits is aborted when the code returns', async () => {
    const events: string[] = [];
    const changes = createChanges();
    await session.start(CODE_MODE_ON, [...TEST_TOOLS, slowTool(events, changes)]);
    expect(await run("callTool('slow', {});\nreturn 'returned';")).toBe('returned');
    await changes.until(() => events.length === 2);
    expect(events).toEqual(['started', 'aborted']);
  });

  it('cancelling execute_code (notifications/cancelled) aborts its pending inner call; the next run works', async () => {
    const events: string[] = [];
    const changes = createChanges();
    await session.start(CODE_MODE_ON, [...TEST_TOOLS, slowTool(events, changes)]);
    const controller = new AbortController();
    const cancelled = session.current.client.callTool(
      { name: 'execute_code', arguments: { code: "return await callTool('slow', {});" } },
      undefined,
      { signal: controller.signal },
    );
    await changes.until(() => events.length === 1);
    controller.abort(new Error('the agent moved on'));
    await expect(cancelled).rejects.toThrow('the agent moved on');
    await changes.until(() => events.length === 2);
    expect(events).toEqual(['started', 'aborted']);
    expect(await run('return 2 + 2;')).toBe(4);
  });
});
