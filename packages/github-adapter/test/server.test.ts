/**
 * What the reference GitHub server does beyond the recorded cases, through the real process over
 * stdio and the v2 SDK client, against a replay upstream on 127.0.0.1: the tool list, details
 * that point into the arguments, Link pagination as a cursor, the token kept out of every answer,
 * the refusal to start without GITHUB_TOKEN, and Code Mode.
 */
import { spawn } from 'node:child_process';

import { validateEnvelope } from '@mcp-envelope/contract';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { CLI, PACKAGE, serverArgs, serverEnv, TEST_TOKEN } from './support/server-process.js';

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown[] };

let replay: UpstreamReplay;
/** How many requests the replay had logged when the running test began (its log outlives `reset`). */
let mark = 0;

beforeAll(async () => {
  replay = await startUpstreamReplay({ standing: { status: 200, body: {} } });
});

afterAll(async () => {
  await replay.close();
});

beforeEach(() => {
  replay.reset();
  mark = replay.requests.length;
});

/** The requests the running test made. */
const sent = (): UpstreamReplay['requests'] => replay.requests.slice(mark);

async function connect(env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'github-server-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, ...serverArgs(replay.url)],
      cwd: PACKAGE,
      env: serverEnv(env),
      stderr: 'pipe',
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

describe('the GitHub server over stdio', () => {
  let client: Client;

  beforeAll(async () => {
    client = await connect();
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists one tool per served operation of the description, plus get_envelope_contract', async () => {
    const names: string[] = [];
    const destructive: Record<string, boolean | undefined> = {};
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((tool) => tool.name));
      for (const tool of page.tools) destructive[tool.name] = tool.annotations?.destructiveHint;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(names).toHaveLength(1222);
    // POSTs that delete or revoke are destructive like a DELETE; a POST that creates only adds
    expect(
      ['orgs_deleteAttestationsBulk', 'credentials_revoke', 'repos_delete', 'issues_create'].map(
        (name) => destructive[name],
      ),
    ).toEqual([true, true, true, false]);
    expect(names).toContain('get_envelope_contract');
    expect(names).toEqual(expect.arrayContaining(['issues_listForRepo', 'issues_create', 'pulls_merge', 'repos_get']));
    // the two left out, and why, are in the README
    expect(names).not.toContain('repos_uploadReleaseAsset');
    expect(names).not.toContain('markdown_renderRaw');
  });

  it('reads a 422: its message, then each errors[] entry pointing at the argument it names', async () => {
    replay.route({
      method: 'POST',
      path: '/repos/octo-org/hello-world/issues',
      response: {
        status: 422,
        headers: { 'content-type': 'application/json', 'x-github-request-id': 'AB12:CD34' },
        body: {
          message: 'Validation Failed',
          errors: [
            { resource: 'Issue', field: 'title', code: 'missing_field' },
            {
              resource: 'Label',
              field: 'labels',
              code: 'invalid',
              value: ['p1'],
              message: 'The label p1 does not exist.',
            },
          ],
          documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue',
        },
      },
    });
    const result = await call(client, 'issues_create', {
      owner: 'octo-org',
      repo: 'hello-world',
      body: { title: 'x', labels: ['p1'] },
    });
    const envelope = result.structuredContent ?? {};
    expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
    expect(envelope['details']).toEqual([
      { path: '', issue: 'Validation Failed', received_type: 'object', http_status: 422, request_id: 'AB12:CD34' },
      {
        path: 'body/title',
        issue: 'missing_field (Issue.title)',
        received_type: 'undefined',
        http_status: 422,
        request_id: 'AB12:CD34',
        upstream_code: 'missing_field',
        resource: 'Issue',
        field: 'title',
      },
      {
        path: 'body/labels',
        issue: 'The label p1 does not exist.',
        received_type: 'array',
        http_status: 422,
        request_id: 'AB12:CD34',
        upstream_code: 'invalid',
        resource: 'Label',
        field: 'labels',
      },
    ]);
    expect(envelope['hints']).toContain(
      "GitHub's documentation for this answer: https://docs.github.com/rest/issues/issues#create-an-issue",
    );
  });

  it.each([
    [
      'repos_codeownersErrors',
      '/repos/octo-org/hello-world/codeowners/errors',
      { errors: [{ line: 3, column: 1, kind: 'Invalid pattern', message: 'Invalid pattern on line 3' }] },
    ],
    [
      'codeScanning_getSarif',
      '/repos/octo-org/hello-world/code-scanning/sarifs/47177e22',
      { processing_status: 'failed', analyses_url: null, errors: ['the SARIF file is not valid JSON'] },
    ],
  ])('sends %s the errors its 2xx answer documents as data, not as an in-band failure', async (tool, path, body) => {
    replay.route({ method: 'GET', path, response: { status: 200, body } });
    const args = tool === 'codeScanning_getSarif' ? { sarif_id: '47177e22' } : {};
    const result = await call(client, tool, { owner: 'octo-org', repo: 'hello-world', ...args });
    expect([result.isError, result.structuredContent]).toEqual([undefined, body]);
  });

  it('turns the Link next page into a cursor that the next call follows on the same upstream', async () => {
    replay.route({
      method: 'GET',
      path: '/repos/octo-org/hello-world/issues',
      response: {
        status: 200,
        headers: {
          'content-type': 'application/json',
          link: '<https://api.github.com/repositories/1296269/issues?per_page=1&page=2>; rel="next", <https://api.github.com/repositories/1296269/issues?per_page=1&page=3>; rel="last"',
        },
        body: [{ number: 3 }],
      },
    });
    replay.route({
      method: 'GET',
      path: '/repositories/1296269/issues',
      query: { page: '2' },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: [{ number: 2 }] },
    });
    const args = { owner: 'octo-org', repo: 'hello-world', per_page: 1 };
    const first = await call(client, 'issues_listForRepo', args);
    const cursor = first.structuredContent?.['next_page_cursor'];
    expect(first.structuredContent?.['items']).toEqual([{ number: 3 }]);
    expect(typeof cursor).toBe('string');
    const second = await call(client, 'issues_listForRepo', { ...args, page_cursor: cursor });
    // the last page names no next: no cursor
    expect(second.structuredContent).toEqual({ items: [{ number: 2 }] });
    expect(sent().map((request) => request.url)).toEqual([
      '/repos/octo-org/hello-world/issues?per_page=1',
      '/repositories/1296269/issues?per_page=1&page=2',
    ]);
  });

  it('refuses a cursor of another tool, or one that leaves the upstream, before any request', async () => {
    const forged = (path: string, tool = 'issues_listForRepo'): string =>
      Buffer.from(JSON.stringify({ v: 1, t: tool, p: path })).toString('base64url');
    const args = { owner: 'octo-org', repo: 'hello-world' };
    const cases: [string, string][] = [
      [forged('/repos/a/b/issues', 'pulls_list'), 'it was given by another tool'],
      [forged('//evil.example/x'), 'it does not hold a plain path'],
      [forged('/repos/../../x'), 'it does not hold a plain path'],
      ['not a cursor!', 'it does not decode'],
    ];
    for (const [cursor, issue] of cases) {
      const envelope = (await call(client, 'issues_listForRepo', { ...args, page_cursor: cursor })).structuredContent;
      expect([envelope?.['error_kind'], envelope?.['error_code'], envelope?.['details']]).toEqual([
        'mcp_input_validation',
        'INPUT_VALIDATION_FAILED',
        [{ path: 'page_cursor', issue, received_type: 'string' }],
      ]);
    }
    expect(sent()).toEqual([]);
  });

  it('answers the page without a cursor when the next link is not a URL, rather than failing a good answer', async () => {
    replay.route({
      method: 'GET',
      path: '/repos/octo-org/hello-world/issues',
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', link: '<http://[garbled>; rel="next"' },
        body: [{ number: 3 }],
      },
    });
    const result = await call(client, 'issues_listForRepo', { owner: 'octo-org', repo: 'hello-world' });
    expect([
      result.isError,
      result.structuredContent?.['items'],
      result.structuredContent?.['next_page_cursor'],
    ]).toEqual([undefined, [{ number: 3 }], undefined]);
  });

  it('keeps a token that the next link carries out of the cursor, which an agent can decode', async () => {
    const other = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    replay.route({
      method: 'GET',
      path: '/repos/octo-org/hello-world/issues',
      response: {
        status: 200,
        headers: {
          'content-type': 'application/json',
          link: `<https://api.github.com/repositories/1296269/issues?page=2&access_token=${TEST_TOKEN}&other=${other}>; rel="next"`,
        },
        body: [{ number: 3 }],
      },
    });
    const first = await call(client, 'issues_listForRepo', { owner: 'octo-org', repo: 'hello-world' });
    const cursor = String(first.structuredContent?.['next_page_cursor']);
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    expect(decoded).toContain('/repositories/1296269/issues?page=2');
    for (const secret of [TEST_TOKEN, TEST_TOKEN.slice(4), other]) expect(decoded).not.toContain(secret);
  });

  it('never answers with a token, whichever GitHub form the upstream echoes', async () => {
    const echoed = [
      TEST_TOKEN,
      'ghp_0123456789abcdefghijABCDEFGHIJ012345',
      'gho_0123456789abcdefghijABCDEFGHIJ012345',
      'ghu_0123456789abcdefghijABCDEFGHIJ012345',
      'ghs_0123456789abcdefghijABCDEFGHIJ012345',
      'ghr_0123456789abcdefghijABCDEFGHIJ012345',
      'github_pat_11ABCDEFG0123456789abc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW',
      'v1.0123456789abcdef0123456789abcdef01234567',
      // the registered token without its prefix, as an upstream may cut it
      TEST_TOKEN.slice(4),
    ];
    replay.route({
      method: 'GET',
      path: '/repos/octo-org/hello-world',
      response: { status: 401, body: { message: `Bad credentials: ${echoed.join(' ')}` } },
    });
    replay.route({
      method: 'GET',
      path: '/user',
      response: { status: 200, body: { login: 'octocat', note: echoed.join(' ') } },
    });
    const failure = await call(client, 'repos_get', { owner: 'octo-org', repo: 'hello-world' });
    const success = await call(client, 'users_getAuthenticated', {});
    expect(failure.structuredContent?.['error_code']).toBe('UPSTREAM_HTTP_401');
    expect(success.structuredContent?.['login']).toBe('octocat');
    for (const result of [failure, success]) {
      const wire = JSON.stringify(result);
      for (const secret of echoed) expect(wire).not.toContain(secret);
      expect(wire).toContain('[REDACTED]');
    }
  });
});

describe('starting without GITHUB_TOKEN', () => {
  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('exits 1 with one line naming the variable (%s)', async (_name, value) => {
    const env = serverEnv();
    delete env['GITHUB_TOKEN'];
    if (value !== undefined) env['GITHUB_TOKEN'] = value;
    const child = spawn(process.execPath, [CLI, ...serverArgs(replay.url)], { cwd: PACKAGE, env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(
      'mcp-envelope-github: GITHUB_TOKEN is not set: create a token (a fine-grained personal access token, say) and start the server with GITHUB_TOKEN=<token> in its environment\n',
    );
  });
});

describe('--upstream at start', () => {
  it.each([
    [
      'https://x-access-token:ghp_s3cretTokenInTheUrl000000000000000000@ghe.example.com/api/v3',
      'must not carry a user name or password',
    ],
    [
      'http://ghe.example.com/api/v3',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
  ])('exits 1 naming the option, never its value, for %j', async (value, problem) => {
    const child = spawn(process.execPath, [CLI, '--upstream', value], { cwd: PACKAGE, env: serverEnv() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    // the usage text follows, as after any option error
    expect(stderr.split('\n')[0]).toBe(
      `error: --upstream ${problem} (its value is not shown, as it may hold a secret)`,
    );
    expect(stderr).not.toContain('s3cret');
    expect(stderr).not.toContain('ghe.example.com');
  });
});

describe('Code Mode on the GitHub server', () => {
  let client: Client;

  beforeAll(async () => {
    client = await connect({ CODE_MODE: 'true' });
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists four tools; search_tools finds issues_create; execute_code calls it and branches on the envelope', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'get_envelope_contract',
      'search_tools',
      'get_tool_schema',
      'execute_code',
    ]);
    const found = await call(client, 'search_tools', { query: 'issues create', limit: 5 });
    const names = (found.structuredContent?.['tools'] as { name: string }[]).map((hit) => hit.name);
    expect(names[0]).toBe('issues_create');
    replay.route({
      method: 'POST',
      path: '/repos/octo-org/hello-world/issues',
      response: {
        status: 201,
        body: { number: 1348, html_url: 'https://github.com/octo-org/hello-world/issues/1348' },
      },
    });
    const created = await call(client, 'execute_code', {
      code: `const reply = await callTool('issues_create', { owner: 'octo-org', repo: 'hello-world', body: { title: 'Crash on start' } });
if (reply.error_kind !== undefined) return { failed: reply.error_code };
return { number: reply.number };`,
    });
    expect(created.structuredContent?.['result']).toEqual({ number: 1348 });
    expect(JSON.parse(sent().at(-1)?.body ?? '')).toEqual({ title: 'Crash on start' });
  });
});
