// docs/adding-a-server.md is real: each TypeScript block is, byte for byte, a file of
// test/examples/adding-a-server, the user's own code stays under 100 lines, and this test runs
// those files as the guide says: each server over stdio as its own process, against a library API
// played on 127.0.0.1, called by the real MCP SDK client, then probed by the built
// mcp-envelope-conformance CLI.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { callWithEnvelope } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureBuilt, runCliProcess } from './helpers/cli-runner.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const GUIDE = fileURLToPath(new URL('../../docs/adding-a-server.md', import.meta.url));
const example = (name: string): string => fileURLToPath(new URL(`./examples/adding-a-server/${name}`, import.meta.url));

const BOOK = { isbn: '9780141439518', title: 'Pride and Prejudice', author: 'Jane Austen', on_shelf: 2 };

/** The fenced code blocks of a Markdown text, in order, with their language. */
function codeBlocks(markdown: string): { language: string; code: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1] ?? '',
    code: match[2] ?? '',
  }));
}

describe('docs/adding-a-server.md', () => {
  const blocks = codeBlocks(readFileSync(GUIDE, 'utf8')).filter((block) => block.language === 'ts');

  it('shows adapter.ts, server.ts and wrapped-server.ts exactly, in that order', () => {
    expect(blocks.map((block) => block.code)).toEqual(
      ['adapter.ts', 'server.ts', 'wrapped-server.ts'].map((name) => readFileSync(example(name), 'utf8')),
    );
  });

  it('builds a server in under 100 lines of the user code', () => {
    const lines = ['adapter.ts', 'server.ts'].map((name) => readFileSync(example(name), 'utf8').split('\n').length - 1);
    expect(lines.reduce((sum, count) => sum + count, 0)).toBeLessThan(100);
  });
});

let api: UpstreamReplay;

beforeAll(async () => {
  api = await startUpstreamReplay({
    routes: [
      { method: 'GET', path: '/books', response: { status: 200, body: { books: [BOOK], page: 1 } } },
      {
        method: 'GET',
        path: `/books/${BOOK.isbn}`,
        response: { status: 200, headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9' }, body: BOOK },
      },
      {
        method: 'POST',
        path: '/loans',
        response: { status: 429, headers: { 'retry-after': '7' }, body: { title: 'Too many loans today' } },
      },
    ],
    // every other book is unknown
    standing: { status: 404, headers: { 'content-type': 'application/problem+json' }, body: { title: 'Not Found' } },
  });
  await ensureBuilt();
}, 180_000);

afterAll(async () => {
  await api.close();
});

async function connect(file: string): Promise<Client> {
  const client = new Client({ name: 'guide-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', example(file), api.url],
      cwd: PACKAGE_ROOT,
      stderr: 'ignore',
    }),
  );
  return client;
}

function expectEnvelope(outcome: readonly [unknown, unknown], expected: Partial<ErrorEnvelope>): void {
  expect(outcome[1]).toMatchObject(expected);
}

describe.each(['server.ts', 'wrapped-server.ts'])('the guide server %s, over stdio', (file) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(file);
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  it('answers a book the API has', async () => {
    const [book, envelope] = await callWithEnvelope(client, 'get_book', { isbn: BOOK.isbn });
    expect(envelope).toBeNull();
    // core adds the API's rate-limit headers to an object result; the wrapped tool answers the body as text
    if (file === 'server.ts') expect(book).toEqual({ ...BOOK, _meta: { rate_limit: { limit: 10, remaining: 9 } } });
    else expect(JSON.parse(String(book))).toEqual(BOOK);
  });

  it('answers a book the API does not know with upstream_http / UPSTREAM_HTTP_404', async () => {
    expectEnvelope(await callWithEnvelope(client, 'get_book', { isbn: '9780000000002' }), {
      error_kind: 'upstream_http',
      error_code: 'UPSTREAM_HTTP_404',
      upstream: 'library-api',
      retryable: false,
      hints: ['Check the ISBN, or find the book with search_books.'],
    });
  });

  it('refuses an ISBN that is none before calling the API', async () => {
    const before = api.requests.length;
    expectEnvelope(await callWithEnvelope(client, 'get_book', { isbn: 'not-an-isbn' }), {
      error_kind: 'mcp_input_validation',
      error_code: 'SCHEMA_PATTERN_MISMATCH',
    });
    expect(api.requests.length).toBe(before);
  });
});

describe('the guide server server.ts, search and loans', () => {
  it('searches the first page unless told another', async () => {
    const client = await connect('server.ts');
    try {
      const [found, envelope] = await callWithEnvelope(client, 'search_books', { query: 'Austen' });
      expect(envelope).toBeNull();
      expect(found).toEqual({ books: [BOOK], page: 1 });
      expect(api.requests.at(-1)?.url).toBe('/books?q=Austen&page=1');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('answers a refused loan (429) with rate_limited and the Retry-After', async () => {
    const client = await connect('server.ts');
    try {
      expectEnvelope(await callWithEnvelope(client, 'borrow_book', { isbn: BOOK.isbn, member_id: 'M000001' }), {
        error_kind: 'rate_limited',
        error_code: 'RATE_LIMITED',
        retryable: true,
        _meta: { retry_after_seconds: 7 },
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe.each(['server.ts', 'wrapped-server.ts'])('mcp-envelope-conformance probe on the guide server %s', (file) => {
  it('exits 0: conformant', async () => {
    const command = `${process.execPath} --import tsx ${example(file)} ${api.url}`;
    const run = await runCliProcess(['probe', '--stdio', command, '--timeout-ms', '20000'], PACKAGE_ROOT, 120_000);
    expect(run.stdout).toContain('verdict: CONFORMANT');
    expect(run.code).toBe(0);
  }, 150_000);
});

describe('mcp-envelope-conformance probe --upstream-faults on the wrapped guide server', () => {
  it('passes every fault round: a wrapper whose valid calls fail, or that misreads upstream failures, would not', async () => {
    // the wrapped tool gives up on the upstream after 10 s (AbortSignal.timeout in the example)
    const command = `${process.execPath} --import tsx ${example('wrapped-server.ts')} {upstream}`;
    const run = await runCliProcess(
      ['probe', '--stdio', command, '--timeout-ms', '20000', '--upstream-faults', '--upstream-timeout-ms', '10000'],
      PACKAGE_ROOT,
      240_000,
    );
    expect(run.stdout).toContain('verdict: CONFORMANT');
    expect(run.stdout).toMatch(/upstream-403-remaining-zero\s.*PASS/);
    expect(run.code).toBe(0);
  }, 270_000);
});
